package io.macrodb.replica;

import io.macrodb.engine.Engine;
import io.macrodb.log.VersionGate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One copy of the database in one engine instance: its URL, its published version (the number of
 * update transactions it has committed), its pool of idle sessions, and for a secondary the applier
 * that pulls the replication log into it.
 */
public final class Replica {
    private static final Logger LOG = Logger.getLogger(Replica.class.getName());
    private static final int MAX_IDLE = 64;

    private final int index;
    private final String url;
    private final Properties connectProperties;
    private final Engine engine;
    private final long lockTimeoutMillis;
    private final VersionGate gate;
    /** Held by the applier from its engine commit to the publication of the new version. */
    private final java.util.concurrent.locks.ReentrantLock publishLock = new java.util.concurrent.locks.ReentrantLock();
    private final AtomicInteger activeReaders = new AtomicInteger();
    private final ConcurrentLinkedDeque<Session> idle = new ConcurrentLinkedDeque<>();
    private volatile ReplicaState state = ReplicaState.STARTING;
    private volatile String stateReason = "starting";
    private volatile Applier applier;
    private volatile Admission admission = Admission.unlimited();
    /**
     * Set by the applier while it applies a schema change with values the primary computed: new readers go elsewhere,
     * and the applier waits for the ones already here to end ({@link Applier}).
     */
    private volatile boolean readersKeptOut;
    /** Readers and the applier take turns here on an engine whose reads take locks; null elsewhere. */
    private final ReadApplyGate readApplyGate;

    /**
     * @param index   the replica's number, its own among the set's replicas: 0 for the first primary,
     *                1..N-1 for the first secondaries; a secondary added after a promotion takes the
     *                failed primary's number
     * @param primary whether it starts as the primary (the application's database)
     */
    Replica(int index, boolean primary, String url, Properties connectProperties, Engine engine, long lockTimeoutMillis, long version) {
        this.index = index;
        this.url = url;
        this.connectProperties = connectProperties;
        this.engine = engine;
        this.lockTimeoutMillis = lockTimeoutMillis;
        this.gate = new VersionGate(version);
        this.primaryRole = primary;
        this.readApplyGate = engine.readsTakeLocks() ? new ReadApplyGate() : null;
    }

    /** The replica's own number (see the constructor); not its role, which {@link #isPrimary} tells. */
    public int index() { return index; }
    public boolean isPrimary() { return primaryRole; }

    /** Set once, when this secondary is promoted to primary. */
    private volatile boolean primaryRole;

    void becomePrimary() { primaryRole = true; }
    public String url() { return url; }
    public VersionGate gate() { return gate; }
    public long version() { return gate.version(); }
    public ReplicaState state() { return state; }
    public String stateReason() { return stateReason; }
    public boolean isActive() { return state == ReplicaState.ACTIVE; }
    /** Read-only transactions running here now (what the least-active balancer compares). */
    public int activeReaders() { return activeReaders.get(); }
    public void readerStarted() { activeReaders.incrementAndGet(); }
    public void readerEnded() { activeReaders.decrementAndGet(); }

    /**
     * Whether this secondary keeps read-only transactions out for now: its applier is applying a schema change whose
     * values the primary computed, which the engine commits before those values (H2, HSQLDB: the statement commits by
     * itself, with the secondary's own values), so a reader in between would read values the primary never had. The
     * router passes it over; a reader that counted itself in ({@link #readerStarted}) checks this afterwards and moves
     * on if it is set, while the applier sets it before it waits for {@link #activeReaders} to reach 0.
     */
    public boolean keepsReadersOut() { return readersKeptOut; }

    void keepReadersOut(boolean out) { readersKeptOut = out; }

    /**
     * A read-only transaction about to run on this secondary takes its turn beside the applier, on an engine whose
     * reads take locks ({@link ReadApplyGate}); elsewhere it enters at once. Every {@code true} must be matched by
     * one {@link #leaveRead()} when the transaction's engine transaction has ended.
     *
     * @return false if the applier held the turn for {@code timeoutMillis}: the reader should run elsewhere
     */
    public boolean enterRead(long timeoutMillis) throws SQLException {
        if (readApplyGate == null) return true;
        try {
            return readApplyGate.enterRead(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("MacroDB: the thread was interrupted while waiting for " + this + "'s applier to let a"
                    + " read-only transaction in; nothing ran and the connection remains usable",
                    io.macrodb.sql.SqlState.QUERY_CANCELED.getState(), e);
        }
    }

    /** A reader that {@link #enterRead entered} has ended its engine transaction. */
    public void leaveRead() {
        if (readApplyGate != null) readApplyGate.exitRead();
    }

    /** The readers' and applier's turns, or null where readers and the applier run side by side. */
    ReadApplyGate readApplyGate() { return readApplyGate; }

    /** Applied-but-unpublished work aside, how far behind the newest committed record this replica's data is. */
    public long stalenessNanos() {
        Applier a = applier;
        return a == null ? 0 : a.stalenessNanos();
    }

    /**
     * Returns once this replica has published every version its engine has committed: afterwards
     * {@link #version()} is at least what any reader of this replica could have seen.
     */
    public void awaitPublished() {
        publishLock.lock();
        publishLock.unlock();
    }

    java.util.concurrent.locks.ReentrantLock publishLock() { return publishLock; }

    /**
     * About how long this replica needs to reach {@code version} at its recent apply rate, in
     * nanoseconds (0 if it is there, {@link Long#MAX_VALUE} if it is not applying).
     */
    public long expectedCatchUpNanos(long version) {
        long lag = version - version();
        if (lag <= 0) return 0;
        Applier a = applier;
        double rate = a == null || a.isPaused() ? 0 : a.applyRate();
        return rate <= 0 ? Long.MAX_VALUE : (long) Math.min(Long.MAX_VALUE, lag / rate);
    }

    /** How many transactions this replica runs at once, and the queue of those waiting. */
    public Admission admission() { return admission; }
    void admit(Admission a) { this.admission = a; }

    Engine engine() { return engine; }

    Applier applier() { return applier; }
    void attach(Applier a) { this.applier = a; }

    /** The last version of a group this secondary's applier gave up on, or -1: a copy to rebuild it must be past it. */
    private volatile long failedThrough = -1;

    /** The applier gave up on the group that ends at {@code version} ({@link Repair}: a rebuild copies a source past it). */
    void failedApplyingThrough(long version) { this.failedThrough = version; }

    long failedApplyingThrough() { return failedThrough; }

    void setState(ReplicaState s, String reason) {
        ReplicaState old = this.state;
        this.state = s;
        this.stateReason = reason;
        if (old != s) {
            LOG.log(s == ReplicaState.FAILED ? Level.WARNING : Level.FINE, () -> this + ": " + old + " -> " + s + " (" + reason + ")");
        }
        if (s != ReplicaState.ACTIVE) gate.wakeAll();
    }

    /** Whether the database exists now: its first session opened it (or made it). */
    private volatile boolean made;

    /**
     * A new physical connection with MacroDB's session settings for this replica's role. The first
     * session opens the database (making a secondary's, or a new application database); later
     * sessions open it only if it still exists, so that a session opened after its engine was shut
     * down fails (the engine is gone: the primary fails over, a secondary leaves the rotation)
     * instead of finding a new, empty database under the same name.
     */
    Connection open() throws SQLException {
        Connection c = DriverManager.getConnection(made ? engine.existingOnlyUrl(url) : url, connectProperties);
        made = true;
        try {
            engine.configureSession(c, lockTimeoutMillis, primaryRole);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** An idle session from the pool, or a new one. */
    public Session borrow() throws SQLException {
        Session s;
        while ((s = idle.pollFirst()) != null) {
            if (!s.isBroken() && s.openedAsPrimary() == primaryRole) return s;
            s.closeQuietly();
        }
        boolean role = primaryRole;
        return new Session(this, open(), role);
    }

    /** Returns a session that has no open transaction and no statement of its borrower left open. */
    public void release(Session s) {
        if (s.isBroken() || s.isDedicated() || state == ReplicaState.CLOSED || idle.size() >= MAX_IDLE) {
            s.closeQuietly();
            return;
        }
        idle.offerFirst(s);
    }

    void closeIdle() {
        Session s;
        while ((s = idle.pollFirst()) != null) s.closeQuietly();
    }

    @Override public String toString() { return (isPrimary() ? "primary" : "secondary " + index) + " (" + url + ")"; }
}
