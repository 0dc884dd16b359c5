package io.macrodb.replica;

import io.macrodb.engine.CaptureContext;
import io.macrodb.engine.Engine;
import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What writes into a secondary. Its thread takes records from the shared log in version order at
 * its own cursor and applies them; when it is behind it applies several records in one engine
 * transaction (group apply) and publishes only the last version, so readers never see a state
 * between two versions. An apply that fails is rolled back and retried, never skipped; one that
 * keeps failing takes the replica out of the rotation.
 *
 * <p>With {@code applyThreads > 1} and a backlog, it applies in parallel: the backlog is cut into
 * units of consecutive records, each unit applied by a session of its own on a worker thread, and
 * the units are committed one after the other in version order, each followed by the publication
 * of its last version. A unit's changes are therefore never visible before those of the units
 * before it, and every state a reader can see is one the primary had. Rows two units both write
 * (known by their {@linkplain WriteSet writesets}) are written by the later unit only after the
 * earlier one committed ({@link #applyUnit}); the rest of each unit is written at once. A unit
 * that fails, or that waits for a lock a later unit holds, is rolled back with every unit after it
 * and applied again from there.
 */
final class Applier implements Runnable {
    private static final Logger LOG = Logger.getLogger(Applier.class.getName());
    private static final int MAX_ATTEMPTS = 20;

    private final Replica replica;
    private final Engine engine;
    private final ReplicationLog.Cursor cursor;
    private final Connection session;
    private final int maxGroup;
    private final RowWriter writer;
    private final AtomicLong appliedRecords = new AtomicLong();
    private final AtomicLong groups = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private volatile ChangeRecord lastApplied;
    /** Records applied per nanosecond of applying, smoothed (0 until the first group). */
    private volatile double applyRate;
    private volatile boolean running = true;
    /** Stopped by an operator ({@link ReplicaSet#pauseApplying}). */
    private volatile boolean paused;
    /** How many holders (snapshots being written) need the replica to stay at its version. */
    private final java.util.concurrent.atomic.AtomicInteger holds = new java.util.concurrent.atomic.AtomicInteger();
    private Thread thread;

    private final boolean rowPropagation;
    /** With durability=log: the newest version on disk. Only records on disk are applied. */
    private final io.macrodb.log.VersionGate durable;
    /** Held while a group is applied: {@link #holdStill} takes it to know that none is in flight. */
    private final java.util.concurrent.locks.ReentrantLock applyLock = new java.util.concurrent.locks.ReentrantLock();

    /** Parallel apply: sessions of their own (index 0 is {@link #session}), opened at first use. */
    private final Lane[] lanes;
    private java.util.concurrent.ExecutorService workers;
    private final AtomicLong parallelBatches = new AtomicLong();
    private final AtomicLong parallelRedos = new AtomicLong();

    /** One engine session that applies units of a parallel batch. */
    private static final class Lane {
        final Connection session;
        final RowWriter writer;

        Lane(Connection session, RowWriter writer) {
            this.session = session;
            this.writer = writer;
        }
    }

    /** Consecutive records one lane applies in one engine transaction. */
    private static final class Unit {
        final ChangeRecord first;
        ChangeRecord last;
        int records;
        final WriteSet rows = WriteSet.empty();
        /** The rows of the units before this one in its batch (null for the first unit). */
        final WriteSet before;
        /** Whether this unit writes a row a unit before it writes: it then waits for their commit. */
        boolean dependent;

        Unit(ChangeRecord first, WriteSet before) {
            this.first = first;
            this.before = before;
        }

        void add(ChangeRecord r, WriteSet ws) {
            last = r;
            records++;
            rows.addAll(ws);
            if (before != null && !dependent && before.intersects(ws)) dependent = true;
        }
    }

    /**
     * What the units of one batch share: how many are committed (a dependent unit waits for every
     * unit before it), and whether the batch was called off (waiting units then give up).
     */
    private static final class Batch {
        private int committed;
        private boolean cancelled;
        /** Nanoseconds from the batch's start until the slowest unit was done, failed or waiting for its turn. */
        final AtomicLong slowestReady = new AtomicLong();
        final long started = System.nanoTime();

        void ready() { slowestReady.accumulateAndGet(System.nanoTime() - started, Math::max); }

        /** Returns once the {@code units} units before the caller are committed; throws {@link Undone} if called off. */
        synchronized void awaitCommitted(int units) throws InterruptedException {
            while (committed < units && !cancelled) wait();
            if (committed < units) throw new Undone();
        }

        synchronized void committed(int units) {
            committed = units;
            notifyAll();
        }

        synchronized void cancel() {
            cancelled = true;
            notifyAll();
        }
    }

    /** A unit that gave up waiting because its batch was called off: it is rolled back and redone, not a failure. */
    private static final class Undone extends RuntimeException {
        Undone() { super("unit called off", null, false, false); }
    }

    Applier(Replica replica, Engine engine, ReplicationLog.Cursor cursor, Connection session, int maxGroup, int threads,
            boolean rowPropagation, io.macrodb.log.VersionGate durable) {
        this.lanes = new Lane[Math.max(1, threads)];
        this.rowPropagation = rowPropagation;
        this.durable = durable;
        this.replica = replica;
        this.engine = engine;
        this.cursor = cursor;
        this.session = session;
        this.maxGroup = maxGroup;
        this.writer = new RowWriter(session, engine, rowPropagation);
        this.lanes[0] = new Lane(session, writer);
        this.lastApplied = cursor.current();
    }

    /** Apply sessions (1: applying in order with one session). */
    int threads() { return lanes.length; }

    /** Rows its sessions sent to the engine so far: it moves while a large record is applied (the monitor's progress). */
    long rowsWritten() {
        long n = 0;
        for (Lane lane : lanes) if (lane != null) n += lane.writer.rowsWritten();
        return n;
    }

    /** Batches applied by several sessions at once, and units of them undone and applied again. */
    long parallelBatches() { return parallelBatches.get(); }
    long parallelRedos() { return parallelRedos.get(); }

    void start(String name) {
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * An operator's pause (or its end). Independent of {@link #holdStill}: resuming does not let a
     * snapshot's replica move on while the snapshot is written.
     */
    void setPaused(boolean p) {
        paused = p;
        if (p) awaitNoGroupInFlight();
    }

    /**
     * Stops applying for one holder (returning once no group is being applied, so the replica then
     * holds exactly its published version), or releases that holder's hold. Holds count: the replica
     * moves again only when every holder has released it and no operator pause is in force.
     */
    void holdStill(boolean still) {
        if (still) {
            holds.incrementAndGet();
            awaitNoGroupInFlight();
        } else if (holds.decrementAndGet() < 0) {
            holds.incrementAndGet();
            throw new IllegalStateException("MacroDB: released a hold on " + replica + " that was not taken");
        }
    }

    private void awaitNoGroupInFlight() {
        applyLock.lock();
        applyLock.unlock();
    }

    boolean isPaused() { return paused || holds.get() > 0; }

    long appliedRecords() { return appliedRecords.get(); }
    long groups() { return groups.get(); }
    long retries() { return retries.get(); }

    /** Records this applier applies per nanosecond when it has work (smoothed); 0 if unknown. */
    double applyRate() { return applyRate; }

    /** The last record this applier committed (its replica is at that record's version). */
    ChangeRecord lastApplied() { return lastApplied; }

    long stalenessNanos() {
        ChangeRecord next = lastApplied.next();
        return next == null ? 0 : Math.max(0, System.nanoTime() - next.commitNanos());
    }

    @Override public void run() {
        CaptureContext.enter(CaptureContext.APPLYING);
        try {
            while (running) {
                if (Thread.currentThread().isInterrupted()) {
                    if (running) replica.setState(ReplicaState.FAILED, "applier thread interrupted");
                    running = false;
                    return;
                }
                ChangeRecord first = cursor.awaitNext(TimeUnit.MILLISECONDS.toNanos(200));
                if (first == null) continue;
                if (durable != null && !durable.await(first.version(), TimeUnit.MILLISECONDS.toNanos(200), () -> running)) continue;
                // On an engine whose reads take locks, the readers in the engine leave first (and new ones wait).
                // Taken before applyLock, so that holdStill (a promotion, a snapshot) never waits for a reader.
                ReadApplyGate turns = isPaused() ? null : replica.readApplyGate();
                if (turns != null) {
                    try {
                        turns.enterApply();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt(); // seen at the top of the loop
                        continue;
                    }
                }
                // A schema change with the primary's computed values: the readers leave first and new ones go elsewhere.
                // Outside applyLock too, so that holdStill never waits for a reader. (Where DDL is transactional, the
                // statement's own values are never committed: the record's rows replace them in the same transaction.)
                boolean readersOut = turns == null && !isPaused() && !engine.schemaChangesAreTransactional() && carriesComputedValues(first);
                if (readersOut && !keepReadersOut()) continue;
                applyLock.lock();
                try {
                    if (isPaused()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                        continue;
                    }
                    java.util.List<Unit> batch = lanes.length > 1 ? plan(first) : null;
                    if (batch != null) {
                        if (!applyParallel(batch)) return;
                        continue;
                    }
                    ChangeRecord last = groupEnd(first);
                    if (!applyWithRetries(first, last)) return;
                } finally {
                    applyLock.unlock();
                    if (turns != null) turns.exitApply();
                    if (readersOut) replica.keepReadersOut(false);
                }
            }
        } finally {
            CaptureContext.restore(null);
            // This applier will read no more: let go of the log, or a failed replica would keep every
            // record committed after its failure reachable.
            cursor.close();
            lastApplied = lastApplied.detached();
            if (workers != null) workers.shutdownNow();
            writer.close();
            try {
                session.close();
            } catch (SQLException ignored) {
                // shutting down
            }
            for (int i = 1; i < lanes.length; i++) {
                if (lanes[i] == null) continue;
                lanes[i].writer.close();
                try {
                    lanes[i].session.close();
                } catch (SQLException ignored) {
                    // shutting down
                }
            }
        }
    }

    /**
     * Whether {@code r} is a schema change shipped with rows the primary computed ({@code ADD COLUMN ... DEFAULT RAND()},
     * {@code CREATE TABLE ... AS SELECT ... CURRENT_TIMESTAMP}). The secondary's statement computes values of its own,
     * and on an engine whose schema changes commit by themselves (H2, HSQLDB) they are committed, and readable, until
     * the record's rows replace them in the group's commit.
     */
    private static boolean carriesComputedValues(ChangeRecord r) {
        if (!r.isDdl()) return false;
        for (Change c : r.changes()) if (c instanceof RowChanges) return true;
        return false;
    }

    /**
     * Keeps new readers off this secondary and waits for the ones on it to end (a read-only transaction left open
     * holds the applier here, as a lock would; the monitor takes a secondary that makes no progress for
     * {@code stallTimeout} out of the rotation).
     *
     * <p>A replica out of service (still catching up, or failed) gets no new readers anyway, so the wait ends there.
     *
     * @return false, the mark taken off again, if the applier stops or is interrupted meanwhile
     */
    private boolean keepReadersOut() {
        replica.keepReadersOut(true);
        while (replica.activeReaders() > 0 && replica.isActive()) {
            if (!running || Thread.currentThread().isInterrupted()) {
                replica.keepReadersOut(false);
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        return true;
    }

    // ---------------------------------------------------------------- parallel apply

    /**
     * Cuts the backlog that starts at {@code first} into at most one unit per lane: consecutive
     * records, about an equal share each (at most {@code maxGroup}). Stops at a barrier (a statement
     * or schema change), which goes to a later batch. A unit that writes a row an earlier unit of the
     * batch writes is {@linkplain Unit#dependent dependent}: see {@link #applyUnit}.
     *
     * @return the units, or null if fewer than two (then the records are applied in order)
     */
    private java.util.List<Unit> plan(ChangeRecord first) {
        long limit = durable == null ? Long.MAX_VALUE : durable.version();
        int available = 0;
        int cap = lanes.length * maxGroup;
        for (ChangeRecord r = first; r != null && r.version() <= limit && available < cap; r = r.next()) available++;
        if (available < 2) return null;
        int share = Math.max(1, Math.min(maxGroup, (available + lanes.length - 1) / lanes.length));
        java.util.List<Unit> units = new java.util.ArrayList<>(lanes.length);
        WriteSet earlier = WriteSet.empty(); // rows of the units before the current one
        Unit current = null;
        int seen = 0;
        for (ChangeRecord r = first; r != null && r.version() <= limit && seen < available; r = r.next(), seen++) {
            WriteSet ws = WriteSet.of(r);
            if (ws.isBarrier()) break;
            if (current != null && current.records >= share) {
                if (units.size() == lanes.length) break;
                earlier.addAll(current.rows);
                current = null;
            }
            if (current == null) {
                current = new Unit(r, units.isEmpty() ? null : earlier.copy());
                units.add(current);
            }
            current.add(r, ws);
        }
        return units.size() < 2 ? null : units;
    }

    /**
     * Writes unit {@code index} of a batch through {@code lane}, uncommitted. A unit that shares no
     * row with the units before it is written at once. A dependent one writes first what is its own
     * (its net changes to the rows no earlier unit writes, {@link GroupCompaction#split}), then waits
     * until every unit before it has committed, then writes the shared rows: the later image of a
     * shared row therefore lands after the earlier one, as on the primary, and no unit ever waits for
     * a row lock of a later one (the later one takes a shared row's lock only once the earlier one
     * committed). On TPC-C the shared rows are the few warehouse and district rows nearly every
     * update transaction writes; the order lines, orders, stock and customers are the unit's own.
     * A group that does not compact is written record by record, waiting before the first record
     * that shares a row.
     */
    private void applyUnit(Lane lane, Unit u, int index, Batch batch) throws SQLException, InterruptedException {
        if (!u.dependent) {
            applyRecords(lane.writer, u.first, u.last, false);
            return;
        }
        GroupCompaction.Split split = COMPACT ? GroupCompaction.split(u.first, u.last, u.before::containsRow) : null;
        if (split != null) {
            for (Change c : split.free()) lane.writer.apply((RowChanges) c, false);
            batch.ready();
            batch.awaitCommitted(index);
            for (Change c : split.contested()) lane.writer.apply((RowChanges) c, false);
            return;
        }
        boolean waited = false;
        for (ChangeRecord r = u.first; ; r = r.next()) {
            if (!waited && u.before.intersects(WriteSet.of(r))) {
                batch.ready();
                batch.awaitCommitted(index);
                waited = true;
            }
            applyRecords(lane.writer, r, r, false);
            if (r == u.last) return;
        }
    }

    /**
     * Applies the units of a batch at once, one lane each, and commits them in order. Returns false
     * if the applier must stop. Whatever is not committed when this returns (a unit that failed or
     * was undone, and every unit after it) is rolled back and left to the next round, which starts at
     * the cursor: the first record not committed.
     */
    private boolean applyParallel(java.util.List<Unit> units) {
        int n = units.size();
        try {
            openLanes();
        } catch (SQLException e) {
            LOG.log(Level.FINE, replica + ": could not open apply sessions; applying in order", e);
            Unit u = units.get(0);
            return applyWithRetries(u.first, u.last);
        }
        Batch batch = new Batch();
        java.util.concurrent.Future<?>[] work = new java.util.concurrent.Future<?>[n];
        boolean[] undone = new boolean[n];
        for (int i = 0; i < n; i++) {
            Lane lane = lanes[i];
            Unit u = units.get(i);
            int index = i;
            work[i] = workers.submit(() -> {
                try {
                    applyUnit(lane, u, index, batch);
                } finally {
                    // done or failed: either way it holds its row locks until rolled back, which
                    // awaitUnit does if the head waits far longer than this took
                    batch.ready();
                }
                return null;
            });
        }
        parallelBatches.incrementAndGet();
        int committed = 0;
        try {
            for (int i = 0; i < n; i++) {
                Throwable failure = awaitUnit(work, undone, i, batch);
                if (failure instanceof Undone) {
                    failure = null;
                    undone[i] = true;
                }
                if (failure == null && !undone[i]) {
                    try {
                        commitAndPublish(lanes[i].session, units.get(i).last);
                        committed++;
                        batch.committed(committed);
                        continue;
                    } catch (SQLException e) {
                        failure = e;
                    }
                }
                // unit i is not committed: neither is anything after it
                undoFrom(work, i, batch);
                if (failure != null) {
                    retries.incrementAndGet();
                    parallelRedos.addAndGet(n - i);
                    if (i > 0) retireLane(i); // its session may be what failed: the next batch opens a new one
                    Unit u = units.get(i);
                    // in order and alone: a unique value moved between rows of different units, or a
                    // lock one of them held; the usual retries decide whether the record cannot apply
                    return applyWithRetries(u.first, u.last);
                }
                parallelRedos.addAndGet(n - i);
                return true;
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            undoFrom(work, committed, batch);
            if (running) replica.setState(ReplicaState.FAILED, "applier interrupted");
            running = false;
            return false;
        } finally {
            int records = 0;
            for (int i = 0; i < committed; i++) records += units.get(i).records;
            if (records > 0) {
                appliedRecords.addAndGet(records);
                groups.addAndGet(committed);
                double rate = records / (double) Math.max(1, System.nanoTime() - batch.started);
                double old = applyRate;
                applyRate = old == 0 ? rate : 0.8 * old + 0.2 * rate;
            }
        }
    }

    /** The least time the head unit may run while later ones are ready before those are undone. */
    private static final long STUCK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * Waits for unit {@code i}. If it runs far longer than the later units that are ready (done, or
     * waiting for it to commit), and at least {@link #STUCK_NANOS}, it may be waiting for a lock one
     * of them holds (a unique value outside the primary key, which writesets do not see; HSQLDB waits
     * for such a lock without a timeout): the batch is called off after unit {@code i}, and the later
     * units that are done are rolled back and marked undone, freeing their locks (those waiting give
     * up, and are rolled back when their turn comes).
     *
     * @return the unit's failure, or null
     */
    private Throwable awaitUnit(java.util.concurrent.Future<?>[] work, boolean[] undone, int i, Batch batch)
            throws InterruptedException {
        while (true) {
            try {
                work[i].get(20, TimeUnit.MILLISECONDS);
                return null;
            } catch (java.util.concurrent.ExecutionException e) {
                return e.getCause();
            } catch (java.util.concurrent.TimeoutException e) {
                if (!running) throw new InterruptedException("applier stopped");
                long slowest = batch.slowestReady.get();
                if (slowest == 0 || System.nanoTime() - batch.started < Math.max(STUCK_NANOS, 4 * slowest)) continue;
                batch.cancel();
                for (int j = i + 1; j < work.length; j++) {
                    if (!undone[j] && work[j].isDone()) {
                        rollbackQuietly(lanes[j]);
                        undone[j] = true;
                    }
                }
            }
        }
    }

    /**
     * Calls the batch off, waits for units {@code from..} to stop, and rolls each back. A unit still
     * inside the engine waits for a row lock, which only another unit of the batch can hold (the
     * units before {@code from} are committed, and readers take none): of an earlier unit, or of a
     * later one where a unique value outside the key moved (writesets do not see it). So the units
     * that have stopped are rolled back first, latest first, whatever their place, which frees the
     * locks the others wait for; waiting for the units in order would wait forever for one held up
     * by a later unit that is done but not yet rolled back (seen on HSQLDB, which waits without a
     * timeout).
     */
    private void undoFrom(java.util.concurrent.Future<?>[] work, int from, Batch batch) {
        batch.cancel();
        boolean interrupted = false;
        boolean[] rolledBack = new boolean[work.length];
        for (int left = work.length - from; left > 0; ) {
            for (int j = work.length - 1; j >= from; j--) {
                if (rolledBack[j] || !work[j].isDone()) continue;
                rollbackQuietly(lanes[j]);
                lanes[j].writer.clear();
                rolledBack[j] = true;
                left--;
            }
            if (left == 0) break;
            interrupted |= Thread.interrupted(); // keep waiting: a session must not be left mid-statement
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    private void openLanes() throws SQLException {
        if (workers == null) {
            String name = Thread.currentThread().getName();
            java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
            workers = java.util.concurrent.Executors.newFixedThreadPool(lanes.length, task -> {
                Thread t = new Thread(() -> {
                    CaptureContext.enter(CaptureContext.APPLYING);
                    task.run();
                }, name + "-w" + count.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        for (int i = 1; i < lanes.length; i++) {
            if (lanes[i] != null) continue;
            Connection c = replica.open();
            try {
                c.setAutoCommit(false);
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            lanes[i] = new Lane(c, new RowWriter(c, engine, rowPropagation));
        }
    }

    private void retireLane(int i) {
        Lane lane = lanes[i];
        lanes[i] = null;
        if (lane == null) return;
        lane.writer.close();
        try {
            lane.session.close();
        } catch (SQLException ignored) {
            // it may be broken: that is why it goes
        }
    }

    private static void rollbackQuietly(Lane lane) {
        try {
            lane.session.rollback();
        } catch (SQLException ignored) {
            // a broken session fails its next attempt, which is what decides its fate (and the replica's)
        }
    }

    /** The last record of the group that starts at {@code first}: DDL is applied alone. */
    private ChangeRecord groupEnd(ChangeRecord first) {
        if (isDdl(first)) return first;
        ChangeRecord last = first;
        int n = 1;
        ChangeRecord next;
        long limit = durable == null ? Long.MAX_VALUE : durable.version();
        while (n < maxGroup && (next = last.next()) != null && !isDdl(next) && next.version() <= limit) {
            last = next;
            n++;
        }
        return last;
    }

    private static boolean isDdl(ChangeRecord r) { return r.isDdl(); }

    private boolean applyWithRetries(ChangeRecord first, ChangeRecord last) {
        boolean safe = false;
        for (int attempt = 1; running; attempt++) {
            try {
                apply(first, last, safe);
                return true;
            } catch (SQLException | RuntimeException thrown) {
                Exception e = thrown instanceof SQLException se ? engine.withSqlState(se) : thrown;
                rollbackQuietly();
                writer.clear();
                // stopped (the set closing, a failover): the stop's interrupt is what failed the statement on an engine
                // that fails interrupted calls (Derby: "Connection closed by unknown interrupt"); not a failure to report
                if (!running) return false;
                retries.incrementAndGet();
                boolean retryable = e instanceof SQLException se && engine.isRetryable(se);
                if (thrown instanceof CommitFailed) safe = true; // it may be in the engine already: the safe order is idempotent
                if (!safe && e instanceof SQLException se && se.getSQLState() != null && se.getSQLState().startsWith("23")) {
                    // a transaction swapped unique values between rows (or the group was partly applied already, see
                    // RowChanges.touchedKeys): apply this group the safe way
                    LOG.log(Level.FINE, () -> replica + ": applying v" + first.version() + "..v" + last.version()
                            + " in the fast order failed (" + e + "); applying it the safe way");
                    safe = true;
                    attempt--;
                    continue;
                }
                // what made a group fail first says most about why a secondary left the rotation later
                if (attempt == 1) {
                    LOG.warning(replica + ": applying v" + first.version() + "..v" + last.version() + (safe ? " (safe order)" : "")
                            + " failed, retrying: " + e);
                }
                if (attempt >= MAX_ATTEMPTS || !retryable && attempt >= 3) {
                    replica.failedApplyingThrough(last.version());
                    replica.setState(ReplicaState.FAILED, "applying v" + first.version() + "..v" + last.version()
                            + " failed " + attempt + " times: " + e);
                    LOG.log(Level.WARNING, replica + " left the rotation", e);
                    running = false;
                    return false;
                }
                try {
                    Thread.sleep(Math.min(200, 2L << attempt)); // 4, 8, ... 200 ms
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    if (running) replica.setState(ReplicaState.FAILED, "applier interrupted");
                    running = false;
                    return false;
                }
            }
        }
        return false;
    }

    /** An engine commit that failed: the engine may have committed all the same, so the group is applied again the safe way. */
    private static final class CommitFailed extends SQLException {
        CommitFailed(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
        }
    }

    private void apply(ChangeRecord first, ChangeRecord last, boolean safe) throws SQLException {
        long started = System.nanoTime();
        boolean ddl = applyRecords(writer, first, last, safe);
        try {
            commitAndPublish(session, last);
        } catch (SQLException e) {
            if (ddl) throw e; // the engine committed the DDL itself; it must not run twice
            throw new CommitFailed(e);
        }
        // Outside the publication lock: on HSQLDB the trigger DDL waits for readers' transactions,
        // and a reader ending its transaction waits for that lock.
        if (ddl) {
            afterSchemaChange();
            // the other sessions' prepared statements were made for the old schema
            for (int i = 1; i < lanes.length; i++) if (lanes[i] != null) lanes[i].writer.clear();
        }
        int records = (int) (last.version() - first.version() + 1);
        appliedRecords.addAndGet(records);
        groups.incrementAndGet();
        double rate = records / (double) Math.max(1, System.nanoTime() - started);
        double old = applyRate;
        applyRate = old == 0 ? rate : 0.8 * old + 0.2 * rate;
    }

    /** Off with {@code -Dmacrodb.groupCompaction=false}, to measure what compaction saves. */
    private static final boolean COMPACT = !"false".equalsIgnoreCase(System.getProperty("macrodb.groupCompaction"));

    /**
     * Writes records {@code first..last} through {@code w}, uncommitted; returns whether one changed
     * the schema. A group of plain row changes is written as its net effect per row
     * ({@link GroupCompaction}): a row several records wrote is written once.
     */
    private static boolean applyRecords(RowWriter w, ChangeRecord first, ChangeRecord last, boolean safe) throws SQLException {
        java.util.List<Change> net = COMPACT ? GroupCompaction.of(first, last) : null;
        if (net != null) {
            for (Change c : net) w.apply((RowChanges) c, safe, true);
            return false;
        }
        boolean ddl = false;
        for (ChangeRecord r = first; ; r = r.next()) {
            for (Change c : r.changes()) {
                if (c instanceof RowChanges rc) w.apply(rc, safe, true);
                else if (c instanceof StatementChange sc) {
                    w.apply(sc);
                    ddl |= sc.ddl();
                }
            }
            if (r == last) return ddl;
        }
    }

    /** Commits what {@code c} applied, up to {@code last}, and publishes {@code last}'s version. */
    private void commitAndPublish(Connection c, ChangeRecord last) throws SQLException {
        java.util.concurrent.locks.ReentrantLock publishing = replica.publishLock();
        publishing.lock();
        try {
            c.commit();
            cursor.advanceTo(last);
            lastApplied = last;
            replica.gate().publish(last.version());
        } finally {
            publishing.unlock();
        }
    }

    /**
     * Every replica carries the capture triggers too (they refuse writes by readers, and a promoted
     * secondary will need them); in row propagation it carries none of the application's own. This
     * runs after the DDL committed, is idempotent, and is retried on its own: retrying the whole
     * apply would run the DDL twice.
     */
    private void afterSchemaChange() throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                engine.refreshCapture(session);
                if (rowPropagation) engine.dropUserTriggers(session);
                session.commit();
                return;
            } catch (SQLException e) {
                rollbackQuietly();
                if (attempt >= 3) {
                    replica.setState(ReplicaState.FAILED, "refreshing capture triggers after a schema change failed: " + e);
                    running = false;
                    throw e;
                }
            }
        }
    }

    private void rollbackQuietly() {
        rollbackQuietly(lanes[0]);
    }

    void stop() {
        running = false;
        lastApplied = lastApplied.detached();
        if (thread != null && thread != Thread.currentThread()) {
            thread.interrupt();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        cursor.close();
    }
}
