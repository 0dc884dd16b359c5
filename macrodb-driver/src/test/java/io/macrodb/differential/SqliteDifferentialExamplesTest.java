package io.macrodb.differential;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code DifferentialPropertiesTest.sqliteRowModeMatchesThePlainEngine} found, each pinned as a
 * deterministic differential check: the script runs through MacroDB over SQLite (3 replicas) and
 * through a plain SQLite database file, and every replica must hold the plain database's rows.
 */
@Tag("differential")
@Tag("slow") // left out of the fast test command (README); CI runs it
class SqliteDifferentialExamplesTest {

    /** Strict: a statement MacroDB refuses (0AM01) fails the example. */
    private static void check(boolean durability, Step... steps) throws SQLException {
        Differential.check(DiffConfig.macro("sqlite", "row", 3, durability), List.of(steps), false);
    }

    /**
     * SQLite lets a rowid table's primary key that is not the rowid hold NULL (for compatibility, as
     * it documents); a secondary finds a row by its key, and {@code K = NULL} finds none. Found as
     * "the capture triggers' final images differ from the rows read back" (the read-back by key
     * found nothing). MacroDB refuses such a row before it is written, and changes nothing.
     */
    @Test
    void aNullInAPrimaryKeyThatIsNotTheRowidIsRefused() throws SQLException {
        Differential.Result r = Differential.check(DiffConfig.macro("sqlite", "row", 3, false), Step.sqls(
                "CREATE TABLE t (k INT PRIMARY KEY, v TEXT)", "CREATE TABLE c (a INT, b TEXT, PRIMARY KEY (a, b))",
                "CREATE TABLE n (k TEXT NOT NULL PRIMARY KEY)", "CREATE TABLE r (k INTEGER PRIMARY KEY)",
                "INSERT INTO t VALUES (1, 'a'), (2, 'b')",
                "INSERT INTO t VALUES (NULL, 'x')", "INSERT INTO t (v) VALUES ('y')", "UPDATE t SET k = NULL WHERE k = 1",
                "INSERT OR REPLACE INTO t VALUES (NULL, 'z')", "INSERT INTO c VALUES (1, NULL)", "INSERT INTO c VALUES (1, 'b')",
                "INSERT INTO n VALUES (NULL)", "INSERT INTO r VALUES (NULL)", "UPDATE t SET v = 'c' WHERE k = 2"), true);
        assertEquals(5, r.refusals().size(), () -> String.join("\n", r.transcript()));
        for (String refusal : r.refusals()) assertTrue(refusal.contains("0AM01") || refusal.contains("NULL in its primary key"), refusal);
    }

    /**
     * {@code INSERT OR ROLLBACK} (likewise a column's {@code ON CONFLICT ROLLBACK} and an application
     * trigger's {@code RAISE(ROLLBACK, ...)}) that fails rolls back SQLite's whole transaction, behind
     * the JDBC driver's back. MacroDB runs an autocommit statement in a transaction of its own, so its
     * commit then fails ("cannot commit - no transaction is active") and the primary's session is left
     * with no BEGIN: the next statement on it runs in SQLite's own autocommit, is committed on the
     * primary and still reported as failed, so no secondary gets it. Plain SQLite: the statement fails
     * with the constraint, the next one succeeds. Now, after a failed statement on the primary, MacroDB
     * asks the engine whether its transaction survived ({@code Engine.failureEndedTransaction}); if not,
     * its transaction ends too, and the engine's error is reported as it is.
     */
    @Test
    void insertOrRollbackThatFailsLeavesThePrimarySessionWithoutATransaction() throws SQLException {
        check(false, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"), Step.sql("INSERT INTO t VALUES (1, 'a')"),
                Step.sql("INSERT OR ROLLBACK INTO t VALUES (2, 'b'), (1, 'c')"), Step.sql("INSERT INTO t VALUES (3, 'd')"),
                Step.sql("INSERT INTO t VALUES (4, 'e')"));
    }

    /**
     * The same inside a JDBC transaction: the failure ends MacroDB's transaction, the rows before it are gone on
     * every replica, and the statements after it run in a new transaction that {@code commit()} commits. (Plain
     * xerial runs them in SQLite's autocommit, one by one, and its {@code commit()} then fails with "cannot commit - no
     * transaction is active": the rows are the same, the commit's outcome differs, so this is not a differential check.)
     */
    @Test
    void insertOrRollbackThatFailsInsideATransactionEndsIt() throws SQLException {
        String url = io.macrodb.testing.TestDb.url("sqlite", "replicas=3");
        try (java.sql.Connection c = io.macrodb.testing.TestDb.open(url); java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)");
            s.execute("INSERT INTO t VALUES (1, 'a')");
            c.setAutoCommit(false);
            s.execute("INSERT INTO t VALUES (5, 'x')");
            SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> s.execute("INSERT OR ROLLBACK INTO t VALUES (2, 'b'), (1, 'c')"));
            assertTrue(e.getMessage().contains("UNIQUE"), e.getMessage());
            s.execute("INSERT INTO t VALUES (3, 'd')");
            c.commit();
            c.setAutoCommit(true);
            StringBuilder keys = new StringBuilder();
            try (java.sql.ResultSet rs = s.executeQuery("SELECT k FROM t ORDER BY k")) {
                while (rs.next()) keys.append(rs.getInt(1));
            }
            assertEquals("13", keys.toString(), "(5) went with the engine's rollback, (3) was committed after it");
            io.macrodb.testing.TestDb.assertConverged(c);
        }
    }

    /**
     * MacroDB turns {@code recursive_triggers} on in its sessions, because only then does SQLite fire
     * delete triggers, and so MacroDB's capture, for the rows a REPLACE removes. The application's own
     * DELETE triggers then fire for those rows too, which plain SQLite (recursive triggers off, its
     * default) does not do: here the audit table gets a row on every replica that the plain database
     * never has. Every replica agrees with the primary; the primary disagrees with plain SQLite.
     *
     * <p>Not fixable in the SQLite engine files alone: SQLite reports REPLACE's removals to no hook but
     * delete triggers under {@code recursive_triggers} (the update hook skips them; the pre-update hook
     * needs a build with SQLITE_ENABLE_PREUPDATE_HOOK, which xerial's driver does not expose). Proposed:
     * leave {@code recursive_triggers} as the application set it and have the capture record, from a
     * BEFORE INSERT/UPDATE trigger, the rows the new row collides with on each unique index as "removed
     * if gone after the statement", settled by reading them back by key once the statement ends (the
     * read-back path the shared capture code has for failed statements).
     */
    @Test
    @org.junit.jupiter.api.Disabled("reason: the fix needs a capture of REPLACE's removals without recursive_triggers (shared capture code), see the comment")
    void anApplicationDeleteTriggerFiresForTheRowsReplaceRemoves() throws SQLException {
        check(false, Step.sql("CREATE TABLE audit (id INTEGER PRIMARY KEY, k INT)"), Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY, email TEXT UNIQUE)"),
                Step.sql("CREATE TRIGGER t_deleted AFTER DELETE ON t BEGIN INSERT INTO audit (k) VALUES (OLD.k); END"),
                Step.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')"), Step.sql("INSERT OR REPLACE INTO t VALUES (3, 'a')"),
                Step.sql("REPLACE INTO t VALUES (2, 'c')"), Step.sql("UPDATE OR REPLACE t SET email = 'c' WHERE k = 3"),
                Step.sql("DELETE FROM t WHERE k = 2"));
    }

    /**
     * {@code INSERT OR FAIL} (likewise a constraint's {@code ON CONFLICT FAIL}) keeps the rows the
     * statement wrote before the one that failed, and in autocommit SQLite commits them. MacroDB runs
     * an autocommit statement in a transaction of its own and rolls it back when the statement fails:
     * the rows SQLite keeps are gone from every replica, and the next statements see another state
     * (here the second UNIQUE violation becomes a primary key violation). Inside a transaction it is
     * right: the failed statement makes the commit read the rows back.
     *
     * <p>Now an autocommit statement that fails on a constraint, on an engine whose failed statements
     * may keep rows ({@code Engine.failedStatementsMayKeepRows}, SQLite), ends as the engine's own
     * autocommit does: MacroDB commits what the statement left (with the read-back a failed
     * statement forces) instead of rolling it back.
     */
    @Test
    void insertOrFailInAutocommitKeepsTheRowsBeforeTheFailure() throws SQLException {
        check(false, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY, u INT UNIQUE)"), Step.sql("INSERT INTO t VALUES (1, 1)"),
                Step.sql("INSERT OR FAIL INTO t VALUES (2, 2), (3, 1), (4, 4)"), Step.sql("INSERT INTO t VALUES (2, 5), (5, 2)"));
    }

    /**
     * A transaction begun with SQL's {@code BEGIN} ends, in SQLite, with its {@code COMMIT} (or
     * {@code END}, {@code ROLLBACK}), and the connection is back in autocommit. MacroDB mapped
     * {@code BEGIN} onto {@code setAutoCommit(false)} for good: the next statement opened a
     * transaction that nothing committed, so its rows never reached any replica (nor other
     * connections of the primary), here {@code (1)}. Now autocommit comes back when that
     * transaction ends ({@code MacroConnection.endSqlBegun}), as in H2 and HSQLDB too
     * ({@code SqlBeginTest}). Left: an {@code END} with no transaction fails on plain SQLite
     * ("cannot commit - no transaction is active") and succeeds through MacroDB.
     */
    @Test
    void autocommitReturnsAfterASqlBeginAndCommit() throws SQLException {
        check(false, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY)"), Step.sql("BEGIN"), Step.sql("INSERT INTO t VALUES (6), (2)"),
                Step.sql("COMMIT"), Step.sql("INSERT INTO t VALUES (1)"));
    }

    /**
     * SQLite's schema changes are transactional: a rollback undoes a {@code CREATE} or {@code ALTER}
     * and every change before it in the transaction. MacroDB commits the open transaction before a
     * schema change (the H2 and HSQLDB semantics, where DDL commits): here the rows inserted before
     * the {@code ALTER} and the new column survive the {@code rollback()} on every replica.
     *
     * <p>The fix belongs in the shared schema-change path (Transaction): on an engine with
     * transactional DDL (an {@code Engine.schemaChangesAreTransactional()} hook, true for SQLite), run
     * the DDL inside the open transaction and ship it with the transaction's rows at commit.
     */
    @Test
    @org.junit.jupiter.api.Disabled("reason: DDL inside a transaction is committed by the shared schema-change path, see the comment")
    void aSchemaChangeInsideATransactionIsRolledBackWithIt() throws SQLException {
        check(false, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY)"), Step.begin(), Step.sql("INSERT INTO t VALUES (2)"),
                Step.sql("ALTER TABLE t ADD COLUMN x TEXT"), Step.rollback());
    }
}
