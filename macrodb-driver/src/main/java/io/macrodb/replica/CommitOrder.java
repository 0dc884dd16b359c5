package io.macrodb.replica;

import io.macrodb.log.Change;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The only serial step of the commit path: the order of versions. An update transaction whose
 * statements are done takes a ticket (its version) here, commits in its engine with no lock of
 * MacroDB's held, and then finishes its ticket. Finished tickets are published strictly in version
 * order: the record of version v reaches the log, the durable log and the primary's published
 * version only after every version before it did, so the log has no gap and a committer returns
 * only once every earlier version is published.
 *
 * <p>Why taking the version before the engine's commit keeps version order consistent with the
 * order in which the engine made conflicting transactions visible: a transaction takes its ticket
 * after its last statement, while it still holds every row lock (H2, HSQLDB MVCC) or table lock
 * (HSQLDB LOCKS) it took. Two tickets that are both open therefore belong to transactions whose
 * writes are disjoint, and neither can have read the other's writes (neither had committed). Any
 * transaction that conflicts with an open ticket's writes waits in the engine until that ticket's
 * commit, so it takes its own ticket later. Applying records in version order thus reaches the
 * primary's state; see {@code docs/internals.md}.
 *
 * <p>A ticket whose engine commit fails still gets its version, published as an empty record: the
 * versions stay gap-free (secondaries wait for every version), and nothing of the failed
 * transaction reaches a replica.
 */
final class CommitOrder {
    /** Where finished tickets go, in version order, while this order's lock is held. */
    interface Publisher {
        /**
         * Appends the record of {@code version} to the log (and the durable log) and publishes it on
         * the primary. {@code changes} is empty for a ticket whose engine commit failed.
         *
         * @throws IOException if the durable log did not take it (the record is published anyway:
         *                     the primary has the transaction)
         */
        void publish(long version, List<Change> changes, byte[] payload) throws IOException;
    }

    /** A version taken for one commit. */
    static final class Ticket {
        private final long version;
        private final List<Change> changes;
        private final byte[] payload;
        /** Guarded by the order's lock. */
        private boolean finished;
        private boolean committed;
        private boolean published;
        private IOException durableFailure;

        private Ticket(long version, List<Change> changes, byte[] payload) {
            this.version = version;
            this.changes = changes;
            this.payload = payload;
        }

        long version() { return version; }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final Condition publishedSome = lock.newCondition();
    private final ArrayDeque<Ticket> open = new ArrayDeque<>();
    private final Publisher publisher;
    private final byte[] emptyPayload;
    /** The newest version handed out; every version up to it is published or being committed. */
    private volatile long lastTicket;

    CommitOrder(long lastVersion, Publisher publisher, byte[] emptyPayload) {
        this.lastTicket = lastVersion;
        this.publisher = publisher;
        this.emptyPayload = emptyPayload;
    }

    /** The newest version handed out (committed or being committed). */
    long lastTicket() { return lastTicket; }

    /** Tickets taken and not yet published (for tests and monitoring). */
    int inFlight() {
        lock.lock();
        try {
            return open.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the next version for a commit that is about to run in the engine.
     *
     * @param admit checked under the order's lock; a non-null refusal is thrown and no version is taken
     */
    <E extends Exception> Ticket take(List<Change> changes, byte[] payload, Admission<E> admit) throws E {
        lock.lock();
        try {
            admit.check();
            Ticket t = new Ticket(lastTicket + 1, changes, payload);
            open.addLast(t);
            lastTicket = t.version;
            return t;
        } finally {
            lock.unlock();
        }
    }

    /** A check run under the order's lock before a ticket is handed out. */
    @FunctionalInterface
    interface Admission<E extends Exception> {
        void check() throws E;
    }

    /**
     * Finishes a ticket: {@code committed} says whether the engine's commit succeeded. Publishes
     * every finished ticket at the head of the order. Then waits (bounded) until this ticket is
     * published, which happens once every earlier ticket is finished: engine commits are short and
     * never wait for MacroDB, so the wait is one engine commit at most.
     *
     * @throws IOException if the durable log did not take this ticket's record
     */
    void finish(Ticket t, boolean committed) throws IOException {
        lock.lock();
        try {
            t.finished = true;
            t.committed = committed;
            drain();
            while (!t.published) publishedSome.awaitUninterruptibly();
            if (t.durableFailure != null) throw t.durableFailure;
        } finally {
            lock.unlock();
        }
    }

    private void drain() {
        boolean any = false;
        Ticket head;
        while ((head = open.peekFirst()) != null && head.finished) {
            open.pollFirst();
            try {
                if (head.committed) publisher.publish(head.version, head.changes, head.payload);
                else publisher.publish(head.version, List.of(), emptyPayload);
            } catch (IOException e) {
                head.durableFailure = e;
            } catch (RuntimeException e) {
                head.durableFailure = new IOException(e.toString(), e);
            }
            head.published = true;
            any = true;
        }
        if (any) publishedSome.signalAll();
        if (open.isEmpty()) idle.signalAll();
    }

    /**
     * Takes a version and publishes it at once, for a record whose engine work is done and that no
     * other commit can be in flight beside (a schema change runs while no update transaction does).
     */
    long sequenceNow(List<Change> changes, byte[] payload) throws IOException {
        return sequenceNow(changes, payload, () -> { });
    }

    /** {@link #sequenceNow(List, byte[])} with {@code admit} checked under the order's lock first. */
    <E extends Exception> long sequenceNow(List<Change> changes, byte[] payload, Admission<E> admit) throws IOException, E {
        Ticket t = take(changes, payload, admit);
        finish(t, true);
        return t.version;
    }

    /**
     * Holds the order with no ticket open, so that no commit is in flight and none can start until
     * {@link #release()} (a failover). Waits at most {@code timeoutMillis} for open tickets to finish.
     *
     * @return false (and nothing held) if open tickets did not finish in time
     */
    boolean holdIdle(long timeoutMillis) {
        long left = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        lock.lock();
        try {
            while (!open.isEmpty()) {
                if (left <= 0) {
                    lock.unlock();
                    return false;
                }
                left = idle.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lock.unlock();
            return false;
        }
    }

    /** Ends {@link #holdIdle}. */
    void release() { lock.unlock(); }
}
