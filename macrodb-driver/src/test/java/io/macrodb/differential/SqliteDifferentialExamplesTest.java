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
     * with the constraint, the next one succeeds.
     *
     * <p>The fix belongs in {@code Transaction} (shared code): after a failed statement on the primary,
     * ask the engine whether the session's engine transaction survived (SQLite:
     * {@code sqlite3_get_autocommit}, which xerial exposes as {@code DB.getAutocommit()}, or the
     * rollback hook of {@code SQLiteConnection.addCommitListener}); if it did not, discard the
     * transaction's captured changes, begin the session again, and report the engine's error as it is.
     */
    @Test
    @org.junit.jupiter.api.Disabled("reason: needs an engine hook in Transaction.afterFailure (shared code), see the comment")
    void insertOrRollbackThatFailsLeavesThePrimarySessionWithoutATransaction() throws SQLException {
        check(false, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"), Step.sql("INSERT INTO t VALUES (1, 'a')"),
                Step.sql("INSERT OR ROLLBACK INTO t VALUES (2, 'b'), (1, 'c')"), Step.sql("INSERT INTO t VALUES (3, 'd')"),
                Step.sql("INSERT INTO t VALUES (4, 'e')"));
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
}
