package io.macrodb.bench;

import io.macrodb.bench.micro.Micro;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code -e postgresql}: the servers the benchmark starts and their settings, where each configuration's databases go
 * (standalone on server 0, independent-N one per server, MacroDB-N a primary and N-1 secondaries on N servers), that
 * they are analysed once loaded and dropped when the configuration closes, that the servers' CPU time is counted, and
 * PostgreSQL's aborts. Skipped with the reason where PostgreSQL's server binaries are missing (a failure under
 * {@code -Dmacrodb.requirePostgres=true}), except the refusal without binaries, which runs everywhere.
 */
class PostgresBenchEngineTest {

    @AfterAll
    static void stopServers() { BenchEngine.POSTGRESQL.release(); }

    @Test
    void standaloneIsADatabaseOfItsOwnWithTheDocumentedSettingsAnalysedAndDroppedOnClose() throws Exception {
        Postgres.assumeAvailable();
        Deployment d = Deployment.open(SystemConfig.standalone(), BenchEngine.POSTGRESQL, new Micro(1000), 1, 0);
        String url = d.url(0);
        try (Connection c = d.connect(0); Statement s = c.createStatement()) {
            assertTrue(url.startsWith("jdbc:postgresql://127.0.0.1:"), url);
            assertEquals("off", show(s, "fsync"));
            assertEquals("off", show(s, "synchronous_commit"));
            assertEquals("off", show(s, "full_page_writes"));
            assertEquals("256MB", show(s, "shared_buffers"));
            assertEquals("200", show(s, "max_connections"));
            assertEquals("10s", show(s, "lock_timeout"), "plain clients wait for locks as long as MacroDB's sessions");
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM kv")) {
                rs.next();
                assertEquals(1000, rs.getInt(1));
            }
            assertTrue(analysed(s, "kv"), "analysed once loaded");
            c.setAutoCommit(false);
            c.setReadOnly(true);
            assertTrue(BenchEngine.POSTGRESQL.plainSetReadOnly());
            c.commit();
        }
        d.close();
        assertGone(url);
    }

    @Test
    void independentDatabasesAreOnServersOfTheirOwnAndMacroDbsSecondariesTooAllDroppedOnClose() throws Exception {
        Postgres.assumeAvailable();
        List<String> urls = new ArrayList<>();
        try (Deployment d = Deployment.open(SystemConfig.parse("independent:2", null, null), BenchEngine.POSTGRESQL, new Micro(1000), 1, 0)) {
            urls.add(d.url(0));
            urls.add(d.url(1));
            assertNotEquals(port(d.url(0)), port(d.url(1)), "two servers: " + urls);
        }
        for (String u : urls) assertGone(u);

        String primary, secondary;
        try (Deployment d = Deployment.open(SystemConfig.parse("macrodb:2", null, null), BenchEngine.POSTGRESQL, new Micro(1000), 1, 0);
             Connection c = d.connect(0); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM kv")) {
            rs.next();
            assertEquals(1000, rs.getInt(1));
            String url = d.url(0);
            // no capture named: the driver's default, logical decoding (the servers run with wal_level = logical)
            assertTrue(url.startsWith("jdbc:macrodb:postgresql://127.0.0.1:") && !url.contains("capture="), url);
            Matcher m = Pattern.compile("//(127\\.0\\.0\\.1:\\d+/[^?]+)\\?secondaries=(127\\.0\\.0\\.1:\\d+/[^&]+)&").matcher(url);
            assertTrue(m.find(), url);
            primary = "jdbc:postgresql://" + m.group(1);
            secondary = "jdbc:postgresql://" + m.group(2);
            assertNotEquals(port(primary), port(secondary), "the secondary is on a server of its own: " + url);
            try (Connection pc = DriverManager.getConnection(primary, PgServers.USER, ""); Statement ps = pc.createStatement();
                 ResultSet r1 = ps.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE plugin = 'pgoutput' AND active"
                         + " AND database = current_database()")) {
                r1.next();
                assertEquals(1, r1.getInt(1), "MacroDB reads the primary's decoding stream");
            }
            try (Connection sc = DriverManager.getConnection(secondary, PgServers.USER, ""); Statement ss = sc.createStatement();
                 ResultSet r2 = ss.executeQuery("SELECT COUNT(*) FROM kv")) {
                r2.next();
                assertEquals(1000, r2.getInt(1), "MacroDB copied the primary");
                assertTrue(analysed(ss, "kv"), "the secondary is analysed once copied");
            }
            assertNotNull(d.verify(10_000));
            assertTrue(d.verify(10_000).equal());
        }
        assertGone(primary);
        assertGone(secondary);
    }

    @Test
    void theServersCpuTimeIsCounted() throws Exception {
        Postgres.assumeAvailable();
        try (Deployment d = Deployment.open(SystemConfig.standalone(), BenchEngine.POSTGRESQL, new Micro(1000), 1, 0)) {
            long before = BenchEngine.POSTGRESQL.serverCpuNanos();
            long after;
            try (Connection c = d.connect(0); Statement s = c.createStatement()) {
                // about a second of server work, none of it in this JVM
                s.execute("SELECT count(*) FROM generate_series(1, 3000000) g, LATERAL (SELECT md5(g::text)) x");
                after = BenchEngine.POSTGRESQL.serverCpuNanos(); // while the backend that did it is still running
            }
            long used = after - before;
            // once failed in a fresh-clone CI run with exactly 0 (2026-11-27), not reproduced since: say what was read
            assertTrue(used >= 50_000_000L, "the servers' CPU time over the query: " + used + " ns (read " + before + " then "
                    + after + "; servers started here: " + PgServers.localCount() + ")");
            assertTrue(PointRunner.cpuNanos(d) >= PointRunner.processCpuNanos(), "JVM plus servers");
        }
    }

    /**
     * What {@code bench apply-capacity} rests on, on PostgreSQL with either capture: {@code MacroAdmin.pauseApplying(1, true)}
     * holds the secondary's database still on its server (read there, past MacroDB) while the primary commits, the
     * backlog grows by every commit, and the secondary's server does no work meanwhile; resumed, it applies the backlog.
     */
    @ParameterizedTest
    @ValueSource(strings = {"macrodb:2", "macrodb:2:capture=triggers"})
    void aPausedSecondaryHoldsStillOnItsServerAndCatchesUpWhenResumed(String config) throws Exception {
        Postgres.assumeAvailable();
        int commits = 60;
        try (Deployment d = Deployment.open(SystemConfig.parse(config, null, null), BenchEngine.POSTGRESQL, new Micro(1000), 1, 0)) {
            io.macrodb.jdbc.MacroAdmin admin = d.macro().admin();
            assertTrue(admin.captureStatus().startsWith(config.contains("triggers") ? "triggers" : "decoding"), admin.captureStatus());
            Matcher m = Pattern.compile("\\?secondaries=(127\\.0\\.0\\.1:\\d+/[^&]+)&").matcher(d.url(0));
            assertTrue(m.find(), d.url(0));
            String secondary = "jdbc:postgresql://" + m.group(1);
            assertTrue(admin.awaitCaughtUp(30_000));
            long sum0 = sum(secondary), version0 = secondaryStatus(admin).version();
            admin.pauseApplying(1, true);
            long[] cpu0 = BenchEngine.POSTGRESQL.serverCpuNanosEach();
            try (Connection c = d.connect(0); java.sql.PreparedStatement ps = c.prepareStatement("UPDATE kv SET val = val + 1 WHERE id = ?")) {
                c.setAutoCommit(false);
                for (int i = 0; i < commits; i++) {
                    ps.setInt(1, 1 + i * 7 % 1000);
                    assertEquals(1, ps.executeUpdate());
                    c.commit();
                }
            }
            Thread.sleep(300); // an applier that ignored the pause would have applied by now
            long[] cpu1 = BenchEngine.POSTGRESQL.serverCpuNanosEach();
            io.macrodb.replica.ReplicaStatus held = secondaryStatus(admin);
            assertEquals(version0, held.version(), "the secondary's version while paused");
            assertEquals(commits, held.lag(), "every commit is in the backlog");
            assertEquals(sum0, sum(secondary), "the secondary's database, read on its server, did not move while paused");
            assertTrue(cpu1.length >= 2 && cpu0.length == cpu1.length, "servers: " + cpu1.length);
            // no apply work: at most the odd background tick (10 ms each); the sessions of the updates ran on the primary's server
            assertTrue(cpu1[1] - cpu0[1] <= 50_000_000L, "the secondary's server while paused: " + (cpu1[1] - cpu0[1]) + " ns");
            admin.pauseApplying(1, false);
            assertTrue(admin.awaitCaughtUp(30_000), "caught up once resumed");
            assertEquals(version0 + commits, secondaryStatus(admin).version());
            assertEquals(sum0 + commits, sum(secondary), "the secondary applied the backlog");
            assertTrue(d.verify(10_000).equal(), "the replicas are equal");
        }
    }

    private static long sum(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, PgServers.USER, ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT SUM(val) FROM kv")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static io.macrodb.replica.ReplicaStatus secondaryStatus(io.macrodb.jdbc.MacroAdmin admin) throws SQLException {
        return admin.replicaStatus().stream().filter(r -> r.index() == 1).findFirst().orElseThrow();
    }

    @Test
    void postgresLockTimeoutsAndDeadlocksAreAborts() {
        SQLException timeout = new SQLException("ERROR: canceling statement due to lock timeout", "55P03");
        SQLException deadlock = new SQLException("ERROR: deadlock detected", "40P01");
        SQLException serialization = new SQLException("ERROR: could not serialize access due to concurrent update", "40001");
        for (SQLException e : new SQLException[] {timeout, deadlock, serialization}) assertTrue(PointRunner.isAbort(e), e.getSQLState());
        assertEquals("lock timeout (55P03)", PointRunner.cause(timeout));
        assertEquals("deadlock (40P01)", PointRunner.cause(deadlock));
        assertFalse(PointRunner.isAbort(new SQLException("ERROR: duplicate key value violates unique constraint", "23505")));
        assertEquals(" FOR UPDATE", BenchEngine.POSTGRESQL.forUpdate());
        assertEquals(" FETCH FIRST 3 ROWS ONLY", BenchEngine.POSTGRESQL.firstRows(3));
        assertTrue(BenchEngine.POSTGRESQL.identity().contains("GENERATED BY DEFAULT AS IDENTITY"));
        assertEquals(BenchEngine.POSTGRESQL, BenchEngine.parse("postgres"));
    }

    /** Runs everywhere: a folder without server binaries is refused with a reason, and nothing is started. */
    @Test
    void withoutServerBinariesTheReasonSaysSo() throws Exception {
        BenchEngine.POSTGRESQL.release(); // servers an earlier test started
        String before = System.getProperty(PgServers.BIN_PROPERTY);
        System.setProperty(PgServers.BIN_PROPERTY, "/nonexistent/pg/bin");
        try {
            String reason = BenchEngine.POSTGRESQL.unavailableReason();
            assertNotNull(reason);
            assertTrue(reason.contains("/nonexistent/pg/bin") && reason.contains("initdb"), reason);
            SQLException e = assertThrows(SQLException.class, () -> Deployment.open(SystemConfig.standalone(), BenchEngine.POSTGRESQL,
                    new Micro(1000), 1, 0));
            assertTrue(e.getMessage().startsWith("-e postgresql: "), e.getMessage());
        } finally {
            if (before == null) System.clearProperty(PgServers.BIN_PROPERTY);
            else System.setProperty(PgServers.BIN_PROPERTY, before);
        }
    }

    private static String show(Statement s, String setting) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static boolean analysed(Statement s, String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL FROM pg_stat_user_tables"
                + " WHERE relname = '" + table + "'")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    private static int port(String url) {
        Matcher m = Pattern.compile("127\\.0\\.0\\.1:(\\d+)/").matcher(url);
        assertTrue(m.find(), url);
        return Integer.parseInt(m.group(1));
    }

    /** The database of a plain URL is no longer on its server (the server may be stopped too). */
    private static void assertGone(String url) throws SQLException {
        Matcher m = Pattern.compile("jdbc:postgresql://(127\\.0\\.0\\.1:\\d+)/([^?]+)").matcher(url);
        assertTrue(m.find(), url);
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + m.group(1) + "/postgres", PgServers.USER, "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM pg_database WHERE datname = '" + m.group(2) + "'")) {
            rs.next();
            assertEquals(0, rs.getInt(1), m.group(2) + " still on " + m.group(1));
        }
    }
}
