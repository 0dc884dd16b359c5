package io.macrodb.replica;

import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.RowChanges;
import io.macrodb.log.RowKey;
import io.macrodb.log.SequencePositions;
import io.macrodb.log.TableShape;

import java.util.Arrays;

/**
 * The rows a log record writes, as 64-bit hashes of (table, primary key), as MySQL's writeset-based
 * replicas track them: two records whose sets do not intersect touch different rows and can be
 * applied by different engine sessions at once. A table without a primary key counts as one row
 * (its rows are known only by their values). A hash collision only makes two records look
 * dependent, which costs parallelism, never correctness; and whatever the hashes miss (a unique
 * index other than the key) is caught by the engine and undone by the applier, which then applies
 * the record again after the ones before it.
 *
 * <p>A record that is not made of rows (a statement, a schema change) is a {@linkplain #barrier()
 * barrier}: it is applied alone, after everything before it and before everything after it.
 */
final class WriteSet {
    private static final WriteSet BARRIER = new WriteSet(null, 0);

    private long[] hashes;
    private int size;

    private WriteSet(long[] hashes, int size) {
        this.hashes = hashes;
        this.size = size;
    }

    /** A new empty set to which records are {@linkplain #add added}. */
    static WriteSet empty() { return new WriteSet(new long[16], 0); }

    /** The writeset of {@code r}, or {@link #barrier()} if it is not made of rows alone. */
    static WriteSet of(ChangeRecord r) {
        WriteSet w = empty();
        return w.add(r) ? w : BARRIER;
    }

    boolean isBarrier() { return hashes == null; }

    static WriteSet barrier() { return BARRIER; }

    int size() { return size; }

    /** Adds the rows of {@code r}; false (and the set unchanged in meaning) if {@code r} is a barrier. */
    boolean add(ChangeRecord r) {
        if (r.isDdl()) return false;
        for (Change c : r.changes()) {
            if (c instanceof RowChanges rc) {
                TableShape t = rc.shape();
                long table = table(t);
                if (!t.hasKey()) {
                    put(table);
                    continue;
                }
                if (rc.replace()) {
                    for (Object[] k : rc.deletes()) put(key(table, k));
                } else {
                    for (Object[] k : rc.deletes()) put(key(table, k));
                    for (Object[] row : rc.updates()) put(key(table, t.keyOf(row)));
                }
                for (Object[] row : rc.inserts()) put(key(table, t.keyOf(row)));
            } else if (!(c instanceof SequencePositions)) {
                return false; // a statement: which rows it writes is known only to the engine
            }
        }
        return true;
    }

    /** The hash of the row of table {@code t} whose primary key is {@code key}, as sets hold it. */
    static long row(TableShape t, Object[] key) { return key(table(t), key); }

    /** Whether the set holds the row hashed as {@code row} (a barrier holds every row). */
    boolean containsRow(long row) {
        return isBarrier() || size > 0 && Arrays.binarySearch(sorted(), 0, size, row) >= 0;
    }

    /**
     * A set that holds what this one holds now and does not change with it, sorted already: another
     * thread may then ask it {@link #containsRow} without writing to it.
     */
    WriteSet copy() {
        if (isBarrier()) return this;
        WriteSet c = new WriteSet(Arrays.copyOf(hashes, Math.max(16, size)), size);
        c.sorted();
        return c;
    }

    /** Whether the two sets share a row (a barrier shares a row with everything). */
    boolean intersects(WriteSet o) {
        if (isBarrier() || o.isBarrier()) return true;
        WriteSet small = size <= o.size ? this : o;
        WriteSet large = small == this ? o : this;
        if (small.size == 0) return false;
        long[] sorted = large.sorted();
        for (int i = 0; i < small.size; i++) {
            if (Arrays.binarySearch(sorted, 0, large.size, small.hashes[i]) >= 0) return true;
        }
        return false;
    }

    /** Adds every row of {@code o} (neither may be a barrier). */
    void addAll(WriteSet o) {
        for (int i = 0; i < o.size; i++) put(o.hashes[i]);
    }

    private boolean sorted;

    private long[] sorted() {
        if (!sorted) {
            Arrays.sort(hashes, 0, size);
            sorted = true;
        }
        return hashes;
    }

    private void put(long h) {
        if (size == hashes.length) hashes = Arrays.copyOf(hashes, size * 2);
        hashes[size++] = h;
        sorted = false;
    }

    private static long table(TableShape t) { return mix(t.schema().hashCode() * 31L + t.table().hashCode()); }

    private static long key(long table, Object[] key) {
        long h = table;
        for (Object v : key) h = h * 1_000_003L + RowKey.hash(v); // equal keys as capture compares them
        return mix(h);
    }

    /** A 64-bit finaliser (SplitMix64), so that nearby keys do not make nearby hashes. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
