package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Per-replica admission: at most K transactions run in one engine at once (HSQLDB's profile: 1),
 * the others wait in line; a reader whose secondary is full uses another; a thread never waits for
 * itself; a wait is bounded by lockTimeout and leaves nothing behind.
 */
class AdmissionTest {

    private static void count(Connection c, String table, int expected) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            assertEquals(expected, rs.getInt(1));
        }
    }

    @Test void hsqldbRunsOneUpdateTransactionAtATimeOnThePrimaryAndTheNextWaitsItsTurn() throws Exception {
        String url = TestDb.url("hsqldb", "replicas=2");
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection a = TestDb.open(url)) {
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            }
            ReplicaStatus primary = TestDb.macro(a).replicaStatus().get(0);
            assertEquals(1, primary.admissionLimit(), "HSQLDB's profile");
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO t VALUES (1)"); // an update transaction is open on the primary
            }
            Future<?> b = other.submit(() -> {
                try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
                    s.execute("INSERT INTO t VALUES (2)");
                }
                return null;
            });
            Thread.sleep(300);
            assertFalse(b.isDone(), "a second update transaction ran beside the first");
            a.commit();
            b.get(10, TimeUnit.SECONDS);
            a.setAutoCommit(true);
            count(a, "t", 2);
            assertTrue(TestDb.macro(a).replicaStatus().get(0).admissionWaits() >= 1);
            TestDb.assertConverged(a);
        } finally {
            other.shutdownNow();
        }
    }

    @Test void aThreadWithTwoConnectionsNeverWaitsForItself() throws Exception {
        String url = TestDb.url("hsqldb", "replicas=2&admission=1&lockTimeout=2000");
        try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            }
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                sa.execute("INSERT INTO t VALUES (1)");
                long started = System.nanoTime();
                sb.execute("INSERT INTO t VALUES (2)"); // same thread: admitted at once, not after lockTimeout
                assertTrue(System.nanoTime() - started < TimeUnit.MILLISECONDS.toNanos(1500), "waited for its own thread");
            }
            a.commit();
            b.commit();
            count(a, "t", 2);
        }
    }

    @Test void aReaderWhoseSecondaryIsFullUsesAnotherFreshOne() throws Exception {
        String url = TestDb.url("hsqldb", "replicas=3&admission=1");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection admin = TestDb.open(url)) {
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
                s.execute("INSERT INTO t VALUES (1)");
            }
            MacroConnection mc = TestDb.macro(admin);
            assertTrue(mc.admin().awaitCaughtUp(10_000));
            java.util.concurrent.CountDownLatch bothIn = new java.util.concurrent.CountDownLatch(2);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            List<CompletableFuture<Void>> readers = List.of(0, 1).stream().map(i -> CompletableFuture.runAsync(() -> {
                try (Connection c = TestDb.open(url)) {
                    c.setReadOnly(true);
                    c.setAutoCommit(false);
                    count(c, "t", 1);
                    bothIn.countDown();
                    release.await(10, TimeUnit.SECONDS);
                    c.commit();
                } catch (SQLException | InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }, pool)).toList();
            assertTrue(bothIn.await(5, TimeUnit.SECONDS), "the second reader waited although another secondary was free");
            List<ReplicaStatus> st = mc.replicaStatus();
            assertEquals(1, st.get(1).activeReaders(), () -> "readers: " + st);
            assertEquals(1, st.get(2).activeReaders(), () -> "readers: " + st);
            release.countDown();
            for (CompletableFuture<Void> r : readers) r.get(10, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test void aTransactionThatWaitsLongerThanLockTimeoutIsRefusedWith40001AndNothingChanged() throws Exception {
        String url = TestDb.url("h2", "replicas=2&admission=1&lockTimeout=300");
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection a = TestDb.open(url)) {
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            }
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO t VALUES (1)");
            }
            Future<SQLException> refused = other.submit(() -> {
                try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> s.execute("INSERT INTO t VALUES (2)"));
                    // the connection stays usable once the primary has room
                    return e;
                }
            });
            SQLException e = refused.get(10, TimeUnit.SECONDS);
            assertEquals("40001", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("admission"), e.getMessage());
            a.commit();
            a.setAutoCommit(true);
            count(a, "t", 1);
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO t VALUES (2)"); // the refused one, retried: the permit was not kept
            }
            count(a, "t", 2);
        } finally {
            other.shutdownNow();
        }
    }

    @Test void abortHandsTheAdmissionBack() throws Exception {
        String url = TestDb.url("hsqldb", "replicas=2&admission=1&lockTimeout=5000");
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection admin = TestDb.open(url)) {
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            }
            Connection a = TestDb.open(url);
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO t VALUES (1)");
            }
            a.abort(Runnable::run);
            Future<?> b = other.submit(() -> {
                try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
                    s.execute("INSERT INTO t VALUES (2)");
                }
                return null;
            });
            b.get(3, TimeUnit.SECONDS); // well within lockTimeout: the aborted connection's permit is back
            count(admin, "t", 1);
        } finally {
            other.shutdownNow();
        }
    }

    @Test void admissionOptionIsValidated() {
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(TestDb.url("h2", "admission=some")).close());
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("auto or off"), e.getMessage());
    }
}
