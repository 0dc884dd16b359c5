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
}
