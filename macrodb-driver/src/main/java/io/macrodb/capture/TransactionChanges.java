package io.macrodb.capture;

import io.macrodb.log.Propagation;
import io.macrodb.log.Change;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one update transaction has changed so far on the primary, kept in the order it happened so
 * that a savepoint or a failed statement can cut it back exactly ({@link #mark()} / {@link
 * #rollbackTo(int)}). In row mode the capture triggers report each changed row's key; at commit
 * {@link #build(Connection)} reads the final image of every touched row inside the still-open
 * transaction. In statement mode the connection records each successful write statement.
 */
public final class TransactionChanges extends CaptureContext {
    private final Propagation propagation;
    private final ShapeResolver shapes;
    private final ArrayList<Object> events = new ArrayList<>();
    private boolean usesSequences;

    /** A key the transaction touched: its old key (update/delete) and new key (insert/update). */
    private record RowEvent(TableShape shape, Key oldKey, Key newKey) {}

    /**
     * Key values with value equality: arrays by content, numbers by numeric value (a trigger and a
     * result set may hand the same key back as different Number classes).
     */
    private record Key(Object[] values) {
        @Override public boolean equals(Object o) {
            if (!(o instanceof Key k) || k.values.length != values.length) return false;
            for (int i = 0; i < values.length; i++) {
                if (!Objects.deepEquals(canonical(values[i]), canonical(k.values[i]))) return false;
            }
            return true;
        }

        @Override public int hashCode() {
            int h = 1;
            for (Object v : values) h = 31 * h + Arrays.deepHashCode(new Object[] {canonical(v)});
            return h;
        }

        private static Object canonical(Object v) {
            if (v instanceof java.math.BigDecimal d) return d.signum() == 0 ? java.math.BigDecimal.ZERO : d.stripTrailingZeros();
            if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
                return java.math.BigDecimal.valueOf(((Number) v).longValue());
            }
            if (v instanceof java.math.BigInteger b) return new java.math.BigDecimal(b);
            return v;
        }
    }

    public TransactionChanges(Propagation propagation, ShapeResolver shapes) {
        this.propagation = propagation;
        this.shapes = shapes;
    }

    @Override public void onRow(String schema, String table, Object[] oldRow, Object[] newRow) throws SQLException {
        if (propagation == Propagation.STATEMENT) return; // the statement itself is what gets shipped
        TableShape shape = shapes.shape(schema, table);
        if (shape == null) {
            throw new SQLException("MacroDB: no replicated shape for " + schema + "." + table, "XX000");
        }
        if (!shape.volatileDefaults().isEmpty()) usesSequences = true; // a default may draw from a sequence
        if (!shape.hasKey()) {
            throw new SQLException("MacroDB: table " + schema + "." + table + " has no primary key, and row propagation"
                    + " needs one to replicate a change. Add one (ALTER TABLE " + shape.qualifiedName()
                    + " ADD PRIMARY KEY (...)) or connect with propagation=statement", "0A000");
        }
        events.add(new RowEvent(shape, oldRow == null ? null : key(shape, oldRow), newRow == null ? null : key(shape, newRow)));
    }

    private static Key key(TableShape shape, Object[] row) throws SQLException {
        Object[] k = new Object[shape.keyCount()];
        for (int i = 0; i < k.length; i++) {
            Object v = row[shape.keyOrdinal(i)];
            if (v != null && v.getClass().getName().startsWith("org.hsqldb.")) {
                throw new SQLException("MacroDB: the primary key of " + shape + " has a column type that row capture"
                        + " cannot read from an HSQLDB trigger (" + v.getClass().getSimpleName() + "); use an integer,"
                        + " character, decimal, boolean or binary key, or propagation=statement", "0A000");
            }
            k[i] = v;
        }
        return new Key(k);
    }

    /** Records a statement to replay (statement mode writes). */
    public void addStatement(StatementChange change) {
        events.add(change);
    }

    /** The transaction may have drawn from a sequence: its commit records the sequences' positions. */
    public void noteSequences() { usesSequences = true; }

    public boolean usesSequences() { return usesSequences; }

    /** A position to roll back to: before a statement runs, or at a savepoint. */
    public int mark() { return events.size(); }

    /** Forgets everything recorded after {@code mark}. */
    public void rollbackTo(int mark) {
        if (mark < events.size()) events.subList(mark, events.size()).clear();
    }

    public boolean isEmpty() { return events.isEmpty(); }

    public void clear() { events.clear(); }

    /**
     * The changes to ship, computed inside the open transaction on the primary session {@code c}.
     * Row mode: per table (first-touched first), the final image of every touched row that exists
     * now, split by whether its key existed before the transaction, and the keys that existed
     * before and exist no more.
     */
    public List<Change> build(Connection c, StatementCache cache) throws SQLException {
        List<Change> out = new ArrayList<>();
        if (propagation == Propagation.STATEMENT) {
            for (Object e : events) out.add((StatementChange) e);
            return out;
        }
        Map<TableShape, LinkedHashMap<Key, Boolean>> touched = new IdentityHashMap<>();
        List<TableShape> order = new ArrayList<>();
        for (Object e : events) {
            RowEvent ev = (RowEvent) e;
            LinkedHashMap<Key, Boolean> keys = touched.get(ev.shape);
            if (keys == null) {
                keys = new LinkedHashMap<>();
                touched.put(ev.shape, keys);
                order.add(ev.shape);
            }
            // value: whether the key existed before this transaction (its first event was not an insert)
            if (ev.oldKey != null) keys.putIfAbsent(ev.oldKey, Boolean.TRUE);
            if (ev.newKey != null) keys.putIfAbsent(ev.newKey, Boolean.FALSE);
        }
        for (TableShape shape : order) {
            LinkedHashMap<Key, Boolean> keys = touched.get(shape);
            List<Object[]> images = readImages(c, cache, shape, keys.keySet());
            List<Object[]> updates = new ArrayList<>();
            List<Object[]> inserts = new ArrayList<>();
            java.util.Set<Key> present = new java.util.HashSet<>();
            for (Object[] row : images) {
                Object[] k = new Object[shape.keyCount()];
                for (int i = 0; i < k.length; i++) k[i] = row[shape.keyIndex(i)];
                Key key = new Key(k);
                present.add(key);
                if (Boolean.TRUE.equals(keys.get(key))) updates.add(row);
                else inserts.add(row);
            }
            List<Object[]> deletes = new ArrayList<>();
            for (Map.Entry<Key, Boolean> k : keys.entrySet()) {
                if (k.getValue() && !present.contains(k.getKey())) deletes.add(k.getKey().values);
            }
            if (!deletes.isEmpty() || !updates.isEmpty() || !inserts.isEmpty()) {
                out.add(new RowChanges(shape, deletes, updates, inserts));
            }
        }
        return out;
    }

    private static final int IN_CHUNK = 16;

    private static List<Object[]> readImages(Connection c, StatementCache cache, TableShape shape,
                                             java.util.Collection<Key> keys) throws SQLException {
        List<Object[]> rows = new ArrayList<>(keys.size());
        List<String> cols = shape.columns();
        int chunk = keys.size() == 1 ? 1 : IN_CHUNK;
        String sql = shape.selectByKeySql(chunk);
        PreparedStatement ps = cache.prepare(sql);
        try {
            if (shape.keyCount() == 1) {
                List<Key> all = new ArrayList<>(keys);
                for (int from = 0; from < all.size(); from += chunk) {
                    for (int i = 0; i < chunk; i++) {
                        // pad the last chunk by repeating its last key: same statement, same rows
                        ps.setObject(i + 1, all.get(Math.min(from + i, all.size() - 1)).values[0]);
                    }
                    readInto(ps, cols.size(), rows);
                }
            } else {
                for (Key k : keys) {
                    for (int i = 0; i < k.values.length; i++) ps.setObject(i + 1, k.values[i]);
                    readInto(ps, cols.size(), rows);
                }
            }
        } finally {
            cache.release(sql, ps);
        }
        return rows;
    }
    private static void readInto(PreparedStatement ps, int n, List<Object[]> rows) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) row[i] = Values.detach(rs.getObject(i + 1));
                rows.add(row);
            }
        }
    }
}
