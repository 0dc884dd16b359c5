package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A schema change waits for the update transactions that may have written (the update gate), and
 * for no other: a transaction that has only read, or locked rows with {@code SELECT ... FOR UPDATE},
 * holds the gate from its first statement that may write. Flyway needs this: on H2 it locks its
 * history table on one connection and runs each migration's DDL on another, from one thread (before
 * the gate was entered lazily, that DDL waited lockTimeout for the lock holder and failed with 40001).
 * The engine's own locks still apply, as on the plain engine.
 */
class SchemaChangeBesideOpenTransactionsTest {
    private static final long LOCK_TIMEOUT = 1_500;

    /** Flyway's pattern, on one thread: lock the history on A, migrate on B, record on A, commit A. */
    @ParameterizedTest
    @ValueSource(strings = {"row", "statement"})
    void aMigrationRunsBesideATransactionThatLockedRowsOnly(String propagation) {
        String url = TestDb.url("h2", "replicas=3&lockTimeout=" + LOCK_TIMEOUT + "&propagation=" + propagation);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
                try (Statement s = a.createStatement()) {
                    s.execute("CREATE TABLE history (rank INT PRIMARY KEY, version VARCHAR(10))");
                    s.execute("CREATE TABLE product (id INT PRIMARY KEY, name VARCHAR(20))");
                    s.execute("INSERT INTO history VALUES (0, NULL)");
                    s.execute("INSERT INTO product VALUES (1, 'kettle')");
                }
                for (int version = 1; version <= 3; version++) {
                    a.setAutoCommit(false);
                    try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM history FOR UPDATE")) {
                        while (rs.next()) rs.getInt(1);
                    }
                    long start = System.nanoTime();
                    try (Statement s = b.createStatement()) { // V1: a table, V2: a column on a table with rows, V3: an index
                        s.execute(switch (version) {
                            case 1 -> "CREATE TABLE orders (id INT PRIMARY KEY, product INT)";
                            case 2 -> "ALTER TABLE product ADD COLUMN stock INT DEFAULT 5";
                            default -> "CREATE INDEX orders_product ON orders (product)";
                        });
                    }
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertTrue(millis < LOCK_TIMEOUT, "V" + version + "'s DDL did not wait for the lock holder: " + millis + " ms");
                    try (Statement s = a.createStatement()) {
                        s.execute("INSERT INTO history VALUES (" + version + ", '" + version + "')");
                    }
                    a.commit();
                    a.setAutoCommit(true);
                }
                try (Statement s = a.createStatement()) {
                    s.execute("INSERT INTO orders VALUES (1, 1)");
                    s.execute("UPDATE product SET stock = stock - 1 WHERE id = 1");
                }
                TestDb.assertConverged(a);
                try (Statement s = b.createStatement(); ResultSet rs = s.executeQuery("SELECT stock FROM product WHERE id = 1")) {
                    assertTrue(rs.next());
                    assertEquals(4, rs.getInt(1));
                }
            }
        });
    }

    /** The premise: plain H2 runs that DDL at once beside a transaction that locked rows. */
    @Test
    void plainH2RunsTheMigrationBesideTheLockHolder() throws Exception {
        String url = "jdbc:h2:mem:gate_premise_" + System.nanoTime() + ";LOCK_TIMEOUT=" + LOCK_TIMEOUT;
        try (Connection a = DriverManager.getConnection(url); Connection b = DriverManager.getConnection(url)) {
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE history (rank INT PRIMARY KEY)");
                s.execute("INSERT INTO history VALUES (0)");
            }
            a.setAutoCommit(false);
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM history FOR UPDATE")) {
                assertTrue(rs.next());
            }
            long start = System.nanoTime();
            try (Statement s = b.createStatement()) {
                s.execute("CREATE TABLE orders (id INT PRIMARY KEY)");
            }
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < LOCK_TIMEOUT);
            a.commit();
        }
    }

    /**
     * A transaction that has written still holds a schema change back: the change would otherwise
     * take a version while the transaction's changes, captured before it, wait to commit.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aTransactionThatWroteHoldsASchemaChangeBackUntilItEnds(String engine) {
        String url = TestDb.url(engine, "replicas=2&lockTimeout=" + LOCK_TIMEOUT);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
                try (Statement s = a.createStatement()) {
                    s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                }
                a.setAutoCommit(false);
                try (Statement s = a.createStatement()) {
                    s.execute("INSERT INTO t VALUES (1, 1)");
                }
                assertSchemaChangeTimesOut(b, "CREATE TABLE u (id INT PRIMARY KEY)");
                a.commit();
                try (Statement s = b.createStatement()) {
                    s.execute("CREATE TABLE u (id INT PRIMARY KEY)"); // nothing changed: the retry runs
                    s.execute("INSERT INTO u VALUES (1)");
                }
                TestDb.assertConverged(a);
            }
        });
    }

    /**
     * A transaction that waits at its first write for a schema change gets in once the change is
     * done, and its rows reach every replica in the table's new shape.
     */
    @Test
    void aLockHolderWritesAfterASchemaChangeInTheTablesNewShape() throws Exception {
        String url = TestDb.url("h2", "replicas=3&lockTimeout=" + LOCK_TIMEOUT);
        try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE lock_t (id INT PRIMARY KEY)");
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                s.execute("INSERT INTO lock_t VALUES (1)");
                s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
            }
            a.setAutoCommit(false);
            try (Statement s = a.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM lock_t FOR UPDATE")) {
                assertTrue(rs.next());
            }
            try (Statement s = b.createStatement()) {
                s.execute("ALTER TABLE t ADD COLUMN w VARCHAR(10) DEFAULT 'x'");
                s.execute("ALTER TABLE t DROP COLUMN v");
            }
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO t (id, w) VALUES (3, 'y')");
                s.execute("UPDATE t SET w = 'z' WHERE id = 1");
                s.execute("DELETE FROM lock_t WHERE id = 1");
            }
            a.commit();
            a.setAutoCommit(true);
            TestDb.assertConverged(a);
        }
    }

    /**
     * {@code Connection.abort} from another thread hands the aborted transaction's gate back: a later
     * schema change neither waits for a transaction that is gone nor runs beside one that is inside.
     * (That the owner's own end and the abort's together hand it back once is UpdateTurnTest's.)
     */
    @Test
    void anAbortedTransactionHandsTheGateBack() {
        String url = TestDb.url("h2", "replicas=2&lockTimeout=" + LOCK_TIMEOUT);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            ExecutorService executor = Executors.newSingleThreadExecutor();
            try (Connection keep = TestDb.open(url); Connection c = TestDb.open(url)) {
                try (Statement s = keep.createStatement()) {
                    s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
                }
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO t VALUES (1)");
                }
                c.abort(executor);
                executor.shutdown();
                assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
                c.close(); // the owner's own end, after the abort's
                try (Statement s = keep.createStatement()) {
                    s.execute("CREATE TABLE u (id INT PRIMARY KEY)"); // the gate is free: at once
                }
                // and it still keeps a schema change out while a transaction is inside
                try (Connection w = TestDb.open(url); Connection b = TestDb.open(url)) {
                    w.setAutoCommit(false);
                    try (Statement s = w.createStatement()) {
                        s.execute("INSERT INTO t VALUES (2)");
                    }
                    assertSchemaChangeTimesOut(b, "CREATE TABLE v (id INT PRIMARY KEY)");
                    w.rollback();
                }
                TestDb.assertConverged(keep);
            } finally {
                executor.shutdownNow();
            }
        });
    }

    /** {@code ddl} on {@code b} waits lockTimeout for an update transaction that has written, then fails with 40001. */
    private static void assertSchemaChangeTimesOut(Connection b, String ddl) {
        SQLException e = assertThrows(SQLException.class, () -> {
            try (Statement s = b.createStatement()) {
                s.execute(ddl);
            }
        });
        assertEquals("40001", e.getSQLState(), e.getMessage());
    }
}
