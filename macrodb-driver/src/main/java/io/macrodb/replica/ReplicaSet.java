package io.macrodb.replica;

import io.macrodb.capture.CaptureContext;
import io.macrodb.capture.TransactionChanges;
import io.macrodb.engine.Checksums;
import io.macrodb.engine.Engine;
import io.macrodb.log.Propagation;
import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * The replicated database: one primary that runs every update transaction, N-1 secondaries that
 * apply the replication log and serve read-only transactions, and the commit critical section that
 * orders them (DESIGN.md §2).
 *
 * <p>Commit: the changes are built outside any lock (row images are read inside the still-open
 * transaction), then, inside one short critical section, the primary commits, the next version is
 * taken and the record is appended to the log. Nothing else is serialised.
 */
public final class ReplicaSet {
    private static final Logger LOG = Logger.getLogger(ReplicaSet.class.getName());

    /** A statement to run on the primary under the schema-change protocol. */
    @FunctionalInterface
    public interface SqlCall<T> {
        T run() throws SQLException;
    }

    private final ReplicaSetConfig config;
    private final Replica primary;
    private final List<Replica> secondaries;
    private final ReplicationLog log;
    private final ReentrantLock commitLock = new ReentrantLock();
    private final UpdateGate updateGate = new UpdateGate();
    /** Statement mode: update transactions run one at a time, so replay order is execution order. */
    private final Semaphore writerToken = new Semaphore(1, true);
    private final Map<String, TableShape> shapes = new ConcurrentHashMap<>();
    private final Session catalog;
    private final String uniqueName;
    private String defaultSchema;
    private final Map<Class<?>, Object> extensions = new ConcurrentHashMap<>();
    private int refs;
    private volatile boolean closed;

    private ReplicaSet(ReplicaSetConfig config, Replica primary, List<Replica> secondaries, ReplicationLog log,
                       Session catalog, String uniqueName) {
        this.config = config;
        this.primary = primary;
        this.secondaries = secondaries;
        this.log = log;
        this.catalog = catalog;
        this.uniqueName = uniqueName;
    }

    static ReplicaSet open(ReplicaSetConfig cfg) throws SQLException {
        Engine engine = cfg.engine();
        String unique = "macrodb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Replica primary = new Replica(0, cfg.url().jdbcUrl(), cfg.connectProperties(), engine, cfg.lockTimeoutMillis(), 0);
        Session catalog = primary.borrow();
        List<Replica> secondaries = new ArrayList<>();
        ReplicationLog log = new ReplicationLog(0);
        ReplicaSet rs = new ReplicaSet(cfg, primary, Collections.unmodifiableList(secondaries), log, catalog, unique);
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        try {
            Connection pc = catalog.connection();
            pc.setAutoCommit(true);
            engine.configurePrimary(pc, cfg.propagation(), cfg.url());
            rs.defaultSchema = pc.getSchema();
            rs.refreshShapes();
            for (int i = 1; i < cfg.replicas(); i++) {
                Replica r = new Replica(i, engine.secondaryUrl(cfg.url(), unique, i), cfg.connectProperties(), engine,
                        cfg.lockTimeoutMillis(), 0);
                secondaries.add(r);
                Connection ac = r.open();
                try {
                    engine.configureSecondary(ac, cfg.propagation());
                    engine.copy(pc, ac);
                    engine.refreshCapture(ac);
                    if (cfg.propagation() == Propagation.ROW) engine.dropUserTriggers(ac);
                    ac.setAutoCommit(false);
                } catch (SQLException e) {
                    ac.close();
                    throw e;
                }
                ReplicationLog.Cursor cursor = log.openCursor();
                Applier a = new Applier(r, engine, cursor, ac, cfg.applyGroup(), cfg.propagation() == Propagation.ROW);
                r.attach(a);
                a.start("macrodb-applier-" + unique + "-r" + i);
                r.setState(ReplicaState.ACTIVE, "built from the primary at v0");
            }
            primary.setState(ReplicaState.ACTIVE, "primary");
        } catch (SQLException | RuntimeException e) {
            rs.shutdown();
            throw e;
        } finally {
            CaptureContext.restore(prev);
        }
        return rs;
    }

    public ReplicaSetConfig config() { return config; }
    public Engine engine() { return config.engine(); }
    public Propagation propagation() { return config.propagation(); }
    public Replica primary() { return primary; }
    public List<Replica> secondaries() { return secondaries; }
    /**
     * State that a layer above keeps per replicated database and shares between its connections
     * (routing's per-shape learning, for one), created on first use. Keeps this package free of
     * dependencies on the layers above it.
     */
    public <T> T extension(Class<T> type, java.util.function.Supplier<T> create) {
        return type.cast(extensions.computeIfAbsent(type, k -> create.get()));
    }

    /** The schema a new session starts in. */
    public String defaultSchema() { return defaultSchema; }

    /** The database's version: update transactions committed so far. */
    public long version() { return primary.version(); }

    void checkCompatible(ReplicaSetConfig other) throws SQLException {
        if (other.replicas() != config.replicas() || other.propagation() != config.propagation()
                || other.lockTimeoutMillis() != config.lockTimeoutMillis() || other.applyGroup() != config.applyGroup()) {
            throw new SQLException("MacroDB: " + config.url().jdbcUrl() + " is already open with replicas="
                    + config.replicas() + "&propagation=" + config.propagation().name().toLowerCase(java.util.Locale.ROOT)
                    + "&lockTimeout=" + config.lockTimeoutMillis() + "&applyGroup=" + config.applyGroup()
                    + " (options of the database, not of one connection); connect with the same values, or close every"
                    + " connection to it first", "08001");
        }
    }

    void retain() { refs++; }

    /** @return true if that was the last reference */
    boolean releaseRef() { return --refs == 0; }

    // ---------------------------------------------------------------- table shapes

    /** The replicated shape of a table of the primary (cached; refreshed by every schema change). */
    public TableShape shape(String schema, String table) throws SQLException {
        TableShape s = shapes.get(schema + '\u0000' + table);
        if (s != null) return s;
        synchronized (catalog) {
            s = io.macrodb.engine.Catalog.readTable(catalog.connection(), schema, table);
        }
        if (s != null) shapes.put(schema + '\u0000' + table, s);
        return s;
    }

    /** Re-reads every table's shape and installs capture on new tables. Caller excludes writers. */
    private void refreshShapes() throws SQLException {
        synchronized (catalog) {
            Connection c = catalog.connection();
            shapes.clear();
            for (TableShape t : engine().refreshCapture(c)) shapes.put(t.schema() + '\u0000' + t.table(), t);
        }
    }

    // ---------------------------------------------------------------- update transactions

    /** Called when an update transaction starts on the primary. */
    public void beginUpdate() throws SQLException {
        if (closed) throw new SQLException("MacroDB: the replica set was shut down", "08003");
        if (config.propagation() == Propagation.STATEMENT) {
            try {
                if (!writerToken.tryAcquire(config.lockTimeoutMillis(), TimeUnit.MILLISECONDS)) {
                    throw new SQLTransactionRollbackException("MacroDB: statement propagation runs update transactions one at a"
                            + " time and this one waited " + config.lockTimeoutMillis() + " ms for its turn; retry it"
                            + " (lockTimeout sets the bound; propagation=row lets updates run concurrently)", "40001");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("MacroDB: interrupted while waiting to start an update transaction", "08006", e);
            }
        }
        try {
            updateGate.enter(config.lockTimeoutMillis());
        } catch (SQLException e) {
            if (config.propagation() == Propagation.STATEMENT) writerToken.release();
            throw e;
        }
    }

    /** Called when an update transaction ends (commit or rollback), exactly once per {@link #beginUpdate}. */
    public void endUpdate() {
        updateGate.leave();
        if (config.propagation() == Propagation.STATEMENT) writerToken.release();
    }

    /**
     * Commits the update transaction on {@code session} and, if it changed anything, appends its
     * record to the log.
     *
     * @return the new database version, or 0 if the transaction changed nothing
     */
    public long commit(Session session, TransactionChanges changes) throws SQLException {
        Connection c = session.connection();
        if (changes.isEmpty()) {
            c.commit();
            awaitPublished(); // it may have read a commit whose version is being published right now
            return 0;
        }
        // With no secondary there is nobody to ship to (yet): the version still counts the commit.
        List<Change> built = secondaries.isEmpty() ? List.of() : changes.build(c, session);
        commitLock.lock();
        try {
            c.commit();
            long v = log.lastVersion() + 1;
            log.append(new ChangeRecord(v, System.nanoTime(), built));
            primary.gate().publish(v);
            return v;
        } finally {
            commitLock.unlock();
        }
    }

    /**
     * Runs a schema change (or another statement that every replica must run as text, such as
     * TRUNCATE) on the primary while no update transaction is open, then logs it. The caller has
     * ended its own transaction first.
     *
     * @return what {@code call} returned
     */
    public <T> T schemaChange(Session session, String sql, Object[] params, boolean replicate, SqlCall<T> call,
                              long[] versionOut) throws SQLException {
        updateGate.enterExclusive(config.lockTimeoutMillis());
        try {
            T result;
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
            try {
                result = call.run();
                session.connection().commit();
            } catch (SQLException | RuntimeException e) {
                try {
                    session.connection().rollback();
                } catch (SQLException ignored) {
                    // the original error is what matters
                }
                throw e;
            } finally {
                CaptureContext.restore(prev);
            }
            if (!replicate) return result; // a setting the secondaries keep their own value of
            // Logged before anything else can fail: the primary has it, so the secondaries must get it.
            String schema = session.connection().getSchema();
            commitLock.lock();
            try {
                long v = log.lastVersion() + 1;
                log.append(new ChangeRecord(v, System.nanoTime(), List.of(new StatementChange(sql, params, true, schema))));
                primary.gate().publish(v);
                if (versionOut != null) versionOut[0] = v;
            } finally {
                commitLock.unlock();
            }
            refreshShapes();
            return result;
        } finally {
            updateGate.exitExclusive();
        }
    }

    // ---------------------------------------------------------------- inspection

    /**
     * Returns once every commit that the primary engine has made is published. A read-only
     * transaction that ran on the primary calls this before it ends: it may have seen a commit in
     * the instant between the engine's commit and its publication, and a read the same client starts
     * afterwards on a secondary must not see less.
     */
    public void awaitPublished() {
        commitLock.lock();
        commitLock.unlock();
    }

    /** Versions, lag and apply counters of every replica, primary first. */
    public List<ReplicaStatus> status() {
        // Secondaries first: a secondary never passes the primary, so reading the primary last
        // keeps every reported lag >= 0 while versions move.
        long[] versions = new long[secondaries.size()];
        for (int i = 0; i < versions.length; i++) versions[i] = secondaries.get(i).version();
        long pv = version();
        List<ReplicaStatus> out = new ArrayList<>();
        out.add(new ReplicaStatus(0, "primary", primary.url(), primary.state(), primary.stateReason(), pv, 0, 0,
                primary.activeReaders(), 0, 0, 0));
        for (int i = 0; i < versions.length; i++) {
            Replica r = secondaries.get(i);
            Applier a = r.applier();
            out.add(new ReplicaStatus(r.index(), "secondary", r.url(), r.state(), r.stateReason(), versions[i],
                    pv - versions[i], r.stalenessNanos() / 1e6, r.activeReaders(),
                    a == null ? 0 : a.appliedRecords(), a == null ? 0 : a.groups(), a == null ? 0 : a.retries()));
        }
        return out;
    }

    /**
     * Stops (or resumes) applying the log on secondary {@code index}: the replica stays in the
     * rotation, falls behind, and read-only transactions that need newer data go elsewhere. For
     * operators (hold a secondary still, e.g. to copy it) and for tests that need a lagging replica.
     */
    public void pauseApplying(int index, boolean paused) {
        for (Replica r : secondaries) {
            if (r.index() == index && r.applier() != null) {
                r.applier().setPaused(paused);
                return;
            }
        }
        throw new IllegalArgumentException("no secondary with index " + index + "; secondaries are 1.." + secondaries.size());
    }

    /**
     * Waits until every active secondary has applied everything committed so far.
     *
     * @return true if they did within the timeout
     */
    public boolean awaitCaughtUp(long timeoutMillis) {
        long target = version();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (Replica r : secondaries) {
            if (!r.isActive()) continue;
            long left = deadline - System.nanoTime();
            if (!r.gate().await(target, Math.max(0, left), r::isActive) && r.isActive()) return false;
        }
        return true;
    }

    /**
     * A content checksum of every replica, primary first (FAILED replicas report null). Meaningful
     * when no update transaction is running and {@link #awaitCaughtUp} returned true.
     */
    public List<String> checksums() throws SQLException {
        List<String> out = new ArrayList<>();
        out.add(checksum(primary));
        for (Replica r : secondaries) out.add(r.isActive() ? checksum(r) : null);
        return out;
    }

    private static String checksum(Replica r) throws SQLException {
        Session s = r.borrow();
        try {
            s.connection().setAutoCommit(true);
            return Checksums.of(s.connection());
        } finally {
            s.closeQuietly();
        }
    }

    // ---------------------------------------------------------------- life

    void shutdown() {
        if (closed) return;
        closed = true;
        for (Replica r : secondaries) {
            r.setState(ReplicaState.CLOSED, "replica set shut down");
            Applier a = r.applier();
            if (a != null) a.stop();
            r.closeIdle();
        }
        if (!config.url().inMemory()) {
            // A persistent primary must open without MacroDB on the classpath, so the triggers go.
            try {
                synchronized (catalog) {
                    catalog.connection().setAutoCommit(true);
                    engine().removeCapture(catalog.connection());
                }
            } catch (SQLException e) {
                LOG.warning("could not remove MacroDB's capture triggers from " + primary.url() + ": " + e.getMessage());
            }
        }
        primary.setState(ReplicaState.CLOSED, "replica set shut down");
        primary.closeIdle();
        catalog.closeQuietly();
        closeSecondaryDatabases();
    }

    private void closeSecondaryDatabases() {
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        try {
            for (Replica r : secondaries) {
                try (Connection c = r.open(); java.sql.Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN");
                } catch (SQLException ignored) {
                    // already gone
                }
            }
        } finally {
            CaptureContext.restore(prev);
        }
    }

    @Override public String toString() { return "replica set " + uniqueName + " over " + config.url().jdbcUrl(); }
}
