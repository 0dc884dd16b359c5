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
 * ({@link #touchedKeys()} and {@link #images()}).
 *
 * @param deletes keys, one value per key column in key order
 * @param updates rows, one value per {@link TableShape#columns()} entry
 * @param inserts rows, one value per {@link TableShape#columns()} entry
 */
public record RowChanges(TableShape shape, List<Object[]> deletes, List<Object[]> updates, List<Object[]> inserts)
        implements Change {

    public int size() { return deletes.size() + updates.size() + inserts.size(); }

    /** Keys that may exist on a secondary before this change: deleted and updated rows. */
    public List<Object[]> touchedKeys() {
        List<Object[]> keys = new java.util.ArrayList<>(deletes.size() + updates.size());
        keys.addAll(deletes);
        for (Object[] row : updates) {
            Object[] k = new Object[shape.keyCount()];
            for (int i = 0; i < k.length; i++) k[i] = row[shape.keyIndex(i)];
            keys.add(k);
        }
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
