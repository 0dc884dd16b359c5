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
     * every replica, and the application's {@code commit()} fails (40000) and rolls back the statements after it: it
     * used to commit them as if they were the whole transaction, and the application took the rows before the failure
     * for committed. (Plain xerial runs those statements in SQLite's autocommit, one by one, and its {@code commit()}
     * then fails with "cannot commit - no transaction is active": the commit fails in both, and only plain SQLite keeps
     * the rows after the failure, so this is not a differential check.)
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
            SQLException commit = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, c::commit);
            assertEquals("40000", commit.getSQLState(), commit::toString);
            c.setAutoCommit(true);
            StringBuilder keys = new StringBuilder();
            try (java.sql.ResultSet rs = s.executeQuery("SELECT k FROM t ORDER BY k")) {
                while (rs.next()) keys.append(rs.getInt(1));
            }
            assertEquals("1", keys.toString(), "(5) went with the engine's rollback, (3) with the commit that failed");
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
     * <p>SQLite reports REPLACE's removals to no hook but delete triggers under {@code recursive_triggers}
     * (the update hook skips them; the pre-update hook needs a build with SQLITE_ENABLE_PREUPDATE_HOOK,
     * which xerial's driver does not expose). Now MacroDB leaves {@code recursive_triggers} as the
     * application set it, and a BEFORE INSERT and a BEFORE UPDATE trigger per table report every row the
     * new row collides with on the rowid or a unique index ({@code SqliteReplaceProbes}) as "removed if
     * gone": the commit reads it back by key (by rowid in a table without a key) and ships what it finds.
     */
    @Test
    void anApplicationDeleteTriggerFiresForTheRowsReplaceRemoves() throws SQLException {
        check(false, Step.sql("CREATE TABLE audit (id INTEGER PRIMARY KEY, k INT)"), Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY, email TEXT UNIQUE)"),
                Step.sql("CREATE TRIGGER t_deleted AFTER DELETE ON t BEGIN INSERT INTO audit (k) VALUES (OLD.k); END"),
                Step.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')"), Step.sql("INSERT OR REPLACE INTO t VALUES (3, 'a')"),
                Step.sql("REPLACE INTO t VALUES (2, 'c')"), Step.sql("UPDATE OR REPLACE t SET email = 'c' WHERE k = 3"),
                Step.sql("DELETE FROM t WHERE k = 2"));
    }

    /**
     * REPLACE's removals without {@code recursive_triggers}, where the probes must find them: a table
     * without a key (rows settled by rowid), a multi-row REPLACE that removes a row it inserted itself,
     * {@code UPDATE OR REPLACE} moving a key onto another row's, a rowid named in a table whose key is
     * not the rowid, {@code WITHOUT ROWID}, a NOT NULL column whose DEFAULT REPLACE writes for a NULL,
     * an expression index, a partial index, a NOCASE column and a BINARY index on it, and ON DELETE
     * CASCADE (SQLite cascades REPLACE's removals whatever {@code recursive_triggers} says) into a child
     * with an application trigger; an application DELETE trigger on each table, inside a transaction
     * too, with a savepoint rolled back.
     */
    @Test
    void replaceRemovesRowsTheCaptureFindsByProbing() throws SQLException {
        // each case a script of its own: a secondary that failed to apply is rebuilt from the primary a
        // little later, which a longer script would hide
        replaceCase("CREATE TABLE n (k INT, u TEXT UNIQUE, v INT)",
                "CREATE TRIGGER n_d AFTER DELETE ON n BEGIN INSERT INTO audit (t, k) VALUES ('n', OLD.k); END",
                "INSERT INTO n VALUES (1, 'a', 1), (2, 'b', 2), (2, NULL, 3), (2, NULL, 3)",
                "INSERT OR REPLACE INTO n VALUES (3, 'a', 1), (4, 'c', 4), (5, 'c', 5)");
        replaceCase("CREATE TABLE n (k INT, u TEXT UNIQUE, v INT)", "INSERT INTO n VALUES (1, 'a', 1), (2, 'b', 2), (5, 'c', 5)",
                "REPLACE INTO n VALUES (6, 'b', 2)", "UPDATE OR REPLACE n SET u = 'b' WHERE k = 5");
        replaceCase("CREATE TABLE n (k INT, u TEXT UNIQUE, v INT)", "INSERT INTO n VALUES (1, 'a', 1), (2, 'b', 2), (5, 'c', 5)",
                "INSERT OR REPLACE INTO n (rowid, k, u, v) VALUES (1, 7, 'z', 7)", "UPDATE OR REPLACE n SET rowid = 2 WHERE k = 5");
        replaceCase("CREATE TABLE p (k INT PRIMARY KEY NOT NULL, v TEXT)",
                "CREATE TRIGGER p_d AFTER DELETE ON p BEGIN INSERT INTO audit (t, k) VALUES ('p', OLD.k); END",
                "INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c')", "INSERT OR REPLACE INTO p (rowid, k, v) VALUES (1, 9, 'z')");
        replaceCase("CREATE TABLE p (k INT PRIMARY KEY NOT NULL, v TEXT)", "INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c')",
                "UPDATE OR REPLACE p SET k = 3 WHERE k = 2");
        replaceCase("CREATE TABLE p (k INT PRIMARY KEY NOT NULL, v TEXT)", "INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c')",
                "UPDATE OR REPLACE p SET rowid = 3 WHERE k = 1");
        replaceCase("CREATE TABLE w (a INT NOT NULL, b TEXT NOT NULL, u INT UNIQUE, PRIMARY KEY (a, b)) WITHOUT ROWID",
                "CREATE TRIGGER w_d AFTER DELETE ON w BEGIN INSERT INTO audit (t, k) VALUES ('w', OLD.a); END",
                "INSERT INTO w VALUES (1, 'x', 1), (2, 'y', 2), (3, 'z', 3)", "INSERT OR REPLACE INTO w VALUES (1, 'x', 2), (4, 'q', 3)");
        replaceCase("CREATE TABLE w (a INT NOT NULL, b TEXT NOT NULL, u INT UNIQUE, PRIMARY KEY (a, b)) WITHOUT ROWID",
                "INSERT INTO w VALUES (1, 'x', 1), (2, 'y', 2), (3, 'z', 3)", "UPDATE OR REPLACE w SET a = 2, b = 'y' WHERE a = 1");
        replaceCase("CREATE TABLE d (k INTEGER PRIMARY KEY, s TEXT NOT NULL DEFAULT 'x' UNIQUE)",
                "CREATE TRIGGER d_d AFTER DELETE ON d BEGIN INSERT INTO audit (t, k) VALUES ('d', OLD.k); END",
                "INSERT INTO d VALUES (1, 'x'), (2, 'y')", "INSERT OR REPLACE INTO d VALUES (3, NULL)");
        replaceCase("CREATE TABLE d (k INTEGER PRIMARY KEY, s TEXT NOT NULL DEFAULT 'x' UNIQUE)",
                "INSERT INTO d VALUES (1, 'x'), (2, 'y')", "UPDATE OR REPLACE d SET s = NULL WHERE k = 2");
        String e = "CREATE TABLE e (k INTEGER PRIMARY KEY, email TEXT, n TEXT COLLATE NOCASE UNIQUE, b TEXT COLLATE NOCASE, p INT)";
        String[] indexes = {"CREATE UNIQUE INDEX e_lower ON e (lower(email))", "CREATE UNIQUE INDEX e_part ON e (p) WHERE p > 0",
            "CREATE UNIQUE INDEX e_b ON e (b COLLATE BINARY)",
            "CREATE TRIGGER e_d AFTER DELETE ON e BEGIN INSERT INTO audit (t, k) VALUES ('e', OLD.k); END",
            "INSERT INTO e VALUES (1, 'A@x', 'n1', 'b', 1), (2, 'b@x', 'N2', 'B', -1), (3, 'c@x', 'n3', 'c', -1)"};
        for (String change : new String[] {"INSERT OR REPLACE INTO e VALUES (4, 'a@X', 'n4', 'd', 0)",
            "INSERT OR REPLACE INTO e VALUES (5, 'e@x', 'n2', 'e', -1)", "INSERT OR REPLACE INTO e VALUES (6, 'f@x', 'n6', 'f', 1)",
            "INSERT OR REPLACE INTO e VALUES (7, 'g@x', 'n7', 'F', -1)", "INSERT OR REPLACE INTO e VALUES (8, 'h@x', 'n8', 'c', -1)",
            "UPDATE OR REPLACE e SET email = 'B@X' WHERE k = 3", "UPDATE OR REPLACE e SET p = 1 WHERE k = 3",
            "UPDATE OR REPLACE e SET n = 'N1' WHERE k = 3"}) {
            List<String> script = new java.util.ArrayList<>(List.of(e));
            script.addAll(List.of(indexes));
            script.add(change);
            replaceCase(script.toArray(String[]::new));
        }
        replaceCase("CREATE TABLE par (k INTEGER PRIMARY KEY, u TEXT UNIQUE)",
                "CREATE TABLE kid (id INTEGER PRIMARY KEY, pk INT REFERENCES par (k) ON DELETE CASCADE)",
                "CREATE TRIGGER kid_d AFTER DELETE ON kid BEGIN INSERT INTO audit (t, k) VALUES ('kid', OLD.id); END",
                "INSERT INTO par VALUES (1, 'a'), (2, 'b')", "INSERT INTO kid VALUES (10, 1), (20, 2), (30, NULL)",
                "INSERT OR REPLACE INTO par VALUES (3, 'a')");
        replaceCase("CREATE TABLE par (k INTEGER PRIMARY KEY, u TEXT UNIQUE)",
                "CREATE TABLE kid (id INTEGER PRIMARY KEY, pk INT REFERENCES par (k) ON DELETE CASCADE)",
                "INSERT INTO par VALUES (1, 'a'), (2, 'b')", "INSERT INTO kid VALUES (10, 1), (20, 2), (30, NULL)",
                "REPLACE INTO par VALUES (2, 'z')");
    }

    private static void replaceCase(String... script) throws SQLException {
        List<String> all = new java.util.ArrayList<>(List.of("CREATE TABLE audit (id INTEGER PRIMARY KEY, t TEXT, k)"));
        all.addAll(List.of(script));
        check(false, Step.sqls(all.toArray(String[]::new)).toArray(Step[]::new));
    }

    /**
     * A secondary removes a row of a table without a key as "one row equal to the image", and SQLite's
     * {@code =} finds the integer 1 equal to the real 1.0 (and under a NOCASE column 'A' equal to 'a'):
     * here the update's removed image {@code (6, 1)} deleted the row {@code (6, 1.0)} on the secondaries,
     * which kept the integer. Found by {@code sqliteRowModeMatchesThePlainEngine} (with rebuild=manual,
     * seed 7747053653406091506, at try 644; shrunk); the plain {@code INSERT OR REPLACE} had nothing to
     * do with it. Now SQLite compares each value with its storage class and under BINARY
     * ({@code Engine.sameValueSql}).
     */
    @Test
    void aSecondaryRemovesTheRowOfTheImagesStorageClass() throws SQLException {
        check(false, Step.sqls("CREATE TABLE T0 (K INT, C0)", "INSERT INTO T0 VALUES (6, 1.0), (6, 1), (6, x'01')",
                "UPDATE T0 SET C0 = 1.0 WHERE K >= '6'", "CREATE TABLE n (k INT, s TEXT COLLATE NOCASE)",
                "INSERT INTO n VALUES (1, 'A'), (1, 'a')", "DELETE FROM n WHERE s = 'a' COLLATE BINARY").toArray(Step[]::new));
    }

    /** The same inside transactions: a REPLACE rolled back to a savepoint, and one committed after it. */
    @Test
    void replaceInsideATransactionAndASavepoint() throws SQLException {
        check(false, Step.sql("CREATE TABLE audit (id INTEGER PRIMARY KEY, k)"), Step.sql("CREATE TABLE n (k INT, u TEXT UNIQUE)"),
                Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY, u TEXT UNIQUE)"),
                Step.sql("CREATE TRIGGER n_d AFTER DELETE ON n BEGIN INSERT INTO audit (k) VALUES (OLD.k); END"),
                Step.sql("INSERT INTO n VALUES (1, 'a'), (2, 'b')"), Step.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')"),
                Step.begin(), Step.sql("INSERT OR REPLACE INTO n VALUES (3, 'a')"), Step.sql("INSERT OR REPLACE INTO t VALUES (3, 'a')"),
                Step.sql("SAVEPOINT s"), Step.sql("REPLACE INTO n VALUES (4, 'b')"), Step.sql("REPLACE INTO t VALUES (4, 'b')"),
                Step.sql("ROLLBACK TO SAVEPOINT s"), Step.sql("INSERT OR IGNORE INTO n VALUES (5, 'b')"),
                Step.sql("INSERT INTO t VALUES (5, 'b') ON CONFLICT (u) DO UPDATE SET k = 6"), Step.sql("UPDATE OR REPLACE n SET u = 'a' WHERE k = 5"),
                Step.commit());
    }

    /**
     * An application that turns {@code recursive_triggers} on (a connection property: a {@code PRAGMA}
     * that sets it is refused, it would set one of MacroDB's sessions) gets SQLite's behaviour with it
     * on: its DELETE trigger fires for the rows REPLACE removes, and a trigger that writes its own table
     * fires itself again. Before, MacroDB turned it on in every session, so this held only by accident.
     */
    @Test
    void recursiveTriggersOnAsTheApplicationAsked() throws SQLException {
        String[] script = {"CREATE TABLE audit (id INTEGER PRIMARY KEY, k)", "CREATE TABLE t (k INTEGER PRIMARY KEY, u TEXT UNIQUE)",
            "CREATE TRIGGER t_d AFTER DELETE ON t BEGIN INSERT INTO audit (k) VALUES (OLD.k); END",
            "CREATE TABLE c (n INTEGER PRIMARY KEY)",
            "CREATE TRIGGER c_i AFTER INSERT ON c WHEN NEW.n < 5 BEGIN INSERT INTO c VALUES (NEW.n + 1); END",
            "INSERT INTO t VALUES (1, 'a'), (2, 'b')", "INSERT OR REPLACE INTO t VALUES (3, 'a')", "INSERT INTO c VALUES (1)"};
        java.util.Properties p = new java.util.Properties();
        p.setProperty("recursive_triggers", "true");
        String expected;
        try (java.sql.Connection plain = java.sql.DriverManager.getConnection("jdbc:sqlite::memory:", p)) {
            expected = run(plain, script);
        }
        assertEquals("audit [1] c [1, 2, 3, 4, 5] t [2, 3]", expected, "plain SQLite with recursive_triggers on");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(io.macrodb.testing.TestDb.url("sqlite", "replicas=3"), p)) {
            assertEquals(expected, run(c, script));
            io.macrodb.testing.TestDb.assertConverged(c);
        }
    }

    private static String run(java.sql.Connection c, String... script) throws SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            for (String sql : script) s.execute(sql);
            StringBuilder out = new StringBuilder();
            for (String[] q : new String[][] {{"audit", "SELECT k FROM audit ORDER BY id"}, {"c", "SELECT n FROM c ORDER BY n"},
                    {"t", "SELECT k FROM t ORDER BY k"}}) {
                List<Object> rows = new java.util.ArrayList<>();
                try (java.sql.ResultSet rs = s.executeQuery(q[1])) {
                    while (rs.next()) rows.add(rs.getObject(1));
                }
                out.append(out.length() == 0 ? "" : " ").append(q[0]).append(' ').append(rows);
            }
            return out.toString();
        }
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
     * ({@code SqlBeginTest}). An {@code END} (or {@code COMMIT}, {@code ROLLBACK}) with no transaction
     * fails on plain SQLite ("cannot commit - no transaction is active") and succeeded through MacroDB;
     * now it fails with SQLite's error ({@code Engine.noTransactionToEnd}).
     */
    @Test
    void autocommitReturnsAfterASqlBeginAndCommit() throws SQLException {
        check(false, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY)"), Step.sql("BEGIN"), Step.sql("INSERT INTO t VALUES (6), (2)"),
                Step.sql("COMMIT"), Step.sql("INSERT INTO t VALUES (1)"), Step.sql("END"), Step.sql("ROLLBACK"),
                Step.sql("COMMIT TRANSACTION"), Step.sql("INSERT INTO t VALUES (3)"));
    }

    /**
     * A table whose key is not the rowid ({@code INT PRIMARY KEY} is not {@code INTEGER PRIMARY KEY}) has a
     * hidden rowid, and {@code UPDATE OR REPLACE} visits its rows in rowid order: which rows REPLACE removes,
     * and so the update count and the rows left, depends on it. MacroDB shipped rows by key only; a restart
     * recovered the primary by inserting them again from the log, in another order, with other rowids:
     * plain SQLite's last statement updated 2 rows (rowid 1 holds 3, rowid 2 holds 2: 3 -> 4, then 2 -> 3),
     * MacroDB's 1 (its rowid 1 held 2, moved onto 3 and removed rowid 2's row). Found by a fresh-clone CI
     * run of {@code DifferentialPropertiesTest.sqliteRowModeMatchesThePlainEngine} (sqlite, replicas=2,
     * durability=log, applyThreads 4). Secondaries had other rowids too, from the first {@code UPDATE OR
     * REPLACE} on, which they applied as a delete and an insert. Now the rowid of such a table travels as
     * a column ({@code SqliteCatalog.replicatedRowid}): every replica, a recovered primary and a rebuilt
     * secondary hold the primary's rowids; the harness compares rowids too.
     */
    @Test
    void updateOrReplaceVisitsRowsInRowidOrderAfterARestart() throws SQLException {
        check(true, Step.sql("CREATE TABLE T0 (K INT PRIMARY KEY)"), Step.sql("INSERT INTO T0 VALUES (2), (1)"),
                Step.sql("UPDATE OR REPLACE T0 SET K = K + 1"), Step.reopen(), Step.sql("UPDATE T0 SET K = NULL WHERE K = 1"),
                Step.sql("UPDATE T0 SET K = NULL WHERE K = 1"), Step.sql("UPDATE OR REPLACE T0 SET K = K + 1"));
    }

    /**
     * The same on the secondaries, without a restart, and the rowids an application names itself: a table
     * without a key, a text key and a composite one, rowids written, moved and reused, REPLACE's removals.
     */
    @Test
    void everyReplicaHoldsThePrimarysRowids() throws SQLException {
        for (boolean durability : new boolean[] {false, true}) {
            check(durability, Step.sql("CREATE TABLE n (k INT, v TEXT)"), Step.sql("CREATE TABLE t (k TEXT PRIMARY KEY, v INT UNIQUE)"),
                    Step.sql("CREATE TABLE c (a INT, b TEXT, v TEXT, PRIMARY KEY (a, b))"),
                    Step.sql("INSERT INTO n VALUES (1, 'a'), (1, 'a'), (2, 'b')"), Step.sql("INSERT INTO n (rowid, k, v) VALUES (50, 3, 'c')"),
                    Step.sql("UPDATE n SET rowid = rowid + 100 WHERE k = 1"), Step.sql("DELETE FROM n WHERE rowid = 101"),
                    Step.sql("INSERT INTO t VALUES ('x', 1), ('y', 2), ('z', 3)"), Step.sql("INSERT OR REPLACE INTO t VALUES ('q', 1)"),
                    Step.sql("UPDATE OR REPLACE t SET v = v + 1"), Step.sql("INSERT INTO c VALUES (2, 'x', 'p'), (1, 'x', 'q')"),
                    Step.sql("UPDATE OR REPLACE c SET a = a + 1"), Step.reopenIf(durability), Step.sql("UPDATE OR REPLACE t SET v = v + 1"),
                    Step.sql("UPDATE OR REPLACE c SET a = a - 1"), Step.sql("INSERT INTO n (k, v) VALUES (4, 'd')"),
                    Step.sql("UPDATE n SET rowid = 1 WHERE k = 4"), Step.sql("INSERT INTO n (k, v) VALUES (5, 'e')"));
        }
    }

    /**
     * SQLite's schema changes are transactional: a rollback undoes a {@code CREATE} or {@code ALTER} and every change
     * before it in the transaction. MacroDB used to commit the open transaction before a schema change (the H2 and
     * HSQLDB semantics, where DDL commits): the rows inserted before the {@code ALTER} and the new column survived the
     * {@code rollback()} on every replica. Now the schema change runs inside the transaction
     * ({@code Engine.schemaChangesAreTransactional}) and is undone with it; a commit ships it between its rows.
     */
    @Test
    void aSchemaChangeInsideATransactionIsRolledBackWithIt() throws SQLException {
        check(false, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY)"), Step.begin(), Step.sql("INSERT INTO t VALUES (2)"),
                Step.sql("ALTER TABLE t ADD COLUMN x TEXT"), Step.rollback());
    }

    /** The same transaction committed, with rows after the change, recovered from the durable log too. */
    @Test
    void aSchemaChangeInsideATransactionIsCommittedWithIt() throws SQLException {
        for (boolean durability : new boolean[] {false, true}) {
            check(durability, Step.sql("CREATE TABLE t (k INTEGER PRIMARY KEY)"), Step.begin(), Step.sql("INSERT INTO t VALUES (2)"),
                    Step.sql("ALTER TABLE t ADD COLUMN x TEXT"), Step.sql("UPDATE t SET x = 'two'"), Step.sql("INSERT INTO t VALUES (3, 'three')"),
                    Step.commit(), Step.reopenIf(durability), Step.sql("UPDATE t SET x = 'again' WHERE k = 3"));
        }
    }

    /**
     * A statement that fails after changing rows of a table without a primary key: SQLite's {@code INSERT OR FAIL}
     * keeps the rows before the failure, {@code OR ABORT} keeps none, and an {@code UPDATE} that fails on a constraint
     * undoes itself. MacroDB cannot tell from the rows' values which of them the engine kept; it used to refuse the
     * transaction's commit (40001), and in autocommit to keep nothing of an {@code OR FAIL}. A keyless SQLite table's
     * rows carry their rowids, so the table is now settled by rowid at commit, and every replica keeps what SQLite kept.
     */
    @Test
    void aFailedStatementOnATableWithoutAKeyIsSettledByRowid() throws SQLException {
        for (boolean durability : new boolean[] {false, true}) {
            Differential.Result r = Differential.check(DiffConfig.macro("sqlite", "row", 3, durability), List.of(
                    Step.sql("CREATE TABLE n (k INT, v TEXT, UNIQUE (k))"), Step.sql("INSERT INTO n VALUES (1, 'a'), (2, 'b')"),
                    Step.sql("INSERT OR FAIL INTO n VALUES (3, 'c'), (4, 'd'), (1, 'x'), (5, 'e')"),
                    Step.begin(), Step.sql("INSERT INTO n VALUES (6, 'f')"),
                    Step.sql("INSERT OR FAIL INTO n VALUES (7, 'g'), (2, 'y'), (8, 'h')"),
                    Step.sql("INSERT OR ABORT INTO n VALUES (9, 'i'), (3, 'z')"), Step.sql("UPDATE n SET k = k + 1 WHERE k >= 6"),
                    Step.sql("UPDATE n SET v = v || '!'"), Step.commit(), Step.reopenIf(durability),
                    Step.sql("DELETE FROM n WHERE k = 4"), Step.begin(), Step.sql("INSERT OR FAIL INTO n VALUES (10, 'j'), (5, 'k')"),
                    Step.rollback(), Step.sql("UPDATE n SET v = 'last' WHERE k = 3")), false);
            assertTrue(r.refusals().isEmpty(), () -> "MacroDB refused: " + r.refusals() + "\n" + String.join("\n", r.transcript()));
        }
    }
}
