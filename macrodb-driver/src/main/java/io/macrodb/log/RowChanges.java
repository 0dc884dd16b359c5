package io.macrodb.log;

import java.util.List;

/**
 * The net effect of one transaction on one table, in row form, as final images: a row updated many
 * times costs one write on each secondary.
 *
 * <ul>
 *   <li>{@code deletes}: keys of rows that existed before the transaction and do not after;</li>
 *   <li>{@code updates}: final images of rows that existed before and still do (same key);</li>
 *   <li>{@code inserts}: final images of rows whose key did not exist before.</li>
 * </ul>
 *
 * A secondary applies deletes, then updates, then inserts. That order can collide on a unique
 * constraint when the transaction swapped unique values between rows; the applier then re-applies
 * the group the slow, always-safe way: remove every touched key, then insert every final image
 * ({@link #touchedKeys()} and {@link #images()}; a secondary's applier removes the inserted keys too,
 * {@link #everyKey()}).
 *
 * <p>Two other forms:
 * <ul>
 *   <li>{@linkplain #replace() Replace form}, when a statement moved keys onto each other so that
 *   which key held which row before is unknown: {@code deletes} holds every touched key (each may or
 *   may not exist on a secondary), {@code inserts} every final image, {@code updates} nothing. It is
 *   applied like the safe order.</li>
 *   <li>A table without a primary key ({@link TableShape#hasKey()} false): a row is known by its
 *   values. {@code deletes} holds whole images, one per row to remove (an image twice for two equal
 *   rows), {@code inserts} whole images to add; {@code updates} nothing.</li>
 * </ul>
 *
 * @param deletes keys, one value per key column in key order (whole images without a key)
 * @param updates rows, one value per {@link TableShape#columns()} entry
 * @param inserts rows, one value per {@link TableShape#columns()} entry
 * @param replace whether this is the replace form
 */
public record RowChanges(TableShape shape, List<Object[]> deletes, List<Object[]> updates, List<Object[]> inserts,
                         boolean replace) implements Change {

    public RowChanges(TableShape shape, List<Object[]> deletes, List<Object[]> updates, List<Object[]> inserts) {
        this(shape, deletes, updates, inserts, false);
    }

    /** The replace form: remove every one of {@code keys} that exists, then insert every one of {@code images}. */
    public static RowChanges replace(TableShape shape, List<Object[]> keys, List<Object[]> images) {
        return new RowChanges(shape, keys, List.of(), images, true);
    }

    public int size() { return deletes.size() + updates.size() + inserts.size(); }

    /** Keys that may exist on a secondary before this change: deleted and updated rows. */
    public List<Object[]> touchedKeys() {
        List<Object[]> keys = new java.util.ArrayList<>(deletes.size() + updates.size());
        keys.addAll(deletes);
        for (Object[] row : updates) keys.add(shape.keyOf(row));
        return keys;
    }

    /**
     * {@link #touchedKeys()} and the inserted rows' keys: every key this change touches. Removing each that exists
     * before inserting the final images makes the safe order idempotent: an inserted key exists on a secondary only if
     * this change was partly or wholly applied there already (an engine commit that failed after it committed, a
     * rollback that left rows behind), and applying it again then gives the same rows.
     */
    public List<Object[]> everyKey() {
        List<Object[]> keys = touchedKeys();
        if (shape.hasKey() && !replace) for (Object[] row : inserts) keys.add(shape.keyOf(row));
        return keys;
    }

    /** Every final image: updated and inserted rows. */
    public List<Object[]> images() {
        List<Object[]> rows = new java.util.ArrayList<>(updates.size() + inserts.size());
        rows.addAll(updates);
        rows.addAll(inserts);
        return rows;
    }
}
