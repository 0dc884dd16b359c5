package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Never hang: three sessions doing read-then-update of one row at SERIALIZABLE (seen to deadlock
 * forever on plain HSQLDB 2.7.4 in its default LOCKS mode) finish through MacroDB, because MacroDB
 * runs the engines with bounded lock waits or deadlock detection and reports the loser as
 * retryable (40001).
 */
class BoundedWaitTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aRowLockHeldByAnIdleTransactionFailsTheWaiterWithinTheBound(String engine) throws Exception {
        long lockTimeout = 1_000;
        String url = TestDb.url(engine, "replicas=2&lockTimeout=" + lockTimeout);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (Connection holder = TestDb.open(url); Connection waiter = TestDb.open(url)) {
                try (Statement s = holder.createStatement()) {
                    s.execute("CREATE TABLE hot (id INT PRIMARY KEY, n INT)");
                    s.execute("INSERT INTO hot VALUES (1, 0)");
                }
                holder.setAutoCommit(false);
                try (Statement s = holder.createStatement()) {
                    s.executeUpdate("UPDATE hot SET n = 1 WHERE id = 1");
                }
                waiter.setAutoCommit(false);
                long start = System.nanoTime();
                SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> {
                    try (Statement s = waiter.createStatement()) {
                        s.executeUpdate("UPDATE hot SET n = 2 WHERE id = 1");
                    }
                });
                long millis = (System.nanoTime() - start) / 1_000_000;
                System.out.println(engine + ": waiter failed after " + millis + " ms: " + e.getSQLState() + " " + e.getMessage());
                assertEquals("40001", e.getSQLState(), e.getMessage());
                // The wait is lockTimeout, neither cut short (no lower bound would pass a waiter that failed at once)
                // nor much longer: 50 ms under it at least (clock granularity), 2 s over it at most (a slow, loaded
                // 2-core machine; measured about lockTimeout + 10 ms on both engines).
                org.junit.jupiter.api.Assertions.assertTrue(millis >= lockTimeout - 50,
                        "the waiter waited lockTimeout (" + lockTimeout + " ms) before it failed, not " + millis + " ms");
                org.junit.jupiter.api.Assertions.assertTrue(millis <= lockTimeout + 2_000,
                        "the wait is bounded by lockTimeout (" + lockTimeout + " ms) + 2 s: " + millis + " ms");
                holder.commit();
                waiter.rollback();
                TestDb.assertConverged(holder);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb", "hsqldb;hsqldb.tx=locks"})
    void readThenUpdateOfOneRowAtSerializableFinishes(String engine) throws Exception {
        // with two-phase locking (hsqldb.tx=locks) deadlocks are broken only by the lockTimeout cancel
        String url = TestDb.url(engine.replace(";hsqldb.tx=locks", ""), "replicas=2&lockTimeout=500");
        if (engine.contains(";")) url = url.replace("?", ";hsqldb.tx=locks?");
        int sessions = 3;
        int increments = 30;
        String dbUrl = url;
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            try (Connection admin = TestDb.open(dbUrl)) {
                try (Statement s = admin.createStatement()) {
                    s.execute("CREATE TABLE hot (id INT PRIMARY KEY, n INT)");
                    s.execute("INSERT INTO hot VALUES (1, 0)");
                }
                AtomicInteger retries = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(sessions);
                List<Future<?>> futures = new ArrayList<>();
                for (int i = 0; i < sessions; i++) {
                    futures.add(pool.submit(() -> {
                        try (Connection c = TestDb.open(dbUrl)) {
                            c.setAutoCommit(false);
                            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                            for (int k = 0; k < increments; k++) {
                                while (true) {
                                    try (Statement s = c.createStatement()) {
                                        int n;
                                        try (ResultSet rs = s.executeQuery("SELECT n FROM hot WHERE id = 1 FOR UPDATE")) {
                                            rs.next();
                                            n = rs.getInt(1);
                                        }
                                        s.executeUpdate("UPDATE hot SET n = " + (n + 1) + " WHERE id = 1");
                                        c.commit();
                                        break;
                                    } catch (SQLException e) {
                                        c.rollback();
                                        if (!"40001".equals(e.getSQLState())) throw e;
                                        retries.incrementAndGet();
                                    }
                                }
                            }
                        }
                        return null;
                    }));
                }
                pool.shutdown();
                for (Future<?> f : futures) f.get();
                try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT n FROM hot")) {
                    rs.next();
                    assertEquals(sessions * increments, rs.getInt(1), "no lost update");
                }
                System.out.println(engine + ": " + retries + " retries");
                TestDb.assertConverged(admin);
            }
        });
    }
}
