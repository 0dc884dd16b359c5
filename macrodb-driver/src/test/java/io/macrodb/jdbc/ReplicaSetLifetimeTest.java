package io.macrodb.jdbc;

import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.ReplicaSets;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lifetime of a replica set (issue 12, item 5): it lives as the engine keeps its database. With
 * H2's {@code DB_CLOSE_DELAY=-1}, an HSQLDB memory database, or {@code closeDelay=-1} it outlives its
 * last connection, and the next connection gets the same set (nothing is copied again) until
 * {@code SHUTDOWN}; with a delay of N seconds it closes N seconds after the last connection; without
 * one (plain H2 {@code mem:}) it closes with the last connection, as before.
 */
class ReplicaSetLifetimeTest {

    private static String name() { return "life_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10); }

    private static ReplicaSet setOf(Connection c) throws SQLException { return TestDb.macro(c).replicaSet(); }

    private static void fill(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
            s.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')");
        }
    }

    /** The rows as a read-only transaction on a secondary sees them. */
    private static int countOnASecondary(Connection c) throws SQLException {
        c.unwrap(MacroAdmin.class).awaitCaughtUp(30_000);
        c.setReadOnly(true);
        c.setAutoCommit(false);
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
            assertFalse(TestDb.macro(c).currentReplica().isPrimary(), "a read-only transaction runs on a secondary");
            rs.next();
            return rs.getInt(1);
        } finally {
            c.commit();
            c.setAutoCommit(true);
            c.setReadOnly(false);
        }
    }

    private static void shutdown(String url) throws SQLException {
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
            assertTrue(c.isClosed(), "SHUTDOWN closes the connection that ran it, as on the engine");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2:mem:%s;DB_CLOSE_DELAY=-1", "hsqldb:mem:%s", "h2:mem:%s?closeDelay=-1"})
    void aKeptSetOutlivesItsLastConnectionAndIsReusedUntilShutdown(String form) throws Exception {
        String engineUrl = String.format(form, name());
        String url = "jdbc:macrodb:" + engineUrl + (engineUrl.contains("?") ? "&" : "?") + "replicas=3";
        String key = "jdbc:" + engineUrl.replaceAll("\\?.*", "");
        ReplicaSet first;
        try (Connection c = TestDb.open(url)) {
            first = setOf(c);
            fill(c);
        }
        assertTrue(ReplicaSets.isOpen(key), "kept after the last connection closed");
        long opened = ReplicaSets.opened();
        try (Connection c = TestDb.open(url)) {
            assertSame(first, setOf(c), "the second connection gets the same replica set");
            assertEquals(opened, ReplicaSets.opened(), "no replica set was opened, so nothing was copied");
            assertEquals(3, countOnASecondary(c), "the secondaries still hold the data");
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO t VALUES (4, 'four')");
            }
            TestDb.assertConverged(c);
        }

        shutdown(url);
        assertFalse(ReplicaSets.isOpen(key), "SHUTDOWN closes a kept set");
        try (Connection c = TestDb.open(url)) {
            assertNotSame(first, setOf(c));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'T'")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "SHUTDOWN closed the engine's database too: it starts empty");
            }
        }
        shutdown(url);
    }

    @Test
    void withoutADelayTheSetClosesWithItsLastConnectionAsH2ClosesItsDatabase() throws Exception {
        String url = TestDb.url("h2", "replicas=2");
        String key = "jdbc:" + url.substring("jdbc:macrodb:".length(), url.indexOf('?'));
        ReplicaSet first;
        try (Connection c = TestDb.open(url)) {
            first = setOf(c);
            fill(c);
            assertTrue(ReplicaSets.isOpen(key));
        }
        assertFalse(ReplicaSets.isOpen(key), "closed with the last connection");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'T'")) {
            assertNotSame(first, setOf(c));
            rs.next();
            assertEquals(0, rs.getInt(1), "a new, empty database, as plain H2 gives");
        }
    }

    @Test
    void hsqldbShutdownTrueClosesTheSetWithItsLastConnection() throws Exception {
        String engineUrl = "hsqldb:mem:" + name() + ";shutdown=true";
        String url = "jdbc:macrodb:" + engineUrl + "?replicas=2";
        try (Connection c = TestDb.open(url)) {
            fill(c);
        }
        assertFalse(ReplicaSets.isOpen("jdbc:" + engineUrl));
    }

    @Test
    void aSetWithADelayOfNSecondsClosesAfterIt() throws Exception {
        String engineUrl = "h2:mem:" + name() + ";DB_CLOSE_DELAY=1";
        String url = "jdbc:macrodb:" + engineUrl + "?replicas=2";
        try (Connection c = TestDb.open(url)) {
            fill(c);
        }
        // closes about a second later; the bound is generous for a loaded machine
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (ReplicaSets.isOpen("jdbc:" + engineUrl) && System.nanoTime() < deadline) Thread.sleep(50);
        assertFalse(ReplicaSets.isOpen("jdbc:" + engineUrl), "closed after its delay");
    }

    @Test
    void aConnectionWithinTheDelayKeepsTheSet() throws Exception {
        // A long delay (an hour), so that the reconnection below is within it on any machine
        String engineUrl = "h2:mem:" + name();
        String url = "jdbc:macrodb:" + engineUrl + "?replicas=2&closeDelay=3600";
        ReplicaSet first;
        try (Connection c = TestDb.open(url)) {
            first = setOf(c);
            fill(c);
        }
        assertTrue(ReplicaSets.isOpen("jdbc:" + engineUrl));
        try (Connection c = TestDb.open(url)) {
            assertSame(first, setOf(c));
            assertEquals(3, countOnASecondary(c));
        }
        shutdown(url);
        assertFalse(ReplicaSets.isOpen("jdbc:" + engineUrl));
    }

    @Test
    void aKeptSetRefusesAnotherCloseDelay() throws Exception {
        String engineUrl = "h2:mem:" + name();
        String url = "jdbc:macrodb:" + engineUrl + "?replicas=2&closeDelay=-1";
        try (Connection c = TestDb.open(url)) {
            fill(c);
        }
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open("jdbc:macrodb:" + engineUrl + "?replicas=2").close());
        assertEquals("08001", e.getSQLState(), e::toString);
        assertTrue(e.getMessage().contains("closeDelay"), e::getMessage);
        shutdown(url);
    }

    @Test
    void shutdownClosesTheSetUnderOtherConnectionsToo() throws Exception {
        String engineUrl = "h2:mem:" + name() + ";DB_CLOSE_DELAY=-1";
        String url = "jdbc:macrodb:" + engineUrl + "?replicas=2";
        try (Connection other = TestDb.open(url)) {
            fill(other);
            shutdown(url);
            assertFalse(ReplicaSets.isOpen("jdbc:" + engineUrl));
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Statement s = other.createStatement()) {
                    s.executeQuery("SELECT COUNT(*) FROM t").close();
                }
            });
            assertTrue(e.getSQLState() != null, e::toString);
        }
        assertFalse(ReplicaSets.isOpen("jdbc:" + engineUrl));
    }

    /** The engine closes the primary's database under a kept set without connections: the set closes, no secondary is promoted. */
    @Test
    void aKeptSetWhoseDatabaseTheEngineClosedCloses() throws Exception {
        String engineUrl = "h2:mem:" + name() + ";DB_CLOSE_DELAY=-1";
        String url = "jdbc:macrodb:" + engineUrl + "?replicas=2";
        ReplicaSet first;
        try (Connection c = TestDb.open(url)) {
            first = setOf(c);
            fill(c);
        }
        try (Connection plain = java.sql.DriverManager.getConnection("jdbc:" + engineUrl, "sa", "");
             Statement s = plain.createStatement()) {
            s.execute("SHUTDOWN");
        }
        // the monitor's probe finds it within about 100 ms; the bound is generous for a loaded machine
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (ReplicaSets.isOpen("jdbc:" + engineUrl) && System.nanoTime() < deadline) Thread.sleep(50);
        assertFalse(ReplicaSets.isOpen("jdbc:" + engineUrl), "the kept set closed with its database");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'T'")) {
            assertNotSame(first, setOf(c));
            rs.next();
            assertEquals(0, rs.getInt(1), "a new database, as plain H2 gives after SHUTDOWN (no secondary was promoted)");
        }
        shutdown(url);
    }

    /**
     * A kept set is closed when the JVM exits: an HSQLDB file database kept with closeDelay=-1 by a
     * child JVM that exits without closing it is a plain HSQLDB database afterwards (MacroDB's exit
     * hook removed its capture triggers; HSQLDB has no exit hook of its own to race it), with the row.
     */
    @Test
    void aKeptSetIsClosedWhenTheJvmExits(@TempDir Path dir) throws Exception {
        String engineUrl = "hsqldb:file:" + dir.resolve("shop");
        String url = "jdbc:macrodb:" + engineUrl + "?replicas=2&closeDelay=-1";
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                io.macrodb.testing.KeptSetExitWorker.class.getName(), url, "jdbc:" + engineUrl)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "the child exits");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("kept open: true"), "the set was kept after its last connection: " + out);
        try (Connection c = java.sql.DriverManager.getConnection("jdbc:" + engineUrl, "sa", ""); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TRIGGERS")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "the exit hook removed MacroDB's capture triggers");
            }
            s.execute("INSERT INTO t VALUES (2, 'plain')"); // no capture trigger is left to refuse it
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
                rs.next();
                assertEquals(2, rs.getInt(1));
            }
            s.execute("SHUTDOWN");
        }
    }

    /** A kept durable set holds its directory until SHUTDOWN, which releases it: another database can then recover from it. */
    @Test
    void shutdownReleasesAKeptDurableSetsDirectory(@TempDir Path dir) throws Exception {
        String log = MacroConfig.encode("log:" + dir.resolve("log"));
        String url = "jdbc:macrodb:h2:mem:" + name() + "?replicas=2&closeDelay=-1&durability=" + log;
        try (Connection c = TestDb.open(url)) {
            fill(c);
        }
        String other = "jdbc:macrodb:h2:mem:" + name() + "?replicas=2&durability=" + log;
        SQLException held = assertThrows(SQLException.class, () -> TestDb.open(other).close());
        assertEquals("55000", held.getSQLState(), "the kept set still holds its directory: " + held);
        shutdown(url);
        try (Connection c = TestDb.open(other); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
            rs.next();
            assertEquals(3, rs.getInt(1), "recovered from the directory the kept set released");
        }
    }
}
