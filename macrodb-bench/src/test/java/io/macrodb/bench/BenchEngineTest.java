package io.macrodb.bench;

import io.macrodb.bench.micro.Micro;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine list and SQLite's plain baseline: what the parser accepts and names, that the standalone
 * SQLite database is one WAL file shared by every connection and gone after the deployment closes,
 * and that plain SQLite's SQLITE_BUSY counts as an abort (retried), not as an unexpected error; Derby's
 * plain baseline (MacroDB's lock settings, dropped on close), its aborts, SQL and apply limit, and that
 * the benchmark offers Derby to MacroDB for itself.
 */
class BenchEngineTest {

    @Test
    void parserTakesEveryEngineAndNamesThemAll() {
        for (BenchEngine e : BenchEngine.values()) assertEquals(e, BenchEngine.parse(e.toString()));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> BenchEngine.parse("oracle"));
        for (BenchEngine e : BenchEngine.values()) assertTrue(x.getMessage().contains(e.toString()), x.getMessage());
    }

    @Test
    void plainSqliteIsOneSharedWalFileThatCloseDeletes() throws Exception {
        Deployment d = Deployment.open(SystemConfig.standalone(), BenchEngine.SQLITE, new Micro(1000), 1, 0);
        Path file;
        try (Connection a = d.connect(0); Connection b = d.connect(0)) {
            String url = a.getMetaData().getURL();
            assertTrue(url.startsWith("jdbc:sqlite:") && !url.contains(":memory:") && !url.contains("cache=shared"), url);
            file = Path.of(url.substring("jdbc:sqlite:".length()).replaceFirst("\\?.*", ""));
            assertTrue(Files.exists(file), file.toString());
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
                rs.next();
                assertEquals("wal", rs.getString(1).toLowerCase());
            }
            try (Statement s = a.createStatement()) { s.executeUpdate("UPDATE kv SET val = -1 WHERE id = 0"); }
            try (Statement s = b.createStatement(); ResultSet rs = s.executeQuery("SELECT val FROM kv WHERE id = 0")) {
                rs.next();
                assertEquals(-1, rs.getLong(1), "both connections see one database");
            }
        }
        d.close();
        assertFalse(Files.exists(file), "close deletes the plain database's file");
        assertFalse(Files.exists(Path.of(file + "-wal")), "and its WAL");
    }

    @Test
    void sqliteBusyIsAnAbortNotAnError() {
        SQLException busy = new SQLiteException("database is locked", SQLiteErrorCode.SQLITE_BUSY);
        SQLException snapshot = new SQLiteException("database is locked", SQLiteErrorCode.SQLITE_BUSY_SNAPSHOT);
        SQLException constraint = new SQLiteException("UNIQUE constraint failed", SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE);
        assertTrue(PointRunner.isAbort(busy));
        assertTrue(PointRunner.isAbort(snapshot));
        assertFalse(PointRunner.isAbort(constraint));
        assertTrue(PointRunner.cause(busy).startsWith("busy"), PointRunner.cause(busy));
        assertTrue(PointRunner.isAbort(new SQLException("through MacroDB", "40001")));
    }

    @Test
    void sqlHooksSpellEachEnginesForm() {
        assertEquals(" LIMIT 5", BenchEngine.SQLITE.firstRows(5));
        assertEquals("", BenchEngine.SQLITE.forUpdate());
        assertTrue(Arrays.stream(BenchEngine.values()).filter(e -> e != BenchEngine.SQLITE)
                .allMatch(e -> e.forUpdate().contains("FOR UPDATE") && e.firstRows(1).contains("FETCH FIRST 1")));
    }

    @Test
    void plainDerbyWaitsAsMacroDbsReplicasDoTakesReadOnlyAndIsDroppedOnClose() throws Exception {
        Deployment d = Deployment.open(SystemConfig.standalone(), BenchEngine.DERBY, new Micro(1000), 1, 0);
        String url;
        try (Connection a = d.connect(0)) {
            url = a.getMetaData().getURL();
            assertTrue(url.startsWith("jdbc:derby:memory:"), url);
            assertEquals("10", derbyProperty(a, "derby.locks.waitTimeout"));
            assertEquals("0", derbyProperty(a, "derby.locks.deadlockTimeout"));
            assertTrue(BenchEngine.DERBY.plainSetReadOnly());
            a.setAutoCommit(false);
            a.setReadOnly(true);
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM kv")) {
                rs.next();
                assertEquals(1000, rs.getInt(1));
            }
            a.commit();
            a.setReadOnly(false);
        }
        d.close();
        assertDerbyDatabaseGone(url);
    }

    @Test
    void derbyLockTimeoutsAndDeadlocksAreAbortsNotErrors() {
        SQLException timeout = new SQLException("A lock could not be obtained within the time requested", "40XL1");
        SQLException timeoutWithTable = new SQLException("A lock could not be obtained within the time requested. The lockTable dump is: ...", "40XL2");
        SQLException deadlock = new SQLException("A lock could not be obtained due to a deadlock, cycle of locks and waiters is: ...", "40001");
        for (SQLException e : new SQLException[] {timeout, timeoutWithTable, deadlock}) assertTrue(PointRunner.isAbort(e), e.getSQLState());
        assertEquals("lock timeout (40XL1)", PointRunner.cause(timeout));
        assertEquals("lock timeout (40XL2)", PointRunner.cause(timeoutWithTable));
        assertEquals("deadlock (40001)", PointRunner.cause(deadlock));
        assertFalse(PointRunner.isAbort(new SQLException("The statement was aborted because it would have caused a duplicate key value", "23505")));
    }

    @Test
    void derbysSqlAndApplyLimit() {
        assertEquals(" FETCH FIRST 5 ROWS ONLY", BenchEngine.DERBY.firstRows(5));
        assertEquals(" FOR UPDATE", BenchEngine.DERBY.forUpdate());
        assertTrue(BenchEngine.DERBY.identity().contains("GENERATED BY DEFAULT AS IDENTITY"));
        assertEquals(1, BenchEngine.DERBY.maxApplyThreads(), "MacroDB applies Derby with one session per secondary");
        assertTrue(BenchEngine.H2.maxApplyThreads() > 1);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> new ApplyCapacity.Settings(
                java.util.List.of(BenchEngine.H2, BenchEngine.DERBY), new Micro(1000), new Micro(1000).mix("80-20"),
                java.util.List.of(1, 2), java.util.List.of(1), 0, 0, 100, 1, null, 1, 1000));
        assertTrue(x.getMessage().contains("derby"), x.getMessage());
    }

    /** MacroDB over Derby: the deployment loads its primary, serves it through MacroDB and drops it on close. */
    @Test
    void macrodbOverDerbyLoadsItsPrimaryAndDropsItOnClose() throws Exception {
        String primary;
        try (Deployment d = Deployment.open(SystemConfig.parse("macrodb:2", null, null), BenchEngine.DERBY, new Micro(1000), 1, 0);
             Connection c = d.connect(0); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM kv")) {
            rs.next();
            assertEquals(1000, rs.getInt(1));
            assertTrue(c.getMetaData().getURL().startsWith("jdbc:macrodb:derby:memory:"), c.getMetaData().getURL());
            primary = c.getMetaData().getURL().replaceFirst("^jdbc:macrodb:", "jdbc:").replaceFirst("\\?.*", "");
        }
        assertTrue(primary.startsWith("jdbc:derby:memory:bench"), primary);
        assertDerbyDatabaseGone(primary);
    }

    private static String derbyProperty(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("VALUES SYSCS_UTIL.SYSCS_GET_DATABASE_PROPERTY('" + name + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Opening the database without {@code create=true} fails with XJ004 (not found) once it was dropped. */
    private static void assertDerbyDatabaseGone(String url) {
        String base = url.replaceFirst(";.*", "");
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(base).close(), base + " is still there");
        assertEquals("XJ004", e.getSQLState(), e.getMessage());
    }

    @Test
    void macrodbOverSqliteLoadsItsPrimary() throws Exception {
        try (Deployment d = Deployment.open(SystemConfig.parse("macrodb:2", null, null), BenchEngine.SQLITE, new Micro(1000), 1, 0);
             Connection c = d.connect(0); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM kv")) {
            rs.next();
            assertEquals(1000, rs.getInt(1));
            assertTrue(DriverManager.getDriver(c.getMetaData().getURL()) != null);
        }
    }
}
