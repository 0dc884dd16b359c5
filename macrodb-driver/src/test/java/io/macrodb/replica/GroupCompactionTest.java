package io.macrodb.replica;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Group apply writes a row that several records of the group wrote once, with its final image. */
class GroupCompactionTest {
    private static final TableShape T = new TableShape("PUBLIC", "T", List.of("ID", "V"), new int[] {0}, new int[] {1}, 2,
            false, null, List.of(), null, null);

    private static List<Object[]> rows(Object[]... r) { return Arrays.asList(r); }

    private static ChangeRecord[] chain(List<List<Change>> records) {
        ReplicationLog log = new ReplicationLog(0);
        ChangeRecord first = null;
        ChangeRecord last = null;
        for (List<Change> changes : records) {
            last = new ChangeRecord(log.lastVersion() + 1, 0, changes);
            log.append(last);
            if (first == null) first = last;
        }
        return new ChangeRecord[] {first, last};
    }

    private static String show(List<Object[]> rows) {
        List<String> out = new ArrayList<>();
        for (Object[] r : rows) out.add(Arrays.toString(r));
        return out.toString();
    }

    @Test void eachRowIsWrittenOnceWithItsFinalImage() {
        ChangeRecord[] g = chain(List.of(
                List.of(new RowChanges(T, List.of(), List.of(), rows(new Object[] {1, "a"}, new Object[] {4, "d"}))), // insert 1, 4
                List.of(new RowChanges(T, List.of(), rows(new Object[] {1, "a2"}, new Object[] {2, "b2"}), List.of())), // update 1, 2
                List.of(new RowChanges(T, rows(new Object[] {1L}, new Object[] {3}), rows(new Object[] {2L, "b3"}), List.of())),
                List.of(new RowChanges(T, List.of(), rows(new Object[] {4, "d2"}), rows(new Object[] {3, "c4"})))));
        List<Change> net = GroupCompaction.of(g[0], g[1]);
        assertEquals(1, net.size());
        RowChanges rc = (RowChanges) net.get(0);
        // 1: inserted, updated, deleted (as a Long key): nothing. 2: updated twice: one update, last image.
        // 3: deleted then inserted: an update. 4: inserted then updated: an insert with the final image.
        assertEquals("[]", show(rc.deletes()));
        assertEquals("[[2, b3], [3, c4]]", show(rc.updates()));
        assertEquals("[[4, d2]]", show(rc.inserts()));
    }

    /**
     * Parallel apply writes a dependent unit's own rows first and the rows an earlier unit shares
     * later: the two parts must hold each row once, in the part the writeset says, with the same
     * net change as the whole.
     */
    @Test void aSplitHoldsEveryNetRowOnceOnTheSideItsWritesetSays() {
        ChangeRecord[] g = chain(List.of(
                List.of(new RowChanges(T, List.of(), List.of(), rows(new Object[] {1, "a"}, new Object[] {4, "d"}))),
                List.of(new RowChanges(T, List.of(), rows(new Object[] {1, "a2"}, new Object[] {2, "b2"}), List.of())),
                List.of(new RowChanges(T, rows(new Object[] {3}), rows(new Object[] {2L, "b3"}), List.of())),
                List.of(new RowChanges(T, List.of(), rows(new Object[] {4, "d2"}), rows(new Object[] {5, "e"})))));
        WriteSet shared = WriteSet.empty();
        shared.add(chain(List.of(List.of(new RowChanges(T, List.of(), rows(new Object[] {2, "x"}, new Object[] {4L, "y"}),
                List.of()))))[0]);
        GroupCompaction.Split split = GroupCompaction.split(g[0], g[1], shared.copy()::containsRow);
        RowChanges own = (RowChanges) split.free().get(0);
        RowChanges contested = (RowChanges) split.contested().get(0);
        // own: 1 (inserted, updated: an insert), 3 (deleted), 5 (inserted); shared: 2 and 4 (the key
        // 4 written as a Long in the earlier unit is the same row)
        assertEquals("[[3]]", show(own.deletes()));
        assertEquals("[]", show(own.updates()));
        assertEquals("[[1, a2], [5, e]]", show(own.inserts()));
        assertEquals("[]", show(contested.deletes()));
        assertEquals("[[2, b3]]", show(contested.updates()));
        assertEquals("[[4, d2]]", show(contested.inserts()));
        // nothing shared: everything is the unit's own, and a single record splits too
        assertTrue(GroupCompaction.split(g[0], g[1], row -> false).contested().isEmpty());
        assertEquals(1, GroupCompaction.split(g[0], g[0], row -> true).contested().size());
    }

    @Test void aKeyIsOneRowWhateverFormItArrivedIn() {
        // a TIMESTAMP WITH TIME ZONE key as a trigger saw it and as a read-back gave it (HSQLDB: the
        // session's offset): one instant, one row, as capture knows it (RowKey)
        java.time.OffsetDateTime utc = java.time.OffsetDateTime.parse("2026-11-24T10:00:00Z");
        java.time.OffsetDateTime berlin = utc.atZoneSameInstant(java.time.ZoneId.of("Europe/Berlin")).toOffsetDateTime();
        ChangeRecord[] g = chain(List.of(
                List.of(new RowChanges(T, List.of(), rows(new Object[] {utc, "a"}), List.of())),
                List.of(new RowChanges(T, List.of(), rows(new Object[] {berlin, "b"}), List.of()))));
        RowChanges rc = (RowChanges) GroupCompaction.of(g[0], g[1]).get(0);
        assertEquals(1, rc.updates().size(), () -> show(rc.updates()));
        assertEquals("b", rc.updates().get(0)[1]);
    }

    @Test void groupsThatAreNotPlainKeyedRowsOrWriteEveryRowOnceAreLeftAlone() {
        ChangeRecord[] once = chain(List.of(
                List.of(new RowChanges(T, List.of(), List.of(), rows(new Object[] {1, "a"}))),
                List.of(new RowChanges(T, List.of(), List.of(), rows(new Object[] {2, "b"})))));
        assertNull(GroupCompaction.of(once[0], once[1]));
        ChangeRecord[] statement = chain(List.of(
                List.of(new RowChanges(T, List.of(), List.of(), rows(new Object[] {1, "a"}))),
                List.of(new StatementChange("UPDATE T SET V = 'x'", new Object[0], false, null)),
                List.of(new RowChanges(T, List.of(), rows(new Object[] {1, "b"}), List.of()))));
        assertNull(GroupCompaction.of(statement[0], statement[1]));
        ChangeRecord[] replace = chain(List.of(
                List.of(new RowChanges(T, List.of(), rows(new Object[] {1, "a"}), List.of())),
                List.of(RowChanges.replace(T, rows(new Object[] {1}, new Object[] {2}), rows(new Object[] {2, "a"})))));
        assertNull(GroupCompaction.of(replace[0], replace[1]));
    }

    /** A backlog of hot rows and rows inserted and deleted again, applied in groups, converges. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void aCompactedBacklogConverges(String engine) throws Exception {
        long seed = TestDb.seed("group compaction " + engine);
        Random random = new Random(seed);
        String url = TestDb.url(engine, "replicas=2&applyThreads=1&applyGroup=64");
        try (Connection c = TestDb.open(url)) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE hot (id INT PRIMARY KEY, n BIGINT, note VARCHAR(40) UNIQUE)");
                s.execute("CREATE TABLE churn (id INT PRIMARY KEY, v VARCHAR(40))");
                for (int i = 0; i < 10; i++) s.execute("INSERT INTO hot VALUES (" + i + ", 0, 'n" + i + "')");
            }
            assertTrue(mc.admin().awaitCaughtUp(10_000));
            mc.admin().pauseApplying(1, true);
            c.setAutoCommit(false);
            try (PreparedStatement bump = c.prepareStatement("UPDATE hot SET n = n + 1 WHERE id = ?");
                 PreparedStatement swap = c.prepareStatement("UPDATE hot SET note = CASE WHEN id = ? THEN 'tmp' ELSE note END");
                 PreparedStatement ins = c.prepareStatement("INSERT INTO churn VALUES (?, ?)");
                 PreparedStatement del = c.prepareStatement("DELETE FROM churn WHERE id = ?");
                 PreparedStatement upd = c.prepareStatement("UPDATE churn SET v = ? WHERE id = ?")) {
                for (int k = 0; k < 600; k++) {
                    bump.setInt(1, random.nextInt(10));
                    bump.executeUpdate();
                    int id = random.nextInt(30);
                    switch (random.nextInt(3)) {
                        case 0 -> {
                            del.setInt(1, id);
                            del.executeUpdate();
                            ins.setInt(1, id);
                            ins.setString(2, "k" + k);
                            ins.executeUpdate();
                        }
                        case 1 -> {
                            del.setInt(1, id);
                            del.executeUpdate();
                        }
                        default -> {
                            upd.setString(1, "u" + k);
                            upd.setInt(2, id);
                            if (upd.executeUpdate() == 0) {
                                ins.setInt(1, id);
                                ins.setString(2, "i" + k);
                                ins.executeUpdate();
                            }
                        }
                    }
                    if (k % 50 == 0) { // move a unique value around: note of row a goes to row b through 'tmp'
                        int a = random.nextInt(10);
                        swap.setInt(1, a);
                        swap.executeUpdate();
                        c.commit();
                        try (Statement s = c.createStatement()) {
                            s.execute("UPDATE hot SET note = 'n" + a + "' WHERE id = " + a);
                        }
                    }
                    c.commit();
                }
            } finally {
                c.setAutoCommit(true);
            }
            mc.admin().pauseApplying(1, false);
            TestDb.assertConverged(c);
            ReplicaStatus s = mc.admin().replicaStatus().get(1);
            assertTrue(s.applyGroups() < s.appliedRecords(), () -> "no group was applied: " + s);
        }
    }
}
