package io.macrodb.replica;

import io.macrodb.durable.DurableLog;
import io.macrodb.durable.SnapshotStore;
import io.macrodb.engine.CaptureContext;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * Snapshots of a durable replica set (durability=log) and what its durability status reports: a
 * snapshot is the base the next start-up recovers from, after which the log segments wholly before
 * it can go. Exists only with durability; {@link ReplicaSet} holds none otherwise.
 *
 * <p>Where a snapshot is taken: from the freshest active secondary when there is one (its applier
 * holds still while the engine writes its script; the primary and the other secondaries go on),
 * otherwise from the primary with update transactions held back by the update gate for the
 * duration.
 *
 * <p>Locks, in the order they are taken: {@link #lock} (one snapshot at a time), then either the
 * secondary's {@link Applier#holdStill} or the update gate's exclusive side followed by the
 * catalog session's monitor (as every user of the catalog session takes it). {@link #sinceSnapshot}
 * and {@link #snapshotting} are atomics and need no lock: committers count, and the one that
 * crosses {@code snapshotEvery} while no background snapshot runs starts one.
 */
final class Snapshots {
    private static final Logger LOG = Logger.getLogger(ReplicaSet.class.getName());

    private final ReplicaSet set;
    private final SnapshotStore store;
    private final DurableLog durableLog;
    /** What start-up recovered, reported by {@link #status}. */
    private final String recovered;
    /** Durable commits since the last snapshot. */
    private final AtomicLong sinceSnapshot = new AtomicLong();
    /** A background snapshot is running (at most one is started at a time). */
    private final AtomicBoolean snapshotting = new AtomicBoolean();
    /** The background snapshot last started, which shutdown lets finish. */
    private volatile Thread snapshotThread;
    /** One snapshot at a time: two would share a replica's hold and race to the same files. */
    private final ReentrantLock lock = new ReentrantLock();

    Snapshots(ReplicaSet set, SnapshotStore store, DurableLog durableLog, String recovered) {
        this.set = set;
        this.store = store;
        this.durableLog = durableLog;
        this.recovered = recovered;
    }

    /** What start-up recovered and where the durable log stands. */
    String status() {
        DurableLog d = durableLog;
        return recovered + "; durable through v" + d.durableVersion() + " in " + d.directory() + " (fsync " + d.sync() + ")";
    }

    /** Whether the store holds no snapshot yet (start-up then takes one as the base). */
    boolean none() throws IOException { return store.newest().isEmpty(); }

    /**
     * Takes a snapshot now and lets older log segments go: from a secondary when one is active,
     * otherwise from the primary.
     *
     * @return the snapshot's version
     */
    long take() throws SQLException {
        lock.lock();
        try {
            for (Replica r : set.secondaries()) {
                if (r.isActive() && r.applier() != null) return fromSecondary(r);
            }
            return fromPrimary();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A committer's record {@code v} is on disk: counts towards the next snapshot, and starts one in
     * the background after {@code snapshotEvery} durable commits.
     */
    void committedDurably() {
        if (sinceSnapshot.incrementAndGet() >= set.config().durability().snapshotEvery() && !set.isClosed()
                && snapshotting.compareAndSet(false, true)) {
            Thread t = new Thread(this::takeInBackground, "macrodb-snapshot");
            t.setDaemon(true);
            snapshotThread = t;
            t.start();
        }
    }

    /** At shutdown: a snapshot being written finishes (it is written under a temporary name until complete). */
    void awaitBackground() {
        Thread snapshot = snapshotThread;
        if (snapshot != null) {
            try {
                snapshot.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void takeInBackground() {
        try {
            take();
        } catch (SQLException | RuntimeException e) {
            LOG.warning("MacroDB: taking a snapshot in " + set.config().durability().directory() + " failed: " + e);
        } finally {
            snapshotting.set(false);
        }
    }

    private long fromSecondary(Replica r) throws SQLException {
        Applier a = r.applier();
        a.holdStill(true); // an operator's pauseApplying(false) meanwhile does not release this hold
        try {
            long v = r.version();
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
            try (Connection c = r.open()) {
                write(v, c);
            } finally {
                CaptureContext.restore(prev);
            }
            return v;
        } finally {
            a.holdStill(false);
        }
    }

    /** From the primary, with update transactions held back (start-up's base, or no secondary active). */
    long fromPrimary() throws SQLException {
        UpdateGate gate = set.updateGate();
        gate.enterExclusive(set.config().lockTimeoutMillis());
        try {
            long v = set.version();
            Session catalog = set.catalog();
            synchronized (catalog) {
                write(v, catalog.connection());
            }
            return v;
        } finally {
            gate.exitExclusive();
        }
    }

    private void write(long v, Connection c) throws SQLException {
        sinceSnapshot.set(0);
        try {
            Map<String, Long> positions = new TreeMap<>(set.sequencePositions());
            store.write(v, file -> set.engine().exportScript(c, file), positions);
            durableLog.deleteSegmentsThrough(v);
        } catch (SQLException e) {
            throw e;
        } catch (Exception e) {
            throw new SQLException("MacroDB: writing the snapshot of v" + v + " failed: " + e.getMessage(), "58030", e);
        }
        LOG.info(() -> "MacroDB: snapshot of v" + v + " written to " + store.file(v));
    }
}
