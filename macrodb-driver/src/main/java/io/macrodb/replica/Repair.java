package io.macrodb.replica;

import io.macrodb.durable.DurableLog;
import io.macrodb.engine.CaptureContext;
import io.macrodb.engine.Engine;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.Propagation;
import io.macrodb.log.ReplicationLog;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * Building secondaries ({@code docs/internals.md} §5c): the first ones at open, a failed one
 * rebuilt ({@link #rebuild}: by an operator, or by the monitor unless {@code rebuild=manual}), and
 * one added where a promoted secondary was ({@link #add}). A new secondary is a copy of the
 * freshest active secondary (held still only while the engine copies it; the primary and the
 * others go on) or, if none is active, of the primary (update transactions wait for the copy),
 * caught up from the log from the copy's version.
 *
 * <p>Locks: this object's monitor makes {@link #rebuild} and {@link #add} one at a time (the
 * replica set's membership changes they make are the set's: {@link ReplicaSet#replaceSecondary},
 * {@link ReplicaSet#addSecondary}). Inside it, a copy takes the source secondary's
 * {@link Applier#holdStill}, or the update gate's exclusive side and then the catalog session's
 * monitor. {@link #generation} is an atomic: each new database gets a name of its own.
 */
final class Repair {
    private static final Logger LOG = Logger.getLogger(ReplicaSet.class.getName());

    private final ReplicaSet set;
    private final ReplicaSetConfig config;
    private final ReplicationLog log;
    private final AtomicInteger generation = new AtomicInteger();

    Repair(ReplicaSet set, ReplicaSetConfig config, ReplicationLog log) {
        this.set = set;
        this.config = config;
        this.log = log;
    }

    /** Fills a new secondary's empty database with the content of the replica it is built from. */
    interface Copy {
        void into(Connection target) throws SQLException;
    }

    /**
     * Builds secondary {@code index} as a new in-memory database named after {@code name}: a copy
     * made by {@code copy} (of a replica that holds the state of {@code start}), then an applier that
     * pulls the log from the record after {@code start}. The caller keeps the source still during the copy.
     */
    Replica buildSecondary(int index, String name, Copy copy, ChangeRecord start, String reason)
            throws SQLException {
        Engine engine = config.engine();
        java.util.Set<String> inUse = new java.util.HashSet<>();
        if (set != null && set.primary() != null) inUse.add(set.primary().url());
        if (set != null) for (Replica other : set.secondaries()) if (other.index() != index) inUse.add(other.url());
        Replica r = new Replica(index, false, engine.secondaryUrl(config.url(), name, index, inUse), config.connectProperties(), engine,
                config.lockTimeoutMillis(), start.version());
        r.admit(ReplicaSet.admission(config));
        Connection ac = r.open();
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        try {
            engine.configureSecondary(ac, config.propagation());
            copy.into(ac);
            engine.refreshCapture(ac);
            if (config.propagation() == Propagation.ROW) engine.dropUserTriggers(ac);
            ac.setAutoCommit(false);
        } catch (SQLException | RuntimeException e) {
            try {
                ac.close();
            } catch (SQLException ignored) {
                // the original failure is what matters
            }
            throw e;
        } finally {
            CaptureContext.restore(prev);
        }
        ReplicationLog.Cursor cursor = log.openCursorAt(start);
        DurableLog durableLog = set.durableLog();
        Applier a = new Applier(r, engine, cursor, ac, config.applyGroup(), config.applyThreads(), config.propagation() == Propagation.ROW,
                durableLog == null ? null : durableLog.durableGate());
        r.attach(a);
        a.start("macrodb-applier-" + name + "-r" + index);
        r.setState(ReplicaState.ACTIVE, reason);
        return r;
    }

    /** See {@link ReplicaSet#rebuild}. */
    synchronized void rebuild(int index) throws SQLException {
        if (set.isClosed()) throw new SQLException("MacroDB: the replica set was shut down", "08003");
        Replica old = null;
        for (Replica r : set.secondaries()) if (r.index() == index) old = r;
        if (old == null) {
            throw new IllegalArgumentException("no secondary with index " + index + "; secondaries are 1.." + set.secondaries().size());
        }
        if (old.isActive()) {
            throw new SQLException("MacroDB: secondary " + index + " is active; only a failed one is rebuilt", "55000");
        }
        Replica fresh = copyOfHealthyReplica(index, old, "rebuilt", "after: " + old.stateReason());
        set.replaceSecondary(old, fresh);
        retire(old);
        LOG.info(() -> "MacroDB: " + fresh + " " + fresh.stateReason());
    }

    /** Builds a new secondary with {@code index} from the freshest active replica (after a promotion). */
    synchronized void add(int index) throws SQLException {
        try {
            set.addSecondary(copyOfHealthyReplica(index, null, "added", "after a promotion"));
        } catch (SQLException | RuntimeException e) {
            // It stays in the list as a failed secondary, so that it is rebuilt later (rebuild=auto, or
            // MacroAdmin.rebuild once, say, the server it needs is back) instead of the set running one short.
            Engine engine = config.engine();
            java.util.Set<String> inUse = new java.util.HashSet<>();
            inUse.add(set.primary().url());
            for (Replica other : set.secondaries()) inUse.add(other.url());
            String url;
            try {
                url = engine.secondaryUrl(config.url(), set.uniqueName() + "g" + generation.incrementAndGet(), index, inUse);
            } catch (SQLException | RuntimeException noUrl) {
                e.addSuppressed(noUrl);
                throw e;
            }
            Replica placeholder = new Replica(index, false, url, config.connectProperties(), engine, config.lockTimeoutMillis(), 0);
            placeholder.setState(ReplicaState.FAILED, "could not be built after a promotion: " + e.getMessage());
            set.addSecondary(placeholder);
            throw e;
        }
    }

    /**
     * A new secondary {@code index}: a copy of the freshest active secondary other than {@code
     * excluded} (held still only while the engine copies it), or of the primary (update
     * transactions wait for the copy) if there is none, caught up from the log from there. Where
     * {@code excluded} left because a group of records failed to apply, only a secondary that has
     * applied past that group is a source: from one behind it the new secondary would apply the same
     * records again, and where they fail on every secondary of a server (a role, a collation that server
     * lacks) fail again, be rebuilt from another secondary behind them, and so on, a copy each time.
     */
    private Replica copyOfHealthyReplica(int index, Replica excluded, String verb, String why) throws SQLException {
        long pastVersion = excluded == null ? -1 : excluded.failedApplyingThrough();
        Replica source = null;
        for (Replica r : set.secondaries()) {
            if (r != excluded && r.isActive() && r.applier() != null && r.version() >= pastVersion
                    && (source == null || r.version() > source.version())) {
                source = r;
            }
        }
        String name = set.uniqueName() + "g" + generation.incrementAndGet();
        if (source != null) {
            Applier a = source.applier();
            a.holdStill(true);
            try (Connection c = source.open()) {
                ChangeRecord start = a.lastApplied();
                return buildSecondary(index, name, target -> config.engine().copy(c, target), start, verb + " from secondary " + source.index() + " at v"
                        + start.version() + " " + why);
            } finally {
                a.holdStill(false);
            }
        }
        UpdateGate updateGate = set.updateGate();
        updateGate.enterExclusive(config.lockTimeoutMillis());
        try {
            Session catalog = set.catalog();
            synchronized (catalog) {
                ChangeRecord start = log.tail();
                Connection pc = catalog.connection();
                return buildSecondary(index, name, target -> config.engine().copy(pc, target), start, verb + " from the primary at v"
                        + start.version() + " " + why);
            }
        } finally {
            updateGate.exitExclusive();
        }
    }

    /**
     * Lets go of a replica that left the rotation: its applier, its sessions, its database. The
     * engine is shut down in a thread of its own, so that one stuck in a broken engine never holds
     * up the monitor.
     */
    private static void retire(Replica r) {
        Thread t = new Thread(() -> {
            Applier a = r.applier();
            if (a != null) a.stop();
            r.closeIdle();
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
            try (Connection c = r.open()) {
                r.engine().shutdownDatabase(c);
            } catch (SQLException ignored) {
                // already gone
            } finally {
                CaptureContext.restore(prev);
            }
            r.engine().discard(r.url());
        }, "macrodb-retire-" + r.index());
        t.setDaemon(true);
        t.start();
    }
}
