package io.macrodb.replica;

import io.macrodb.sql.SqlState;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-replica admission: at most {@link #limit()} transactions run in one engine at once, update
 * transactions on the primary and read-only ones on a secondary alike; the others wait in a fair
 * (first come, first served) queue. Some engines lose throughput when more transactions run in them
 * than they can serve: HSQLDB in MVCC mode ran TPC-C 80-20 at 6,691 tx/s with one client and at
 * 405-719 tx/s with 4-32 (16 cores, {@code results-16core-2026-11-22}), so its profile admits one.
 *
 * <p>The limit starts at the engine's profile and, when adaptive, follows measured throughput with
 * a small probing controller (our own, 60 lines, rather than a latency-gradient library such as
 * Netflix concurrency-limits: those infer overload from latency, while an embedded engine that
 * collapses shows it directly as fewer commits per second, which is what this measures). Every few
 * windows in which transactions waited, it tries one more (or one fewer) admitted transaction for a
 * window and keeps the new limit only if throughput rose by at least 5%.
 *
 * <p>A thread that already holds a permit of this replica (another connection of the same thread
 * with a transaction open) is admitted without waiting: a thread must never wait for itself.
 */
public final class Admission {
    /** A held admission; closing it twice releases it once. */
    public interface Permit extends AutoCloseable {
        @Override void close();
    }

    private static final Permit FREE = () -> { };
    private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final int WINDOWS_BETWEEN_PROBES = 5;

    /** A fair semaphore whose permits can be taken away. */
    private static final class Slots extends Semaphore {
        Slots(int permits) { super(permits, true); }
        void shrink(int n) { reducePermits(n); }
    }

    private final Slots slots;
    private final boolean limited;
    private final boolean adaptive;
    private final int max;
    private volatile int limit;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicLong waited = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();
    private final ThreadLocal<int[]> heldByThread = ThreadLocal.withInitial(() -> new int[1]);

    // controller state, guarded by this
    private final AtomicLong completions = new AtomicLong();
    private long windowStart = System.nanoTime();
    private boolean windowHadWaiters;
    private double steadyRate;
    private int steadyLimit;
    private int windowsSinceProbe;
    private boolean probing;
    private int probeDirection = 1;

    /**
     * @param limit    transactions admitted at once; 0 for no limit
     * @param adaptive whether the limit follows measured throughput (between 1 and {@code max})
     */
    public Admission(int limit, boolean adaptive, int max) {
        this.limited = limit > 0;
        this.limit = Math.max(1, limit);
        this.adaptive = limited && adaptive;
        this.max = Math.max(this.limit, max);
        this.slots = new Slots(this.limit);
        this.steadyLimit = this.limit;
    }

    /** No limit: every transaction is admitted at once. */
    public static Admission unlimited() { return new Admission(0, false, 0); }

    public boolean isLimited() { return limited; }
    /** Transactions admitted at once now (meaningless when not {@link #isLimited()}). */
    public int limit() { return limit; }
    /** Transactions holding a permit now. */
    public int running() { return running.get(); }
    /** Transactions that had to queue, and how long they queued in all. */
    public long waited() { return waited.get(); }
    public long waitedNanos() { return waitedNanos.get(); }

    /** A permit if one is free now (or the thread holds one already), else null. */
    public Permit tryEnter() {
        if (!limited) return FREE;
        if (heldByThread.get()[0] > 0) return overdraft();
        if (!slots.tryAcquire()) return null;
        return granted();
    }

    /**
     * A permit, waiting in line at most {@code timeoutMillis}.
     *
     * @throws SQLException 40001 if none came in time (nothing has run: the transaction can be retried)
     */
    public Permit enter(long timeoutMillis, String where) throws SQLException {
        if (!limited) return FREE;
        if (heldByThread.get()[0] > 0) return overdraft();
        if (slots.tryAcquire()) return granted();
        long started = System.nanoTime();
        waited.incrementAndGet();
        synchronized (this) {
            windowHadWaiters = true;
        }
        boolean got;
        try {
            got = slots.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("MacroDB: the thread was interrupted while waiting to be admitted to " + where
                    + "; nothing ran and the connection remains usable", SqlState.QUERY_CANCELED.getState(), e);
        } finally {
            waitedNanos.addAndGet(System.nanoTime() - started);
        }
        if (!got) {
            throw new SQLTransactionRollbackException("MacroDB: " + where + " runs at most " + limit + " transaction(s) at once"
                    + " (admission) and this one waited lockTimeout (" + timeoutMillis + " ms) for its turn; nothing ran,"
                    + " retry it (admission=<K> or admission=off sets the limit)", SqlState.SERIALIZATION_FAILURE.getState());
        }
        return granted();
    }

    private Permit granted() {
        running.incrementAndGet();
        int[] held = heldByThread.get();
        held[0]++;
        AtomicBoolean open = new AtomicBoolean(true);
        return () -> {
            if (!open.compareAndSet(true, false)) return;
            held[0]--; // may run on another thread (abort): the count is the owner's, and the owner's thread is done with it
            running.decrementAndGet();
            slots.release();
            completed();
        };
    }

    /** Admitted beside a permit this thread already holds, outside the count. */
    private Permit overdraft() {
        int[] held = heldByThread.get();
        held[0]++;
        AtomicBoolean open = new AtomicBoolean(true);
        return () -> {
            if (open.compareAndSet(true, false)) held[0]--;
        };
    }

    private void completed() {
        if (!adaptive) return;
        completions.incrementAndGet();
        long now = System.nanoTime();
        if (now - windowStart < WINDOW_NANOS) return;
        synchronized (this) {
            if (now - windowStart < WINDOW_NANOS) return;
            double rate = completions.getAndSet(0) / (double) (now - windowStart);
            boolean demand = windowHadWaiters;
            windowStart = now;
            windowHadWaiters = false;
            if (probing) {
                probing = false;
                if (rate > steadyRate * 1.05) {
                    steadyLimit = limit; // better: keep it, and probe the same way next time
                    steadyRate = rate;
                } else {
                    setLimit(steadyLimit);
                    probeDirection = -probeDirection;
                }
                return;
            }
            steadyRate = steadyRate == 0 ? rate : 0.7 * steadyRate + 0.3 * rate;
            if (!demand || ++windowsSinceProbe < WINDOWS_BETWEEN_PROBES) return;
            windowsSinceProbe = 0;
            int next = limit + probeDirection;
            if (next < 1 || next > max) {
                probeDirection = -probeDirection;
                next = limit + probeDirection;
                if (next < 1 || next > max) return;
            }
            probing = true;
            setLimit(next);
        }
    }

    private void setLimit(int next) {
        int delta = next - limit;
        limit = next;
        if (delta > 0) slots.release(delta);
        else if (delta < 0) slots.shrink(-delta);
    }
}
