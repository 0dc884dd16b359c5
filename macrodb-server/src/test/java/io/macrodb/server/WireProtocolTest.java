package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protocol details checked on the wire, byte for byte, where pgjdbc and psql would hide them: SSLRequest and
 * GSSENCRequest answered 'N', NegotiateProtocolVersion, the ParameterStatus set, the transaction status of
 * ReadyForQuery, errors discarding until Sync, row limits with PortalSuspended, oversize and malformed messages.
 */
@Timeout(30)
class WireProtocolTest {
    static PgServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(2)).withTrust(true).withMaxMessageSize(1 << 20));
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    static WireClient ready() throws Exception {
        return ready(server);
    }

    /** A raw client past startup (the server must trust) and its first ReadyForQuery. */
    static WireClient ready(PgServer server) throws Exception {
        WireClient c = new WireClient(server.port(), 10_000);
        c.send(WireClient.startupMessage("bob"));
        List<WireClient.Msg> l = c.readUntilReady();
        assertEquals('Z', l.get(l.size() - 1).type(), types(l));
        return c;
    }

    static String types(List<WireClient.Msg> l) {
        return l.stream().map(m -> String.valueOf(m.type())).collect(Collectors.joining());
    }

    static char status(List<WireClient.Msg> l) {
        WireClient.Msg z = l.get(l.size() - 1);
        assertEquals('Z', z.type());
        return (char) z.body()[0];
    }

    @Test
    void sslAndGssRequestsAreRefusedThenStartupProceeds() throws Exception {
        try (WireClient c = new WireClient(server.port(), 10_000)) {
            c.send(ByteBuffer.allocate(8).putInt(8).putInt(MessageDecoder.SSL_REQUEST).array());
            assertEquals('N', c.in.read());
            c.send(ByteBuffer.allocate(8).putInt(8).putInt(MessageDecoder.GSSENC_REQUEST).array());
            assertEquals('N', c.in.read());
            c.send(WireClient.startupMessage("bob"));
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals('R', l.get(0).type());
            List<String> params = l.stream().filter(m -> m.type() == 'S')
                    .map(m -> new String(m.body(), StandardCharsets.UTF_8).split("\0")[0]).collect(Collectors.toList());
            for (String p : List.of("server_version", "server_encoding", "client_encoding", "DateStyle", "integer_datetimes",
                    "standard_conforming_strings", "TimeZone", "application_name", "macrodb.last_commit")) {
                assertTrue(params.contains(p), p + " in " + params);
            }
            assertTrue(l.stream().anyMatch(m -> m.type() == 'K'), "BackendKeyData");
            assertEquals('I', status(l));
        }
    }

    @Test
    void newerMinorVersionIsNegotiatedDown() throws Exception {
        try (WireClient c = new WireClient(server.port(), 10_000)) {
            byte[] u = "user\0bob\0_pq_.future\0x\0\0".getBytes(StandardCharsets.UTF_8);
            c.send(ByteBuffer.allocate(8 + u.length).putInt(8 + u.length).putInt((3 << 16) | 2).put(u).array());
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals('v', l.get(0).type(), types(l));
            ByteBuffer b = ByteBuffer.wrap(l.get(0).body());
            assertEquals(3 << 16, b.getInt());
            assertEquals(1, b.getInt());
            assertEquals('I', status(l));
        }
    }

    @Test
    void unsupportedMajorVersionIsFatal() throws Exception {
        try (WireClient c = new WireClient(server.port(), 10_000)) {
            c.send(ByteBuffer.allocate(8).putInt(8).putInt(2 << 16).array());
            WireClient.Msg m = c.read();
            assertEquals('E', m.type());
            assertEquals("0A000", m.field('C'));
            assertNull(c.read(), "closed");
        }
    }

    @Test
    void transactionStatusGoesIdleBlockFailedIdle() throws Exception {
        try (WireClient c = ready()) {
            c.send(WireClient.message('Q', WireClient.cstrings("CREATE TABLE st (id INT PRIMARY KEY)")));
            assertEquals('I', status(c.readUntilReady()));
            c.send(WireClient.message('Q', WireClient.cstrings("BEGIN; INSERT INTO st VALUES (1)")));
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals("CCZ", types(l));
            assertEquals('T', status(l));
            c.send(WireClient.message('Q', WireClient.cstrings("INSERT INTO st VALUES (1); SELECT 1")));
            l = c.readUntilReady();
            assertEquals("EZ", types(l), "the error ends the query string");
            assertEquals("23505", l.get(0).field('C'));
            assertEquals('E', status(l));
            c.send(WireClient.message('Q', WireClient.cstrings("SELECT 1")));
            l = c.readUntilReady();
            assertEquals("25P02", l.get(0).field('C'));
            c.send(WireClient.message('Q', WireClient.cstrings("COMMIT")));
            l = c.readUntilReady();
            assertEquals("ROLLBACK", new String(l.get(0).body(), StandardCharsets.UTF_8).trim().replace("\0", ""),
                    "COMMIT of a failed block rolls back");
            assertEquals('I', status(l));
            c.send(WireClient.message('Q', WireClient.cstrings("SELECT COUNT(*) FROM st")));
            l = c.readUntilReady();
            assertEquals("TDCZ", types(l));
            assertEquals("0", new String(l.get(1).body(), 6, l.get(1).body().length - 6, StandardCharsets.UTF_8));
            c.send(WireClient.message('Q', WireClient.cstrings("")));
            assertEquals("IZ", types(c.readUntilReady()), "EmptyQueryResponse");
        }
    }

    static byte[] parse(String name, String sql, int... oids) {
        byte[] s = WireClient.cstrings(name, sql);
        ByteBuffer b = ByteBuffer.allocate(s.length + 2 + 4 * oids.length).put(s).putShort((short) oids.length);
        for (int o : oids) b.putInt(o);
        return WireClient.message('P', b.array());
    }

    static byte[] bind(String portal, String stmt, String... textValues) {
        byte[] names = WireClient.cstrings(portal, stmt);
        int size = names.length + 2 + 2 + 2;
        for (String v : textValues) size += 4 + (v == null ? 0 : v.getBytes(StandardCharsets.UTF_8).length);
        ByteBuffer b = ByteBuffer.allocate(size).put(names).putShort((short) 0).putShort((short) textValues.length);
        for (String v : textValues) {
            if (v == null) { b.putInt(-1); continue; }
            byte[] x = v.getBytes(StandardCharsets.UTF_8);
            b.putInt(x.length).put(x);
        }
        b.putShort((short) 0);
        return WireClient.message('B', b.array());
    }

    static byte[] execute(String portal, int maxRows) {
        byte[] n = WireClient.cstrings(portal);
        return WireClient.message('E', ByteBuffer.allocate(n.length + 4).put(n).putInt(maxRows).array());
    }

    static byte[] describe(char kind, String name) {
        byte[] n = WireClient.cstrings(name);
        return WireClient.message('D', ByteBuffer.allocate(1 + n.length).put((byte) kind).put(n).array());
    }

    static final byte[] SYNC = WireClient.message('S', new byte[0]);

    @Test
    void extendedProtocolWithRowLimitsAndErrorsDiscardingUntilSync() throws Exception {
        try (WireClient c = ready()) {
            c.send(WireClient.message('Q', WireClient.cstrings("CREATE TABLE ext (id INT PRIMARY KEY, v VARCHAR(10));"
                    + "INSERT INTO ext SELECT \"X\", 'v' || \"X\" FROM SYSTEM_RANGE(1, 5)")));
            assertEquals('I', status(c.readUntilReady()));
            c.send(parse("q", "SELECT id, v FROM ext WHERE id >= $1 ORDER BY id"));
            c.send(describe('S', "q"));
            c.send(bind("p", "q", "2"));
            c.send(execute("p", 2));
            c.send(execute("p", 2));
            c.send(execute("p", 2));
            c.send(SYNC);
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals("1tT2DDsDDsCZ", types(l));
            assertEquals(23, ByteBuffer.wrap(l.get(1).body()).getShort(0) == 1 ? ByteBuffer.wrap(l.get(1).body()).getInt(2) : -1,
                    "the parameter type inferred from the column");
            assertEquals("SELECT 0", new String(l.get(10).body(), StandardCharsets.UTF_8).replace("\0", ""));

            // an error discards everything up to Sync; the named statement survives
            c.send(parse("", "SELECT * FROM nowhere"));
            c.send(bind("", ""));
            c.send(execute("", 0));
            c.send(SYNC);
            l = c.readUntilReady();
            // the error is reported at Parse; Bind and Execute are discarded, nothing but ReadyForQuery follows it
            assertEquals("EZ", types(l));
            assertEquals("42P01", l.get(l.size() - 2).field('C'));
            c.send(bind("", "q", "5"));
            c.send(execute("", 0));
            c.send(SYNC);
            assertEquals("2DCZ", types(c.readUntilReady()));
            c.send(parse("q", "SELECT 1"));
            c.send(SYNC);
            l = c.readUntilReady();
            assertEquals("42P05", l.get(0).field('C'), "a named statement is not silently replaced");
            c.send(WireClient.message('H', new byte[0]));
            c.send(WireClient.message('C', new byte[] {'S', 'q', 0}));
            c.send(SYNC);
            assertEquals("3Z", types(c.readUntilReady()));
        }
    }

    @Test
    void oversizeMessageIsRefusedAndTheServerServesOthers() throws Exception {
        try (WireClient c = ready()) {
            c.send(ByteBuffer.allocate(5).put((byte) 'Q').putInt(2 << 20).array());
            WireClient.Msg m = c.read();
            assertNotNull(m);
            assertEquals('E', m.type());
            assertEquals("08P01", m.field('C'));
            assertNull(c.read(), "closed after the fatal error");
        }
        try (WireClient c = ready()) {
            c.send(WireClient.message('Q', WireClient.cstrings("SELECT 1")));
            assertEquals('I', status(c.readUntilReady()));
        }
    }

    @Test
    void unknownMessageTypeIsFatal() throws Exception {
        try (WireClient c = ready()) {
            c.send(WireClient.message('!', new byte[3]));
            WireClient.Msg m = c.read();
            assertEquals("08P01", m.field('C'));
            assertEquals("FATAL", m.field('S'));
            assertNull(c.read());
        }
    }

    @Test
    void clientVanishingMidTransactionLeavesNothingApplied() throws Exception {
        try (WireClient c = ready()) {
            c.send(WireClient.message('Q', WireClient.cstrings("CREATE TABLE vanish (id INT PRIMARY KEY)")));
            c.readUntilReady();
            c.send(WireClient.message('Q', WireClient.cstrings("BEGIN; INSERT INTO vanish VALUES (1)")));
            assertEquals('T', status(c.readUntilReady()));
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (WireClient c = ready()) {
                c.send(WireClient.message('Q', WireClient.cstrings("SELECT COUNT(*) FROM vanish")));
                List<WireClient.Msg> l = c.readUntilReady();
                assertEquals("TDCZ", types(l));
                byte[] row = l.get(1).body();
                assertEquals("0", new String(row, 6, row.length - 6, StandardCharsets.UTF_8));
                break;
            } catch (AssertionError e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(50);
            }
        }
    }

    @Test
    void aClientThatNeverFinishesStartupIsDropped() throws Exception {
        try (PgServer slow = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(1)).withTrust(true).withAuthTimeoutMillis(300));
             WireClient c = new WireClient(slow.port(), 5_000)) {
            long t0 = System.nanoTime();
            assertEquals(-1, c.in.read(), "closed by the server");
            assertTrue(System.nanoTime() - t0 < 4_000_000_000L);
        }
    }

    static long count(WireClient c, String table) throws Exception {
        c.send(WireClient.message('Q', WireClient.cstrings("SELECT COUNT(*) FROM " + table)));
        List<WireClient.Msg> l = c.readUntilReady();
        assertEquals("TDCZ", types(l));
        byte[] row = l.get(1).body();
        return Long.parseLong(new String(row, 6, row.length - 6, StandardCharsets.UTF_8));
    }

    @Test
    void errorsInAStatementsTextAreReportedAtParse() throws Exception {
        try (WireClient c = ready()) {
            c.send(parse("bad", "SELEC 1"));
            c.send(bind("", "bad"));
            c.send(execute("", 0));
            c.send(SYNC);
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals("EZ", types(l));
            assertEquals("42601", l.get(0).field('C'));
            assertEquals('I', status(l));
            c.send(parse("", "SELECT nope FROM (VALUES (1)) AS t(x)"));
            c.send(SYNC);
            l = c.readUntilReady();
            assertEquals("EZ", types(l));
            assertEquals("42703", l.get(0).field('C'));
            // the statement was not kept: a Bind to it fails with 26000
            c.send(bind("", "bad"));
            c.send(SYNC);
            l = c.readUntilReady();
            assertEquals("EZ", types(l));
            assertEquals("26000", l.get(0).field('C'));
            // inside a block an error at Parse fails the block, as any error does
            c.send(WireClient.message('Q', WireClient.cstrings("BEGIN")));
            assertEquals('T', status(c.readUntilReady()));
            c.send(parse("", "SELECT * FROM nowhere"));
            c.send(SYNC);
            l = c.readUntilReady();
            assertEquals("42P01", l.get(0).field('C'));
            assertEquals('E', status(l));
            c.send(WireClient.message('Q', WireClient.cstrings("ROLLBACK")));
            assertEquals('I', status(c.readUntilReady()));
        }
    }

    /** The statements between two Syncs, outside a block, are one transaction: an error rolls back all of them. */
    @Test
    void anExtendedBatchIsOneImplicitTransaction() throws Exception {
        try (WireClient c = ready()) {
            c.send(WireClient.message('Q', WireClient.cstrings("CREATE TABLE batch (id INT PRIMARY KEY)")));
            c.readUntilReady();
            c.send(parse("ins", "INSERT INTO batch VALUES ($1)", PgTypes.INT4));
            c.send(bind("", "ins", "1"));
            c.send(execute("", 0));
            c.send(bind("", "ins", "2"));
            c.send(execute("", 0));
            c.send(bind("", "ins", "1"));
            c.send(execute("", 0));
            c.send(bind("", "ins", "3"));
            c.send(execute("", 0));
            c.send(SYNC);
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals("12C2C2EZ", types(l), "the duplicate fails, the rest up to Sync is discarded");
            assertEquals("23505", l.get(6).field('C'));
            assertEquals('I', status(l));
            assertEquals(0, count(c, "batch"), "the rows inserted before the error in the same batch are rolled back");

            c.send(bind("", "ins", "1"));
            c.send(execute("", 0));
            c.send(bind("", "ins", "2"));
            c.send(execute("", 0));
            c.send(SYNC);
            l = c.readUntilReady();
            assertEquals("2C2CSZ", types(l), "one commit at Sync, reported once");
            assertTrue(new String(l.get(4).body(), StandardCharsets.UTF_8).startsWith("macrodb.last_commit\0"));
            assertEquals(2, count(c, "batch"));

            // an error while the implicit transaction holds an uncommitted row: the row is gone too
            c.send(bind("", "ins", "10"));
            c.send(execute("", 0));
            c.send(parse("", "SELECT * FROM nowhere"));
            c.send(bind("", ""));
            c.send(execute("", 0));
            c.send(SYNC);
            l = c.readUntilReady();
            assertEquals("2CEZ", types(l));
            assertEquals(2, count(c, "batch"));

            // BEGIN inside the batch makes it an explicit block, which outlives the Sync
            c.send(bind("", "ins", "20"));
            c.send(execute("", 0));
            c.send(parse("", "BEGIN"));
            c.send(bind("", ""));
            c.send(execute("", 0));
            c.send(SYNC);
            l = c.readUntilReady();
            assertEquals('T', status(l), types(l));
            c.send(WireClient.message('Q', WireClient.cstrings("ROLLBACK")));
            assertEquals('I', status(c.readUntilReady()));
            assertEquals(2, count(c, "batch"), "the row inserted before BEGIN was rolled back with the block");

            // COMMIT without BEGIN in a batch commits it, with PostgreSQL's warning
            c.send(bind("", "ins", "30"));
            c.send(execute("", 0));
            c.send(parse("", "COMMIT"));
            c.send(bind("", ""));
            c.send(execute("", 0));
            c.send(bind("", "ins", "30"));
            c.send(execute("", 0));
            c.send(SYNC);
            l = c.readUntilReady();
            assertTrue(types(l).startsWith("2C12NC"), types(l));
            assertTrue(types(l).endsWith("2EZ"), types(l));
            assertEquals(3, count(c, "batch"), "the row committed by COMMIT stays; the duplicate after it failed alone");
        }
    }

    @Test
    void statementsOfOneQueryStringAreOneTransaction() throws Exception {
        try (WireClient c = ready()) {
            c.send(WireClient.message('Q', WireClient.cstrings("CREATE TABLE implicit (id INT PRIMARY KEY)")));
            c.readUntilReady();
            c.send(WireClient.message('Q', WireClient.cstrings("INSERT INTO implicit VALUES (1); INSERT INTO implicit VALUES (2); INSERT INTO implicit VALUES (1)")));
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals("CCEZ", types(l));
            assertEquals('I', status(l));
            c.send(WireClient.message('Q', WireClient.cstrings("SELECT COUNT(*) FROM implicit")));
            l = c.readUntilReady();
            byte[] row = l.get(1).body();
            assertEquals("0", new String(row, 6, row.length - 6, StandardCharsets.UTF_8), "the failed query string applied nothing");
            c.send(WireClient.message('Q', WireClient.cstrings("INSERT INTO implicit VALUES (1); INSERT INTO implicit VALUES (2)")));
            l = c.readUntilReady();
            assertEquals("CCSZ", types(l), "one commit at the end, reported once");
            assertTrue(new String(l.get(2).body(), StandardCharsets.UTF_8).startsWith("macrodb.last_commit\0"));
            c.send(WireClient.message('Q', WireClient.cstrings("SELECT COUNT(*) FROM implicit")));
            l = c.readUntilReady();
            row = l.get(1).body();
            assertEquals("2", new String(row, 6, row.length - 6, StandardCharsets.UTF_8));
        }
    }

    @Test
    void idleSessionsAreClosedAndAnOpenTransactionRollsBack() throws Exception {
        try (PgServer idle = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(1)).withTrust(true).withIdleTimeoutMillis(400))) {
            try (WireClient c = ready(idle)) {
                c.send(WireClient.message('Q', WireClient.cstrings("CREATE TABLE idle_t (id INT PRIMARY KEY)")));
                c.readUntilReady();
                c.send(WireClient.message('Q', WireClient.cstrings("BEGIN; INSERT INTO idle_t VALUES (1)")));
                assertEquals('T', status(c.readUntilReady()));
                WireClient.Msg m = c.read();
                assertEquals("25P03", m.field('C'), "idle in transaction");
                assertNull(c.read());
            }
            try (WireClient c = ready(idle)) {
                c.send(WireClient.message('Q', WireClient.cstrings("SELECT COUNT(*) FROM idle_t")));
                List<WireClient.Msg> l = c.readUntilReady();
                byte[] row = l.get(1).body();
                assertEquals("0", new String(row, 6, row.length - 6, StandardCharsets.UTF_8), "rolled back");
                assertEquals("57P05", c.read().field('C'), "idle session");
            }
        }
    }

    @Test
    void twoPortalsOfOneStatementAreOpenAtOnce() throws Exception {
        try (WireClient c = ready()) {
            c.send(WireClient.message('Q', WireClient.cstrings("CREATE TABLE two (id INT PRIMARY KEY);"
                    + "INSERT INTO two SELECT \"X\" FROM SYSTEM_RANGE(1, 4)")));
            c.readUntilReady();
            c.send(WireClient.message('Q', WireClient.cstrings("BEGIN")));
            assertEquals('T', status(c.readUntilReady()));
            c.send(parse("s2", "SELECT id FROM two WHERE id >= $1 ORDER BY id", 23));
            c.send(bind("a", "s2", "1"));
            c.send(execute("a", 1));
            c.send(bind("b", "s2", "3"));
            c.send(execute("b", 0));
            c.send(execute("a", 0));
            c.send(SYNC);
            List<WireClient.Msg> l = c.readUntilReady();
            assertEquals("12Ds2DDCDDDCZ", types(l));
            StringBuilder ids = new StringBuilder();
            for (WireClient.Msg m : l) {
                if (m.type() == 'D') ids.append(new String(m.body(), 6, m.body().length - 6, StandardCharsets.UTF_8)).append(',');
            }
            assertEquals("1,3,4,2,3,4,", ids.toString(), "portal a resumes where it stopped");
            c.send(WireClient.message('Q', WireClient.cstrings("COMMIT")));
            assertEquals('I', status(c.readUntilReady()));
        }
    }
}
