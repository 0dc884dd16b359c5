package io.macrodb.log;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * The one shared replication log. Committers append {@link ChangeRecord}s in version order (the
 * caller serialises appends: they happen inside the commit critical section); each secondary's
 * applier reads at its own {@link Cursor}. Appending is one volatile write plus a wake-up of readers
 * that parked; nothing is copied per reader. Memory is released by the garbage collector once every
 * cursor has moved past a record, because the log itself keeps only the tail.
 *
 * <p>Who pins records: an open cursor pins every record after its position, and nothing else does
 * for long (the tail; a commit's record until it is published; a snapshot's source while it is
 * copied). A cursor is closed when its applier ends for any reason (stopped, failed, its replica
 * promoted), so a failed secondary pins nothing; an operator's pause pins what is committed while
 * it lasts. What a live cursor may pin is bounded by the lag bound on commits.
 */
public final class ReplicationLog {
    private volatile ChangeRecord tail;
    private final List<Cursor> cursors = new CopyOnWriteArrayList<>();

    /** A log whose last applied version is {@code startVersion}. */
    public ReplicationLog(long startVersion) {
        this.tail = new ChangeRecord(startVersion, System.nanoTime(), List.of());
    }

    /** The version of the newest record. */
    public long lastVersion() { return tail.version(); }

    /**
     * Appends a record. Must be called by one thread at a time (the commit critical section) with
     * {@code record.version() == lastVersion() + 1}. Readers that parked are not woken here: waking
     * a parked thread costs microseconds, so the committer calls {@link #wakeReaders()} after it
     * has left the critical section (measured by {@code ReplicationLogBench}).
     */
    public void append(ChangeRecord record) {
        ChangeRecord t = tail;
        if (record.version() != t.version() + 1) {
            throw new IllegalStateException("log gap: appending v" + record.version() + " after v" + t.version());
        }
        t.link(record);
        tail = record;
    }

    /** Wakes readers that parked waiting for a record; called after {@link #append}, outside any lock. */
    public void wakeReaders() {
        for (Cursor c : cursors) c.wake();
    }

    /** A new cursor positioned after the newest record (the caller is already at that version). */
    public Cursor openCursor() {
        return openCursorAt(tail);
    }

    /**
     * A new cursor positioned after {@code record}, which must be a record of this log that the
     * caller has kept a reference to (so that everything after it is still reachable), such as the
     * last record another replica applied.
     */
    public Cursor openCursorAt(ChangeRecord record) {
        Cursor c = new Cursor(this, Objects.requireNonNull(record));
        cursors.add(c);
        return c;
    }

    /** The newest record (a starting point for a cursor). */
    public ChangeRecord tail() { return tail; }

    /**
     * One reader's position. Not thread-safe: a cursor belongs to one applier thread.
     */
    public static final class Cursor implements AutoCloseable {
        private static final int SPINS = 200;
        private final ReplicationLog log;
        private ChangeRecord last;
        private volatile Thread parked;

        private Cursor(ReplicationLog log, ChangeRecord start) {
            this.log = log;
            this.last = start;
        }

        /** Version of the last record this cursor consumed. */
        public long position() { return last.version(); }

        /** The last record consumed (the log's starting point for a new cursor). */
        public ChangeRecord current() { return last; }

        /** The first record not yet consumed, or null; does not consume it. */
        public ChangeRecord peek() { return last.next(); }

        /** Records strictly ahead of this cursor. */
        public long lag() { return log.lastVersion() - last.version(); }

        /** Marks {@code record} (which must be reachable from this cursor) as consumed. */
        public void advanceTo(ChangeRecord record) {
            Objects.requireNonNull(record);
            if (record.version() <= last.version()) throw new IllegalArgumentException("cursor moves forward only");
            last = record;
        }

        /**
         * Waits until a record is available or {@code timeoutNanos} passed: spins briefly, then parks
         * until an append wakes it.
         *
         * @return the next record, or null on timeout or interrupt
         */
        public ChangeRecord awaitNext(long timeoutNanos) {
            ChangeRecord n = last.next();
            for (int i = 0; n == null && i < SPINS; i++) {
                Thread.onSpinWait();
                n = last.next();
            }
            if (n != null) return n;
            long deadline = System.nanoTime() + timeoutNanos;
            parked = Thread.currentThread();
            try {
                while ((n = last.next()) == null) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || Thread.currentThread().isInterrupted()) return null;
                    LockSupport.parkNanos(this, left);
                }
                return n;
            } finally {
                parked = null;
            }
        }

        void wake() {
            Thread t = parked;
            if (t != null) LockSupport.unpark(t);
        }

        /**
         * Stops reading: the log forgets this cursor, and the cursor lets go of the log, keeping only
         * its position. A cursor is what pins records in memory; a closed one pins none, whoever
         * still holds it (a failed replica stays listed until it is rebuilt).
         */
        @Override public void close() {
            log.cursors.remove(this);
            last = last.detached();
        }
    }
}
