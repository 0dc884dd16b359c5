package io.macrodb.log;

import java.util.List;

/**
 * What one committed update transaction changed, stamped with the version it got at commit. Records
 * form a singly linked list in version order: the log appends at the tail and each reader holds its
 * own reference into the list, so a record is garbage once every reader is past it.
 */
public final class ChangeRecord {
    private final long version;
    private final long commitNanos;
    private final List<Change> changes;
    private final boolean ddl;
    private volatile ChangeRecord next;

    public ChangeRecord(long version, long commitNanos, List<Change> changes) {
        this.version = version;
        this.commitNanos = commitNanos;
        this.changes = List.copyOf(changes);
        boolean d = false;
        for (Change c : changes) d |= c instanceof StatementChange s && s.ddl();
        this.ddl = d;
    }

    /** Whether the record changes the schema (secondaries apply such a record alone). */
    public boolean isDdl() { return ddl; }

    public long version() { return version; }
    /** {@link System#nanoTime()} when the primary committed; used by time-bounded staleness. */
    public long commitNanos() { return commitNanos; }
    public List<Change> changes() { return changes; }
    /** The next record in version order, or null if none has been appended yet. */
    public ChangeRecord next() { return next; }

    void link(ChangeRecord successor) { this.next = successor; }

    /**
     * A stand-in for this record that is not linked to the log: it keeps this record's version
     * without keeping the records after it reachable (what a reader that stopped keeps).
     */
    public ChangeRecord detached() { return new ChangeRecord(version, commitNanos, List.of()); }

    public int size() {
        int n = 0;
        for (Change c : changes) n += c instanceof RowChanges r ? r.size() : 1;
        return n;
    }

    @Override public String toString() { return "v" + version + " " + changes; }
}
