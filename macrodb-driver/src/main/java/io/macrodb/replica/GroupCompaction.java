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
        int rows = 0;
        for (Table t : tables.values()) rows += t.rows.size();
        if (rows == written) return null; // every row written once: the records as they are cost the same
        List<Change> out = new ArrayList<>(tables.size());
        for (Table t : tables.values()) {
            List<Object[]> deletes = new ArrayList<>();
            List<Object[]> updates = new ArrayList<>();
            List<Object[]> inserts = new ArrayList<>();
            for (Map.Entry<RowKey, Net> e : t.rows.entrySet()) {
                Net n = e.getValue();
                if (n.existedBefore && n.image == null) deletes.add(e.getKey().values());
                else if (n.existedBefore) updates.add(n.image);
                else if (n.image != null) inserts.add(n.image);
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
