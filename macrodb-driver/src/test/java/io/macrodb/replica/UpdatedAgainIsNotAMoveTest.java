package io.macrodb.replica;

import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.RowChanges;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * PostgreSQL's trigger capture hands a transaction's events over at its commit, as if one statement had made them all.
 * A row updated by two statements then looked like a key moved onto a key made new in the same statement, and the
 * table shipped in replace form (every touched key deleted, every row inserted), which group compaction passes over:
 * TPC-C's district and stock rows reached the secondaries once per record instead of once per group, and stock rows as
 * a delete and an insert (found by the PostgreSQL apply-capacity run of 2026-11-28). An update that keeps its key moves
 * nothing. (Keys that move onto keys made new in the same statement still ship in replace form: ConvergenceTest,
 * RowFidelityTest.)
 */
class UpdatedAgainIsNotAMoveTest {

    private static List<String> rowChanges(LogHistory h) {
        List<String> out = new ArrayList<>();
        for (ChangeRecord r : h.records()) {
            for (Change ch : r.changes()) {
                if (ch instanceof RowChanges rc && rc.shape().table().equals("t")) {
                    StringBuilder sb = new StringBuilder(rc.replace() ? "replace" : "plain");
                    for (Object[] k : rc.deletes()) sb.append(" -").append(Arrays.deepToString(k));
                    for (Object[] row : rc.updates()) sb.append(" ~").append(Arrays.deepToString(row));
                    for (Object[] row : rc.inserts()) sb.append(" +").append(Arrays.deepToString(row));
                    out.add(sb.toString());
                }
            }
        }
        return out;
    }

    @Test
    void aRowUpdatedByTwoStatementsShipsAsOneUpdate() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("postgresql", "capture=triggers")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY, v int)");
            s.execute("INSERT INTO t VALUES (1, 0)");
            try (LogHistory h = LogHistory.keep(c)) {
                c.setAutoCommit(false);
                s.execute("UPDATE t SET v = v + 1 WHERE k = 1");
                s.execute("UPDATE t SET v = v + 1 WHERE k = 1");
                s.execute("INSERT INTO t VALUES (2, 0)");
                s.execute("UPDATE t SET v = 5 WHERE k = 2");
                c.commit();
                s.execute("UPDATE t SET k = k + 10"); // keys that move onto no key made new: deleted and inserted
                c.commit();
                c.setAutoCommit(true);
                assertEquals(List.of("plain ~[1, 2] +[2, 5]", "plain -[1] -[2] +[11, 2] +[12, 5]"), rowChanges(h));
            }
            TestDb.assertOnEveryReplica(c, 3, "SELECT k, v FROM t ORDER BY k", List.of("11|2", "12|5"));
            TestDb.assertConverged(c);
        }
    }
}
