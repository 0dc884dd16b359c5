package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On an engine whose schema changes are transactional (SQLite, Derby, PostgreSQL), a schema change inside a
 * transaction is part of it, as on the plain engine: a rollback undoes it with the rows changed before and after it,
 * a commit ships them all, in the order they happened, and every replica ends with the primary's schema and rows.
 * Before, MacroDB committed the open transaction before any schema change (what H2 and HSQLDB do themselves): a
 * migration that failed halfway left its first half committed on every replica.
 */
class TransactionalSchemaChangeTest {

    private static String url(String engine, String options) {
        return TestDb.url(engine, "replicas=3&lockTimeout=5000" + (options.isEmpty() ? "" : "&" + options));
    }

    private static void exec(Connection c, String... sqls) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : sqls) s.execute(sql);
        }
    }

    /** The rows of a query, each as its columns joined by '|', in the query's order. */
    private static List<String> rows(Connection c, String sql) throws SQLException {
        return TestDb.rows(c, sql, "|");
    }

    /** No replica left the rotation (a secondary that failed to apply is seen, not rebuilt behind the test), and all converged. */
    private static void assertEveryReplicaInServiceAndConverged(Connection c) throws SQLException {
        for (io.macrodb.replica.ReplicaStatus r : TestDb.macro(c).replicaStatus()) {
            assertEquals(io.macrodb.replica.ReplicaState.ACTIVE, r.state(), () -> "replica " + r.index() + ": " + r.stateReason());
        }
        TestDb.assertConverged(c);
    }

    private static boolean tableExists(Connection c, String table) throws SQLException {
        for (String name : new String[] {table, table.toUpperCase(java.util.Locale.ROOT)}) {
            try (ResultSet rs = c.getMetaData().getTables(null, null, name, new String[] {"TABLE"})) {
                if (rs.next()) return true;
            }
        }
        return false;
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "derby", "postgresql"})
    void aRollbackUndoesTheSchemaChangeWithTheRowsAroundIt(String engine) throws SQLException {
        String[] e = engine.split(":");
        try (Connection c = TestDb.open(url(e[0], e.length > 1 ? "propagation=" + e[1] : ""))) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'a')");
            c.setAutoCommit(false);
            exec(c, "INSERT INTO t VALUES (2, 'b')", "UPDATE t SET v = 'changed' WHERE k = 1",
                    "ALTER TABLE t ADD COLUMN x INT DEFAULT 7", "UPDATE t SET x = 8 WHERE k = 2",
                    "CREATE TABLE u (k INT PRIMARY KEY, w VARCHAR(10))", "INSERT INTO u VALUES (1, 'w')");
            assertEquals(List.of("1|changed|7", "2|b|8"), rows(c, "SELECT k, v, x FROM t ORDER BY k"), "inside the transaction");
            c.rollback();
            assertEquals(List.of("1|a"), rows(c, "SELECT * FROM t ORDER BY k"));
            assertFalse(tableExists(c, "u"), "the table created in the rolled-back transaction");
            // capture is as it was before the transaction: the next write reaches every replica
            exec(c, "INSERT INTO t VALUES (3, 'c')");
            c.commit();
            c.setAutoCommit(true);
            exec(c, "UPDATE t SET v = 'd' WHERE k = 3");
            assertEquals(List.of("1|a", "3|d"), rows(c, "SELECT * FROM t ORDER BY k"));
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "derby", "postgresql"})
    void aCommitShipsTheRowsBeforeTheSchemaChangeItAndTheRowsAfterIt(String engine) throws SQLException {
        String[] e = engine.split(":");
        try (Connection c = TestDb.open(url(e[0], e.length > 1 ? "propagation=" + e[1] : ""))) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'a'), (5, 'e')");
            c.setAutoCommit(false);
            exec(c, "INSERT INTO t VALUES (2, 'b')", "UPDATE t SET v = 'changed' WHERE k = 1", "DELETE FROM t WHERE k = 5",
                    "ALTER TABLE t ADD COLUMN x INT DEFAULT 7", "UPDATE t SET x = 8 WHERE k = 2", "INSERT INTO t VALUES (3, 'c', 9)",
                    "UPDATE t SET v = 'again' WHERE k = 1",
                    "CREATE TABLE u (k INT PRIMARY KEY, w VARCHAR(10))", "INSERT INTO u VALUES (1, 'w'), (2, 'z')",
                    "DELETE FROM u WHERE k = 2", "CREATE INDEX u_w ON u (w)", "INSERT INTO u VALUES (3, 'y')");
            c.commit();
            c.setAutoCommit(true);
            // the new table's capture is installed for the transactions after it
            exec(c, "INSERT INTO u VALUES (4, 'v')", "UPDATE t SET x = 10 WHERE k = 3");
            assertEquals(List.of("1|again|7", "2|b|8", "3|c|10"), rows(c, "SELECT k, v, x FROM t ORDER BY k"));
            assertEquals(List.of("1|w", "3|y", "4|v"), rows(c, "SELECT * FROM u ORDER BY k"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * A transaction that never said what it is starts on a secondary with a read; its schema change moves it to the
     * primary as a write does (its read is run again there and still holds), and the change is part of it from then
     * on: a rollback undoes it, a commit ships it with the rows after it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "derby", "postgresql"})
    void anUndeclaredTransactionMovesToThePrimaryAtItsSchemaChange(String engine) throws SQLException {
        try (Connection c = TestDb.open(url(engine, ""))) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'a')");
            io.macrodb.jdbc.MacroConnection mc = TestDb.macro(c);
            for (boolean commit : new boolean[] {false, true}) {
                assertTrue(mc.admin().awaitCaughtUp(10_000));
                c.setAutoCommit(false);
                assertEquals(List.of("1|a"), rows(c, "SELECT k, v FROM t WHERE k = 1"));
                assertFalse(mc.currentReplica().isPrimary(), "an undeclared read starts on a secondary");
                exec(c, "ALTER TABLE t ADD COLUMN x" + (commit ? 2 : 1) + " INT");
                assertTrue(mc.currentReplica().isPrimary(), "the schema change moved the transaction to the primary");
                exec(c, "UPDATE t SET x" + (commit ? 2 : 1) + " = 5");
                if (commit) c.commit();
                else c.rollback();
                c.setAutoCommit(true);
            }
            assertEquals(List.of("1|a|5"), rows(c, "SELECT * FROM t"), "x1 rolled back, x2 committed");
            TestDb.assertConverged(c);
        }
    }

    /**
     * A trigger of the application created inside a transaction fires on the primary for the rows after it; row
     * propagation ships what it did, and a secondary, which applies the trigger's creation and those rows in one
     * transaction, must not fire it again (in row propagation a secondary carries none of the application's triggers).
     * On SQLite and Derby the secondaries fired it, and failed on the audit rows twice over, until the applier dropped
     * such a trigger right after the statement that creates it ({@code RowWriter}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "derby", "postgresql"})
    void aTriggerCreatedInsideATransactionFiresOnceForTheRowsAfterIt(String engine) throws SQLException {
        String trigger = switch (engine) {
            case "sqlite" -> "CREATE TRIGGER audit_t AFTER INSERT ON t BEGIN INSERT INTO audit (k) VALUES (NEW.k); END";
            case "derby" -> "CREATE TRIGGER audit_t AFTER INSERT ON t REFERENCING NEW AS n FOR EACH ROW INSERT INTO audit (k) VALUES (n.k)";
            default -> "CREATE TRIGGER audit_t AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION audit_t()";
        };
        try (Connection c = TestDb.open(url(engine, ""))) {
            // no key where the engine allows it (PostgreSQL's trigger capture needs one): a second insert of a row shows
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY)", "CREATE TABLE audit (k INT" + (engine.equals("postgresql") ? " PRIMARY KEY)" : ")"));
            if (engine.equals("postgresql")) {
                exec(c, "CREATE FUNCTION audit_t() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit (k) VALUES (NEW.k);"
                        + " RETURN NEW; END $$");
            }
            c.setAutoCommit(false);
            exec(c, "INSERT INTO t VALUES (1)", trigger, "INSERT INTO t VALUES (2)", "INSERT INTO t VALUES (3)");
            c.commit();
            c.setAutoCommit(true);
            exec(c, "INSERT INTO t VALUES (4)");
            assertEquals(List.of("2", "3", "4"), rows(c, "SELECT k FROM audit ORDER BY k"));
            assertEveryReplicaInServiceAndConverged(c);
        }
    }

    /**
     * A table created inside a transaction with an identity column that is {@code GENERATED ALWAYS} and a foreign key, and
     * rows after it whose record order (table by table, first touched first) puts a child before its parent: a secondary
     * applies the rows with the primary's identity values and in the record's order, so it must have made the identity
     * {@code BY DEFAULT} and dropped the foreign key (what a row-propagation secondary does after every schema change)
     * before those rows, in the same apply transaction.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "derby", "postgresql"})
    void aTableCreatedInsideATransactionTakesTheRowsAfterItOnEverySecondary(String engine) throws SQLException {
        String identity = engine.equals("sqlite") ? "INTEGER PRIMARY KEY" : "INT GENERATED ALWAYS AS IDENTITY PRIMARY KEY";
        try (Connection c = TestDb.open(url(engine, ""))) {
            exec(c, "CREATE TABLE parent (id INT PRIMARY KEY)", "INSERT INTO parent VALUES (1)");
            c.setAutoCommit(false);
            exec(c, "CREATE TABLE child (id " + identity + ", parent INT REFERENCES parent (id), v VARCHAR(10))",
                    "INSERT INTO child (parent, v) VALUES (1, 'a')", "INSERT INTO parent VALUES (2)",
                    "INSERT INTO child (parent, v) VALUES (2, 'b')");
            c.commit();
            c.setAutoCommit(true);
            exec(c, "INSERT INTO child (parent, v) VALUES (2, 'c')");
            assertEquals(List.of("1|a", "2|b", "2|c"), rows(c, "SELECT parent, v FROM child ORDER BY id"));
            assertEveryReplicaInServiceAndConverged(c);
        }
    }

    /**
     * A schema change that computes values with a random function ships the primary's values with it, inside a
     * transaction as in autocommit: every replica ends with the primary's rows. (On PostgreSQL both failed before: the
     * probe for the table aborted the transaction, and the table's name was read from result metadata, where pgjdbc
     * names no schema, so in autocommit every secondary was rebuilt.)
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"sqlite, true", "sqlite, false", "postgresql, true", "postgresql, false"})
    void computedValuesOfASchemaChangeAreThePrimarys(String engine, boolean inTransaction) throws SQLException {
        boolean pg = engine.equals("postgresql");
        // rebuild=manual: a secondary failed for values that could not be shipped stays failed, and the test sees it
        try (Connection c = TestDb.open(url(engine, "rebuild=manual"))) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
            c.setAutoCommit(!inTransaction);
            exec(c, "INSERT INTO t VALUES (4, 'd')", "CREATE TABLE c AS SELECT k, random() AS r FROM t");
            if (pg) exec(c, "ALTER TABLE t ADD COLUMN r float8 DEFAULT random()");
            exec(c, "INSERT INTO t (k, v) VALUES (5, 'e')");
            if (inTransaction) c.commit();
            c.setAutoCommit(true);
            assertEquals(4, rows(c, "SELECT r FROM c").size());
            assertEveryReplicaInServiceAndConverged(c);
        }
    }

    /**
     * A schema change that fails (here: a table that does not exist) leaves the transaction as it was, its rows before it
     * and a savepoint set before it included, as an engine savepoint around it has it; the transaction goes on and
     * commits. (PostgreSQL itself would abort the whole transaction; MacroDB's savepoint keeps it, as pgjdbc's
     * {@code autosave=always} does.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "derby", "postgresql"})
    void aFailedSchemaChangeLeavesTheTransactionAsItWas(String engine) throws SQLException {
        try (Connection c = TestDb.open(url(engine, ""))) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))");
            c.setAutoCommit(false);
            exec(c, "INSERT INTO t VALUES (1, 'a')");
            Savepoint before = c.setSavepoint();
            exec(c, "INSERT INTO t VALUES (9, 'z')");
            assertThrows(SQLException.class, () -> exec(c, "ALTER TABLE missing ADD COLUMN y INT"));
            c.rollback(before); // a failed schema change leaves a savepoint before it usable
            exec(c, "INSERT INTO t VALUES (2, 'b')", "ALTER TABLE t ADD COLUMN x INT", "UPDATE t SET x = k * 10");
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("1|a|10", "2|b|20"), rows(c, "SELECT k, v, x FROM t ORDER BY k"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * MacroDB captured the rows before a schema change when it ran: it cannot roll back to a savepoint set before it, and
     * says so without rolling anything back. A savepoint set after it works as on the engine.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "derby", "postgresql"})
    void aSavepointBeforeTheSchemaChangeIsRefusedAndOneAfterItWorks(String engine) throws SQLException {
        try (Connection c = TestDb.open(url(engine, ""))) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))");
            c.setAutoCommit(false);
            exec(c, "INSERT INTO t VALUES (1, 'a')");
            Savepoint early = c.setSavepoint();
            exec(c, "INSERT INTO t VALUES (2, 'b')", "ALTER TABLE t ADD COLUMN x INT");
            Savepoint late = c.setSavepoint();
            exec(c, "INSERT INTO t VALUES (3, 'c', 3)");
            SQLException refused = assertThrows(SQLException.class, () -> c.rollback(early));
            assertEquals("0AM00", refused.getSQLState(), refused.getMessage());
            assertTrue(refused.getMessage().contains("before a schema change"), refused.getMessage());
            assertEquals(List.of("1|a|null", "2|b|null", "3|c|3"), rows(c, "SELECT k, v, x FROM t ORDER BY k"), "nothing was rolled back");
            c.rollback(late);
            exec(c, "INSERT INTO t VALUES (4, 'd', 4)");
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("1|a|null", "2|b|null", "4|d|4"), rows(c, "SELECT k, v, x FROM t ORDER BY k"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * From its schema change to its end the transaction holds the update gate alone, as a schema change in autocommit
     * does for its instant: the tables' shapes that capture uses change at its commit, and no other transaction may
     * write beside it meanwhile. Another connection's write waits for it (here: into a table it does not touch), then runs.
     */
    @ParameterizedTest
    @ValueSource(strings = {"derby", "postgresql"})
    void anotherWriterWaitsForTheTransactionToEnd(String engine) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            String url = url(engine, "");
            ExecutorService other = Executors.newSingleThreadExecutor();
            try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
                exec(a, "CREATE TABLE t (k INT PRIMARY KEY)", "CREATE TABLE elsewhere (k INT PRIMARY KEY)");
                a.setAutoCommit(false);
                exec(a, "INSERT INTO t VALUES (1)", "ALTER TABLE t ADD COLUMN x INT");
                Future<?> write = other.submit(() -> {
                    exec(b, "INSERT INTO elsewhere VALUES (1)");
                    return null;
                });
                assertThrows(TimeoutException.class, () -> write.get(700, TimeUnit.MILLISECONDS), "the other write ran beside the schema change");
                exec(a, "INSERT INTO t VALUES (2, 2)");
                a.commit();
                write.get(10, TimeUnit.SECONDS);
                a.setAutoCommit(true);
                assertEquals(List.of("1"), rows(a, "SELECT k FROM elsewhere"));
                TestDb.assertConverged(a);
            } finally {
                other.shutdownNow();
            }
        });
    }

    /** A transaction's schema change and rows survive a restart from the durable log, in their order. */
    @Test
    void aTransactionWithASchemaChangeIsRecoveredFromTheDurableLog(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws SQLException {
        String url = "jdbc:macrodb:sqlite:mem:durable_ddl_" + Long.toHexString(System.nanoTime()) + "?replicas=2&durability=log:"
                + dir.resolve("log");
        try (Connection c = TestDb.open(url)) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'a')");
            c.setAutoCommit(false);
            exec(c, "UPDATE t SET v = 'b' WHERE k = 1", "ALTER TABLE t ADD COLUMN x INT DEFAULT 7", "INSERT INTO t VALUES (2, 'c', 8)",
                    "CREATE TABLE u (k INT PRIMARY KEY)", "INSERT INTO u VALUES (1)");
            c.commit();
        }
        try (Connection c = TestDb.open(url)) {
            assertEquals(List.of("1|b|7", "2|c|8"), rows(c, "SELECT k, v, x FROM t ORDER BY k"));
            assertEquals(List.of("1"), rows(c, "SELECT k FROM u"));
            exec(c, "INSERT INTO u VALUES (2)");
            TestDb.assertConverged(c);
        }
    }

    /**
     * PostgreSQL refuses {@code CREATE INDEX CONCURRENTLY} in a transaction block (25001); MacroDB runs it in autocommit
     * when no transaction of the connection has changed rows, and otherwise refuses it as PostgreSQL does, leaving the
     * transaction open (it used to commit the transaction first).
     */
    @Test
    void aConcurrentIndexInsideATransactionWithRowsIsRefusedAsOnPostgresql() throws SQLException {
        try (Connection c = TestDb.open(url("postgresql", ""))) {
            exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v INT)");
            c.setAutoCommit(false);
            exec(c, "INSERT INTO t VALUES (1, 1)");
            SQLException e = assertThrows(SQLException.class, () -> exec(c, "CREATE INDEX CONCURRENTLY t_v ON t (v)"));
            assertEquals("25001", e.getSQLState(), e.getMessage());
            c.rollback();
            assertEquals(List.of(), rows(c, "SELECT * FROM t"), "the transaction was still open, and rolled back");
            exec(c, "CREATE INDEX CONCURRENTLY t_v ON t (v)");
            exec(c, "INSERT INTO t VALUES (2, 2)");
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
        }
    }
}
