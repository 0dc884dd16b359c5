package io.macrodb.replica;

import io.macrodb.durable.DurableLog;
import io.macrodb.engine.CaptureContext;
import io.macrodb.engine.Engine;
import io.macrodb.log.Propagation;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.StatementChange;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Faults (DESIGN.md §6, {@code docs/internals.md} §5c and §7): deciding that a replica failed, and
 * replacing a failed primary with the freshest secondary.
 *
 * <p>Failure is decided here only: {@link #replicaFailed} for an engine error found by a session,
 * a commit or the monitor's probe; {@link #fail} takes a secondary out of the rotation (an operator,
 * or the monitor's stall check); a gone primary is failed over ({@link #primaryGone}). (An applier
 * whose records keep failing sets its own replica FAILED: that is not an engine error.) The monitor
 * thread ({@link #watch}) probes the primary, fails stalled secondaries and has failed ones
 * rebuilt.
 *
 * <p>Locks: {@link #promotion}'s monitor guards the decision to promote (the primary's state set to
 * FAILED together with {@link #promoting} set, so one promotion runs at a time) and is what
 * {@link #awaitPrimary} waits on; {@link #promoting} is volatile so that the fast paths read it
 * without the monitor. The promotion itself ({@link #failOver}) holds the commit order idle
 * ({@link CommitOrder#holdIdle}: no commit in flight, none can start) and takes no other lock of
 * this class meanwhile: the monitor is taken only after the order is released, or without it.
 */
final class Failover {
    private static final Logger LOG = Logger.getLogger(ReplicaSet.class.getName());

    private final ReplicaSet set;
    private final ReplicaSetConfig config;
    private final ReplicationLog log;
    private final CommitOrder order;
    private final Repair repair;
    private final Object promotion = new Object();
    private volatile boolean promoting;
    private Thread monitor;
    /**
     * {@code -Dmacrodb.probePrimary=false} (read when the set opens) stops the monitor's probe of the
     * primary, so that only sessions and commits find a gone primary: for tests of those paths, which
     * the probe, every 100 ms, would otherwise race.
     */
    private final boolean probesPrimary = !"false".equals(System.getProperty("macrodb.probePrimary"));

    Failover(ReplicaSet set, ReplicaSetConfig config, ReplicationLog log, CommitOrder order, Repair repair) {
        this.set = set;
        this.config = config;
        this.log = log;
        this.order = order;
        this.repair = repair;
    }

    /**
     * See {@link ReplicaSet#replicaFailed}: the one place that decides what an engine error means; {@code session}, if
     * not null, is the session the failed call ran on.
     */
    boolean replicaFailed(Replica r, SQLException e, String who, java.sql.Connection session) {
        Engine engine = config.engine();
        // An engine that interrupts the threads inside a database it stops: the interrupt is set aside while this
        // decides (the engine closes a session used by an interrupted thread, the probe's too), and dropped if
        // the replica has left the rotation (the stop sent it), kept otherwise (the application sent it).
        boolean interrupted = engine.interruptsThreadsWhenStopped() && Thread.interrupted();
        boolean failed = false;
        try {
            boolean stopped = e != null && session != null && engine.interruptsThreadsWhenStopped() && !engine.isEngineGone(e)
                    && engine.stoppedUnder(session);
            boolean gone = e != null && (engine.isEngineGone(e) || stopped || engine.mayBeEngineGone(e) && r.isActive() && !answers(r));
            if (gone && r.isActive()) {
                String reason = who + (stopped ? " found its database stopped under a call that failed: " : " found its engine gone: ")
                        + e.getMessage();
                if (r.isPrimary()) primaryGone(r, reason);
                else fail(r, reason);
            }
            failed = gone || !r.isActive();
            return failed;
        } finally {
            // a probe of the gone engine (answers) may have set it again: whatever the stop left goes with the replica
            if (failed && engine.interruptsThreadsWhenStopped()) engine.clearStopInterrupt();
            else if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /**
     * Whether the replica's engine answers a probe on a new session (its database still there: see
     * {@link Replica#open}), for an error that a gone engine and a failed statement both give.
     */
    private static boolean answers(Replica r) {
        try (Connection c = r.open(); Statement s = c.createStatement()) {
            s.execute(r.engine().probeSql());
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** See {@link ReplicaSet#primaryDiverged}. */
    void primaryDiverged(Replica r, String reason) {
        if (!r.isPrimary() || !r.isActive()) return;
        if (successor() == null) {
            LOG.severe("MacroDB: the primary " + r + " changed rows behind a transaction's capture triggers, and no secondary can"
                    + " take over; the transaction was rolled back, the primary stays: " + reason);
            return;
        }
        primaryGone(r, "its engine changed rows behind a transaction's capture triggers: " + reason);
    }

    /** See {@link ReplicaSet#primaryLostCommit}. */
    void primaryLostCommit(Replica r, String reason) {
        if (!r.isPrimary() || !r.isActive()) return;
        primaryGone(r, "it committed a transaction whose rows could not be read from its log: " + reason);
    }

    /** The stream of {@code r}'s log failed ({@link io.macrodb.engine.CommitDecoding#onStreamFailure}): its commits can no longer be replicated. */
    void primaryLostStream(Replica r, String reason) {
        if (!r.isPrimary() || !r.isActive()) return;
        primaryGone(r, "the stream of its log failed, so its commits can no longer be replicated: " + reason);
    }

    /** The secondary a promotion would choose: the freshest active one that applies the log, or null. */
    private Replica successor() {
        Replica chosen = null;
        for (Replica r : set.secondaries()) {
            if (r.isActive() && r.applier() != null && (chosen == null || r.version() > chosen.version())) chosen = r;
        }
        return chosen;
    }

    /** See {@link ReplicaSet#fail}: secondary {@code r} leaves the rotation. */
    void fail(Replica r, String reason) {
        if (r.isPrimary() || !r.isActive()) return;
        r.setState(ReplicaState.FAILED, reason);
        LOG.warning("MacroDB: " + r + " left the rotation: " + reason);
        Applier a = r.applier();
        if (a != null) a.stop();
    }

    /**
     * The primary's engine is gone: a secondary takes over (in a thread of its own; new update
     * transactions wait for it, in-flight ones fail with 40001).
     */
    private void primaryGone(Replica failed, String reason) {
        synchronized (promotion) {
            if (failed != set.primary() || !failed.isActive() || promoting || set.isClosed()) return;
            failed.setState(ReplicaState.FAILED, reason);
            promoting = true;
        }
        Thread t = new Thread(() -> {
            // A set kept open for its close delay, without connections, ends with its database, as
            // the engine's own did (a plain connection's SHUTDOWN, the engine's exit hook): nobody
            // is using it, and a promotion would bring back a database the engine closed.
            if (ReplicaSets.closeIfUnused(set, "its primary's database was closed by the engine (" + reason + ")")) return;
            LOG.severe("MacroDB: the primary " + failed + " failed (" + reason + "); promoting a secondary");
            failOver(failed);
        }, "macrodb-promotion-" + set.uniqueName());
        t.setDaemon(true);
        t.start();
    }

    /** Waits (bounded by lockTimeout) while a promotion runs; fails if there is no working primary. */
    void awaitPrimary() throws SQLException {
        if (set.primary().isActive() && !promoting) return;
        // An engine that interrupts the threads inside a database it stops (Derby) may have interrupted this one in
        // its last call on the failed primary, and the interrupt may arrive while it waits here: the wait goes on
        // (bounded by lockTimeout), and the thread returns uninterrupted (Engine#interruptsThreadsWhenStopped).
        boolean stopInterrupts = config.engine().interruptsThreadsWhenStopped();
        if (stopInterrupts) config.engine().clearStopInterrupt();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.lockTimeoutMillis());
        synchronized (promotion) {
            while (promoting) {
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                try {
                    TimeUnit.NANOSECONDS.timedWait(promotion, left);
                } catch (InterruptedException e) {
                    if (stopInterrupts) continue;
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        Replica primary = set.primary();
        if (!primary.isActive() || promoting) {
            throw new SQLTransactionRollbackException("MacroDB: the primary failed (" + primary.stateReason() + ") and "
                    + (promoting ? "no secondary has taken over within lockTimeout yet" : "no secondary could take over")
                    + "; retry later", "40001");
        }
    }

    /**
     * Makes the freshest active secondary the primary: once it has applied every logged record
     * (every acknowledged commit is one), its applier stops, its foreign keys are checked again, its
     * sequences and identity columns move past every value the old primary handed out, and update
     * transactions go to it. A new secondary then takes its place in the rotation.
     */
    private void failOver(Replica failed) {
        Replica chosen = null;
        String outcome;
        // no commit is in flight, and none on the old primary will succeed: commit() checks
        if (!order.holdIdle(Math.max(config.lockTimeoutMillis(), 10_000))) {
            LOG.severe("MacroDB: commits in flight on the failed primary did not finish; update transactions fail until the database is reopened");
            synchronized (promotion) {
                promoting = false;
                promotion.notifyAll();
            }
            return;
        }
        try {
            long target = log.lastVersion();
            chosen = successor();
            if (chosen == null) throw new SQLException("no active secondary", "08006");
            Replica s = chosen;
            if (!s.gate().await(target, TimeUnit.MILLISECONDS.toNanos(Math.max(config.lockTimeoutMillis(), 10_000)), s::isActive)) {
                throw new SQLException(s + " did not reach v" + target + " in time", "08006");
            }
            Applier a = s.applier();
            a.holdStill(true);
            a.stop();
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
            try (Connection c = s.open()) {
                c.setAutoCommit(false);
                if (config.propagation() == Propagation.ROW) {
                    config.engine().setReferentialIntegrity(c, true);
                    // secondaries do not carry the application's triggers in row propagation: put them back
                    for (StatementChange t : set.userTriggers()) {
                        if (t.schema() != null) config.engine().setSessionSchema(c, t.schema());
                        java.sql.Savepoint before = c.setSavepoint();
                        try (PreparedStatement ps = c.prepareStatement(t.sql())) {
                            for (int i = 0; i < t.params().length; i++) ps.setObject(i + 1, t.params()[i]);
                            ps.execute();
                        } catch (SQLException e) {
                            // a trigger that cannot be made again must not cost the database its primary: the promotion
                            // goes on without it, and says so
                            try {
                                c.rollback(before);
                            } catch (SQLException savepointGone) {
                                // H2 ends the transaction at every schema statement, its savepoints with it (and the
                                // promotion failed here): the failed statement made nothing to take back
                            }
                            LOG.severe("MacroDB: the application's trigger could not be made again on the promoted primary "
                                    + s + "; it is missing there (" + e.getMessage() + "): " + t.sql());
                        }
                    }
                }
                c.commit();
                Recovery.restartGenerators(config.engine(), c, set.sequencePositions());
                c.setAutoCommit(true);
            } finally {
                CaptureContext.restore(prev);
            }
            Session newCatalog = s.borrow();
            newCatalog.connection().setAutoCommit(true);
            Session oldCatalog = set.installPrimary(s, newCatalog, target,
                    "promoted to primary at v" + target + " after: " + failed.stateReason());
            oldCatalog.closeQuietly();
            failed.closeIdle();
            outcome = "promoted " + s + " at v" + target;
        } catch (SQLException | RuntimeException e) {
            outcome = "promotion failed: " + e.getMessage();
            chosen = null;
        } finally {
            order.release();
            synchronized (promotion) {
                promoting = false;
                promotion.notifyAll();
            }
        }
        if (chosen == null) {
            LOG.severe("MacroDB: " + outcome + "; update transactions fail until the database is reopened");
            return;
        }
        LOG.warning("MacroDB: " + outcome);
        // Back to the configured number of replicas: a new secondary under the failed primary's index,
        // which nothing uses now (the promoted one keeps its own: one index, one replica).
        try {
            repair.add(failed.index());
        } catch (SQLException | RuntimeException e) {
            LOG.warning("MacroDB: adding a secondary after the promotion failed: " + e);
        }
    }

    // ---------------------------------------------------------------- the monitor

    /**
     * Watches the secondaries every 100 ms: one that is behind and has not advanced for {@code
     * stallTimeout} leaves the rotation; a failed one is rebuilt (up to 3 times in a row) unless
     * {@code rebuild=manual}. Probes the primary too.
     */
    void startMonitor() {
        monitor = new Thread(this::watch, "macrodb-monitor-" + set.uniqueName());
        monitor.setDaemon(true);
        monitor.start();
    }

    /** At shutdown (after the set is marked closed): ends the monitor, waiting at most 2 s. */
    void stopMonitor() {
        if (monitor != null) {
            monitor.interrupt();
            try {
                monitor.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void watch() {
        Map<Replica, long[]> progress = new IdentityHashMap<>(); // version, since nanos, rows written
        Map<Integer, Integer> rebuildFailures = new HashMap<>();
        while (!set.isClosed()) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            Replica current = set.primary();
            Session cat = set.catalog();
            if (probesPrimary && current.isActive() && !promoting) {
                // isValid alone is not enough: an in-process HSQLDB connection stays "valid" after its
                // database was shut down, so the probe runs a statement.
                SQLException probe = null;
                synchronized (cat) {
                    try (Statement st = cat.connection().createStatement()) {
                        st.execute(config.engine().probeSql());
                    } catch (SQLException e) {
                        probe = e;
                    }
                }
                if (probe != null && current == set.primary()) replicaFailed(current, probe, "the monitor's probe", null);
            }
            DurableLog durable = set.durableLog();
            long target = durable == null ? log.lastVersion() : Math.min(log.lastVersion(), durable.durableVersion());
            for (Replica r : set.secondaries()) {
                if (set.isClosed()) return;
                if (r.isActive()) {
                    Applier applier = r.applier();
                    long rows = applier == null ? 0 : applier.rowsWritten(); // moves inside a large record
                    long[] p = progress.computeIfAbsent(r, k -> new long[] {r.version(), System.nanoTime(), rows});
                    if (r.version() != p[0] || rows != p[2] || r.version() >= target || applier == null || applier.isPaused()) {
                        p[0] = r.version();
                        p[1] = System.nanoTime();
                        p[2] = rows;
                    } else if (System.nanoTime() - p[1] > TimeUnit.MILLISECONDS.toNanos(config.stallTimeoutMillis())) {
                        fail(r, "no progress for " + config.stallTimeoutMillis() + " ms at v" + r.version()
                                + " while " + (target - r.version()) + " records waited");
                    }
                } else if (r.state() == ReplicaState.FAILED && config.autoRebuild()
                        && rebuildFailures.getOrDefault(r.index(), 0) < 3) {
                    try {
                        repair.rebuild(r.index());
                        rebuildFailures.remove(r.index());
                    } catch (SQLException | RuntimeException e) {
                        rebuildFailures.merge(r.index(), 1, Integer::sum);
                        LOG.warning("MacroDB: rebuilding secondary " + r.index() + " failed: " + e);
                    }
                }
            }
            progress.keySet().retainAll(new HashSet<>(set.secondaries()));
        }
    }
}
