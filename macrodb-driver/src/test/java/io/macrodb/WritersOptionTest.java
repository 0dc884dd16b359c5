package io.macrodb;

import io.macrodb.sql.SqlState;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code writers=one} gives update transactions a turn each from their start (no two of them meet in
 * the engine's locks, so the engine never has a deadlock to break); {@code concurrent} lets them run
 * side by side; SQLite offers only one writer.
 */
class WritersOptionTest {

    @Test
    void withOneWriterASecondUpdateTransactionWaitsForTheFirstToEnd() throws Exception {
        String url = TestDb.url("h2", "replicas=2&writers=one&lockTimeout=300");
        try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
            openUpdateOnRowOne(a);
            long started = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Statement s = b.createStatement()) {
                    s.executeUpdate("UPDATE t SET v = 2 WHERE id = 2"); // another row: only the turn holds it back
                }
            });
            assertEquals("40001", e.getSQLState(), e::toString);
            assertTrue(System.nanoTime() - started >= 250_000_000L, "it waited for lockTimeout");
            a.commit();
            try (Statement s = b.createStatement()) {
                assertEquals(1, s.executeUpdate("UPDATE t SET v = 2 WHERE id = 2")); // the turn is free again
            }
            TestDb.assertConverged(a);
        }
    }

    @Test
    void concurrentWritersRunSideBySide() throws Exception {
        String url = TestDb.url("h2", "replicas=2&writers=concurrent&lockTimeout=300");
        try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
            openUpdateOnRowOne(a);
            try (Statement s = b.createStatement()) {
                assertEquals(1, s.executeUpdate("UPDATE t SET v = 2 WHERE id = 2"));
            }
            a.commit();
            TestDb.assertConverged(a);
        }
    }

    /** Table t with rows 1 and 2, and on {@code a} an open update transaction that wrote row 1. */
    private static void openUpdateOnRowOne(Connection a) throws SQLException {
        try (Statement s = a.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO t VALUES (1, 0), (2, 0)");
        }
        a.setAutoCommit(false);
        try (Statement s = a.createStatement()) {
            s.executeUpdate("UPDATE t SET v = 1 WHERE id = 1");
        }
    }

    @Test
    void sqliteOffersNoConcurrentWriters() {
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(TestDb.url("sqlite", "replicas=2&writers=concurrent")).close());
        assertEquals(SqlState.FEATURE_NOT_OFFERED.getState(), e.getSQLState(), e::toString);
        assertTrue(e.getMessage().contains("writers=one"), e::getMessage);
    }

    @Test
    void aDatabaseOpenWithOneWriterRefusesAConnectionAskingForConcurrentOnes() throws Exception {
        String name = "writers" + System.nanoTime();
        try (Connection a = TestDb.open("jdbc:macrodb:h2:mem:" + name + "?replicas=2&writers=one")) {
            SQLException e = assertThrows(SQLException.class,
                    () -> TestDb.open("jdbc:macrodb:h2:mem:" + name + "?replicas=2&writers=concurrent").close());
            assertTrue(e.getMessage().contains("already open") && e.getMessage().contains("writers=one"), e::getMessage);
        }
    }

    @Test
    void anUnknownValueIsRefused() {
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(TestDb.url("h2", "replicas=2&writers=many")).close());
        assertTrue(e.getMessage().contains("writers"), e::getMessage);
    }
}
