package io.macrodb.engine;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A SQLite table whose key is not the rowid ({@code INT PRIMARY KEY}, a text or composite key, no key at
 * all) still has a rowid, and SQLite visits its rows in rowid order: which rows an {@code UPDATE OR
 * REPLACE} removes, and so what it reports and leaves, depends on it; applications also read and name
 * rowids. Every replica must hold the primary's rowids, as plain SQLite would have them: on secondaries
 * (which apply the log), after a restart that recovers the primary from the log, and on a rebuilt
 * secondary. Before, rows arrived by key with rowids of the replica's own choosing
 * (DifferentialPropertiesTest.sqliteRowModeMatchesThePlainEngine found it after a restart: plain SQLite's
 * UPDATE OR REPLACE updated 2 rows, MacroDB's 1).
 */
class SqliteRowidTest {

    private static final String[] SCHEMA = {
        "CREATE TABLE T0 (K INT PRIMARY KEY)",
        "CREATE TABLE n (k INT, v TEXT)",
        "CREATE TABLE c (a TEXT, b INT, v TEXT UNIQUE, PRIMARY KEY (a, b))",
    };

    /** The script before the restart or the rebuild; SQLite's rowids move in every statement. */
    private static final String[] BEFORE = {
        "INSERT INTO T0 VALUES (2), (1)",
        "UPDATE OR REPLACE T0 SET K = K + 1",
        "INSERT INTO n VALUES (1, 'a'), (1, 'a'), (2, 'b')",
        "INSERT INTO n (rowid, k, v) VALUES (100, 3, 'c')",
        "UPDATE n SET rowid = rowid + 10 WHERE k = 1",
        "DELETE FROM n WHERE rowid = 12",
        "INSERT INTO c VALUES ('x', 1, 'p'), ('y', 2, 'q'), ('z', 3, 'r')",
        "INSERT OR REPLACE INTO c VALUES ('x', 1, 'q')",
        "UPDATE OR REPLACE c SET v = 'p' WHERE a = 'z'",
        "REPLACE INTO c VALUES ('y', 2, 's')",
        "UPDATE c SET rowid = 77 WHERE a = 'z'",
        "UPDATE T0 SET rowid = rowid + 5 WHERE K = 3",
    };

    /** After it: statements whose outcome depends on the rowids. */
    private static final String[] AFTER = {
        "UPDATE OR REPLACE T0 SET K = K + 1",
        "INSERT INTO n (k, v) VALUES (4, 'd')",
        "UPDATE OR REPLACE c SET v = 'q'",
        "INSERT INTO c (a, b, v) VALUES ('w', 4, 't')",
    };

    private static final String ROWIDS = "SELECT 'T0', rowid, K FROM T0 UNION ALL SELECT 'n', rowid, k || v FROM n"
            + " UNION ALL SELECT 'c', rowid, a || b || v FROM c ORDER BY 1, 2";

    /** What plain SQLite makes of the script: the update counts of {@code AFTER}, then the rowids. */
    private static List<String> plain(Path dir) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("plain.db")); Statement s = c.createStatement()) {
            for (String sql : SCHEMA) s.execute(sql);
            for (String sql : BEFORE) s.execute(sql);
            for (String sql : AFTER) out.add(sql + " -> " + s.executeUpdate(sql));
            out.add(rows(c));
        }
        return out;
    }

    private static String rows(Connection c) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(ROWIDS)) {
            while (rs.next()) sb.append(rs.getString(1)).append(':').append(rs.getLong(2)).append('=').append(rs.getString(3)).append(' ');
        }
        return sb.toString();
    }

    /** Every replica's rowids, read through the replica's own URL, primary first. */
    private static List<String> onEveryReplica(MacroConnection mc) throws SQLException {
        assertTrue(mc.admin().awaitCaughtUp(10_000), () -> mc.replicaStatus().toString());
        List<String> out = new ArrayList<>();
        for (ReplicaStatus r : mc.replicaStatus()) {
            try (Connection c = DriverManager.getConnection(r.url())) {
                out.add(rows(c));
            }
        }
        return out;
    }

    private static void assertEveryReplicaHolds(MacroConnection mc, String expected, String when) throws SQLException {
        List<String> all = onEveryReplica(mc);
        for (int i = 0; i < all.size(); i++) assertEquals(expected, all.get(i), when + ": replica " + i + " of " + all);
    }

    private static List<String> after(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            for (String sql : AFTER) out.add(sql + " -> " + s.executeUpdate(sql));
        }
        return out;
    }

    @Test
    void secondariesHoldThePrimarysRowids(@TempDir Path dir) throws Exception {
        List<String> expected = plain(dir);
        try (Connection c = TestDb.open(TestDb.url("sqlite", "replicas=3")); Statement s = c.createStatement()) {
            for (String sql : SCHEMA) s.execute(sql);
            for (String sql : BEFORE) s.execute(sql);
            List<String> counts = after(c);
            assertEquals(expected.subList(0, AFTER.length), counts);
            assertEveryReplicaHolds(TestDb.macro(c), expected.get(AFTER.length), "after the script");
            TestDb.assertConverged(c);
        }
    }

    /** The primary recovered from the log alone, and from a snapshot and the log after it. */
    @Test
    void aRestartFromTheLogKeepsTheRowids(@TempDir Path dir) throws Exception {
        List<String> expected = plain(dir);
        for (boolean snapshot : new boolean[] {false, true}) {
            Path log = dir.resolve(snapshot ? "with-snapshot" : "log-only");
            String url = "jdbc:macrodb:sqlite:mem:rowid_" + Math.abs(log.hashCode()) + "?replicas=2&durability=log:" + log;
            try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
                for (String sql : SCHEMA) s.execute(sql);
                for (int i = 0; i < BEFORE.length; i++) {
                    if (snapshot && i == BEFORE.length / 2) TestDb.macro(c).admin().snapshot();
                    s.execute(BEFORE[i]);
                }
            }
            try (Connection c = TestDb.open(url)) {
                List<String> counts = after(c);
                assertEquals(expected.subList(0, AFTER.length), counts, snapshot ? "snapshot and log" : "log only");
                assertEveryReplicaHolds(TestDb.macro(c), expected.get(AFTER.length), snapshot ? "snapshot and log" : "log only");
                TestDb.assertConverged(c);
            }
            try (Connection c = TestDb.open(url)) { // and once more: the records AFTER wrote replay too
                assertEveryReplicaHolds(TestDb.macro(c), expected.get(AFTER.length), "second restart");
            }
        }
    }

    /**
     * A declared column named {@code rowid} hides the rowid under that name (here it is the key): the rowid
     * travels as {@code _rowid_}; where columns hide all three names it cannot be named, and is not replicated.
     */
    @Test
    void aColumnNamedRowidHidesItAndTheRowidTravelsAsAnotherName(@TempDir Path dir) throws Exception {
        String[] script = {"CREATE TABLE h (rowid TEXT PRIMARY KEY, v INT UNIQUE)", "INSERT INTO h VALUES ('b', 1), ('a', 2), ('c', 3)",
            "UPDATE OR REPLACE h SET v = v + 1", "INSERT OR REPLACE INTO h VALUES ('a', 9)", "UPDATE h SET _rowid_ = 50 WHERE rowid = 'c'"};
        String query = "SELECT _rowid_, rowid, v FROM h ORDER BY 1";
        String expected;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("plain.db")); Statement s = c.createStatement()) {
            for (String sql : script) s.execute(sql);
            expected = read(c, query);
        }
        try (Connection c = TestDb.open(TestDb.url("sqlite", "replicas=3")); Statement s = c.createStatement()) {
            for (String sql : script) s.execute(sql);
            MacroConnection mc = TestDb.macro(c);
            assertTrue(mc.admin().awaitCaughtUp(10_000));
            for (ReplicaStatus r : mc.replicaStatus()) {
                try (Connection rc = DriverManager.getConnection(r.url())) {
                    assertEquals(expected, read(rc, query), r.toString());
                }
            }
            TestDb.assertConverged(c);
        }
    }

    private static String read(Connection c, String query) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= n; i++) sb.append(rs.getString(i)).append(i < n ? "," : ";");
            }
        }
        return sb.toString();
    }

    /**
     * A secondary that failed (its applier stalled behind a lock) and was rebuilt: a copy of a healthy replica, which
     * then applies the log.
     */
    @Test
    void aRebuiltSecondaryHoldsThePrimarysRowids(@TempDir Path dir) throws Exception {
        List<String> expected = plain(dir);
        String url = TestDb.url("sqlite", "replicas=2&rebuild=manual&stallTimeout=300&lockTimeout=3000");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            MacroConnection mc = TestDb.macro(c);
            for (String sql : SCHEMA) s.execute(sql);
            s.execute(BEFORE[0]);
            assertTrue(mc.admin().awaitCaughtUp(10_000));
            try (Connection blocker = DriverManager.getConnection(mc.replicaStatus().get(1).url()); Statement b = blocker.createStatement()) {
                b.execute("BEGIN IMMEDIATE"); // holds the secondary's write lock: its applier makes no progress
                for (int i = 1; i < BEFORE.length / 2; i++) s.execute(BEFORE[i]);
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (mc.replicaStatus().get(1).state() == ReplicaState.ACTIVE && System.nanoTime() < deadline) Thread.sleep(20);
                assertEquals(ReplicaState.FAILED, mc.replicaStatus().get(1).state(), () -> mc.replicaStatus().toString());
                b.execute("ROLLBACK");
            }
            for (int i = BEFORE.length / 2; i < BEFORE.length; i++) s.execute(BEFORE[i]);
            mc.admin().rebuild(1);
            List<String> counts = after(c);
            assertEquals(expected.subList(0, AFTER.length), counts);
            assertEveryReplicaHolds(mc, expected.get(AFTER.length), "after the rebuild");
            TestDb.assertConverged(c);
        }
    }
}
