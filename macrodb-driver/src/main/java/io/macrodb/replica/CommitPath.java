package io.macrodb.replica;

import io.macrodb.durable.DurableLog;
import io.macrodb.durable.RecordCodec;
import io.macrodb.engine.CaptureContext;
import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.Propagation;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.SequencePositions;
import io.macrodb.log.StatementChange;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The write path of a replica set (DESIGN.md §2, {@code docs/internals.md} §3): an update
 * transaction's start ({@link #beginUpdate}: lag bound, writer turn, admission; the update gate at
 * its first statement that may write, {@link UpdateTurn}), its commit, a schema change, and the wait of a read on the primary for what it may have seen
 * ({@link #awaitPublished}).
 *
 * <p>Commit: the changes are built outside any lock (row images are read inside the still-open
 * transaction); the transaction then takes the next version from {@link CommitOrder}, commits in
 * the engine with no lock held, and its record is appended to the log and published in version
 * order. Taking the version is the only serial step. A schema change runs while the update gate
 * keeps every update transaction out, and takes and publishes its version at once. Both end the
 * same way ({@link #publish}, then {@link #awaitDurable}).
 *
 * <p>Locks, in the order they are taken: the writer turn {@link #writerToken}, the primary's
 * admission, {@link #updateGate} (shared for a transaction, exclusive for a schema change or a copy
 * of the primary), the order's lock (inside {@link CommitOrder}, held only to hand out a version and
 * to publish; {@link #publishRecord} runs under it), the catalog session's monitor (refreshing
 * shapes after a schema change). The throttling counters are atomics; {@link #lastThrottleLog} is
 * a racy timestamp that only spaces out a log line.
 */
final class CommitPath {
    private static final Logger LOG = Logger.getLogger(ReplicaSet.class.getName());
    /** The durable form of an empty record (a version whose engine commit failed). */
    private static final byte[] EMPTY_PAYLOAD;

    static {
        try {
            EMPTY_PAYLOAD = RecordCodec.encode(List.of());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ReplicaSet set;
    private final ReplicaSetConfig config;
    private final ReplicationLog log;
    /** The order of versions: the commit path's only serial step. */
    private final CommitOrder order;
    private final UpdateGate updateGate = new UpdateGate();
    /**
     * The writer turn: in statement mode update transactions run one at a time, so that replay order
     * is execution order; on an engine that runs one writer at a time anyway (SQLite), so that two
     * writers never hold read locks while each waits for the other's write lock.
     */
    private final Semaphore writerToken = new Semaphore(1, true);
    /** Whether update transactions take {@link #writerToken}. */
    private final boolean oneWriter;
    /**
     * The primaries that had a commit {@linkplain CommitOrder#abandon abandoned}: their engine may hold a commit that
     * no record carries, so a read there may have seen it ({@link #awaitPublished(Replica)}). Failed replicas only, a
     * few in the life of a database.
     */
    private final java.util.Set<Replica> abandonedOn = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Update transactions begun and not yet ended ({@link UpdateTurn#close}): the primary's write load, for routing. */
    private final java.util.concurrent.atomic.AtomicInteger updatesRunning = new java.util.concurrent.atomic.AtomicInteger();
    private final AtomicLong throttled = new AtomicLong();
    private final AtomicLong throttledNanos = new AtomicLong();
    private volatile long lastThrottleLog;

    CommitPath(ReplicaSet set, ReplicaSetConfig config, ReplicationLog log) {
        this.set = set;
        this.config = config;
        this.log = log;
        this.order = new CommitOrder(log.lastVersion(), this::publishRecord, EMPTY_PAYLOAD);
        this.oneWriter = config.oneWriter();
    }

    /** The order of versions (failover holds it idle). */
    CommitOrder order() { return order; }

    /** Keeps schema changes and copies of the primary apart from update transactions. */
    UpdateGate updateGate() { return updateGate; }

    /** Appends a record in version order, under the commit order's lock. */
    private void publishRecord(long v, List<Change> changes, byte[] payload) throws IOException {
        log.append(new ChangeRecord(v, System.nanoTime(), changes));
        DurableLog durable = set.durableLog();
        try {
            if (durable != null) durable.append(v, payload);
        } finally {
            set.primary().gate().publish(v);
        }
    }

    /** See {@link ReplicaSet#beginUpdate}. */
    UpdateTurn beginUpdate() throws SQLException {
        if (set.isClosed()) throw new SQLException("MacroDB: the replica set was shut down", "08003");
        set.awaitPrimary();
        holdBackWhileLagging();
        if (oneWriter) {
            try {
                if (!writerToken.tryAcquire(config.lockTimeoutMillis(), TimeUnit.MILLISECONDS)) {
                    throw new SQLTransactionRollbackException("MacroDB: " + (config.propagation() == Propagation.STATEMENT
                            ? "statement propagation" : config.engine().name()) + " runs update transactions one at a"
                            + " time and this one waited " + config.lockTimeoutMillis() + " ms for its turn; retry it"
                            + (config.propagation() == Propagation.STATEMENT
                                    ? " (lockTimeout sets the bound; propagation=row lets updates run concurrently)"
                                    : " (lockTimeout sets the bound)"), "40001");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("MacroDB: the thread was interrupted while waiting to start an update transaction; the statement did not"
                        + " run and the connection remains usable (57014: canceled, as the engines report a canceled statement)", "57014", e);
            }
        }
        try {
            Admission.Permit permit = set.primary().admission().enter(config.lockTimeoutMillis(), "the primary");
            updatesRunning.incrementAndGet();
            return new UpdateTurn(updateGate, config.lockTimeoutMillis(), permit, oneWriter ? writerToken : null, updatesRunning);
        } catch (SQLException | RuntimeException e) {
            if (oneWriter) writerToken.release();
            throw e;
        }
    }

    long throttledTransactions() { return throttled.get(); }

    int updatesRunning() { return updatesRunning.get(); }

    long throttledNanos() { return throttledNanos.get(); }

    /**
     * Back-pressure (the lag bound): a new update transaction waits while an active secondary is more
     * than {@code maxLag} behind, so a secondary whose appliers cannot keep up slows the primary
     * instead of letting the lag, and the log records it pins, grow without limit. It waits before
     * the transaction has taken a lock or a version, until the secondary is back within the bound,
     * leaves the rotation, or is paused; at most {@code stallTimeout}, after which the monitor takes
     * a secondary that made no progress out of the rotation. The lag can exceed the bound only by
     * the update transactions that were already running.
     */
    private void holdBackWhileLagging() {
        long maxVersions = config.maxLagVersions();
        long maxMillis = config.maxLagMillis();
        if (maxVersions <= 0 && maxMillis <= 0) return;
        for (Replica r : set.secondaries()) {
            Applier a = r.applier();
            if (!r.isActive() || a == null || a.isPaused()) continue;
            long head = order.lastTicket();
            long target;
            if (maxVersions > 0) {
                target = head - maxVersions;
            } else {
                double perNano = a.applyRate();
                if (perNano <= 0) continue; // no measured rate yet
                target = head - (long) (perNano * TimeUnit.MILLISECONDS.toNanos(maxMillis));
            }
            if (r.version() >= target) continue;
            long started = System.nanoTime();
            throttled.incrementAndGet();
            if (started - lastThrottleLog > TimeUnit.SECONDS.toNanos(10)) {
                lastThrottleLog = started;
                LOG.warning("MacroDB: update transactions wait for " + r + ": " + (head - r.version()) + " versions behind, beyond maxLag="
                        + (maxVersions > 0 ? Long.toString(maxVersions) : maxMillis + "ms") + " (applying with "
                        + a.threads() + " session(s); more applyThreads, fewer replicas or a larger maxLag let it keep up)");
            }
            long deadline = started + TimeUnit.MILLISECONDS.toNanos(config.stallTimeoutMillis());
            BooleanSupplier counts = () -> r.isActive() && !a.isPaused() && !set.isClosed();
            // in slices, so that a pause (which wakes nobody) ends the wait soon
            while (!r.gate().await(target, TimeUnit.MILLISECONDS.toNanos(100), counts)
                    && counts.getAsBoolean() && System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
                Thread.onSpinWait();
            }
            throttledNanos.addAndGet(System.nanoTime() - started);
        }
    }

    /** See {@link ReplicaSet#commit}. */
    long commit(Session session, PendingChanges changes, UpdateTurn turn) throws SQLException {
        Connection c = session.connection();
        io.macrodb.engine.CommitDecoding decoding = set.decoding();
        if (decoding != null) return commitDecoded(session, changes, turn, decoding);
        // an engine whose triggers record the rows in the server (PostgreSQL) hands them over now
        if (changes instanceof CaptureContext capture) config.engine().collectChanges(c, capture);
        // A transaction that drew from a sequence or an identity ships their positions even with no row to ship (a
        // SELECT NEXT VALUE FOR taking an order number, rows inserted and deleted again): else a promoted secondary
        // hands the same values out again.
        if (changes.isEmpty() && !changes.usesSequences() && !changes.insertsIdentities()) return commitEmpty(session);
        // A transaction with changes takes a version only from inside the update gate: a schema change
        // takes its version while the gate keeps every such transaction out (schemaChange), so none is
        // in flight beside it. Every statement that may write entered the gate before it ran; this
        // holds the rule even if one that changed rows was taken for a read.
        turn.enterGate();
        List<StatementChange> schemaChanges = changes.schemaChanges();
        if (!schemaChanges.isEmpty() && !turn.holdsGateAlone()) {
            throw new IllegalStateException("MacroDB: a transaction with schema changes commits without holding the update gate alone");
        }
        if (!set.shipsChanges()) {
            long v = commitUnshipped(session);
            if (!schemaChanges.isEmpty()) {
                for (StatementChange sc : schemaChanges) set.noteTriggerDdl(sc.sql(), sc.params(), sc.schema());
                set.refreshShapes();
            }
            return v;
        }
        DurableLog durable = set.durableLog();
        List<Change> built;
        try {
            built = changes.build(c, session);
        } catch (io.macrodb.engine.EngineDiverged e) {
            set.primaryDiverged(session.replica(), e.getMessage());
            throw e;
        }
        built = withPositions(c, changes, built);
        byte[] payload = payload(durable, built); // a value the log cannot hold fails here, before the commit
        Replica on = session.replica();
        CommitOrder.Ticket ticket = order.take(built, payload, () -> admit(on, c));
        // The engine commits outside the order's lock: commits of transactions with disjoint writes run
        // in parallel in the engine (CommitOrder says why their version order is still right).
        SQLException failed = engineCommit(c);
        // A commit that failed because the engine is gone may have committed there all the same (H2's SHUTDOWN
        // lets a running COMMIT finish, then fails it with 90135), and a transaction holding a later version may
        // have read its rows: decided before the version is published, so that such later records are not
        // shipped either (CommitOrder#abandon). The primary then leaves service at once, so no later ticket is
        // handed out on it.
        boolean abandoned = failed != null && set.replicaFailed(on, failed, "a commit");
        return published(ticket, failed, abandoned, on, schemaChanges, durable);
    }

    /** A transaction that changed nothing commits without a version. */
    private long commitEmpty(Session session) throws SQLException {
        session.connection().commit();
        // it may have read a commit whose version is being published right now, or one that was abandoned
        if (!awaitPublished(session.replica())) {
            Replica on = session.replica();
            throw new SQLTransactionRollbackException("MacroDB: the primary failed while this transaction ran (" + on.stateReason()
                    + ") with a commit whose outcome it took with it, and this transaction may have read that commit's rows;"
                    + " retry it", "40001");
        }
        return 0;
    }

    /** A ticket is taken only on the primary in service; otherwise the transaction is rolled back. */
    private void admit(Replica on, Connection c) throws SQLException {
        if (on != set.primary() || !on.isActive()) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // its engine is gone
            }
            throw new SQLTransactionRollbackException("MacroDB: the primary failed before this transaction committed ("
                    + on.stateReason() + "); nothing was committed, retry it", "40001");
        }
    }

    /**
     * The record with the positions of the sequences and identity columns the transaction drew from, which a promoted
     * secondary restarts past ({@code built} itself if it drew from none).
     */
    private List<Change> withPositions(Connection c, PendingChanges changes, List<Change> built) throws SQLException {
        if (!changes.usesSequences() && !changes.insertsIdentities()) return built;
        Map<String, Long> next = changes.usesSequences() ? config.engine().sequencePositions(c) : Map.of();
        if (changes.insertsIdentities()) {
            Map<String, Long> identities = config.engine().identityPositions(c, changes.identityTables());
            if (!identities.isEmpty()) {
                next = new java.util.TreeMap<>(next);
                next.putAll(identities);
            }
        }
        if (next.isEmpty()) return built;
        List<Change> out = new ArrayList<>(built);
        out.add(new SequencePositions(next));
        set.noteSequencePositions(next);
        return out;
    }

    /**
     * {@link #commit} where the rows come from the primary engine's own log after its commit ({@link
     * io.macrodb.engine.CommitDecoding}: PostgreSQL with {@code capture=decoding}). The version is taken while the
     * transaction still holds its locks, as for every engine (CommitOrder's argument is unchanged); the engine commits
     * with the version's mark; the committer waits until the transaction comes out of the log, builds the record from
     * its rows, and publishes it in version order, which acknowledges it. A transaction committed in the engine whose
     * rows cannot be read takes the primary out of service, as a commit lost with its engine does: the primary holds
     * a commit that no record carries, and every open ticket after it is published empty.
     */
    private long commitDecoded(Session session, PendingChanges changes, UpdateTurn turn, io.macrodb.engine.CommitDecoding decoding)
            throws SQLException {
        Connection c = session.connection();
        List<StatementChange> schemaChanges = changes.schemaChanges();
        // every statement that may write entered the update gate before it ran: none did, so nothing was written, unless
        // the application wrote through the engine connection it unwrapped (the engine says whether it did)
        if (!turn.inGate() && schemaChanges.isEmpty() && !changes.usesSequences() && !(session.isHandedOut() && decoding.wrote(c))) {
            return commitEmpty(session);
        }
        turn.enterGate();
        if (!schemaChanges.isEmpty() && !turn.holdsGateAlone()) {
            throw new IllegalStateException("MacroDB: a transaction with schema changes commits without holding the update gate alone");
        }
        DurableLog durable = set.durableLog();
        Replica on = session.replica();
        CommitOrder.Ticket ticket = order.take(List.of(), null, () -> admit(on, c));
        SQLException failed = null;
        boolean marked = false;
        try {
            marked = decoding.commit(c, ticket.version());
        } catch (SQLException e) {
            failed = e;
        } catch (RuntimeException e) {
            failed = new SQLException("MacroDB: the engine's commit failed: " + e, "XX000", e);
        }
        boolean abandoned = failed != null && set.replicaFailed(on, failed, "a commit");
        if (failed == null) {
            try {
                List<List<io.macrodb.engine.CommitDecoding.Row>> segments;
                if (marked) {
                    segments = decoding.await(ticket.version(), Math.max(config.lockTimeoutMillis(), 10_000),
                            () -> on.isActive() && !set.isClosed());
                } else {
                    // nothing was written in the engine (a schema change or a row would have been)
                    segments = new ArrayList<>();
                    for (int i = 0; i <= schemaChanges.size(); i++) segments.add(List.of());
                }
                List<Change> built = changes.buildDecoded(segments);
                if (changes.usesSequences() || changes.insertsIdentities()) {
                    // read after the commit: past every value the transaction drew, and perhaps past later ones
                    built = withPositions(c, changes, built);
                    if (!c.getAutoCommit()) c.commit(); // the read's own engine transaction
                }
                ticket.fill(built, payload(durable, built));
            } catch (SQLException | RuntimeException e) {
                set.primaryLostCommit(on, e.getMessage());
                failed = new SQLTransactionRollbackException("MacroDB: the primary committed this transaction, but its rows could not be"
                        + " read from the primary's log (" + e.getMessage() + "); the primary leaves service, and the transaction is in"
                        + " no record: nothing was committed, retry it", "40001", e);
                abandoned = true;
            }
        }
        return published(ticket, failed, abandoned, on, schemaChanges, durable);
    }

    /**
     * Publishes a ticket whose engine commit is done ({@code failed}: its failure, or null), in version order, and
     * returns its version once it is published (and durable): the end of every update transaction's commit.
     *
     * @param abandoned the commit's outcome in the engine is unknown, or known to be in no record: the ticket and every
     *                  open one after it are published empty ({@link CommitOrder#abandon})
     */
    private long published(CommitOrder.Ticket ticket, SQLException failed, boolean abandoned, Replica on,
                           List<StatementChange> schemaChanges, DurableLog durable) throws SQLException {
        if (abandoned) abandonedOn.add(on); // before its version is published: see awaitPublished(Replica)
        boolean[] shipped = new boolean[1];
        long v = publish(() -> {
            if (abandoned) {
                int dropped = order.abandon(ticket);
                LOG.warning("MacroDB: the commit of v" + ticket.version() + " failed with the primary's engine (" + failed
                        + "), which may have committed it; it is not logged" + (dropped == 0 ? ""
                        : ", nor are the " + dropped + " commit(s) after it in flight, which may have read its rows"));
            } else {
                shipped[0] = order.finish(ticket, failed == null);
                // the application's triggers a schema change of it created or dropped, noted as soon as it is published
                if (shipped[0]) for (StatementChange sc : schemaChanges) set.noteTriggerDdl(sc.sql(), sc.params(), sc.schema());
            }
            return ticket.version();
        }, failed, "transaction", durable);
        if (failed != null) throw failed;
        if (!shipped[0]) {
            // committed in an engine that was abandoned after a commit before it whose outcome is unknown, and whose
            // rows this transaction may have read: not in the log, so not in the successor
            throw new SQLTransactionRollbackException("MacroDB: the primary failed while this transaction committed ("
                    + on.stateReason() + "): a commit before it failed with the engine, which may have committed it, and"
                    + " this transaction may have read its rows, so it was not logged either; nothing was committed, retry it", "40001");
        }
        if (!schemaChanges.isEmpty()) set.refreshShapes(); // while the transaction still holds the update gate alone
        if (durable != null) awaitDurable(durable, v);
        return v;
    }

    /** The engine's commit of a transaction that holds a ticket: its failure, or null. */
    private static SQLException engineCommit(Connection c) {
        try {
            c.commit();
            return null;
        } catch (SQLException e) {
            return e;
        } catch (RuntimeException e) {
            return new SQLException("MacroDB: the engine's commit failed: " + e, "XX000", e);
        }
    }

    /**
     * A database that ships nothing (one replica, no log): no replica replays its commits, so their
     * versions need not follow the engine's order. The engine commits first, with no lock held,
     * and the commit is then numbered: a committer never waits for another's engine commit.
     */
    private long commitUnshipped(Session session) throws SQLException {
        try {
            session.connection().commit();
        } catch (SQLException e) {
            set.replicaFailed(session.replica(), e, "a commit");
            throw e;
        }
        try {
            return order.sequenceNow(List.of(), null);
        } catch (IOException e) {
            throw new IllegalStateException("no durable log to fail", e);
        }
    }

    /** See {@link ReplicaSet#schemaChange}. */
    <T> ReplicaSet.SchemaChanged<T> schemaChange(Session session, String sql, Object[] params, boolean replicate,
                                                 ReplicaSet.SqlCall<T> call, ReplicaSet.SqlCall<List<Change>> shipped)
            throws SQLException {
        updateGate.enterExclusive(config.lockTimeoutMillis());
        try {
            Replica on = session.replica();
            if (replicate && !stillPrimary(on)) {
                throw new SQLTransactionRollbackException("MacroDB: the primary failed before this schema change ran ("
                        + on.stateReason() + "); nothing changed, retry it", "40001");
            }
            T result;
            List<Change> computed = null;
            java.util.Map<String, String> names = null;
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
            // what the engine refuses inside a transaction block runs in autocommit (nothing to roll back after it)
            boolean outside = replicate && config.engine().schemaChangeOutsideTransaction(sql);
            try {
                if (replicate) config.engine().beforeSchemaChange(session.connection());
                Object before = outside ? config.engine().beforeSchemaChangeOutsideTransaction(session.connection()) : null;
                if (outside) session.connection().setAutoCommit(true);
                try {
                    result = call.run();
                } catch (SQLException | RuntimeException e) {
                    if (outside) {
                        try {
                            config.engine().undoFailedSchemaChange(session.connection(), before);
                        } catch (SQLException undo) {
                            e.addSuppressed(undo);
                        }
                    }
                    throw e;
                } finally {
                    if (outside) session.connection().setAutoCommit(false);
                }
                if (replicate && !outside) config.engine().checkSchemaChange(session.connection());
                if (replicate) {
                    try {
                        names = config.engine().generatedNames(session.connection());
                    } catch (SQLException | RuntimeException e) {
                        // the engine committed the statement itself already: it is logged all the same, and the
                        // secondaries keep the names they generate
                        LOG.log(java.util.logging.Level.WARNING, "MacroDB: the constraint names that " + sql + " generated on the"
                                + " primary could not be read (" + e + "); the secondaries' may differ", e);
                    }
                }
                if (replicate && shipped != null) {
                    try {
                        computed = shipped.run(); // in this transaction, which the commit below ends
                    } catch (SQLException | RuntimeException | OutOfMemoryError e) {
                        // the engine committed the statement itself already: it must be logged all the same
                        LOG.log(java.util.logging.Level.WARNING, "MacroDB: the rows that " + sql + " computed on the primary"
                                + " could not be read (" + e + "); every secondary is rebuilt from the primary", e);
                    }
                }
                session.connection().commit();
            } catch (SQLException | RuntimeException e) {
                try {
                    session.connection().rollback();
                } catch (SQLException ignored) {
                    // the original error is what matters
                }
                if (e instanceof SQLException se && config.engine().isRetryable(se)) {
                    throw new SQLTransactionRollbackException("MacroDB: the schema change waited longer than lockTimeout ("
                            + config.lockTimeoutMillis() + " ms) for other transactions and was cancelled; nothing"
                            + " changed, retry it", "40001", se);
                }
                throw e;
            } finally {
                CaptureContext.restore(prev);
            }
            if (!replicate) return new ReplicaSet.SchemaChanged<>(result, 0); // a setting the secondaries keep their own value of
            // Logged before anything else can fail: the primary has it, so the secondaries must get it.
            String schema = config.engine().sessionSchema(session.connection());
            List<Change> ddl = new ArrayList<>(3);
            ddl.add(new StatementChange(sql, params, true, schema, null, names));
            if (computed != null) ddl.addAll(computed);
            DurableLog durable = set.durableLog();
            byte[] payload = payload(durable, ddl);
            // No update transaction is open (the gate is held exclusively), so nothing is in flight beside
            // it; but a promotion may have run meanwhile (the gate does not keep it out): then this engine is
            // no longer the primary, its successor does not have the change, and it must not be logged
            // either, or the secondaries would hold a schema their primary lacks. Checked under the order's
            // lock, which a promotion holds from start to end; an application trigger is noted there too.
            long v = publish(() -> order.sequenceNow(ddl, payload, () -> {
                if (!stillPrimary(on)) {
                    throw new SQLTransactionRollbackException("MacroDB: the primary was replaced while this schema change ran ("
                            + on.stateReason() + "); the new primary does not have it and it was not logged: retry it", "40001");
                }
                set.noteTriggerDdl(sql, params, schema);
            }), null, "schema change", durable);
            set.refreshShapes();
            if (shipped != null && computed == null) {
                set.failEverySecondary("v" + v + " changed the schema with values computed on the primary that could not be shipped");
            }
            if (durable != null) awaitDurable(durable, v);
            return new ReplicaSet.SchemaChanged<>(result, v);
        } finally {
            updateGate.exitExclusive();
        }
    }

    /** Whether {@code r} is still the primary and in service (not failed over, not being replaced). */
    private boolean stillPrimary(Replica r) {
        return r == set.primary() && r.isActive();
    }

    /** The record's durable form, or null without a durable log. */
    private static byte[] payload(DurableLog durable, List<Change> changes) throws SQLException {
        return durable == null ? null : RecordCodec.encode(changes);
    }

    /** Publishes a record in version order: finishes a ticket, or takes and publishes one at once. */
    @FunctionalInterface
    private interface Sequencing {
        /**
         * @return the record's version
         * @throws IOException  if the durable log did not take it
         * @throws SQLException if the record was refused before it took a version
         */
        long run() throws IOException, SQLException;
    }

    /**
     * The end of the critical section, one for a transaction and a schema change: {@code step}
     * publishes the record in version order (log, durable log, the primary's version), and the
     * appliers are woken to pull it, whether or not the durable log took it (the log has it either
     * way, and a later version must not wait behind it).
     *
     * @param engineFailure the transaction's engine commit failed (it was published as an empty
     *                      record): the caller throws it; a durable-log failure is added to it
     *                      instead of being thrown, since that record is of a commit that did not happen
     * @param what          what committed on the primary, for the error when the durable log failed
     * @return the version ({@code 0} when the durable log failed beside an engine failure)
     */
    private long publish(Sequencing step, SQLException engineFailure, String what, DurableLog durable) throws SQLException {
        long v;
        try {
            v = step.run();
        } catch (IOException e) {
            log.wakeReaders();
            if (engineFailure != null) {
                engineFailure.addSuppressed(e); // the empty record of a commit that did not happen was not written either
                return 0;
            }
            throw new SQLException("MacroDB: the " + what + " committed on the primary but its log record could not be"
                    + " written (" + e.getMessage() + "); it will not survive a restart. Check " + durable.directory(), "58030", e);
        }
        log.wakeReaders();
        return v;
    }

    /** Returns when record {@code v} is on disk; counts towards the next snapshot. */
    private void awaitDurable(DurableLog durable, long v) throws SQLException {
        try {
            durable.awaitDurable(v);
        } catch (IOException e) {
            throw new SQLException("MacroDB: the transaction committed on the primary but its log record could not be"
                    + " forced to disk (" + e.getMessage() + "); it may not survive a restart. Check " + durable.directory(), "58030", e);
        }
        set.snapshots().committedDurably();
    }

    /**
     * {@link #awaitPublished()} for a transaction that read on {@code r}, the primary when it began, and wrote
     * nothing: whether what it read stands. It does not if {@code r} had a commit {@linkplain CommitOrder#abandon
     * abandoned} (its engine failed under it, and may have committed it) among the versions handed out by now: the
     * transaction may have read that commit's rows, which no record carries and the successor does not have.
     * Every such commit has a version up to the newest handed out now (it took it before its engine commit), and
     * {@code r} is out of service before that version is published (CommitPath#commit), so: once every version
     * handed out is published, a replica still in service had none, and a failed one had one if it is in
     * {@link #abandonedOn}. A failed one whose versions are not all published in time (lockTimeout, at least
     * 10 s) does not stand either.
     */
    boolean awaitPublished(Replica r) {
        if (!set.shipsChanges()) return true;
        long handedOut = order.lastTicket();
        awaitPublished(handedOut);
        if (r.isActive()) return true;
        return order.awaitPublished(handedOut, TimeUnit.MILLISECONDS.toNanos(Math.max(config.lockTimeoutMillis(), 10_000)))
                && !abandonedOn.contains(r);
    }

    /** See {@link ReplicaSet#awaitPublished}. */
    void awaitPublished() {
        // With one replica and no log every read runs on the primary: there is nothing to wait for,
        // and taking the commit lock at the end of every read would only contend with committers.
        if (!set.shipsChanges()) return;
        // Every commit the engine has made has a version up to the newest handed out; those publish
        // in order once their engine commits end, which never wait for MacroDB.
        awaitPublished(order.lastTicket());
    }

    private void awaitPublished(long handedOut) {
        Replica p = set.primary();
        while (!p.gate().await(handedOut, TimeUnit.MILLISECONDS.toNanos(100), p::isActive)) {
            if (!p.isActive() || p != set.primary() || set.isClosed()) break; // failover publishes what was committed on the new primary
        }
        DurableLog durable = set.durableLog();
        if (durable != null) {
            // and on disk: what a reader saw must not be taken back by a crash
            try {
                durable.awaitDurable(set.version());
            } catch (IOException ignored) {
                // the committers report the log's failure
            }
        }
    }
}
