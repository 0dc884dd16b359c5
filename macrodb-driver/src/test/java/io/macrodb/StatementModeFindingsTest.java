package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which engine settings make statement propagation (replaying each update transaction's SQL in
 * commit order) correct. Replay is correct when the primary's commit order is a serialisation order
 * of the transactions. These tests record the engines' facts, on the plain engines, that the design
 * rests on, and then check MacroDB's answer.
 *
 * <p>The interleaving: T1 copies b's value into a ({@code UPDATE a SET v = (SELECT v FROM b)}), then T2
 * changes b and commits, then T1 commits. In commit order (T2, T1) replay gives a = T2's value; on a
 * primary that let T1 read b before T2 wrote it, a kept the old value: the replicas diverge.
 */
class StatementModeFindingsTest {

    private static void schema(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE a (id INT PRIMARY KEY, v INT)");
            s.execute("CREATE TABLE b (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO a VALUES (1, 0)");
            s.execute("INSERT INTO b VALUES (1, 0)");
        }
    }

    private static int value(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM " + table + " WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Runs the interleaving; returns whether T2's update of b had to wait for T1's commit. */
    private static boolean interleave(Connection t1, Connection t2) throws Exception {
        t1.setAutoCommit(false);
        t2.setAutoCommit(false);
        try (Statement s = t1.createStatement()) {
            s.executeUpdate("UPDATE a SET v = (SELECT v FROM b WHERE id = 1) WHERE id = 1");
        }
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> {
            try (Statement s = t2.createStatement()) {
                s.executeUpdate("UPDATE b SET v = 5 WHERE id = 1");
                t2.commit();
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        });
        boolean waited;
        try {
            second.get(500, TimeUnit.MILLISECONDS);
            waited = false;
        } catch (TimeoutException e) {
            waited = true;
        }
        t1.commit();
        second.get(10, TimeUnit.SECONDS);
        return waited;
    }

    @Test
    void h2MvccLetsACommitOrderDifferFromTheSerialisationOrder() throws Exception {
        String url = "jdbc:h2:mem:finding_h2";
        try (Connection keep = DriverManager.getConnection(url); Connection t1 = DriverManager.getConnection(url);
             Connection t2 = DriverManager.getConnection(url)) {
            schema(keep);
            t1.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            t2.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertFalse(interleave(t1, t2), "H2 (MVCC) does not make T2 wait, even at SERIALIZABLE");
            assertEquals(0, value(keep, "a"), "T1 read b before T2's change and committed after it: replay in commit order would give 5");
        }
    }

    @Test
    void hsqldbMvccLetsACommitOrderDifferFromTheSerialisationOrder() throws Exception {
        String url = "jdbc:hsqldb:mem:finding_hsqldb_mvcc";
        try (Connection keep = DriverManager.getConnection(url, "sa", ""); Connection t1 = DriverManager.getConnection(url, "sa", "");
             Connection t2 = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = keep.createStatement()) {
                s.execute("SET DATABASE TRANSACTION CONTROL MVCC");
            }
            schema(keep);
            assertFalse(interleave(t1, t2), "HSQLDB MVCC at READ COMMITTED does not make T2 wait");
            assertEquals(0, value(keep, "a"));
            try (Statement s = keep.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }

    @Test
    void hsqldbLocksAtSerializableMakesCommitOrderASerialisationOrder() throws Exception {
        String url = "jdbc:hsqldb:mem:finding_hsqldb_locks";
        try (Connection keep = DriverManager.getConnection(url, "sa", ""); Connection t1 = DriverManager.getConnection(url, "sa", "");
             Connection t2 = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = keep.createStatement()) {
                s.execute("SET DATABASE TRANSACTION CONTROL LOCKS");
            }
            schema(keep);
            t1.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            t2.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertTrue(interleave(t1, t2), "two-phase locking makes T2 wait for T1's read lock on b");
            assertEquals(0, value(keep, "a"));
            assertEquals(5, value(keep, "b"), "commit order T1, T2 is the order replay uses: a=0, b=5 on every replica");
            try (Statement s = keep.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }

    /**
     * MacroDB's statement mode runs update transactions one at a time (a writer turn held from the
     * first statement to commit), which makes commit order a serialisation order on every engine
     * and isolation, without LOCKS mode's unbounded deadlocks: T2 waits for its turn and the
     * replicas converge.
     */
    @Test
    void macroDbStatementModeSerialisesUpdateTransactionsOnBothEngines() throws Exception {
        for (String engine : new String[] {"h2", "hsqldb"}) {
            String url = TestDb.url(engine, "replicas=2&propagation=statement");
            try (Connection keep = TestDb.open(url); Connection t1 = TestDb.open(url); Connection t2 = TestDb.open(url)) {
                schema(keep);
                assertTrue(interleave(t1, t2), engine + ": T2 waits for T1's turn");
                assertEquals(5, value(keep, "a") + value(keep, "b"), "T1 then T2: a=0, b=5");
                TestDb.assertConverged(keep);
            }
        }
    }

    /** The turn is bounded: a transaction that cannot get it within lockTimeout fails with 40001 and changes nothing. */
    @Test
    void waitingForTheWriterTurnIsBounded() throws Exception {
        String url = TestDb.url("h2", "replicas=2&propagation=statement&lockTimeout=200");
        try (Connection keep = TestDb.open(url); Connection t1 = TestDb.open(url); Connection t2 = TestDb.open(url)) {
            schema(keep);
            t1.setAutoCommit(false);
            try (Statement s = t1.createStatement()) {
                s.executeUpdate("UPDATE a SET v = 1 WHERE id = 1");
            }
            long start = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Statement s = t2.createStatement()) {
                    s.executeUpdate("UPDATE b SET v = 2 WHERE id = 1");
                }
            });
            assertEquals("40001", e.getSQLState());
            assertTrue(e.getMessage().contains("lockTimeout"), e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
            t1.commit();
            assertEquals(0, value(keep, "b"));
            TestDb.assertConverged(keep);
        }
    }
}
