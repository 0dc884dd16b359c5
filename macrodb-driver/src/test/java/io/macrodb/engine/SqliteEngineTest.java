package io.macrodb.engine;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What is SQLite's own in MacroDB's SQLite engine: values kept as their storage class on every
 * replica, rows REPLACE removes, schema changes SQLite's triggers would block, triggers with a body,
 * refusals, a file database left as plain SQLite, and readers that do not hold the log back. The
 * engine-parameterised suites (convergence, bank, consistency, durability, faults) run over SQLite
 * besides.
 */
class SqliteEngineTest {

    private static String url(String options) {
        return TestDb.url("sqlite", options);
    }

    /** Every replica's rows of {@code sql}, one string per replica (read through the replica's own URL). */
    private static List<String> onEveryReplica(MacroConnection mc, String sql) throws SQLException {
        assertTrue(mc.admin().awaitCaughtUp(10_000), () -> mc.replicaStatus().toString());
        List<String> out = new ArrayList<>();
        for (ReplicaStatus r : mc.replicaStatus()) {
            StringBuilder sb = new StringBuilder();
            try (Connection c = DriverManager.getConnection(r.url()); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= n; i++) {
                        Object v = rs.getObject(i);
                        sb.append(v instanceof byte[] b ? "x'" + java.util.HexFormat.of().formatHex(b) + "'" : String.valueOf(v)).append(i < n ? "," : ";");
                    }
                }
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static void assertSameEverywhere(MacroConnection mc, String sql, String expected) throws SQLException {
        List<String> rows = onEveryReplica(mc, sql);
        for (int i = 0; i < rows.size(); i++) assertEquals(expected, rows.get(i), "replica " + i + " of " + rows);
    }

    @Test
    void everyValueKeepsItsStorageClassOnEveryReplica() throws Exception {
        try (Connection c = TestDb.open(url("replicas=3")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB, n NUMERIC, d DATE, any)");
            s.execute("INSERT INTO v VALUES (1, 5000000000, 1.5, '12', x'00ff', '12.50', '2024-02-29', 3.0)");
            s.execute("INSERT INTO v VALUES (2, -7, 2, 'x', x'', 3.0, 1700000000000, 'text')");
            s.execute("INSERT INTO v VALUES (3, NULL, NULL, NULL, NULL, NULL, NULL, x'01')");
            s.execute("UPDATE v SET r = r * 3, any = 7 WHERE id = 2");
            MacroConnection mc = TestDb.macro(c);
            assertSameEverywhere(mc, "SELECT id, typeof(i), i, typeof(r), r, typeof(t), t, typeof(b), b, typeof(n), n, typeof(d), d,"
                    + " typeof(any), any FROM v ORDER BY id",
                    "1,integer,5000000000,real,1.5,text,12,blob,x'00ff',real,12.5,text,2024-02-29,real,3.0;"
                    + "2,integer,-7,real,6.0,text,x,blob,x'',integer,3,integer,1700000000000,integer,7;"
                    + "3,null,null,null,null,null,null,null,null,null,null,null,null,blob,x'01';");
            TestDb.assertConverged(c);
        }
    }

    /**
     * Without recursive triggers (SQLite's default, which MacroDB leaves alone) SQLite fires no delete
     * trigger for the row REPLACE removes: the capture's BEFORE INSERT probe reports it, or a secondary
     * would keep it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"INSERT OR REPLACE INTO u VALUES (3, 'a')", "REPLACE INTO u VALUES (3, 'a')"})
    void aRowThatReplaceRemovesIsRemovedEverywhere(String replace) throws Exception {
        try (Connection c = TestDb.open(url("replicas=3")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE u (id INTEGER PRIMARY KEY, email TEXT UNIQUE)");
            s.execute("INSERT INTO u VALUES (1, 'a'), (2, 'b')");
            s.execute(replace);
            assertSameEverywhere(TestDb.macro(c), "SELECT id, email FROM u ORDER BY id", "2,b;3,a;");
            TestDb.assertConverged(c);
        }
    }

    /**
     * What applications write on SQLite: generated keys, batches, {@code RETURNING} in autocommit (SQLite
     * cannot commit while the statement still has rows: MacroDB reads them first), upserts, a CTE
     * feeding an update, savepoints in SQL, {@code BEGIN IMMEDIATE ... END}.
     */
    @Test
    void sqliteWritesApplicationsUseWorkAndReplicate() throws Exception {
        try (Connection c = TestDb.open(url("replicas=3")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT, n INT DEFAULT 0)");
            try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO t (v) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
                ps.setString(1, "a");
                ps.executeUpdate();
                try (ResultSet k = ps.getGeneratedKeys()) {
                    assertTrue(k.next());
                    assertEquals(1, k.getLong(1));
                }
                for (int i = 0; i < 5; i++) {
                    ps.setString(1, "b" + i);
                    ps.addBatch();
                }
                assertEquals(5, ps.executeBatch().length);
            }
            try (ResultSet rs = s.executeQuery("INSERT INTO t (v) VALUES ('r') RETURNING id, v")) {
                assertTrue(rs.next());
                assertEquals(7, rs.getLong(1));
                assertEquals("r", rs.getString(2));
                assertFalse(rs.next());
            }
            s.execute("INSERT INTO t (id, v) VALUES (1, 'x') ON CONFLICT(id) DO UPDATE SET n = n + 1, v = excluded.v");
            s.execute("WITH x AS (SELECT id FROM t WHERE v LIKE 'b%') UPDATE t SET n = 5 WHERE id IN (SELECT id FROM x)");
            c.setAutoCommit(false);
            s.execute("SAVEPOINT a");
            s.execute("DELETE FROM t WHERE id = 2");
            s.execute("ROLLBACK TO a");
            s.execute("RELEASE a");
            s.execute("UPDATE t SET v = upper(v)");
            c.commit();
            c.setAutoCommit(true);
            s.execute("BEGIN IMMEDIATE");
            s.execute("INSERT INTO t (v) VALUES ('in begin')");
            s.execute("END");
            assertSameEverywhere(TestDb.macro(c), "SELECT count(*), sum(n), group_concat(v, '|') FROM (SELECT * FROM t ORDER BY id)",
                    "8,26,X|B0|B1|B2|B3|B4|R|in begin;");
            TestDb.assertConverged(c);
        }
    }

    /** A table without a key: a secondary deletes one of several equal rows by its rowid (SQLite has no DELETE ... LIMIT). */
    @Test
    void equalRowsOfATableWithoutAKeyAreDeletedOneByOne() throws Exception {
        try (Connection c = TestDb.open(url("replicas=3")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE log (what TEXT, n INT)");
            s.execute("INSERT INTO log VALUES ('a', 1), ('a', 1), ('a', 1), ('b', NULL), ('b', NULL)");
            s.execute("DELETE FROM log WHERE rowid IN (SELECT rowid FROM log WHERE what = 'a' LIMIT 2)");
            s.execute("DELETE FROM log WHERE rowid = (SELECT min(rowid) FROM log WHERE what = 'b')");
            assertSameEverywhere(TestDb.macro(c), "SELECT what, n FROM log ORDER BY what", "a,1;b,null;");
            TestDb.assertConverged(c);
        }
    }

    @Test
    void schemaChangesThatSqliteTriggersWouldBlockRunEverywhere() throws Exception {
        try (Connection c = TestDb.open(url("replicas=3")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT)");
            s.execute("INSERT INTO t VALUES (1, 'a', 'b')");
            s.execute("ALTER TABLE t ADD COLUMN c INT DEFAULT 7");
            s.execute("ALTER TABLE t DROP COLUMN b"); // SQLite refuses this while a trigger names b
            s.execute("ALTER TABLE t RENAME COLUMN a TO a2");
            s.execute("ALTER TABLE t RENAME TO t2");
            s.execute("INSERT INTO t2 (id, a2) VALUES (2, 'z')");
            s.execute("UPDATE t2 SET c = c + 1");
            assertSameEverywhere(TestDb.macro(c), "SELECT * FROM t2 ORDER BY id", "1,a,8;2,z,8;");
            TestDb.assertConverged(c);
        }
    }

    @Test
    void aTriggerWithAStatementBodyRunsOnceAndAPromotedPrimaryWouldKeepIt() throws Exception {
        try (Connection c = TestDb.open(url("replicas=2")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, v INT)");
            s.execute("CREATE TABLE audit (item_id INT, what TEXT)");
            s.execute("CREATE TRIGGER item_audit AFTER INSERT ON item BEGIN INSERT INTO audit VALUES (NEW.id, 'insert');"
                    + " INSERT INTO audit VALUES (NEW.id, 'again'); END");
            s.execute("INSERT INTO item VALUES (1, 1)");
            MacroConnection mc = TestDb.macro(c);
            assertSameEverywhere(mc, "SELECT item_id, what FROM audit ORDER BY what", "1,again;1,insert;");
            // the secondary applies the audit rows the primary's trigger wrote, not its own: it has no such trigger
            assertEquals(List.of("1;", "0;"), onEveryReplica(mc, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = 'item_audit'"));
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ATTACH DATABASE ':memory:' AS other", "PRAGMA foreign_keys = ON", "VACUUM",
            "CREATE VIRTUAL TABLE f USING fts5(body)", "CREATE TEMP TABLE scratch (a)", "PRAGMA journal_mode = DELETE"})
    void whatCannotBeReplicatedIsRefusedAndChangesNothing(String sql) throws Exception {
        try (Connection c = TestDb.open(url("replicas=2")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
            String before = TestDb.assertConverged(c).get(0);
            SQLException e = assertThrows(SQLException.class, () -> s.execute(sql));
            assertEquals("0AM01", e.getSQLState(), e.getMessage());
            assertEquals(before, TestDb.assertConverged(c).get(0));
            s.execute("INSERT INTO t VALUES (1)"); // the connection goes on
        }
    }

    @Test
    void aDatabaseSqliteCannotReadIsAGoneEngineAndBusyIsRetryable() {
        SqliteEngine e = new SqliteEngine();
        for (org.sqlite.SQLiteErrorCode gone : new org.sqlite.SQLiteErrorCode[] {org.sqlite.SQLiteErrorCode.SQLITE_IOERR,
                org.sqlite.SQLiteErrorCode.SQLITE_IOERR_SHORT_READ, org.sqlite.SQLiteErrorCode.SQLITE_CORRUPT,
                org.sqlite.SQLiteErrorCode.SQLITE_NOTADB, org.sqlite.SQLiteErrorCode.SQLITE_CANTOPEN}) {
            assertTrue(e.isEngineGone(new org.sqlite.SQLiteException("x", gone)), gone.name());
        }
        assertFalse(e.isEngineGone(new org.sqlite.SQLiteException("x", org.sqlite.SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE)));
        assertFalse(e.isEngineGone(new org.sqlite.SQLiteException("x", org.sqlite.SQLiteErrorCode.SQLITE_BUSY)));
        assertTrue(e.isRetryable(new org.sqlite.SQLiteException("x", org.sqlite.SQLiteErrorCode.SQLITE_BUSY)));
        assertTrue(e.isRetryable(e.withSqlState(new org.sqlite.SQLiteException("x", org.sqlite.SQLiteErrorCode.SQLITE_BUSY_SNAPSHOT))));
    }

    @Test
    void optionsSqliteCannotTakeAreRefusedAtConnect() {
        SQLException statement = assertThrows(SQLException.class, () -> TestDb.open(url("propagation=statement")));
        assertEquals("0AM00", statement.getSQLState(), statement.getMessage());
        SQLException settings = assertThrows(SQLException.class, () -> TestDb.open("jdbc:macrodb:sqlite:mem:x;cache=shared"));
        assertEquals("0AM00", settings.getSQLState(), settings.getMessage());
        SQLException appliers = assertThrows(SQLException.class, () -> TestDb.open(url("applyThreads=2")));
        assertEquals("0AM00", appliers.getSQLState(), appliers.getMessage());
    }

    @Test
    void userVersionIsKeptByEveryReplica() throws Exception {
        try (Connection c = TestDb.open(url("replicas=3")); Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 7");
            assertSameEverywhere(TestDb.macro(c), "PRAGMA user_version", "7;");
            try (ResultSet rs = s.executeQuery("PRAGMA user_version")) {
                assertTrue(rs.next());
                assertEquals(7, rs.getInt(1));
            }
        }
    }

    @Test
    void constraintViolationsCarryTheStandardSqlState() throws Exception {
        try (Connection c = TestDb.open(url("replicas=2")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
            s.execute("INSERT INTO t VALUES (1, 'a')");
            SQLException dup = assertThrows(SQLException.class, () -> s.execute("INSERT INTO t VALUES (1, 'b')"));
            assertEquals("23505", dup.getSQLState(), dup.getMessage());
            assertTrue(dup instanceof java.sql.SQLIntegrityConstraintViolationException);
            SQLException nul = assertThrows(SQLException.class, () -> s.execute("INSERT INTO t VALUES (2, NULL)"));
            assertEquals("23502", nul.getSQLState(), nul.getMessage());
            TestDb.assertConverged(c);
        }
    }

    /** WAL: a read-only transaction held open on a secondary does not stop it applying the log. */
    @Test
    void anOpenReaderDoesNotHoldTheLogBack() throws Exception {
        String u = url("replicas=2&lockTimeout=2000");
        try (Connection c = TestDb.open(u); Connection reader = TestDb.open(u); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
            s.execute("INSERT INTO t VALUES (1)");
            MacroConnection mc = TestDb.macro(c);
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            reader.setReadOnly(true);
            reader.setAutoCommit(false);
            try (Statement r = reader.createStatement(); ResultSet rs = r.executeQuery("SELECT count(*) FROM t")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
            assertFalse(TestDb.macro(reader).currentReplica().primary(), "the reader is on the secondary");
            for (int i = 2; i <= 20; i++) s.execute("INSERT INTO t VALUES (" + i + ")");
            assertTrue(mc.admin().awaitCaughtUp(5_000), () -> "the secondary applied beside the open reader: " + mc.replicaStatus());
            try (Statement r = reader.createStatement(); ResultSet rs = r.executeQuery("SELECT count(*) FROM t")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1), "the reader still sees its snapshot");
            }
            reader.commit();
        }
    }

    @Test
    void aFileDatabaseIsPlainSqliteOnceMacroDbClosesIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("shop.db");
        String u = "jdbc:macrodb:sqlite:" + file + "?replicas=2";
        try (Connection c = TestDb.open(u); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
            s.execute("INSERT INTO t VALUES (1, 'a')");
            try (Connection plain = DriverManager.getConnection("jdbc:sqlite:" + file); Statement p = plain.createStatement()) {
                SQLException behind = assertThrows(SQLException.class, () -> p.execute("INSERT INTO t VALUES (2, 'b')"));
                assertTrue(behind.getMessage().contains(SqliteCapture.NAME), behind.getMessage());
            }
            TestDb.assertConverged(c);
        }
        try (Connection plain = DriverManager.getConnection("jdbc:sqlite:" + file); Statement p = plain.createStatement()) {
            p.execute("INSERT INTO t VALUES (2, 'b')");
            try (ResultSet rs = p.executeQuery("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "MacroDB's capture triggers are gone");
            }
        }
        try (Connection c = TestDb.open(u); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
            assertTrue(rs.next());
            assertEquals(2, rs.getInt(1));
        }
    }

    @Test
    void inMemoryReplicasLeaveNoFilesBehind() throws Exception {
        String u = url("replicas=3&closeDelay=0");
        List<String> urls = new ArrayList<>();
        try (Connection c = TestDb.open(u); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
            for (ReplicaStatus r : TestDb.macro(c).replicaStatus()) urls.add(r.url());
        }
        for (String replica : urls) {
            String path = replica.substring("jdbc:sqlite:".length(), replica.indexOf('?'));
            assertFalse(java.nio.file.Files.exists(Path.of(path)), path + " was removed with its replica set");
        }
    }
}
