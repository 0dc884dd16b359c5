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
 * #rollbackTo(int)}). In statement mode the connection records each successful write statement.
 *
 * <p>In row mode the capture triggers report each changed row: its keys, and the row as the
 * statement left it. At commit {@link #build} ships, per touched key, the image of the row as it
 * is at the end of the transaction. That is the image the last event of the key left (an AFTER ROW
 * trigger sees the row as stored, defaults, identities and BEFORE triggers' changes included) as long
 * as nothing can have changed it behind the events: then no query runs at commit. It reads the
 * final images back inside the still-open transaction instead when a statement failed (the engine
 * undid all or part of it, after its triggers fired), when the application has triggers of its own
 * (one could change the row again around MacroDB's), when a table has generated columns, or when a
 * value is of a type that a trigger hands over differently from a result set. A savepoint rollback
 * is exact either way: it cuts the events back to the savepoint. With {@code
 * -Dmacrodb.verifyTriggerImages=true} (the driver's tests run so) every build computes both and
 * fails if they differ.
 */
public final class TransactionChanges extends CaptureContext {
    private final Propagation propagation;
    private final ShapeResolver shapes;
    private static final boolean VERIFY_IMAGES = Boolean.getBoolean("macrodb.verifyTriggerImages");
    private static final java.util.concurrent.atomic.LongAdder FROM_TRIGGERS = new java.util.concurrent.atomic.LongAdder();
    private static final java.util.concurrent.atomic.LongAdder READ_BACK = new java.util.concurrent.atomic.LongAdder();

    /** How many table images commits in this JVM have taken from the triggers, and how many they read back. */
    public record ImageSources(long fromTriggers, long readBack) {}

    public static ImageSources imageSources() { return new ImageSources(FROM_TRIGGERS.sum(), READ_BACK.sum()); }

    private final ArrayList<Object> events = new ArrayList<>();
    private boolean usesSequences;
    /** Whether the triggers' images may be trusted at all (no application triggers), and whether they still are. */
    private final boolean trustImages;
    private final boolean ships;
    private boolean imagesTrusted;

    /**
     * A key the transaction touched: its old key (update/delete), new key (insert/update) and the
     * new row's image in {@link TableShape#columns()} order (null for a delete, or when images are
     * not trusted).
     */
    private record RowEvent(TableShape shape, Key oldKey, Key newKey, Object[] image) {}

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

    /**
     * @param trustImages whether the capture triggers' images may stand for the final rows (false
     *                    when the application has triggers of its own)
     */
    public TransactionChanges(Propagation propagation, ShapeResolver shapes, boolean trustImages) {
        this(propagation, shapes, trustImages, true);
    }

    /**
     * @param ships whether the changes are shipped at all: a database of one replica and no log
     *              ships to nobody, so its transactions record only that they changed something
     *              (its commits take a version all the same)
     */
    public TransactionChanges(Propagation propagation, ShapeResolver shapes, boolean trustImages, boolean ships) {
        this.propagation = propagation;
        this.shapes = shapes;
        this.ships = ships;
        this.trustImages = trustImages;
        this.imagesTrusted = trustImages;
    }

    /** A statement of the transaction failed: the engine undid what it did, after its triggers fired. */
    public void statementFailed() { imagesTrusted = false; }

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
        if (!ships) {
            events.add(NOT_SHIPPED); // nobody reads the changes: only that there are some counts
            return;
        }
        Object[] image = null;
        if (imagesTrusted && newRow != null) {
            image = image(shape, newRow);
            if (image == null) imagesTrusted = false;
        }
        events.add(new RowEvent(shape, oldRow == null ? null : key(shape, oldRow), newRow == null ? null : key(shape, newRow), image));
    }

    /**
     * The row a trigger saw as MacroDB ships it, or null when it cannot stand for the row read back:
     * the table has generated columns (the trigger's row has them, the shipped one does not) or a
     * value is not of a plain type (HSQLDB hands triggers its internal date, binary and interval
     * objects; arrays, JSON, objects differ between the two paths).
     */
    private static Object[] image(TableShape shape, Object[] row) throws SQLException {
        if (row.length != shape.ordinalCount() || shape.ordinalCount() != shape.columns().size()) return null;
        Object[] out = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            Object v = Values.detach(row[i]);
            if (v instanceof java.time.LocalTime t && t.getNano() != 0) return null; // see shipped()
            if (!isPlain(v)) return null;
            out[i] = v;
        }
        return out;
    }

    /**
     * An image as a read-back would have shipped it. H2 hands triggers java.time values where its
     * result sets give java.sql ones (a TIME with fractions of a second is read back instead, as
     * java.sql.Time would drop them). Done at commit, for the final images only.
     */
    private static Object[] shipped(Object[] image) {
        Object[] out = image;
        for (int i = 0; i < image.length; i++) {
            Object v = image[i];
            Object w;
            if (v instanceof java.time.LocalDateTime t) w = java.sql.Timestamp.valueOf(t);
            else if (v instanceof java.time.LocalDate d) w = java.sql.Date.valueOf(d);
            else if (v instanceof java.time.LocalTime t) w = java.sql.Time.valueOf(t);
            else continue;
            if (out == image) out = image.clone();
            out[i] = w;
        }
        return out;
    }

    private static boolean isPlain(Object v) {
        return v == null || v instanceof String || v instanceof Integer || v instanceof Long || v instanceof java.math.BigDecimal
                || v instanceof Boolean || v instanceof Double || v instanceof Short || v instanceof Byte || v instanceof Float
                || v instanceof java.math.BigInteger || v instanceof byte[] || v instanceof java.util.UUID
                || v instanceof java.sql.Timestamp || v instanceof java.sql.Date || v instanceof java.sql.Time
                || v instanceof java.time.LocalDate || v instanceof java.time.LocalDateTime || v instanceof java.time.LocalTime
                || v instanceof java.time.OffsetDateTime || v instanceof java.time.OffsetTime || v instanceof java.time.Instant;
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

    public void clear() {
        events.clear();
        imagesTrusted = trustImages;
    }

    /**
     * The changes to ship, computed inside the open transaction on the primary session {@code c}.
     * Row mode: per table (first-touched first), the final image of every touched row that exists
     * now, split by whether its key existed before the transaction, and the keys that existed
     * before and exist no more.
     */
    public List<Change> build(Connection c, StatementCache cache) throws SQLException {
        if (!ships) throw new IllegalStateException("MacroDB: the changes of a database that ships none were not recorded");
        List<Change> out = new ArrayList<>();
        if (propagation == Propagation.STATEMENT) {
            for (Object e : events) out.add((StatementChange) e);
            return out;
        }
        Map<TableShape, LinkedHashMap<Key, Boolean>> touched = new IdentityHashMap<>();
        // with trusted images: the row each key holds after the events so far (ABSENT: none)
        Map<TableShape, Map<Key, Object[]>> state = imagesTrusted ? new IdentityHashMap<>() : null;
        List<TableShape> order = new ArrayList<>();
        for (Object e : events) {
            RowEvent ev = (RowEvent) e;
            LinkedHashMap<Key, Boolean> keys = touched.get(ev.shape);
            if (keys == null) {
                keys = new LinkedHashMap<>();
                touched.put(ev.shape, keys);
                order.add(ev.shape);
                if (state != null) state.put(ev.shape, new java.util.HashMap<>());
            }
            // value: whether the key existed before this transaction (its first event was not an insert)
            if (ev.oldKey != null) keys.putIfAbsent(ev.oldKey, Boolean.TRUE);
            if (ev.newKey != null) keys.putIfAbsent(ev.newKey, Boolean.FALSE);
            if (state != null) {
                Map<Key, Object[]> rows = state.get(ev.shape);
                if (ev.oldKey != null) rows.put(ev.oldKey, ABSENT);
                if (ev.newKey != null) rows.put(ev.newKey, ev.image);
            }
        }
        for (TableShape shape : order) {
            LinkedHashMap<Key, Boolean> keys = touched.get(shape);
            List<Object[]> images;
            if (state == null) {
                images = readImages(c, cache, shape, keys.keySet());
                READ_BACK.increment();
            } else {
                FROM_TRIGGERS.increment();
                images = new ArrayList<>(keys.size());
                Map<Key, Object[]> rows = state.get(shape);
                for (Key k : keys.keySet()) {
                    Object[] row = rows.get(k);
                    if (row != ABSENT) images.add(shipped(row));
                }
                if (VERIFY_IMAGES) verify(shape, images, readImages(c, cache, shape, keys.keySet()));
            }
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

    private static final Object[] ABSENT = new Object[0];
    private static final Object NOT_SHIPPED = new Object();

    /** Test mode: the triggers' final images must be the rows read back, as multisets by key. */
    private static void verify(TableShape shape, List<Object[]> fromTriggers, List<Object[]> readBack) {
        Map<Key, Object[]> back = new java.util.HashMap<>();
        for (Object[] row : readBack) back.put(keyOfImage(shape, row), row);
        boolean same = back.size() == fromTriggers.size();
        for (Object[] row : fromTriggers) {
            Object[] other = back.get(keyOfImage(shape, row));
            if (!same || other == null || !new Key(row).equals(new Key(other))) {
                same = false;
                break;
            }
        }
        if (!same) {
            StringBuilder sb = new StringBuilder("MacroDB: the capture triggers' final images of " + shape + " differ from the rows read back;"
                    + " triggers:");
            for (Object[] row : fromTriggers) sb.append(' ').append(Arrays.deepToString(row));
            sb.append("; read back:");
            for (Object[] row : readBack) sb.append(' ').append(Arrays.deepToString(row));
            throw new IllegalStateException(sb.toString());
        }
    }

    private static Key keyOfImage(TableShape shape, Object[] row) {
        Object[] k = new Object[shape.keyCount()];
        for (int i = 0; i < k.length; i++) k[i] = row[shape.keyIndex(i)];
        return new Key(k);
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
