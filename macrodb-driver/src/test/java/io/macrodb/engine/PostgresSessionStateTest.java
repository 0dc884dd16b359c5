package io.macrodb.engine;

import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * State of a server session that ends with a connection to the server ends with the application's connection to
 * MacroDB too, though MacroDB keeps the server session for another connection.
 */
class PostgresSessionStateTest {

    /** Whether a session outside MacroDB gets advisory lock {@code key} (and gives it back at once). */
    private static boolean freeOutside(String url, int key) throws SQLException {
        try (Connection c = PgCluster.shared().server(0).connect(PgCluster.primaryDatabase(url))) {
            return TestDb.rows(c, "SELECT pg_try_advisory_lock(" + key + ")", "|").equals(List.of("t"));
        }
    }

    /**
     * A session-level advisory lock is held while its connection is open and ends when it closes unlocked, as on a plain
     * connection: before 2026-11-29 it stayed with the server session in MacroDB's pool, so no other session got it
     * again, and the next connection given that session held it unasked (reentrantly).
     */
    @Test
    void anAdvisoryLockEndsWithTheConnectionThatTookIt() throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(2, "capture=triggers");
        try (Connection holder = TestDb.open(url)) { // keeps the set, and its pool, open
            for (int i = 0; i < 3; i++) {
                try (Connection a = TestDb.open(url)) {
                    assertEquals(List.of("t"), TestDb.rows(a, "SELECT pg_try_advisory_lock(42)", "|"));
                    assertFalse(freeOutside(url, 42), "held while its connection is open");
                    a.setAutoCommit(false);
                    assertEquals(List.of(""), TestDb.rows(a, "SELECT pg_advisory_xact_lock(43)", "|"));
                    assertFalse(freeOutside(url, 43), "held while its transaction is open");
                }
                assertTrue(freeOutside(url, 42), "ended with the connection");
                assertTrue(freeOutside(url, 43), "ended with the transaction");
                try (Connection b = TestDb.open(url)) {
                    assertEquals(List.of("f"), TestDb.rows(b, "SELECT pg_advisory_unlock(42)", "|"), "not held by the next connection");
                }
            }
            assertEquals(List.of("1"), TestDb.rows(holder, "SELECT 1", "|"));
        }
    }

    /**
     * {@code SET LOCAL} and {@code SET CONSTRAINTS} last until their transaction ends, on the primary, and hold no other
     * writer back: before 2026-11-29 they were taken for schema changes, and the transaction held the update gate alone
     * until it ended, so another connection's insert waited out its lock timeout.
     */
    @Test
    void setLocalAndSetConstraintsStayInTheirTransactionAndHoldNoWriterBack() throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=triggers&lockTimeout=3000");
        pg.onPrimary(url, "CREATE TABLE parent (k int PRIMARY KEY)", "CREATE TABLE child (k int PRIMARY KEY, p int REFERENCES parent (k)"
                + " DEFERRABLE INITIALLY IMMEDIATE)", "CREATE TABLE other (k int PRIMARY KEY)");
        try (Connection a = TestDb.open(url); Connection b = TestDb.open(url); java.sql.Statement s = a.createStatement()) {
            a.setAutoCommit(false);
            s.execute("SET LOCAL statement_timeout = '5s'");
            s.execute("SET CONSTRAINTS ALL DEFERRED");
            s.execute("INSERT INTO child VALUES (1, 10)"); // its parent comes later: the check is deferred to the commit
            assertEquals(List.of("5s"), TestDb.rows(a, "SELECT current_setting('statement_timeout')", "|"));
            java.util.concurrent.CompletableFuture<Void> other = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try (java.sql.Statement t = b.createStatement()) {
                    t.execute("INSERT INTO other VALUES (1)");
                } catch (SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            other.get(20, java.util.concurrent.TimeUnit.SECONDS); // while a's transaction is open
            s.execute("INSERT INTO parent VALUES (10)");
            a.commit();
            assertEquals(List.of("0"), TestDb.rows(a, "SELECT current_setting('statement_timeout')", "|"));
            TestDb.assertOnEveryReplica(a, 3, "SELECT (SELECT count(*) FROM child), (SELECT count(*) FROM parent), (SELECT count(*)"
                    + " FROM other)", List.of("1|1|1"));
            TestDb.assertConverged(a);
        }
    }
}
