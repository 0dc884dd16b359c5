package io.macrodb.replica;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Takes turns between a secondary's read-only transactions and its applier, on an engine whose readers take row
 * locks that its writers wait for and that wait for its writers (Derby: {@link io.macrodb.engine.Engine#readsTakeLocks()}).
 * On such an engine a reader and the applier meeting on rows wait for each other: a reader scanning a table waits for
 * every row an apply group holds, the group waits for the rows a {@code REPEATABLE READ} reader holds, and the two can
 * deadlock; at {@code READ COMMITTED} a scan can also read part of a group. Here they never meet in the engine:
 * any number of readers at once, or the applier alone. A reader therefore sees one committed state for as long as it
 * holds the gate (its whole transaction), whatever its isolation level.
 *
 * <p>The applier goes first: once it waits, new readers wait behind it, so a steady stream of short reads cannot
 * starve replication. A reader waits at most its timeout (then it runs elsewhere); the applier waits for the readers
 * in the gate to end, so a read-only transaction left open holds this secondary's replication until it ends (what a
 * {@code REPEATABLE READ} reader does to the writers of the engine itself).
 */
final class ReadApplyGate {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private int readers;
    private boolean applying;
    private int appliersWaiting;

    /**
     * Enters as a reader, waiting while the applier applies or waits to.
     *
     * @return false if {@code timeoutNanos} passed first (the reader did not enter)
     */
    boolean enterRead(long timeoutNanos) throws InterruptedException {
        lock.lock();
        try {
            long left = timeoutNanos;
            while (applying || appliersWaiting > 0) {
                if (left <= 0) return false;
                left = changed.awaitNanos(left);
            }
            readers++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A reader that entered leaves. */
    void exitRead() {
        lock.lock();
        try {
            if (readers <= 0) throw new IllegalStateException("no reader in the gate");
            if (--readers == 0) changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Enters as the applier once the readers in the gate have left; readers that come meanwhile wait. */
    void enterApply() throws InterruptedException {
        lock.lock();
        try {
            appliersWaiting++;
            boolean entered = false;
            try {
                while (readers > 0 || applying) changed.await();
                applying = entered = true;
            } finally {
                appliersWaiting--;
                if (!entered) changed.signalAll(); // interrupted: the readers behind it go on
            }
        } finally {
            lock.unlock();
        }
    }

    /** The applier leaves; waiting readers enter. */
    void exitApply() {
        lock.lock();
        try {
            applying = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Readers in the gate now (for tests and status). */
    int readers() {
        lock.lock();
        try {
            return readers;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the applier waits for readers to leave now. */
    boolean applierWaiting() {
        lock.lock();
        try {
            return appliersWaiting > 0;
        } finally {
            lock.unlock();
        }
    }
}
