package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DESIGN.md §8 convergence: a concurrent randomized workload ({@link ConvergenceWorkload}: identity
 * columns, sequences, CURRENT_TIMESTAMP, RAND(), multi-row updates and deletes, cascading deletes,
 * failed statements, rollbacks and savepoints) with DDL beside it; afterwards every replica's content checksum must equal the
 * primary's. Run for both engines and both propagation modes. A replica that applied a change the
 * primary rolled back (a savepoint, a failed statement, a rolled-back transaction), missed one, or
 * computed a non-deterministic value differently has a different checksum.
 */
class ConvergenceTest {
    private static final int THREADS = 4;
    private static final int TRANSACTIONS = 120;

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.macrodb.testing.TestEngines#withPropagation")
    void randomizedConcurrentWorkloadConverges(String engine, String propagation) throws Exception {
        long seed = TestDb.seed("convergence " + engine + " " + propagation);
        boolean rowMode = propagation.equals("row");
        // Derby locks on read: a read-only transaction that ran on the primary would take part in the writers' deadlocks
        // there, as on plain Derby; it waits for a secondary instead, where readers never meet the applier's locks
        String url = TestDb.url(engine, "replicas=3&propagation=" + propagation + "&lockTimeout=5000"
                + (engine.equals("derby") ? "&readWait=5000" : ""));
        boolean sqlite = engine.equals("sqlite"); // no sequences; an AUTOINCREMENT key; random() for RAND()
        try (Connection admin = open(engine, url)) {
            ConvergenceWorkload.createSchema(admin, engine);
            AtomicInteger committed = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger rolledBack = new AtomicInteger();
            ConvergenceWorkload.runThreads(THREADS, TRANSACTIONS, seed, () -> open(engine, url), (c, thread, i, rnd) -> {
                if (thread == 0 && i % 40 == 20) {
                    ConvergenceWorkload.ddl(c, i / 40);
                } else if (rnd.nextInt(100) < 20) {
                    readOnly(c);
                } else if (ConvergenceWorkload.transaction(c, rnd.nextLong(), rowMode, sqlite, refused)) {
                    committed.incrementAndGet();
                } else {
                    rolledBack.incrementAndGet();
                }
            }, 120);
            assertTrue(committed.get() > THREADS * TRANSACTIONS / 2, "most transactions should commit: " + committed);
            assertTrue(rolledBack.get() > 0, "some transactions should roll back");
            List<String> sums = TestDb.assertConverged(admin);
            System.out.println("converged after " + committed + " commits, " + rolledBack + " rollbacks, " + refused + " refused statements: " + sums
                    + ", " + io.macrodb.capture.TransactionChanges.divergences() + " engine divergences caught in this JVM so far "
                    + TestDb.macro(admin).replicaStatus());
            if (!rowMode) assertTrue(refused.get() > 0, "statement mode should have refused some RAND() updates");
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM items")) {
                rs.next();
                assertTrue(rs.getInt(1) > 0);
            }
        }
    }

    private static void readOnly(Connection c) throws SQLException {
        c.setReadOnly(true);
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(val) FROM items")) {
            rs.next();
            c.commit();
        } finally {
            c.setReadOnly(false);
        }
    }

    /**
     * A connection of the workload; on SQLite with foreign-key checks on (a per-connection setting
     * there, off by default), so that its cascades run too.
     */
    private static Connection open(String engine, String url) throws SQLException {
        if (!engine.equals("sqlite")) return TestDb.open(url);
        java.util.Properties p = new java.util.Properties();
        p.setProperty("foreign_keys", "true");
        return java.sql.DriverManager.getConnection(url, p);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.macrodb.testing.TestEngines#withPropagation")
    void unqualifiedNamesResolveInTheConnectionsSchemaOnEveryReplica(String engine, String propagation) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(engine.equals("sqlite"),
                "SQLite has no schemas to create: its only other databases are ATTACHed ones, which MacroDB refuses");
        org.junit.jupiter.api.Assumptions.assumeFalse(engine.equals("derby"), "every Derby database has a schema APP already");
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2&propagation=" + propagation))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA app");
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)"); // in the default schema
            }
            c.setSchema(engine.equals("postgresql") ? "app" : "APP"); // PostgreSQL folds unquoted names to lower case
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)"); // APP.T, on every replica
                s.execute("INSERT INTO t VALUES (1, 1)");
                s.execute("UPDATE t SET v = 2 WHERE id = 1");
            }
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            List<String> rows = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v FROM t")) {
                while (rs.next()) rows.add(rs.getInt(1) + ":" + rs.getInt(2));
            }
            assertEquals(List.of("1:2"), rows);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.macrodb.testing.TestEngines#withPropagation")
    void rollbackToSavepointDropsExactlyTheLaterChanges(String engine, String propagation) throws Exception {
        String url = TestDb.url(engine, "replicas=2&propagation=" + propagation);
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
            }
            c.setAutoCommit(false);
            ConvergenceWorkload.exec(c, "INSERT INTO t VALUES (1, 'a')");
            Savepoint sp1 = c.setSavepoint("one");
            ConvergenceWorkload.exec(c, "INSERT INTO t VALUES (2, 'b')");
            Savepoint sp2 = c.setSavepoint();
            ConvergenceWorkload.exec(c, "UPDATE t SET v = 'x' WHERE id = 1");
            c.rollback(sp2);
            ConvergenceWorkload.exec(c, "INSERT INTO t VALUES (3, 'c')");
            c.rollback(sp1);
            ConvergenceWorkload.exec(c, "INSERT INTO t VALUES (4, 'd')");
            try (Statement s = c.createStatement()) {
                s.execute("SAVEPOINT named");
                s.execute("DELETE FROM t WHERE id = 1");
                s.execute("ROLLBACK TO SAVEPOINT named");
            }
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            List<String> rows = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v FROM t ORDER BY id")) {
                while (rs.next()) rows.add(rs.getInt(1) + rs.getString(2));
            }
            assertEquals(List.of("1a", "4d"), rows);
        }
    }
}
