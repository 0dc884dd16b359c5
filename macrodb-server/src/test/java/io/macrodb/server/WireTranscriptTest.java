package io.macrodb.server;

import static io.macrodb.server.WireProtocolTest.SYNC;
import static io.macrodb.server.WireProtocolTest.bind;
import static io.macrodb.server.WireProtocolTest.describe;
import static io.macrodb.server.WireProtocolTest.execute;
import static io.macrodb.server.WireProtocolTest.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protocol-level cases as transcripts of the messages a server answers (types, command tags, transaction status,
 * SQLSTATEs, row values; not the texts of messages, nor ParameterStatus and BackendKeyData): the transcripts in
 * {@code wire/transcripts.txt} were recorded against a real PostgreSQL, and this server must answer the same.
 * {@link #recordedTranscriptsAreThoseOfARealPostgres} starts Debian's PostgreSQL (initdb in a temporary
 * directory, as the {@code postgres} user when the tests run as root, since initdb refuses root) and checks the
 * file against it; it is skipped where no PostgreSQL server is installed. {@code -Dmacrodb.recordTranscripts=true}
 * rewrites the file from the real server.
 */
@Timeout(120)
class WireTranscriptTest {
    private static final Path FILE = Path.of("src/test/resources/wire/transcripts.txt");

    /** One step: messages sent, then the answers read until this many ReadyForQuery (or a FATAL error). */
    private record Step(int readies, byte[]... messages) { }

    private static byte[] q(String sql) { return WireClient.message('Q', WireClient.cstrings(sql)); }

    private static Step simple(String sql) { return new Step(1, q(sql)); }

    private static Step ext(byte[]... messages) { return new Step(1, messages); }

    /** The cases, each on a fresh connection; table names differ so that they share one database. */
    static Map<String, List<Step>> scenarios() {
        Map<String, List<Step>> m = new LinkedHashMap<>();
        m.put("simple query: several statements, an error stops the rest and rolls back the implicit transaction", List.of(
                simple("CREATE TABLE w1 (id INT PRIMARY KEY, v VARCHAR(10))"),
                simple("INSERT INTO w1 VALUES (1, 'a'); INSERT INTO w1 VALUES (1, 'b'); INSERT INTO w1 VALUES (2, 'c')"),
                simple("SELECT count(*) FROM w1"),
                simple("INSERT INTO w1 VALUES (1, 'a'); INSERT INTO w1 VALUES (2, 'b')"),
                simple("SELECT id, v FROM w1 ORDER BY id")));
        m.put("empty queries", List.of(simple(""), simple(";"), simple("  ")));
        m.put("transaction status and errors inside a block", List.of(
                simple("BEGIN"), simple("SELECT 1/0"), simple("SELECT 1"), simple("COMMIT"), simple("COMMIT"),
                simple("ROLLBACK"), simple("BEGIN; BEGIN"), simple("ROLLBACK")));
        m.put("an error in the statement's text is reported at Parse, the rest discarded until Sync", List.of(
                ext(parse("", "SELEC 1"), bind("", ""), execute("", 0), SYNC),
                ext(parse("", "SELECT 1 FROM nowhere"), SYNC),
                ext(SYNC)));
        m.put("the statements between two Syncs are one implicit transaction", List.of(
                simple("CREATE TABLE w2 (id INT PRIMARY KEY)"),
                ext(parse("ins", "INSERT INTO w2 VALUES ($1)", PgTypes.INT4), bind("", "ins", "1"), execute("", 0), bind("", "ins", "2"),
                        execute("", 0), bind("", "ins", "1"), execute("", 0), bind("", "ins", "3"), execute("", 0), SYNC),
                simple("SELECT count(*) FROM w2"),
                ext(bind("", "ins", "1"), execute("", 0), bind("", "ins", "2"), execute("", 0), SYNC),
                simple("SELECT count(*) FROM w2")));
        m.put("row limits and PortalSuspended", List.of(
                simple("CREATE TABLE w3 (id INT PRIMARY KEY)"),
                simple("INSERT INTO w3 VALUES (1), (2), (3)"),
                ext(parse("q", "SELECT id FROM w3 ORDER BY id"), bind("p", "q"), execute("p", 2), execute("p", 2), SYNC)));
        m.put("Describe of statements", List.of(
                simple("CREATE TABLE w4 (id INT PRIMARY KEY, v VARCHAR(10))"),
                ext(parse("s", "SELECT id, v FROM w4 WHERE id = $1", PgTypes.INT4), describe('S', "s"), SYNC),
                ext(parse("n", "INSERT INTO w4 VALUES ($1, $2)", PgTypes.INT4, PgTypes.VARCHAR), describe('S', "n"), SYNC),
                ext(bind("pp", "s", "1"), describe('P', "pp"), execute("pp", 0), SYNC)));
        m.put("named statements and portals: duplicates, unknown names, wrong parameter counts", List.of(
                ext(parse("a", "SELECT 1"), parse("a", "SELECT 2"), SYNC),
                ext(bind("", "nosuch"), SYNC),
                ext(execute("noportal", 0), SYNC),
                ext(WireClient.message('C', new byte[] {'S', 'n', 'o', 0}), SYNC),
                ext(bind("", "a", "1"), SYNC),
                ext(bind("", "a"), execute("", 0), SYNC)));
        m.put("command tags and several results in one query", List.of(
                simple("CREATE TABLE w5 (id INT PRIMARY KEY, v INT)"),
                simple("INSERT INTO w5 VALUES (1, 10), (2, 20), (3, 30)"),
                simple("UPDATE w5 SET v = v + 1 WHERE id >= 2"),
                simple("DELETE FROM w5 WHERE id = 1"),
                simple("SELECT 1; SELECT 2, 3"),
                simple("SELECT v FROM w5 WHERE id = 99"),
                simple("DROP TABLE w5")));
        m.put("extended protocol inside a block: an error fails it until ROLLBACK", List.of(
                simple("CREATE TABLE w6 (id INT PRIMARY KEY)"),
                simple("BEGIN"),
                ext(parse("", "INSERT INTO w6 VALUES ($1)", PgTypes.INT4), bind("", "", "1"), execute("", 0), SYNC),
                ext(parse("", "INSERT INTO w6 VALUES (1)"), bind("", ""), execute("", 0), SYNC),
                ext(parse("", "SELECT 1"), bind("", ""), execute("", 0), SYNC),
                ext(parse("", "ROLLBACK"), bind("", ""), execute("", 0), SYNC),
                simple("SELECT count(*) FROM w6")));
        m.put("extended protocol: empty statement, several commands, SHOW, NoData, closed portals", List.of(
                ext(parse("", ""), bind("", ""), describe('P', ""), execute("", 0), SYNC),
                ext(parse("", "SELECT 1; SELECT 2"), SYNC),
                ext(parse("", "SHOW transaction_read_only"), bind("", ""), execute("", 0), SYNC),
                ext(parse("", "CREATE TABLE w7 (id INT)"), bind("", ""), describe('P', ""), execute("", 0), SYNC),
                ext(parse("s7", "SELECT id FROM w7"), bind("p7", "s7"), WireClient.message('C', new byte[] {'P', 'p', '7', 0}), execute("p7", 0), SYNC),
                ext(bind("p7", "s7"), SYNC),
                ext(execute("p7", 0), SYNC)));
        m.put("COPY FROM STDIN and TO STDOUT", List.of(
                simple("CREATE TABLE w8 (id INT PRIMARY KEY, v VARCHAR(10))"),
                new Step(1, q("COPY w8 FROM STDIN"), WireClient.message('d', "1\ta\n2\t\\N\n".getBytes(StandardCharsets.UTF_8)),
                        WireClient.message('c', new byte[0])),
                new Step(1, q("COPY w8 FROM STDIN"), WireClient.message('d', "3\tc\n1\tdup\n".getBytes(StandardCharsets.UTF_8)),
                        WireClient.message('c', new byte[0])),
                new Step(1, q("COPY w8 FROM STDIN"), WireClient.message('d', "4\td\n".getBytes(StandardCharsets.UTF_8)),
                        WireClient.message('f', WireClient.cstrings("client gave up"))),
                simple("COPY w8 TO STDOUT"),
                simple("COPY (SELECT id FROM w8 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)")));
        m.put("types in text and binary, parameters inferred, bad parameter values", List.of(
                simple("CREATE TABLE w9 (i INT PRIMARY KEY, b BIGINT, n NUMERIC(8,2), t VARCHAR(10), f BOOLEAN, d DATE, ts TIMESTAMP, r DOUBLE PRECISION)"),
                simple("INSERT INTO w9 VALUES (1, 9000000000, 12.50, 'x', true, DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05.5', 1.25),"
                        + " (2, NULL, -0.01, NULL, false, NULL, NULL, NULL)"),
                simple("SELECT i, b, n, t, f, d, ts, r FROM w9 ORDER BY i"),
                ext(parse("sel", "SELECT i, b, n, t, f, d, ts, r FROM w9 WHERE i = $1"), describe('S', "sel"), SYNC),
                ext(bindBinaryResults("", "sel", "1"), execute("", 0), SYNC),
                ext(bind("", "sel", "abc"), execute("", 0), SYNC),
                ext(bind("", "sel", "2"), execute("", 0), SYNC)));
        m.put("DEALLOCATE removes named statements, as Close does", List.of(
                ext(parse("da", "SELECT 1"), parse("db", "SELECT 2"), SYNC),
                simple("DEALLOCATE da"),
                ext(bind("", "da"), SYNC),
                simple("DEALLOCATE da"),
                simple("DEALLOCATE PREPARE db"),
                ext(parse("dc", "SELECT 3"), SYNC),
                simple("DEALLOCATE ALL"),
                ext(bind("", "dc"), SYNC)));
        m.put("SET with a bad value, RESET, RESET ALL and DISCARD ALL", List.of(
                simple("SET default_transaction_read_only = maybe"),
                simple("SET application_name = 'x'"), simple("SHOW application_name"),
                simple("RESET application_name"), simple("SHOW application_name"),
                simple("SET default_transaction_read_only = on"), simple("SHOW default_transaction_read_only"),
                simple("RESET ALL"), simple("SHOW default_transaction_read_only"),
                simple("BEGIN"), simple("DISCARD ALL"), simple("ROLLBACK"),
                ext(parse("dd", "SELECT 1"), SYNC),
                simple("SET default_transaction_read_only = on"),
                simple("DISCARD ALL"), simple("SHOW default_transaction_read_only"),
                ext(bind("", "dd"), SYNC),
                simple("DISCARD PLANS"), simple("RESET TIME ZONE"), simple("SET TIME ZONE 'Nowhere/Atlantis'"),
                simple("SET timezone = 'Europe/Paris'"), simple("SHOW timezone")));
        m.put("an unknown message type is fatal", List.of(new Step(1, WireClient.message('y', new byte[0]))));
        m.put(COLUMN_NAMES, List.of(
                simple("CREATE TABLE wn (id INT PRIMARY KEY, v INT, s VARCHAR(10), d DATE)"),
                simple("SELECT count(*), sum(v), max(v), min(s), avg(v), count(DISTINCT v), count(*) AS n, count(*) c FROM wn WHERE id < 0"),
                simple("SELECT id, wn.v, v AS \"Value\", s AS Label, v + 1, -v, 'x', 1, NULL, true, (v) FROM wn WHERE id < 0"),
                simple("SELECT lower(s), upper(s), coalesce(s, 'z'), nullif(v, 10), abs(v), length(s), CAST(v AS BIGINT), CAST(1 AS INT),"
                        + " CASE WHEN v > 10 THEN 'big' ELSE 'small' END, CASE WHEN v > 10 THEN s ELSE s END, CASE WHEN v > 1 THEN 1 END FROM wn WHERE id < 0"),
                simple("SELECT current_date, (SELECT max(v) FROM wn), EXISTS (SELECT 1 FROM wn), DATE '2024-01-02', CAST(d AS TIMESTAMP),"
                        + " CAST('1' AS DOUBLE PRECISION), trim(s), s || 'x' FROM wn WHERE id < 0"),
                simple("SELECT sum(v) + 1, (count(*)), count(*) FILTER (WHERE v > 1) FROM wn WHERE id < 0"),
                simple("SELECT max(v) FROM wn UNION SELECT min(v) FROM wn WHERE id < 0"),
                simple("WITH t AS (SELECT v FROM wn) SELECT sum(v), count(*) FROM t WHERE v < 0"),
                simple("VALUES (1, 'a')"),
                ext(parse("", "SELECT count(*), max(v) FROM wn WHERE id = $1", PgTypes.INT4), describe('S', ""), SYNC),
                simple("COPY (SELECT count(*), max(v) FROM wn) TO STDOUT WITH (FORMAT csv, HEADER)")));
        return m;
    }

    /** The case naming result columns, run over HSQLDB too ({@link #hsqldbNamesResultColumnsAsTheRecordedPostgres}). */
    static final String COLUMN_NAMES = "result columns are named as PostgreSQL names them: aggregates, functions, casts, CASE, expressions";

    /** Bind with text parameters and every result column in binary. */
    static byte[] bindBinaryResults(String portal, String stmt, String... textValues) {
        byte[] b = bind(portal, stmt, textValues);
        // replace the trailing result-format count 0 with count 1, format 1 (binary for all columns)
        byte[] out = java.util.Arrays.copyOf(b, b.length + 2);
        ByteBuffer w = ByteBuffer.wrap(out);
        w.putInt(1, w.getInt(1) + 2);
        w.putShort(b.length - 2, (short) 1);
        w.putShort(b.length, (short) 1);
        return out;
    }

    /** A message as a transcript line. */
    static String line(WireClient.Msg m) {
        char t = m.type();
        ByteBuffer b = ByteBuffer.wrap(m.body());
        switch (t) {
            case 'E': case 'N': return t + " " + m.field('S') + " " + m.field('C');
            case 'C': return "C " + new String(m.body(), 0, m.body().length - 1, StandardCharsets.UTF_8);
            case 'Z': return "Z " + (char) m.body()[0];
            case 'T': {
                // the column count and names (PostgreSQL's FigureColname), not types or table positions
                StringBuilder s = new StringBuilder("T ");
                int n = b.getShort();
                s.append(n);
                for (int i = 0; i < n; i++) {
                    int start = b.position();
                    while (b.get() != 0) { }
                    s.append(' ').append(new String(m.body(), start, b.position() - start - 1, StandardCharsets.UTF_8));
                    b.position(b.position() + 18);
                }
                return s.toString();
            }
            case 'd': return "d " + new String(m.body(), StandardCharsets.UTF_8).replace("\n", "\\n").replace("\t", "\\t");
            case 'G': case 'H': return t + " " + b.get() + " " + b.getShort();
            case 't': {
                StringBuilder s = new StringBuilder("t");
                int n = b.getShort();
                for (int i = 0; i < n; i++) s.append(' ').append(b.getInt());
                return s.toString();
            }
            case 'D': {
                StringBuilder s = new StringBuilder("D");
                int n = b.getShort();
                for (int i = 0; i < n; i++) {
                    int len = b.getInt();
                    if (len < 0) { s.append(" NULL"); continue; }
                    byte[] v = new byte[len];
                    b.get(v);
                    boolean printable = true;
                    for (byte x : v) printable &= x >= 32 && x < 127;
                    s.append(' ').append(printable ? new String(v, StandardCharsets.UTF_8) : "\\x" + java.util.HexFormat.of().formatHex(v));
                }
                return s.toString();
            }
            default: return String.valueOf(t);
        }
    }

    static byte[] startup(String user) {
        byte[] u = ("user\0" + user + "\0database\0postgres\0\0").getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + u.length).putInt(8 + u.length).putInt(MessageDecoder.PROTOCOL_3).put(u).array();
    }

    /** Every scenario against a server (trusting {@code user}), as the transcript file spells them. */
    static String transcripts(int port, String user) throws IOException {
        return transcripts(port, user, null);
    }

    /** The scenario named {@code only} (every scenario if null) against a server, as the transcript file spells it. */
    static String transcripts(int port, String user, String only) throws IOException {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, List<Step>> sc : scenarios().entrySet()) {
            if (only != null && !only.equals(sc.getKey())) continue;
            out.append("## ").append(sc.getKey()).append('\n');
            try (WireClient c = new WireClient(port, 10_000)) {
                c.send(startup(user));
                List<WireClient.Msg> l = c.readUntilReady();
                if (l.isEmpty() || l.get(l.size() - 1).type() != 'Z') throw new IOException("startup failed: " + l.stream().map(WireTranscriptTest::line).toList());
                for (Step st : sc.getValue()) {
                    out.append('>');
                    for (byte[] msg : st.messages()) out.append(' ').append((char) msg[0]);
                    out.append('\n');
                    for (byte[] msg : st.messages()) c.out.write(msg);
                    c.out.flush();
                    for (int r = 0; r < st.readies(); r++) {
                        List<WireClient.Msg> got = c.readUntilReady();
                        for (WireClient.Msg m : got) if (m.type() != 'S' && m.type() != 'K') out.append(line(m)).append('\n');
                        if (got.isEmpty() || got.get(got.size() - 1).type() != 'Z') {
                            out.append(c.read() == null ? "(closed)\n" : "(still open)\n");
                            break;
                        }
                    }
                }
            }
        }
        return out.toString();
    }

    private static String recorded() throws IOException {
        try (InputStream in = WireTranscriptTest.class.getResourceAsStream("/wire/transcripts.txt")) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void thisServerAnswersAsTheRecordedPostgres() throws Exception {
        try (PgServer s = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(2)).withTrust(true))) {
            String actual = transcripts(s.port(), "postgres");
            if (!actual.equals(recorded())) Files.writeString(Path.of("target", "transcripts.actual"), actual);
            assertEquals(recorded(), actual, "this server's answers (in target/transcripts.actual) against PostgreSQL's");
        }
    }

    /**
     * The result-column names over HSQLDB, which labels an unaliased expression C1, C2 ... and folds names to upper
     * case: the same names as the recorded PostgreSQL's.
     */
    @Test
    void hsqldbNamesResultColumnsAsTheRecordedPostgres() throws Exception {
        String url = "jdbc:macrodb:hsqldb:mem:wirenames" + System.nanoTime() + ";sql.syntax_pgs=true?replicas=2";
        try (PgServer s = PgServer.start(PgServer.Config.of(url).withTrust(true))) {
            String recorded = recorded();
            int at = recorded.indexOf("## " + COLUMN_NAMES + "\n");
            int end = recorded.indexOf("\n## ", at + 1);
            String expected = recorded.substring(at, end < 0 ? recorded.length() : end + 1);
            assertEquals(expected, transcripts(s.port(), "postgres", COLUMN_NAMES), "HSQLDB's result columns named as PostgreSQL's");
        }
    }

    @Test
    void recordedTranscriptsAreThoseOfARealPostgres() throws Exception {
        File bin = postgresBin();
        assumeTrue(bin != null, "no PostgreSQL server installed (/usr/lib/postgresql/*/bin/postgres)");
        boolean root = "root".equals(System.getProperty("user.name"));
        assumeTrue(!root || run(List.of("id", "-u", "postgres"), 10) == 0, "running as root and there is no postgres user to run initdb as");
        Path data = Files.createTempDirectory("macrodb-pg-");
        int port;
        try (ServerSocket ss = new ServerSocket(0)) {
            port = ss.getLocalPort();
        }
        try {
            if (root) assertEquals(0, run(List.of("chown", "postgres", data.toString()), 10));
            assertEquals(0, run(as(root, new File(bin, "initdb").getPath(), "-D", data.resolve("db").toString(), "-U", "postgres",
                    "--auth=trust", "-E", "UTF8", "--no-sync"), 120), "initdb");
            assertEquals(0, run(as(root, new File(bin, "pg_ctl").getPath(), "-D", data.resolve("db").toString(), "-w", "-t", "60",
                    "-l", data.resolve("log").toString(), "-o", "-p " + port + " -k " + data + " -c listen_addresses=127.0.0.1 -c fsync=off",
                    "start"), 90), "pg_ctl start");
            String actual = transcripts(port, "postgres");
            if (Boolean.getBoolean("macrodb.recordTranscripts")) {
                Files.createDirectories(FILE.getParent());
                Files.writeString(FILE, actual);
            }
            assertEquals(recorded(), actual, "the recorded transcripts are what a real PostgreSQL answers");
        } finally {
            run(as(root, new File(bin, "pg_ctl").getPath(), "-D", data.resolve("db").toString(), "-m", "immediate", "stop"), 60);
            run(List.of("rm", "-rf", data.toString()), 30);
        }
    }

    private static File postgresBin() {
        File[] versions = new File("/usr/lib/postgresql").listFiles();
        if (versions == null) return null;
        File best = null;
        for (File v : versions) {
            File b = new File(v, "bin");
            if (new File(b, "postgres").canExecute() && new File(b, "initdb").canExecute() && (best == null || v.getName().compareTo(best.getParentFile().getName()) > 0)) best = b;
        }
        return best;
    }

    private static List<String> as(boolean root, String... cmd) {
        List<String> l = new ArrayList<>();
        if (root) l.addAll(List.of("runuser", "-u", "postgres", "--"));
        l.addAll(List.of(cmd));
        return l;
    }

    private static int run(List<String> cmd, int seconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}
