package io.macrodb.replica;

import io.macrodb.engine.CaptureContext;
import io.macrodb.durable.DurableLog;
import io.macrodb.durable.SnapshotStore;
import io.macrodb.engine.Checksums;
import io.macrodb.engine.CommitDecoding;
import io.macrodb.engine.Engine;
import io.macrodb.log.Propagation;
import io.macrodb.log.Change;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;
import io.macrodb.sql.SqlClassifier;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The replicated database: one primary that runs every update transaction, N-1 secondaries that
 * apply the replication log and serve read-only transactions, and the commit critical section that
 * orders them (DESIGN.md §2).
 *
 * <p>This class owns the membership (which replica is the primary, the secondaries, the catalog
 * session) and the set's life (open with recovery, shutdown), and is the public face of the
 * package; each other job is a collaborator of its own:
 * <ul>
 *   <li>{@link CommitPath}: update transactions, commits and schema changes in version order;</li>
 *   <li>{@link Failover}: deciding that a replica failed, failing the primary over, the monitor thread;</li>
 *   <li>{@link Repair}: building secondaries (at open, a failed one rebuilt, one added after a promotion);</li>
 *   <li>{@link Snapshots}: snapshots and the durability status (durability=log only).</li>
 * </ul>
 * What stays here besides the membership is what every job reads: the table shapes the capture
 * and the appliers use, the application's triggers that a promoted secondary must get back (row
 * propagation), the sequence positions a promoted or recovered primary restarts from, and the
 * inspection the operator face reads (status, checksums, catching up). Membership changes go
 * through {@link #installPrimary}, {@link #replaceSecondary} and {@link #addSecondary}; the list of
 * secondaries is copy-on-write, so readers iterate it without a lock.
 */
public final class ReplicaSet {
    private static final Logger LOG = Logger.getLogger(ReplicaSet.class.getName());

    /** What a schema change's statement returned, and the version it was logged as (0: not logged). */
    public record SchemaChanged<T>(T result, long version) {}

    /** A statement to run on the primary under the schema-change protocol. */
    @FunctionalInterface
    public interface SqlCall<T> {
        T run() throws SQLException;
    }

    private final ReplicaSetConfig config;
    private volatile Replica primary;
    private final List<Replica> secondaries;
    private final ReplicationLog log;
    /** Update transactions, commits and schema changes: the version order and the update gate. */
    private final CommitPath commits;
    /** The primary's share of the processors: {@link #primaryIdle()} calls it idle while it runs fewer transactions. */
    private final int primaryShare;
    /** Building secondaries: at open, a failed one rebuilt, one added after a promotion. */
    private final Repair repair;
    /** Deciding that a replica failed, failing the primary over, and the monitor thread. */
    private final Failover failover;
    private final Map<String, TableShape> shapes = new ConcurrentHashMap<>();
    private volatile Session catalog;
    private final String uniqueName;
    /** See {@link #decoding()}. */
    private volatile CommitDecoding decoding;
    /** Counts promotions, for the names of their decoding streams. */
    private final java.util.concurrent.atomic.AtomicInteger promotions = new java.util.concurrent.atomic.AtomicInteger();
    private String defaultSchema;
    private final Map<Class<?>, Object> extensions = new ConcurrentHashMap<>();
    /** The log on disk (durability=log), or null. */
    private volatile DurableLog durableLog;
    /** Snapshots and the durability status (durability=log), or null. */
    private volatile Snapshots snapshots;
    /**
     * Row propagation only: the application's triggers, which secondaries do not carry (their effects
     * arrive as rows), so that a promoted secondary gets them back: by upper-cased name as the statements name them, or
     * as the engine's catalog keys them where it gives each one's statement ({@code Engine.applicationTriggerDdl},
     * read again after every schema change).
     */
    private final Map<String, StatementChange> userTriggers = new ConcurrentHashMap<>();
    private volatile boolean applicationTriggers = true; // until the catalog has been read
    private volatile boolean tablesWithoutKey = true; // until the catalog has been read
    private static final java.util.regex.Pattern CREATE_TRIGGER = java.util.regex.Pattern.compile(
            "(?is)\\s*CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:FORCE\\s+)?TRIGGER\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?([^\\s(]+)\\s.*");
    /** {@code DROP TRIGGER name}, and PostgreSQL's {@code DROP TRIGGER name ON table [CASCADE | RESTRICT]}. */
    private static final java.util.regex.Pattern DROP_TRIGGER = java.util.regex.Pattern.compile(
            "(?is)\\s*DROP\\s+TRIGGER\\s+(?:IF\\s+EXISTS\\s+)?([^\\s;]+)(?:\\s+ON\\s+[^;]+?)?(?:\\s+(?:CASCADE|RESTRICT))?\\s*;?\\s*");
    /**
     * A schema change of the application's triggers alone: one created, replaced, dropped or renamed, or enabled or
     * disabled ({@code ALTER TABLE t ENABLE|DISABLE [REPLICA|ALWAYS] TRIGGER x}, as its only action).
     */
    private static final java.util.regex.Pattern TRIGGER_ONLY = java.util.regex.Pattern.compile(
            "(?is)\\s*(?:CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:FORCE\\s+)?(?:CONSTRAINT\\s+)?TRIGGER|DROP\\s+TRIGGER|ALTER\\s+TRIGGER)\\s.*"
                    + "|\\s*ALTER\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?(?:ONLY\\s+)?(?:\"[^\"]*\"|[^\\s\"])+\\s+(?:ENABLE|DISABLE)\\s+"
                    + "(?:REPLICA\\s+|ALWAYS\\s+)?TRIGGER\\s+[^,;]+;?\\s*");

    /**
     * Whether {@code sql} changes the application's triggers and nothing else. A secondary in row propagation carries
     * none of them (their effects arrive as rows; {@code Engine.dropUserTriggers} takes them away after every schema
     * change), so it does not run such a change: {@code DROP TRIGGER}, {@code ALTER TRIGGER} or a trigger's
     * {@code ENABLE}/{@code DISABLE} failed there on a trigger it did not have, and took every secondary out of the
     * rotation. The primary keeps them for a promotion ({@link #noteTriggerDdl}, {@link #refreshShapes}).
     */
    static boolean changesOnlyATrigger(String sql) {
        return TRIGGER_ONLY.matcher(SqlClassifier.withoutComments(sql)).matches();
    }

    /** The trigger name of a CREATE/DROP TRIGGER, without schema and quotes, upper-cased unless quoted. */
    private static String triggerName(String qualified) {
        String n = qualified;
        int dot = n.lastIndexOf('.');
        if (dot >= 0) n = n.substring(dot + 1);
        return n.startsWith("\"") ? n.substring(1, n.length() - 1) : n.toUpperCase(java.util.Locale.ROOT);
    }

    /** Keeps the application's trigger DDL (row propagation) for a promoted secondary. */
    void noteTriggerDdl(String sql, Object[] params, String schema) {
        if (config.propagation() != Propagation.ROW) return;
        String text = SqlClassifier.withoutComments(sql); // "-- audit\nCREATE TRIGGER ..." creates a trigger too
        java.util.regex.Matcher m = CREATE_TRIGGER.matcher(text);
        if (m.matches()) {
            userTriggers.put(triggerName(m.group(1)), new StatementChange(sql, params, true, schema));
            return;
        }
        m = DROP_TRIGGER.matcher(text);
        if (m.matches()) userTriggers.remove(triggerName(m.group(1)));
    }

    /** Row propagation: reads the application's triggers of an existing database from its script. */
    private void readUserTriggers(PrimaryScript script) throws SQLException {
        if (config.propagation() != Propagation.ROW) return;
        Map<String, String> fromCatalog;
        synchronized (catalog) {
            fromCatalog = engine().applicationTriggerDdl(catalog.connection());
        }
        if (fromCatalog != null) {
            fromCatalog.forEach((name, sql) -> userTriggers.put(name, new StatementChange(sql, new Object[0], true, null)));
            return;
        }
        script.createStatements(line -> {
            java.util.regex.Matcher m = CREATE_TRIGGER.matcher(line);
            if (m.matches() && !line.contains("MACRODB_CAPTURE")) {
                String sql = line.endsWith(";") ? line.substring(0, line.length() - 1) : line;
                userTriggers.put(triggerName(m.group(1)), new StatementChange(sql, new Object[0], true, null));
            }
        });
    }

    /** The highest next value of each sequence seen at a commit: where a new primary restarts them. */
    private final Map<String, Long> sequencePositions = new ConcurrentHashMap<>();
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
        this.commits = new CommitPath(this, config, log);
        this.primaryShare = Math.max(1, Runtime.getRuntime().availableProcessors() / Math.max(1, config.replicas()));
        this.repair = new Repair(this, config, log);
        this.failover = new Failover(this, config, log, commits.order(), repair);
    }

    static ReplicaSet open(ReplicaSetConfig cfg) throws SQLException {
        Engine engine = cfg.engine();
        String unique = "macrodb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Replica primary = new Replica(0, true, engine.primaryUrl(cfg.url()), cfg.connectProperties(), engine, cfg.lockTimeoutMillis(), 0);
        primary.admit(admission(cfg));
        if (cfg.durability() != null && !cfg.url().inMemory()) {
            throw new SQLException("MacroDB: durability=log makes in-memory engines durable, and " + cfg.url().jdbcUrl()
                    + " is a file database that persists by itself; drop the durability option or use a mem: URL", "08001");
        }
        // the directory is this database's from before recovery reads it until shutdown
        io.macrodb.durable.DirectoryLock dirLock = cfg.durability() == null ? null
                : io.macrodb.durable.DirectoryLock.acquire(cfg.durability().directory(), cfg.url().jdbcUrl());
        Session catalog;
        try {
            catalog = primary.borrow();
        } catch (SQLException | RuntimeException e) {
            if (dirLock != null) dirLock.close();
            throw e;
        }
        List<Replica> secondaries = new java.util.concurrent.CopyOnWriteArrayList<>();
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        ReplicaSet rs = null;
        try {
            Connection pc = catalog.connection();
            pc.setAutoCommit(true);
            engine.configurePrimary(pc, cfg.propagation(), cfg.url());
            long version = 0;
            String report = "none";
            if (cfg.durability() != null) {
                boolean hadData = !engine.tables(pc).isEmpty();
                SnapshotStore store = new SnapshotStore(cfg.durability().directory());
                if (hadData && !store.isEmpty()) {
                    throw new SQLException("MacroDB: " + cfg.url().jdbcUrl() + " already holds tables in this JVM, and "
                            + cfg.durability().directory() + " holds a durable log to recover; recover into a new database"
                            + " name, or remove the directory to start from what the database holds", "08001");
                }
                Recovery.Report r = Recovery.run(cfg.durability(), engine, cfg.propagation(), pc);
                version = r.version();
                report = r.toString();
            }
            ReplicationLog log = new ReplicationLog(version);
            primary.gate().publish(version);
            rs = new ReplicaSet(cfg, primary, secondaries, log, catalog, unique);
            rs.directoryLock = dirLock;
            // before any update transaction can commit: from here on every commit on the primary is in the stream
            if (rs.shipsChanges()) rs.decoding = rs.watched(engine.startDecoding(cfg.url(), primary.url(), cfg.connectProperties(), unique + "_0"), primary);
            rs.defaultSchema = engine.sessionSchema(pc);
            rs.refreshShapes();
            boolean hasTables = !engine.tables(pc).isEmpty();
            // The primary is exported once, when first needed: the triggers are read from that script and every
            // secondary not kept as it is imports it (nothing reaches the primary until open returns, so it stays as
            // exported).
            boolean readTriggers = hasTables && cfg.propagation() == Propagation.ROW;
            try (PrimaryScript script = cfg.replicas() > 1 || readTriggers ? PrimaryScript.lazy(engine, pc) : null) {
                if (readTriggers) rs.readUserTriggers(script);
                if (cfg.durability() != null) {
                    SnapshotStore store = new SnapshotStore(cfg.durability().directory());
                    rs.durableLog = new DurableLog(cfg.durability().directory(), cfg.durability().sync(), version);
                    rs.snapshots = new Snapshots(rs, store, rs.durableLog, report);
                    // A base to recover from next time: what recovery rebuilt, or what the database already held.
                    if (version > 0 || hasTables || rs.snapshots.none()) rs.snapshots.fromPrimary();
                }
                Engine.KeptCheck keep = engine.keptCheck(pc);
                for (int i = 1; i < cfg.replicas(); i++) {
                    boolean[] kept = {false};
                    // a secondary whose database outlived the last set (a server's) is kept where it holds what the primary holds
                    Repair.Copy copy = version > 0 ? script::importInto : target -> {
                        kept[0] = keep.keptAsItIs(target);
                        if (!kept[0]) script.importInto(target);
                    };
                    Replica r = rs.repair.buildSecondary(i, unique, copy, log.tail(), "built from the primary at v" + version);
                    if (kept[0]) r.setState(ReplicaState.ACTIVE, "kept at open: its database held what the primary holds (checked, not copied)");
                    secondaries.add(r);
                }
            }
            primary.setState(ReplicaState.ACTIVE, "primary");
            rs.failover.startMonitor();
        } catch (SQLException | IOException | RuntimeException e) {
            if (rs != null) rs.shutdown();
            else {
                catalog.closeQuietly();
                if (dirLock != null) dirLock.close();
            }
            if (e instanceof IOException io) {
                throw new SQLException("MacroDB: cannot open the durable log: " + io.getMessage(), "58030", io);
            }
            if (e instanceof SQLException se) throw se;
            throw (RuntimeException) e;
        } finally {
            CaptureContext.restore(prev);
        }
        return rs;
    }

    /** A replica's admission as configured: adaptive up to the machine's processors. */
    static Admission admission(ReplicaSetConfig cfg) {
        return new Admission(cfg.admissionLimit(), cfg.admissionAdaptive(), Runtime.getRuntime().availableProcessors());
    }

    // ---------------------------------------------------------------- faults

    /**
     * The one place that decides what an error from a replica's engine means for the replica: if the
     * engine is gone ({@link Engine#isEngineGone}), a secondary leaves the rotation ({@link #fail}) and
     * the primary is failed over. Every session, commit and probe that gets an engine error asks
     * here. (An applier whose records keep failing takes its secondary out of the rotation itself:
     * that is not an engine error.) See {@link Failover}.
     *
     * @param who what found the error, for the reason recorded with the replica's state
     * @return whether the replica is out of service now: its engine gone, or already not active
     */
    public boolean replicaFailed(Replica r, SQLException e, String who) { return failover.replicaFailed(r, e, who, null); }

    /**
     * {@link #replicaFailed(Replica, SQLException, String)} for an error from a call on {@code session}: on an engine
     * that {@link Engine#interruptsThreadsWhenStopped interrupts the threads inside a database it stops}, a database
     * stopped under the call ({@link Engine#stoppedUnder}) is gone whatever the error says. A call can fail for a reason
     * of its own as its database is dropped (a deadlock's victim, a constraint), and Derby closes its session: that
     * transaction was taken for one the engine ended under a failure, and its commit failed with 40000 where the
     * failover's 40001 was due (FailoverConvergenceTest over Derby, 1 run in 43).
     */
    public boolean replicaFailed(Replica r, SQLException e, String who, java.sql.Connection session) {
        return failover.replicaFailed(r, e, who, session);
    }

    /**
     * The primary's engine changed rows behind a transaction's capture triggers: its isolation has
     * failed, and later transactions cannot trust it either. A secondary, which holds exactly what
     * the log says, takes over; without one the primary stays, and only that transaction failed.
     */
    void primaryDiverged(Replica r, String reason) { failover.primaryDiverged(r, reason); }

    /** Waits (bounded by lockTimeout) while a promotion runs; fails if there is no working primary. */
    public void awaitPrimary() throws SQLException { failover.awaitPrimary(); }

    /**
     * Failover's last step, with the commit order held idle: {@code s} leaves the secondaries and
     * becomes the primary, published at {@code version}, with {@code newCatalog} as the catalog
     * session; the shapes are read again from it.
     *
     * @return the catalog session it replaces, for the caller to close
     */
    Session installPrimary(Replica s, Session newCatalog, long version, String reason) throws SQLException {
        CommitDecoding next = shipsChanges() ? watched(engine().startDecoding(config.url(), s.url(), config.connectProperties(),
                uniqueName + "_" + promotions.incrementAndGet()), s) : null;
        CommitDecoding old = decoding;
        decoding = next;
        if (old != null) old.close();
        Session oldCatalog = catalog;
        secondaries.remove(s);
        s.becomePrimary();
        s.setState(ReplicaState.ACTIVE, reason);
        catalog = newCatalog;
        primary = s;
        primary.gate().publish(version);
        refreshShapes();
        return oldCatalog;
    }

    /** A rebuilt secondary takes the failed one's place in the list (the list is copy-on-write). */
    void replaceSecondary(Replica old, Replica fresh) {
        secondaries.set(secondaries.indexOf(old), fresh);
    }

    /**
     * Takes every secondary out of the rotation at once, so that no rebuild (one at a time under
     * {@link Repair}'s monitor) copies a secondary that is about to fail.
     */
    void failEverySecondary(String reason) {
        synchronized (repair) {
            for (Replica r : secondaries) fail(r, reason);
        }
    }

    /** A secondary added after a promotion. */
    void addSecondary(Replica r) {
        secondaries.add(r);
    }

    /**
     * Takes secondary {@code r} out of the rotation because a session found its engine gone (or an
     * operator said so); the monitor rebuilds it unless {@code rebuild=manual}.
     */
    public void fail(Replica r, String reason) { failover.fail(r, reason); }

    /**
     * Replaces failed secondary {@code index} with a new one, online: a copy of the freshest active
     * secondary (held still only while the engine copies it; the primary and the others go on) or,
     * if none is active, of the primary (update transactions then wait for the copy), caught up from
     * the log and put back into the rotation.
     */
    public void rebuild(int index) throws SQLException { repair.rebuild(index); }

    public ReplicaSetConfig config() { return config; }
    public Engine engine() { return config.engine(); }
    public Propagation propagation() { return config.propagation(); }
    public Replica primary() { return primary; }
    /** The secondaries now (a failed one is replaced in place when it is rebuilt). */
    public List<Replica> secondaries() { return Collections.unmodifiableList(secondaries); }
    /**
     * State that a layer above keeps per replicated database and shares between its connections
     * (routing's per-shape learning, for one), created on first use. Keeps this package free of
     * dependencies on the layers above it.
     */
    public <T> T extension(Class<T> type, java.util.function.Supplier<T> create) {
        return type.cast(extensions.computeIfAbsent(type, k -> create.get()));
    }

    /** At the set's end: closes the extensions that are {@link AutoCloseable} (what a layer above registered, say). */
    void closeExtensions() {
        for (Object e : extensions.values()) {
            if (!(e instanceof AutoCloseable c)) continue;
            try {
                c.close();
            } catch (Exception ex) {
                LOG.warning("MacroDB: closing " + e + " of " + this + " failed: " + ex);
            }
        }
    }

    /** The schema a new session starts in. */
    public String defaultSchema() { return defaultSchema; }

    private static int limitOf(Replica r) { return r.admission().isLimited() ? r.admission().limit() : 0; }

    /** The replication log (tests of what it keeps reachable). */
    ReplicationLog log() { return log; }

    // For the collaborators (Snapshots, ...): the members and state this class owns.

    /** The session that reads the primary's catalog; users synchronize on it. Replaced by a failover. */
    Session catalog() { return catalog; }

    /** The name this set's databases and threads carry. */
    String uniqueName() { return uniqueName; }

    /** Row propagation: the application's triggers, which a promoted secondary gets back. */
    java.util.Collection<StatementChange> userTriggers() { return userTriggers.values(); }

    /** Whether {@link #shutdown} has begun. */
    boolean isClosed() { return closed; }

    /** Keeps schema changes (and copies of the primary) apart from update transactions. */
    UpdateGate updateGate() { return commits.updateGate(); }

    /** The log on disk (durability=log), or null. */
    DurableLog durableLog() { return durableLog; }

    /**
     * Capture from the primary engine's own log after each commit ({@link Engine#startDecoding}: PostgreSQL with
     * {@code capture=decoding}), or null where triggers capture inside the transaction. Replaced at a promotion.
     */
    CommitDecoding decoding() { return decoding; }

    /**
     * {@code d} (null: none), read on {@code primary}: if its stream fails, the primary leaves service at once, before a
     * commit finds it failed (every commit there from then on would be in no record).
     */
    private CommitDecoding watched(CommitDecoding d, Replica primary) {
        if (d != null) d.onStreamFailure(reason -> failover.primaryLostStream(primary, reason));
        return d;
    }

    /**
     * The primary committed a transaction whose rows cannot be read from its log ({@link CommitDecoding#await} failed):
     * its engine holds a commit that no record carries, so it leaves service, and a secondary takes over.
     */
    void primaryLostCommit(Replica r, String reason) { failover.primaryLostCommit(r, reason); }

    /** Snapshots and the durability status (durability=log), or null. */
    Snapshots snapshots() { return snapshots; }

    /** A commit drew from sequences: where a promoted secondary restarts them is past these. */
    void noteSequencePositions(Map<String, Long> next) {
        next.forEach((k, v) -> sequencePositions.merge(k, v, Math::max));
    }

    /** The highest next value of each sequence seen at a commit (read-only view for snapshots). */
    Map<String, Long> sequencePositions() { return Collections.unmodifiableMap(sequencePositions); }

    /** The database's version: update transactions committed so far. */
    public long version() { return primary.version(); }

    void checkCompatible(ReplicaSetConfig other) throws SQLException {
        if (other.replicas() != config.replicas() || other.propagation() != config.propagation()
                || other.stallTimeoutMillis() != config.stallTimeoutMillis() || other.autoRebuild() != config.autoRebuild()
                || other.lockTimeoutMillis() != config.lockTimeoutMillis() || other.applyGroup() != config.applyGroup()
                || other.applyThreads() != config.applyThreads() || other.maxLagVersions() != config.maxLagVersions()
                || other.maxLagMillis() != config.maxLagMillis() || other.admissionLimit() != config.admissionLimit()
                || other.admissionAdaptive() != config.admissionAdaptive() || other.oneWriter() != config.oneWriter()
                || !java.util.Objects.equals(other.durability(), config.durability())) {
            throw new SQLException("MacroDB: " + config.url().jdbcUrl() + " is already open with replicas="
                    + config.replicas() + "&propagation=" + config.propagation().name().toLowerCase(java.util.Locale.ROOT)
                    + "&lockTimeout=" + config.lockTimeoutMillis() + "&applyGroup=" + config.applyGroup()
                    + "&applyThreads=" + config.applyThreads() + (config.oneWriter() ? "&writers=one" : "")
                    + (config.durability() == null ? "" : "&durability=log:" + config.durability().directory())
                    + " (options of the database, not of one connection); connect with the same values, or close every"
                    + " connection to it first", "08001");
        }
    }

    void retain() { refs++; }

    /** The connections holding the set (read and changed under {@link ReplicaSets}' lock). */
    int references() { return refs; }

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
    void refreshShapes() throws SQLException {
        synchronized (catalog) {
            Connection c = catalog.connection();
            shapes.clear();
            boolean keyless = false;
            for (TableShape t : engine().refreshCapture(c)) {
                shapes.put(t.schema() + '\u0000' + t.table(), t);
                keyless |= !t.hasKey();
            }
            tablesWithoutKey = keyless;
            applicationTriggers = io.macrodb.engine.Catalog.hasApplicationTriggers(c);
            if (config.propagation() == Propagation.ROW) {
                // where the catalog gives each trigger's statement, the triggers a promotion puts back are the catalog's,
                // as this change left them (dropped with their table, renamed, disabled), not what the statements'
                // text said
                Map<String, String> fromCatalog = engine().applicationTriggerDdl(c);
                if (fromCatalog != null) {
                    userTriggers.keySet().retainAll(fromCatalog.keySet());
                    fromCatalog.forEach((name, sql) -> userTriggers.put(name, new StatementChange(sql, new Object[0], true, null)));
                } else {
                    // elsewhere the statements' text says how each was made, and the catalog which are still there (one
                    // dropped with its table is not)
                    java.util.Set<String> names = engine().applicationTriggerNames(c);
                    if (names != null) userTriggers.keySet().retainAll(names);
                }
            }
        }
    }

    /**
     * Whether the primary has a table without a primary key (as of the last schema change): a failed write of an
     * open transaction may then have changed rows MacroDB knows only by their values
     * ({@link io.macrodb.engine.Engine#undoesFailedStatementsToASavepoint}).
     */
    public boolean hasTablesWithoutKey() { return tablesWithoutKey; }

    /**
     * Whether the primary has triggers of the application's own (as of the last schema change). Row
     * capture then reads final images back at commit instead of trusting the capture triggers'
     * images: an application trigger that changes the row again could fire around MacroDB's.
     */
    public boolean hasApplicationTriggers() { return applicationTriggers; }

    /**
     * Whether update transactions' changes go anywhere. A database of one replica and no log ships
     * to nobody: its transactions record only that they changed something, and the version still
     * counts the commit. (Decided by the configuration, not by the list of secondaries, which is
     * briefly empty while a replacement is being built, and that replacement must not miss a commit.)
     */
    public boolean shipsChanges() { return config.replicas() > 1 || config.durability() != null; }

    // ---------------------------------------------------------------- update transactions (CommitPath)

    /**
     * Called when an update transaction starts on the primary: waits for the lag bound, the writer
     * turn (statement mode) and the primary's admission, in that order. The transaction enters the
     * update gate through the turn before its first statement that may write.
     *
     * @return what the transaction holds; closed exactly when it ends (commit or rollback)
     */
    public UpdateTurn beginUpdate() throws SQLException { return commits.beginUpdate(); }

    /** Update transactions running on the primary now (begun, not yet ended). */
    public int updatesRunning() { return commits.updatesRunning(); }

    /**
     * Whether the primary has a processor to spare for a read-only transaction: it runs fewer transactions (update
     * transactions and reads) than its share of the processors, {@code processors / replicas} and at least 1, and its
     * admission has room. Racy by nature (a transaction may begin right after): a hint for routing, which a read taken
     * there on a wrong hint only costs the primary one more transaction. Never on an engine whose reads take locks
     * (Derby): a read there would take part in the writers' lock waits and deadlocks, which a secondary's readers are
     * kept out of.
     */
    public boolean primaryIdle() {
        if (config.engine().readsTakeLocks()) return false;
        Replica p = primary;
        if (commits.updatesRunning() + p.activeReaders() >= primaryShare) return false;
        Admission a = p.admission();
        return !a.isLimited() || a.running() < a.limit();
    }

    /** Update transactions that waited at their start for a secondary beyond {@code maxLag}. */
    public long throttledTransactions() { return commits.throttledTransactions(); }

    /** Time those waited, in all. */
    public long throttledNanos() { return commits.throttledNanos(); }

    /**
     * Commits the update transaction on {@code session} and, if it changed anything, appends its
     * record to the log.
     *
     * @param turn what the transaction holds since {@link #beginUpdate}
     * @return the new database version, or 0 if the transaction changed nothing
     */
    public long commit(Session session, PendingChanges changes, UpdateTurn turn) throws SQLException {
        return commits.commit(session, changes, turn);
    }

    /**
     * Runs a schema change (or another statement that every replica must run as text, such as
     * TRUNCATE) on the primary while no update transaction is open, then logs it. The caller has
     * ended its own transaction first.
     *
     * @param shipped null, or what to log after the statement: read on the primary right after it
     *                (rows it computed with a random or time function, which the secondaries take
     *                instead of computing their own). If that read fails, the statement is logged
     *                alone and every secondary leaves the rotation to be rebuilt from the primary.
     * @return what {@code call} returned, and the version of the logged change (0 if nothing was
     *         logged: a setting the secondaries keep their own value of)
     */
    public <T> SchemaChanged<T> schemaChange(Session session, String sql, Object[] params, boolean replicate, SqlCall<T> call,
                              SqlCall<List<Change>> shipped) throws SQLException {
        return commits.schemaChange(session, sql, params, replicate, call, shipped);
    }

    // ---------------------------------------------------------------- inspection

    /**
     * Returns once every commit that the primary engine has made is published. A read-only
     * transaction that ran on the primary calls this before it ends: it may have seen a commit in
     * the instant between the engine's commit and its publication, and a read the same client starts
     * afterwards on a secondary must not see less.
     */
    public void awaitPublished() { commits.awaitPublished(); }

    /**
     * {@link #awaitPublished()} for a read-only transaction that ran on {@code r}, the primary when it began: false if
     * what it read does not stand, because {@code r} failed with a commit whose outcome its engine took with it (the
     * commit was not logged, and the transaction may have read its rows); it then fails with 40001.
     */
    public boolean awaitPublished(Replica r) { return commits.awaitPublished(r); }

    // ---------------------------------------------------------------- durability

    /**
     * How the primary's rows are captured: the engine's log read after each commit ({@link CommitDecoding#status}), or
     * "triggers" (every engine's capture triggers, and PostgreSQL's {@code capture=triggers}); "none" for a database
     * of one replica without durability, which ships nothing.
     */
    public String captureStatus() {
        CommitDecoding d = decoding;
        if (d != null) return d.status();
        return shipsChanges() ? "triggers" : "none";
    }

    /** What start-up recovered and where the durable log stands ("none" without durability). */
    public String durabilityStatus() {
        Snapshots s = snapshots;
        return s == null ? "none" : s.status();
    }

    /**
     * Takes a snapshot now and lets older log segments go. From a secondary when one is active (its
     * applier holds still while the engine writes its script; the primary and the other secondaries
     * go on), otherwise from the primary with update transactions held back for the duration.
     *
     * @return the snapshot's version
     */
    public long snapshot() throws SQLException {
        if (durableLog == null) throw new SQLException("MacroDB: snapshots need durability=log:<dir>", io.macrodb.sql.SqlState.FEATURE_NOT_OFFERED.getState());
        // One snapshot at a time: two would share a replica's hold and race to the same files.
        return snapshots.take();
    }

    /** With durability: this database's hold on its directory, released at shutdown. */
    private io.macrodb.durable.DirectoryLock directoryLock;

    /** Versions, lag and apply counters of every replica, primary first. */
    public List<ReplicaStatus> status() {
        // Secondaries first: a secondary never passes the primary, so reading the primary last
        // keeps every reported lag >= 0 while versions move.
        // One snapshot of the membership: a promotion removes a secondary and adds one while this runs (reading the
        // list twice once failed a failover test with ArrayIndexOutOfBoundsException from replicaStatus())
        List<Replica> secs = new ArrayList<>(secondaries);
        Replica p = primary;
        long[] versions = new long[secs.size()];
        for (int i = 0; i < versions.length; i++) versions[i] = secs.get(i).version();
        long pv = version();
        List<ReplicaStatus> out = new ArrayList<>();
        out.add(new ReplicaStatus(p.index(), "primary", p.url(), p.state(), p.stateReason(), pv, 0, 0,
                p.activeReaders(), 0, 0, 0, 0, 0, 0, limitOf(p), p.admission().waited()));
        for (int i = 0; i < versions.length; i++) {
            Replica r = secs.get(i);
            Applier a = r.applier();
            out.add(new ReplicaStatus(r.index(), "secondary", r.url(), r.state(), r.stateReason(), versions[i],
                    pv - versions[i], r.stalenessNanos() / 1e6, r.activeReaders(),
                    a == null ? 0 : a.appliedRecords(), a == null ? 0 : a.groups(), a == null ? 0 : a.retries(),
                    a == null ? 0 : a.threads(), a == null ? 0 : a.parallelBatches(), a == null ? 0 : a.parallelRedos(),
                    limitOf(r), r.admission().waited()));
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
     * when no update transaction is running. Each active secondary is first awaited (10 s at most) up
     * to the primary's version: one that joined after {@link #awaitCaughtUp} returned (a secondary
     * added after a promotion, a rebuilt one) may still be applying the log.
     */
    public List<String> checksums() throws SQLException {
        List<String> out = new ArrayList<>();
        long target = version();
        out.add(checksum(primary));
        for (Replica r : secondaries) {
            if (r.isActive()) r.gate().await(target, TimeUnit.SECONDS.toNanos(10), r::isActive);
            out.add(r.isActive() ? checksum(r) : null);
        }
        return out;
    }

    private static String checksum(Replica r) throws SQLException {
        Session s = r.borrow();
        try {
            s.connection().setAutoCommit(true);
            return Checksums.of(s.connection());
        } catch (SQLException pooled) {
            // An idle session can be older than its server (a PostgreSQL replica's server stopped and started again,
            // then rebuilt: PostgresFaultTest once met such a session here). A session of its own answers for the replica.
            try (Connection c = r.open()) {
                c.setAutoCommit(true);
                return Checksums.of(c);
            } catch (SQLException fresh) {
                fresh.addSuppressed(pooled);
                throw fresh;
            }
        } finally {
            s.closeQuietly();
        }
    }

    // ---------------------------------------------------------------- life

    void shutdown() {
        if (closed) return;
        // a secondary that outlives the set is kept at the next open only if it holds what the primary holds: let it apply
        // what is logged (nothing new can commit: the last connection is gone), for a few seconds at most
        if (engine().secondariesOutliveTheSet() && primary.isActive()) awaitCaughtUp(Math.min(config.lockTimeoutMillis(), 5_000));
        closed = true;
        failover.stopMonitor();
        CommitDecoding dec = decoding;
        if (dec != null) dec.close();
        Snapshots snaps = snapshots;
        if (snaps != null) snaps.awaitBackground();
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
        DurableLog d = durableLog;
        if (d != null) {
            try {
                d.close();
            } catch (IOException e) {
                LOG.warning("MacroDB: closing the durable log in " + d.directory() + " failed: " + e.getMessage());
            }
        }
        primary.setState(ReplicaState.CLOSED, "replica set shut down");
        primary.closeIdle();
        if (d != null) {
            // The disk holds the database now: the in-memory primary goes, so that the next open recovers.
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
            try {
                engine().shutdownDatabase(catalog.connection());
            } catch (SQLException ignored) {
                // already gone
            } finally {
                CaptureContext.restore(prev);
            }
        }
        catalog.closeQuietly();
        if (config.url().inMemory()) engine().discard(primary.url());
        closeSecondaryDatabases();
        if (directoryLock != null) directoryLock.close(); // last: the directory now holds everything of this database
    }

    private void closeSecondaryDatabases() {
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        try {
            for (Replica r : secondaries) {
                try (Connection c = r.open()) {
                    engine().shutdownDatabase(c);
                } catch (SQLException ignored) {
                    // already gone
                }
                engine().discard(r.url());
            }
        } finally {
            CaptureContext.restore(prev);
        }
    }

    @Override public String toString() { return "replica set " + uniqueName + " over " + config.url().jdbcUrl(); }
}
