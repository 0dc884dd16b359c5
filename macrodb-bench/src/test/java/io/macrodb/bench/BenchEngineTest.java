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
 * and that plain SQLite's SQLITE_BUSY counts as an abort (retried), not as an unexpected error.
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
    void macrodbOverSqliteLoadsItsPrimary() throws Exception {
        try (Deployment d = Deployment.open(SystemConfig.parse("macrodb:2", null, null), BenchEngine.SQLITE, new Micro(1000), 1, 0);
             Connection c = d.connect(0); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM kv")) {
            rs.next();
            assertEquals(1000, rs.getInt(1));
            assertTrue(DriverManager.getDriver(c.getMetaData().getURL()) != null);
        }
    }
}
