package io.macrodb.replica;

import io.macrodb.sql.SqlState;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps schema changes apart from update transactions: many update transactions may be open at once,
 * and a schema change runs only when none is. Unlike a read-write lock, entering and leaving need
 * not happen on the same thread (a JDBC connection may move between threads mid-transaction), and
 * the common path is one atomic increment.
 */
final class UpdateGate {
    private final AtomicInteger active = new AtomicInteger();
    private volatile boolean exclusivePending;
    private final Object monitor = new Object();

    /** Enters an update transaction, waiting while a schema change is pending or running. */
    void enter(long timeoutMillis) throws SQLException {
        if (!exclusivePending) {
            active.incrementAndGet();
            if (!exclusivePending) return;
            leave();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (monitor) {
            while (exclusivePending) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SQLTransactionRollbackException("MacroDB: an update transaction waited " + timeoutMillis
                            + " ms for a schema change to finish; retry it (lockTimeout sets the bound)", SqlState.SERIALIZATION_FAILURE.getState());
                }
                waitNanos(left);
            }
            active.incrementAndGet();
        }
    }

    void leave() {
        if (active.decrementAndGet() == 0 && exclusivePending) {
            synchronized (monitor) {
                monitor.notifyAll();
            }
        }
    }

    /** Waits until no update transaction is open and blocks new ones; release with {@link #exitExclusive}. */
    void enterExclusive(long timeoutMillis) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (monitor) {
            while (exclusivePending) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw exclusiveTimeout(timeoutMillis);
                waitNanos(left);
            }
            exclusivePending = true;
            awaitShares(0, deadline, timeoutMillis);
        }
    }

    /**
     * Makes a share of the gate its holder has already entered exclusive: waits until the holder's is the only share
     * and blocks new ones; release with {@link #exitExclusive} (the share itself is left with {@link #leave}). Refused
     * at once, with 40001, while another exclusive entry waits (a schema change, a snapshot, a rebuild): that one waits
     * for this holder's share, which would then wait for it.
     */
    void upgrade(long timeoutMillis) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (monitor) {
            if (exclusivePending) {
                throw new SQLTransactionRollbackException("MacroDB: a schema change of another connection (or a snapshot, or a"
                        + " secondary being rebuilt) waits for this transaction to end, and this transaction's schema change would"
                        + " wait for it; the transaction was rolled back, retry it", SqlState.SERIALIZATION_FAILURE.getState());
            }
            exclusivePending = true;
            awaitShares(1, deadline, timeoutMillis);
        }
    }

    /**
     * With the exclusive entry pending, waits (holding the monitor, which {@link #leave} notifies) until at most {@code
     * left} shares remain; on a timeout or an interrupt the pending entry is withdrawn and the failure thrown.
     */
    private void awaitShares(int left, long deadline, long timeoutMillis) throws SQLException {
        while (active.get() > left) {
            long nanos = deadline - System.nanoTime();
            SQLException failure = nanos <= 0 ? exclusiveTimeout(timeoutMillis) : null;
            if (failure == null) {
                try {
                    waitNanos(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(10)));
                } catch (SQLException interrupted) {
                    failure = interrupted;
                }
            }
            if (failure != null) {
                exclusivePending = false;
                monitor.notifyAll();
                throw failure;
            }
        }
    }

    void exitExclusive() {
        synchronized (monitor) {
            exclusivePending = false;
            monitor.notifyAll();
        }
    }

    int active() { return active.get(); }

    private static SQLException exclusiveTimeout(long timeoutMillis) {
        return new SQLTransactionRollbackException("MacroDB: a schema change waited " + timeoutMillis
                + " ms for open update transactions to end; end them (commit or rollback) and retry", SqlState.SERIALIZATION_FAILURE.getState());
    }

    private void waitNanos(long nanos) throws SQLException {
        try {
            TimeUnit.NANOSECONDS.timedWait(monitor, nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("MacroDB: the thread was interrupted while waiting for a schema change or open update transactions; the statement did not"
                    + " run and the connection remains usable (57014: canceled, as the engines report a canceled statement)", SqlState.QUERY_CANCELED.getState(), e);
        }
    }
}
