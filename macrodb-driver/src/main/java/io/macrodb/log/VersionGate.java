package io.macrodb.log;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A replica's published version with waiting that does not burn cores: a waiter spins for a few
 * microseconds (most waits on a healthy secondary end there), then parks until a publish that
 * reaches its target wakes it. Publishing is a volatile write plus, only when someone parked, a
 * scan of the waiters.
 */
public final class VersionGate {
    private static final int SPINS = 256;

    private volatile long version;
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();

    private record Waiter(Thread thread, long target) {}

    public VersionGate(long initial) { this.version = initial; }

    public long version() { return version; }

    /** Publishes a new version (monotonic; the single publisher is the replica's committer). */
    public void publish(long v) {
        version = v;
        if (!waiters.isEmpty()) {
            for (Waiter w : waiters) {
                if (w.target <= v) LockSupport.unpark(w.thread);
            }
        }
    }

    /** Wakes every waiter, e.g. when the replica leaves the rotation, so that they re-route. */
    public void wakeAll() {
        for (Waiter w : waiters) LockSupport.unpark(w.thread);
    }

    /**
     * Waits until {@code version() >= target}.
     *
     * @return true if reached, false if {@code timeoutNanos} passed, the thread was interrupted, or
     *         {@code stillValid} turned false (the replica failed)
     */
    public boolean await(long target, long timeoutNanos, java.util.function.BooleanSupplier stillValid) {
        if (version >= target) return true;
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            if (version >= target) return true;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        Waiter w = new Waiter(Thread.currentThread(), target);
        waiters.add(w);
        try {
            while (version < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || Thread.currentThread().isInterrupted() || !stillValid.getAsBoolean()) return false;
                LockSupport.parkNanos(this, left);
            }
            return true;
        } finally {
            waiters.remove(w);
        }
    }
}
