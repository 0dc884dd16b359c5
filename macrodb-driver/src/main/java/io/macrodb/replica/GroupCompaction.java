package io.macrodb.replica;

import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.RowChanges;
import io.macrodb.log.RowKey;
import io.macrodb.log.SequencePositions;
import io.macrodb.log.TableShape;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The net effect of a group of consecutive records on each row, for group apply: a group is applied
 * in one engine transaction and published only at its end, so only its final state is ever visible,
 * and a row that several records of the group wrote (TPC-C's warehouse and district rows are written
 * by nearly every update transaction) needs to be written once. Per (table, key): whether the row
 * existed before the group is what the first record says (a delete or update: yes; an insert: no),
 * and what it holds after is what the last record says. Existed and present: one update with the
 * final image; existed and gone: one delete; new and present: one insert; new and gone: nothing.
 * Rows are known by {@link RowKey}, as capture knows them.
 *
 * <p>Only plain row changes of tables with a primary key compact. A group holding anything else (a
 * replayed statement, the replace form, a table without a key, two shapes of one table) is applied
 * record by record, as before.
 */
final class GroupCompaction {
    private GroupCompaction() {}

    /** What the group did to one row. */
    private static final class Net {
        final boolean existedBefore;
        Object[] image; // null: absent after

        Net(boolean existedBefore) { this.existedBefore = existedBefore; }
    }

    /** One table's rows in the group, in first-touched order. */
    private static final class Table {
        final TableShape shape;
        final Map<RowKey, Net> rows = new LinkedHashMap<>();

        Table(TableShape shape) { this.shape = shape; }

        Net net(Object[] key, boolean existedBefore) {
            return rows.computeIfAbsent(new RowKey(key), k -> new Net(existedBefore));
        }
    }

    /**
     * The group {@code first..last} as one change per table, or null if it does not compact (a
     * single record, or one that holds something other than plain row changes of keyed tables).
     * Returns null too when compacting would save nothing (no row written twice).
     */
    static List<Change> of(ChangeRecord first, ChangeRecord last) {
        if (first == last) return null;
        Netted n = net(first, last);
        if (n == null) return null;
        int rows = 0;
        for (Table t : n.tables.values()) rows += t.rows.size();
        if (rows == n.written) return null; // every row written once: the records as they are cost the same
        return changes(n, null);
    }

    /** A group's net changes cut in two by a predicate on rows: those it holds, and the others. */
    record Split(List<Change> free, List<Change> contested) {}

    /**
     * The net effect of {@code first..last} (one record or more) in two parts: the rows for which
     * {@code contested} (given a row's {@linkplain WriteSet#row hash}) is false, then those for which
     * it is true. Applying the first part, then the second, in one engine transaction leaves what
     * applying the records in order leaves: each row is written once, with its final state, and no
     * row is in both parts. Null if the group does not compact ({@link #of}'s conditions).
     */
    static Split split(ChangeRecord first, ChangeRecord last, java.util.function.LongPredicate contested) {
        Netted n = net(first, last);
        if (n == null) return null;
        return new Split(changes(n, row -> !contested.test(row)), changes(n, contested));
    }

    private record Netted(Map<String, Table> tables, int written) {}

    private static Netted net(ChangeRecord first, ChangeRecord last) {
        Map<String, Table> tables = new LinkedHashMap<>();
        int written = 0;
        for (ChangeRecord r = first; ; r = r.next()) {
            for (Change c : r.changes()) {
                if (c instanceof SequencePositions) continue;
                if (!(c instanceof RowChanges rc) || rc.replace() || !rc.shape().hasKey()) return null;
                TableShape shape = rc.shape();
                Table t = tables.computeIfAbsent(shape.qualifiedName(), n -> new Table(shape));
                if (t.shape != shape && !sameShape(t.shape, shape)) return null;
                for (Object[] key : rc.deletes()) t.net(key, true).image = null;
                for (Object[] row : rc.updates()) t.net(shape.keyOf(row), true).image = row;
                for (Object[] row : rc.inserts()) t.net(shape.keyOf(row), false).image = row;
                written += rc.size();
            }
            if (r == last) break;
        }
        return new Netted(tables, written);
    }

    /** The net changes of the rows {@code take} holds (given each row's writeset hash; null: all), one per table. */
    private static List<Change> changes(Netted n, java.util.function.LongPredicate take) {
        List<Change> out = new ArrayList<>(n.tables.size());
        for (Table t : n.tables.values()) {
            List<Object[]> deletes = new ArrayList<>();
            List<Object[]> updates = new ArrayList<>();
            List<Object[]> inserts = new ArrayList<>();
            for (Map.Entry<RowKey, Net> e : t.rows.entrySet()) {
                Net net = e.getValue();
                if (take != null && !take.test(WriteSet.row(t.shape, e.getKey().values()))) continue;
                if (net.existedBefore && net.image == null) deletes.add(e.getKey().values());
                else if (net.existedBefore) updates.add(net.image);
                else if (net.image != null) inserts.add(net.image);
            }
            if (!deletes.isEmpty() || !updates.isEmpty() || !inserts.isEmpty()) {
                out.add(new RowChanges(t.shape, deletes, updates, inserts));
            }
        }
        return out;
    }

    private static boolean sameShape(TableShape a, TableShape b) {
        return a.columns().equals(b.columns()) && Arrays.equals(a.keyIndexes(), b.keyIndexes());
    }
}
