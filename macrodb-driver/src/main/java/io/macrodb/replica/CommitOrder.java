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
 *
 * <p>That is right only when the failed commit left nothing in the engine. A commit that failed
 * because the engine went away may have committed all the same: H2's {@code SHUTDOWN} lets a running
 * {@code COMMIT} finish in the engine, which releases its rows, and then fails the statement with
 * "The database is open in exclusive mode" (90135). A transaction that took a later version may have
 * read those rows by then, and its record carries images that include them: shipped after the empty
 * record, it gives every replica part of the lost transaction. So such a ticket is finished with
 * {@link #abandon}: every ticket after it that is still open is published empty as well (its
 * committer is told, and fails), since the engine that has those transactions is abandoned and
 * its successor is built from the log.
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
        /** Set before the ticket is finished: at {@link #take}, or by {@link #fill} for a record built after the engine's commit. */
        private List<Change> changes;
        private byte[] payload;
        /** Guarded by the order's lock. */
        private boolean finished;
        private boolean committed;
        private boolean published;
        /** A ticket after an {@linkplain #abandon abandoned} one: published empty whatever its engine commit did. */
        private boolean dropped;
        private IOException durableFailure;

        private Ticket(long version, List<Change> changes, byte[] payload) {
            this.version = version;
            this.changes = changes;
            this.payload = payload;
        }

        long version() { return version; }

        /**
         * The record, where it is known only after the engine's commit ({@link io.macrodb.engine.CommitDecoding}); by the thread that
         * took the ticket, before it finishes it (which publishes it under the order's lock).
         */
        void fill(List<Change> changes, byte[] payload) {
            this.changes = changes;
            this.payload = payload;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final Condition publishedSome = lock.newCondition();
    private final ArrayDeque<Ticket> open = new ArrayDeque<>();
    private final Publisher publisher;
    private final byte[] emptyPayload;
    /** The newest version handed out; every version up to it is published or being committed. */
    private volatile long lastTicket;
    /** The newest version published: every version up to it is. */
    private volatile long lastPublished;
    /** Guarded by {@link #lock}: see {@link #droppedTickets()}. */
    private long droppedTickets;

    CommitOrder(long lastVersion, Publisher publisher, byte[] emptyPayload) {
        this.lastTicket = lastVersion;
        this.lastPublished = lastVersion;
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
     * @return whether its record was published with its changes: false if the engine's commit failed,
     *         or if a commit before it was {@linkplain #abandon abandoned} while it was open (then it was
     *         published empty, and its transaction is not in the log whatever its engine commit did)
     * @throws IOException if the durable log did not take this ticket's record
     */
    boolean finish(Ticket t, boolean committed) throws IOException {
        return finish(t, committed, null);
    }

    /**
     * Finishes a ticket whose engine commit failed in an engine that is gone (the primary is being
     * replaced): its outcome in that engine is unknown, so it is published empty like any failed commit,
     * and so is every ticket after it that is open now, whether or not its engine commit succeeds,
     * since its transaction may have read rows of this one that no record will carry. No ticket can
     * be taken after this one on the abandoned primary (the order's admission refuses it), so the
     * tickets open now are all there are.
     *
     * @return how many open tickets after it were dropped so
     * @throws IOException if the durable log did not take this ticket's (empty) record
     */
    int abandon(Ticket t) throws IOException {
        int[] dropped = new int[1];
        finish(t, false, dropped);
        return dropped[0];
    }

    private boolean finish(Ticket t, boolean committed, int[] abandoned) throws IOException {
        lock.lock();
        try {
            t.finished = true;
            t.committed = committed;
            if (abandoned != null) {
                for (Ticket later : open) {
                    if (later.version > t.version && !later.dropped) {
                        later.dropped = true;
                        droppedTickets++;
                        abandoned[0]++;
                    }
                }
            }
            drain();
            while (!t.published) publishedSome.awaitUninterruptibly();
            if (t.durableFailure != null) throw t.durableFailure;
            return t.committed && !t.dropped;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits (at most {@code timeoutNanos}) until every version up to {@code v} is published.
     *
     * @return false if that did not happen in time
     */
    boolean awaitPublished(long v, long timeoutNanos) {
        if (lastPublished >= v) return true; // also while a failover holds the order idle: nothing is open then
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            if (!lock.tryLock(timeoutNanos, TimeUnit.NANOSECONDS)) return lastPublished >= v;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return lastPublished >= v;
        }
        try {
            while (lastPublished < v) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                publishedSome.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return lastPublished >= v;
        } finally {
            lock.unlock();
        }
    }

    /** Tickets published empty because a commit before them was {@linkplain #abandon abandoned} (for tests and monitoring). */
    long droppedTickets() {
        lock.lock();
        try {
            return droppedTickets;
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
                if (head.committed && !head.dropped) publisher.publish(head.version, head.changes, head.payload);
                else publisher.publish(head.version, List.of(), emptyPayload);
            } catch (IOException e) {
                head.durableFailure = e;
            } catch (RuntimeException e) {
                head.durableFailure = new IOException(e.toString(), e);
            }
            head.published = true;
            lastPublished = head.version;
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
        if (!finish(t, true)) {
            // only an update transaction's commit is abandoned, and none is in flight beside a record sequenced at once
            throw new IllegalStateException("MacroDB: v" + t.version + " was published empty: a commit in flight beside it was abandoned");
        }
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
