package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real psql client, scripted, against a server on loopback: its output (rows unaligned, command tags) must
 * equal a golden file. psql's default {@code sslmode=prefer} also exercises the SSLRequest answered 'N'.
 * CI installs psql ({@code .ci/run}); elsewhere the test is skipped when there is no psql.
 */
@Timeout(60)
class PsqlTest {
    static String psql() {
        for (String p : new String[] {"/usr/bin/psql", "/usr/local/bin/psql"}) {
            if (new File(p).canExecute()) return p;
        }
        return null;
    }

    @Test
    void scriptedSessionMatchesGoldenOutput() throws Exception {
        try (PgServer server = ServerFixture.start(2)) {
            assertEquals(0, runScript(server, "basic", "basic", "-A", "-t", "-v", "ON_ERROR_STOP=1"));
        }
    }

    /**
     * psql's describe commands ({@code \d TABLE} with columns, types, not-null, defaults, indexes with the primary
     * key, foreign keys both ways; {@code \d VIEW}, {@code \d INDEX}, {@code \dt \di \dv \dn \l \du}) in psql's own
     * aligned format, over H2: answered from the engine's metadata ({@link PgCatalog}). The index and constraint
     * names the engine generated are part of the golden output.
     */
    @Test
    void describeCommandsOverH2MatchGoldenOutput() throws Exception {
        String url = "jdbc:macrodb:h2:mem:psqlcatalog;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH?replicas=2";
        try (PgServer server = PgServer.start(PgServer.Config.of(url).withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)))) {
            assertEquals(0, runScript(server, "catalog", "catalog-h2"));
        }
    }

    /**
     * The same describe commands over HSQLDB, whose upper-case names psql sees in lower case. HSQLDB numbers the
     * names it generates (SYS_PK_10099, and a routine's SPECIFIC ADD_TAX_10097) from a counter that other tests in
     * the JVM advance: the numbers are compared as N.
     */
    @Test
    void describeCommandsOverHsqldbMatchGoldenOutput() throws Exception {
        String url = "jdbc:macrodb:hsqldb:mem:psqlcatalogh;sql.syntax_pgs=true?replicas=2";
        try (PgServer server = PgServer.start(PgServer.Config.of(url).withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)))) {
            assertEquals(0, runScript(server, "catalog", "catalog-hsqldb"));
        }
    }

    /**
     * psql's {@code \df} and {@code \dT} (with {@code +}, the {@code \dfa \dfn \dfp} kinds and patterns) over H2:
     * Java functions (CREATE ALIAS), an aggregate (CREATE AGGREGATE), domains, one in a schema off the search path.
     */
    @Test
    void functionsAndTypesOverH2MatchGoldenOutput() throws Exception {
        String url = "jdbc:macrodb:h2:mem:psqlroutines;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH?replicas=2";
        try (PgServer server = PgServer.start(PgServer.Config.of(url).withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)))) {
            assertEquals(0, runScript(server, "routines-h2", "routines-h2"));
        }
    }

    /** The same over HSQLDB: SQL functions and a procedure (CREATE FUNCTION, CREATE PROCEDURE), domains, a distinct type. */
    @Test
    void functionsAndTypesOverHsqldbMatchGoldenOutput() throws Exception {
        String url = "jdbc:macrodb:hsqldb:mem:psqlroutinesh;sql.syntax_pgs=true?replicas=2";
        try (PgServer server = PgServer.start(PgServer.Config.of(url).withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)))) {
            assertEquals(0, runScript(server, "routines-hsqldb", "routines-hsqldb"));
        }
    }

    /** A user-defined H2 aggregate (routines-h2.sql creates it): the number of rows. */
    public static final class CountAll implements org.h2.api.AggregateFunction {
        private long n;

        @Override
        public void init(java.sql.Connection c) { }

        @Override
        public int getType(int[] inputTypes) { return java.sql.Types.BIGINT; }

        @Override
        public void add(Object value) { n++; }

        @Override
        public Object getResult() { return n; }
    }

    /** Runs psql/{script}.sql, compares its output with psql/{expected}.expected; psql's exit status. */
    static int runScript(PgServer server, String script, String expectedName, String... options) throws Exception {
        String psql = psql();
        assumeTrue(psql != null, "psql is not installed (apt-get install postgresql-client); .ci/run installs it");
        Path file = Files.createTempFile("macrodb-psql", ".sql");
        try (InputStream in = PsqlTest.class.getResourceAsStream("/psql/" + script + ".sql")) {
            Files.write(file, in.readAllBytes());
        }
        List<String> cmd = new ArrayList<>(List.of(psql, "-X"));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of("-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", ServerFixture.USER, "-d", "shop",
                "-f", file.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("PGPASSWORD", ServerFixture.PASSWORD);
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        pb.environment().put("PGGSSENCMODE", "disable");
        pb.environment().put("PAGER", "");
        pb.environment().put("COLUMNS", "200");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        byte[] output = p.getInputStream().readAllBytes();
        assertEquals(true, p.waitFor(30, TimeUnit.SECONDS), "psql finished");
        String actual = new String(output, StandardCharsets.UTF_8).replace(file.toString(), "SCRIPT");
        if (expectedName.endsWith("hsqldb")) {
            actual = actual.replaceAll("\\bsys_(pk|fk|ct|idx)_\\d+", "sys_$1_N").replaceAll("\\b(SPECIFIC \\w+)_\\d+", "$1_N");
        }
        Files.deleteIfExists(file);
        String expected;
        try (InputStream in = PsqlTest.class.getResourceAsStream("/psql/" + expectedName + ".expected")) {
            expected = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!expected.equals(actual)) Files.writeString(Path.of("target", expectedName + ".actual"), actual);
        assertEquals(expected, actual, "psql output (actual output in target/" + expectedName + ".actual)");
        return p.exitValue();
    }
}
