package io.macrodb.replica;

import java.sql.SQLException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one update transaction holds on the primary, from {@link ReplicaSet#beginUpdate} to its end:
 * the primary's admission, the writer turn (statement propagation, SQLite) and, from its first statement
 * that may write, a share of the {@link UpdateGate}.
 *
 * <p>The gate is entered lazily ({@link #enterGate}) because a schema change waits for every
 * transaction inside it: a transaction that has so far only read, or locked rows with
 * {@code SELECT ... FOR UPDATE}, has captured nothing and holds no version, so a schema change may
 * run beside it, as the plain engine lets it (the engine's own locks still apply). Flyway depends on
 * this: it locks its history table on one connection and migrates on another.
 *
 * <p>Ending is idempotent ({@link #close}): the owning thread ends the transaction, and
 * {@code Connection.abort} may end it from another thread at the same time; each thing held is
 * handed back exactly once.
 */
public final class UpdateTurn implements AutoCloseable {
    private final UpdateGate gate;
    private final long gateTimeoutMillis;
    private final Admission.Permit permit;
    /** The writer turn (statement propagation, SQLite), or null. */
    private final Semaphore writerToken;
    /** The commit path's count of running update transactions, which {@link #close} decrements. */
    private final java.util.concurrent.atomic.AtomicInteger running;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean leftGate = new AtomicBoolean();
    private volatile boolean inGate;
    private volatile boolean alone;
    private final AtomicBoolean leftAlone = new AtomicBoolean();

    UpdateTurn(UpdateGate gate, long gateTimeoutMillis, Admission.Permit permit, Semaphore writerToken,
               java.util.concurrent.atomic.AtomicInteger running) {
        this.running = running;
        this.gate = gate;
        this.gateTimeoutMillis = gateTimeoutMillis;
        this.permit = permit;
        this.writerToken = writerToken;
    }

    /**
     * Enters the update gate unless the transaction already holds it: called before every statement
     * of an update transaction that may write, and before a commit that ships changes.
     *
     * @throws SQLException 40001 after waiting {@code lockTimeout} for a schema change, 57014 if interrupted
     */
    public void enterGate() throws SQLException {
        if (closed.get()) throw new IllegalStateException("the update transaction has ended");
        if (inGate) return;
        gate.enter(gateTimeoutMillis);
        inGate = true;
        // ended from another thread while this one waited: hand the share back (close may have missed it)
        if (closed.get() && leftGate.compareAndSet(false, true)) gate.leave();
    }

    /**
     * Holds the update gate alone until the transaction ends: a schema change inside the transaction (an engine whose
     * DDL is transactional), which no other update transaction may run beside, from the change to the commit. Waits up to
     * the gate's timeout for the other update transactions to end.
     *
     * @throws SQLException 40001 after waiting, or at once where another schema change waits for this transaction;
     *                      57014 if interrupted. The transaction holds what it held before.
     */
    public void holdGateAlone() throws SQLException {
        if (closed.get()) throw new IllegalStateException("the update transaction has ended");
        if (alone) return;
        enterGate();
        gate.upgrade(gateTimeoutMillis);
        alone = true;
        // ended from another thread while this one waited: hand the gate back (close may have missed it)
        if (closed.get() && leftAlone.compareAndSet(false, true)) gate.exitExclusive();
    }

    /** Whether the transaction holds the update gate alone ({@link #holdGateAlone}). */
    public boolean holdsGateAlone() { return alone && !leftAlone.get(); }

    /** Whether the transaction holds its share of the update gate. */
    public boolean inGate() { return inGate && !leftGate.get(); }

    /** Hands back everything the transaction holds; closing again does nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        if (alone && leftAlone.compareAndSet(false, true)) gate.exitExclusive();
        if (inGate && leftGate.compareAndSet(false, true)) gate.leave();
        permit.close();
        if (writerToken != null) writerToken.release();
        running.decrementAndGet();
    }
}
