package io.macrodb.jdbc;

import io.macrodb.engine.CaptureContext;
import io.macrodb.capture.TransactionChanges;
import io.macrodb.log.Propagation;
import io.macrodb.replica.Admission;
import io.macrodb.replica.Replica;
import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.ReplicaSets;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.replica.Session;
import io.macrodb.route.Balancer;
import io.macrodb.route.ReadRouter;
import io.macrodb.route.ReadWaits;
import io.macrodb.route.ShapeLearning;
import io.macrodb.sql.SqlFingerprint;
import io.macrodb.sql.Classification;
import io.macrodb.sql.SqlClassifier;
import io.macrodb.sql.StatementKind;

import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Struct;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One client connection to a replicated database: a transaction state machine over the replicas.
 *
 * <ul>
 *   <li>An <b>update transaction</b> runs on the primary. Its changes are captured as it goes
 *       (rows by triggers, or statements); at commit they become one log record stamped with the
 *       next version.</li>
 *   <li>A <b>read-only transaction</b> (declared with {@link #setReadOnly(boolean)}, or an
 *       autocommit statement the SQL classifier proves to be a pure read) runs on a secondary that
 *       has applied every update the consistency level requires, or on the primary if none gets
 *       there within {@code readWait}.</li>
 *   <li>Schema changes run on the primary while no update transaction is open, and are replayed on
 *       every secondary in version order.</li>
 * </ul>
 *
 * The physical primary session is owned by this connection; secondary sessions are borrowed from
 * the replica's pool for a read-only transaction and given back when it and its result sets end.
 * Session settings (isolation, schema, holdability, session-level {@code SET}) are applied to a
 * session when it is first used for this connection.
 *
 * <p>Like the engines' own connections, a MacroConnection may be used by one thread at a time.
 */
public final class MacroConnection implements Connection {
    private enum Tx { NONE, READ, UPDATE }

    private static final Pattern SAVEPOINT_SQL = Pattern.compile(
            "(?is)\\s*(SAVEPOINT|RELEASE\\s+(?:SAVEPOINT\\s+)?|ROLLBACK\\s+(?:WORK\\s+)?TO\\s+(?:SAVEPOINT\\s+)?)\\s*(\"[^\"]+\"|\\w+)\\s*;?\\s*");
    private static final Pattern COMMIT_SQL = Pattern.compile("(?is)\\s*(COMMIT|END)(\\s+(WORK|TRANSACTION))?\\s*;?\\s*");
    private static final Pattern ROLLBACK_SQL = Pattern.compile("(?is)\\s*ROLLBACK(\\s+(WORK|TRANSACTION))?\\s*;?\\s*");
    private static final Pattern BEGIN_SQL = Pattern.compile("(?is)\\s*(BEGIN|START\\s+TRANSACTION)(\\s+(WORK|TRANSACTION))?\\s*;?\\s*");
    private static final Pattern AUTOCOMMIT_SQL = Pattern.compile("(?is)\\s*SET\\s+AUTOCOMMIT\\s*(=|TO)?\\s*(TRUE|FALSE|ON|OFF|1|0)\\s*;?\\s*");
    /** SET statements that change only the session they run in; every other SET changes the database. */
    private static final Pattern SESSION_SET = Pattern.compile("(?is)\\s*(USE\\s+\\S+\\s*;?\\s*|SET\\s+(SCHEMA|SCHEMA_SEARCH_PATH|PATH|LOCK_TIMEOUT"
            + "|QUERY_TIMEOUT|@|VARIABLE|TIME\\s+ZONE|TIME_ZONE|THROTTLE|LAZY_QUERY_EXECUTION|NON_KEYWORDS|BUILTIN_ALIAS_OVERRIDE"
            + "|SESSION|ROLE|CATALOG|MAXROWS|IGNORECASE|VARIABLE_BINARY|QUERY_STATISTICS)\\b.*)");
    /**
     * Database settings that secondaries keep their own values of: how they control transactions
     * (always MVCC, so readers never block the applier) and exclusive mode.
     */
    private static final Pattern PRIMARY_ONLY_SET = Pattern.compile(
            "(?is)\\s*SET\\s+(EXCLUSIVE|DATABASE\\s+TRANSACTION\\s+CONTROL|DATABASE\\s+TRANSACTION\\s+ROLLBACK)\\b.*");
    /** In row propagation secondaries also keep foreign-key checks off: rows arrive as final images. */
    private static final Pattern ROW_MODE_PRIMARY_ONLY_SET = Pattern.compile(
            "(?is)\\s*SET\\s+(REFERENTIAL_INTEGRITY|DATABASE\\s+REFERENTIAL\\s+INTEGRITY)\\b.*");
    private static final Pattern CREATE_TRIGGER = Pattern.compile("(?is)\\s*CREATE\\s+(OR\\s+REPLACE\\s+)?TRIGGER\\b.*");
    private static final Pattern SCHEMA_SQL = Pattern.compile("(?is)\\s*(SET\\s+SCHEMA|USE)\\s+(\"(?:[^\"]|\"\")+\"|[A-Za-z_][\\w$]*)\\s*;?\\s*");
    /** The name of the setting a session-level SET changes: a later SET of the same name replaces it. */
    private static final Pattern SETTING_NAME = Pattern.compile(
            "(?is)\\s*(SET\\s+(?:SESSION\\s+CHARACTERISTICS|SESSION\\s+AUTHORIZATION|SESSION\\s+\\w+|TIME\\s+ZONE|@\\w+|VARIABLE\\s+\\w+|\\w+))");
    private static final Map<io.macrodb.sql.Dialect, SqlClassifier> CLASSIFIERS = new ConcurrentHashMap<>();

    private final ReplicaSet db;
    private final MacroConfig config;
    private final ReadRouter router;
    private final SqlClassifier classifier;
    private final StatementModeWriter statementWriter;

    private Session primary;
    private boolean autoCommit = true;
    private boolean readOnly;
    private int isolation = TRANSACTION_READ_COMMITTED;
    private int holdability = ResultSet.HOLD_CURSORS_OVER_COMMIT;
    private String schema;
    /** The last session-level SET of each setting, in the order they were last set. */
    private final java.util.LinkedHashMap<String, String> sessionStatements = new java.util.LinkedHashMap<>();
    /** Secondary sessions that carry this connection's session-level SETs: kept, never pooled. */
    private final Map<Replica, Session> ownSessions = new IdentityHashMap<>();
    private Session.Settings settings;

    private Tx tx = Tx.NONE;
    private Session readSession;
    /**
     * The admissions this connection's open transaction holds: on its read replica, or on the
     * primary for an update transaction. Volatile: {@link #abort} hands them back from another thread.
     */
    private volatile Admission.Permit readPermit;
    private volatile Admission.Permit updatePermit;
    /** The READ transaction is an undeclared one that started on a secondary and may still write. */
    private boolean optimistic;
    /** Shape of the optimistic transaction's first statement (what the learning is keyed by). */
    private String txShape;
    private final List<TrackedRead> reads = new ArrayList<>();
    /** Rows an optimistic transaction may still remember ({@value #REMEMBERED_ROWS} per transaction). */
    private final int[] rowBudget = new int[1];
    private static final int REMEMBERED_ROWS = 10_000;
    private final ShapeLearning learning;
    private TransactionChanges changes;
    private long lastCommitVersion;
    /** The newest version this connection may have read: reads never go back before it. */
    private long seenVersion;
    private Replica lastReplica;
    private final Map<String, Savepoint> namedSavepoints = new HashMap<>();
    private int savepointGeneration;

    /** Borrowed secondary sessions and how many holders (the transaction, open statements) each has. */
    private final Map<Session, int[]> holds = new IdentityHashMap<>();
    private final Set<MacroStatement> statements = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private volatile boolean closed;
    private SQLWarning warnings;
    /** Time the current or last transaction waited for a secondary when it began ({@link #lastReadWaitNanos}). */
    private long readWaitNanos;
    private Map<String, Class<?>> typeMap;
    private final Properties clientInfo = new Properties();

    MacroConnection(ReplicaSet db, MacroConfig config) {
        this.db = db;
        this.config = config;
        this.router = new ReadRouter(db, config.consistency(),
                db.extension(Balancer.Shared.class, Balancer.Shared::new).get(config.balancerName()), config.readWaitMillis(),
                db.extension(ReadWaits.class, ReadWaits::new));
        this.classifier = CLASSIFIERS.computeIfAbsent(db.engine().dialect(), SqlClassifier::new);
        this.statementWriter = db.propagation() == Propagation.STATEMENT ? new StatementModeWriter(this, db.engine().dialect()) : null;
        this.schema = db.defaultSchema();
        this.learning = db.extension(ShapeLearning.class, ShapeLearning::new);
    }

    // ================================================================= MacroDB's own API

    /** The replica set behind this connection (for inspection). */
    public ReplicaSet replicaSet() { return db; }

    /** Versions, lag, state and apply counters of every replica, primary first. */
    public List<ReplicaStatus> replicaStatus() { return db.status(); }

    /**
     * What routing has learned about transactions that never declare themselves read-only, per
     * shape of their first statement: how many started on a secondary, moved to the primary, failed
     * there because what they read had changed, and whether the shape now goes to the primary first.
     */
    public List<ShapeLearning.ShapeStats> routingStats() { return learning.stats(); }

    /**
     * How the database's read-only transactions (every connection's, since it opened) were routed
     * and how long they waited for a secondary to catch up; subtract two snapshots for a window.
     */
    public ReadWaits.Stats readWaits() { return db.extension(ReadWaits.class, ReadWaits::new).snapshot(); }

    /**
     * How long this connection's current or last transaction waited, when it began, for a secondary
     * to catch up with the versions it must see: 0 if it ran at once, or was not routed as a read.
     */
    public long lastReadWaitNanos() { return readWaitNanos; }

    /** Version of this connection's last committed update transaction (0 if none). */
    public long lastCommitVersion() { return lastCommitVersion; }

    /** The options this connection was opened with. */
    public MacroConfig config() { return config; }

    /** Where the last statement of this connection ran (also after an autocommit statement ended); null before the first. */
    public Replica lastReplica() { return lastReplica; }

    /** Where the current transaction runs: null if none is open. */
    public Replica currentReplica() {
        return switch (tx) {
            case NONE -> null;
            case READ -> readSession.replica();
            case UPDATE -> db.primary();
        };
    }

    // ================================================================= routing and execution (used by statements)

    Classification classify(String sql) { return classifier.classify(sql); }

    /** Where a statement of the given classification runs, with the transaction it starts if none is open. */
    record Target(Session session, boolean update) {}

    /**
     * Chooses the session for a data statement (not DDL, SESSION or TRANSACTION kinds) and begins a
     * transaction if none is open.
     *
     * @param forceWrite the statement must run as an update (updatable result set, a write in disguise)
     */
    Target target(Classification c, String sql, boolean forceWrite, boolean trackable) throws SQLException {
        checkOpen();
        boolean write = forceWrite || !isReadKind(c);
        switch (tx) {
            case UPDATE:
                return new Target(primary, true);
            case READ:
                if (!readSession.isPrimary() && !readSession.replica().isActive()) {
                    Replica gone = readSession.replica();
                    rollbackQuietly();
                    throw SqlStates.retryable("the secondary this read-only transaction ran on left the rotation ("
                            + gone.stateReason() + "); nothing was changed, retry it", null);
                }
                if (optimistic && (write || !c.pureRead() || !trackable)) {
                    moveToPrimary();
                    return new Target(primary, true);
                }
                if (write) throw readOnlyViolation(sql);
                return new Target(readSession, false);
            default:
                break;
        }
        readWaitNanos = 0; // a new transaction begins here
        if (readOnly) {
            if (write) throw readOnlyViolation(sql);
            beginRead();
            return new Target(readSession, false);
        }
        if (c.pureRead() && !forceWrite) {
            if (autoCommit) {
                beginRead();
                return new Target(readSession, false);
            }
            if (config.optimisticReads() && trackable && !db.secondaries().isEmpty()) {
                String shape = SqlFingerprint.of(sql);
                if (learning.startOptimistic(shape)) {
                    beginRead();
                    optimistic = true;
                    txShape = shape;
                    rowBudget[0] = REMEMBERED_ROWS;
                    return new Target(readSession, false);
                }
            }
        }
        beginUpdate();
        return new Target(primary, true);
    }

    /** Whether reads of the current transaction are being remembered for a possible move to the primary. */
    boolean tracking() {
        return tx == Tx.READ && optimistic;
    }

    /** Remembers a read of the optimistic transaction, shown to the application through {@code rs}. */
    void track(String sql, Bindings bindings, int holdability, long maxRows, int maxFieldSize, MacroResultSet rs) {
        TrackedRead read = new TrackedRead(sql, bindings, holdability, maxRows, maxFieldSize);
        reads.add(read);
        rs.track(read, rowBudget);
    }

    /**
     * Moves the optimistic transaction to the primary because it is about to write: starts an update
     * transaction there, runs every read again and compares it with what the application was shown.
     * Same results: the transaction goes on on the primary as if it had run there from the start
     * (open result sets read on from the primary). Different results: it fails with 40001 and
     * nothing has changed anywhere.
     */
    private void moveToPrimary() throws SQLException {
        Session secondary = readSession;
        String shape = txShape;
        List<TrackedRead> todo = new ArrayList<>(reads);
        endRead(false);
        beginUpdate();
        String conflict = null;
        try {
            for (TrackedRead r : todo) {
                if (r.tooLarge()) {
                    learning.tooLarge(shape);
                    conflict = "it read more than " + REMEMBERED_ROWS + " rows before its first write, too many to check"
                            + " again on the primary (transactions starting like this one now start on the primary)";
                    break;
                }
                if (!revalidate(r)) {
                    conflict = "data it had read changed before its first write: " + SqlStates.abbreviate(r.sql());
                    break;
                }
            }
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly();
            throw e;
        }
        if (conflict != null) {
            learning.conflicted(shape);
            rollbackQuietly();
            throw SqlStates.retryable("this transaction started on a secondary (it had not called setReadOnly) and "
                    + conflict + "; nothing was changed, retry it", null);
        }
        learning.promoted(shape);
    }

    /** Runs a remembered read on the primary; true if it shows what the application saw. */
    private boolean revalidate(TrackedRead r) throws SQLException {
        PreparedStatement ps = primary.connection().prepareStatement(r.sql(), ResultSet.TYPE_FORWARD_ONLY,
                ResultSet.CONCUR_READ_ONLY, r.holdability());
        boolean keep = false;
        try {
            if (r.bindings() != null) r.bindings().applyTo(ps, true);
            r.applyOptions(ps);
            ResultSet rs = guarded(primary, ps, ps::executeQuery);
            if (!r.sameAs(rs)) return false;
            MacroResultSet open = r.openResult();
            if (open != null) {
                open.switchTo(rs, ps);
                keep = true;
            }
            return true;
        } finally {
            if (!keep) ps.close();
        }
    }

    private static boolean isReadKind(Classification c) {
        return c.kind() == StatementKind.READ;
    }

    private SQLException readOnlyViolation(String sql) {
        return SqlStates.readOnly(sql);
    }

    /** Body of a statement execution on a physical session. */
    @FunctionalInterface
    interface Exec<T> {
        T run(Session s) throws SQLException;
    }

    /**
     * Runs {@code body} on the target with MacroDB's capture context. A failed statement's captured
     * changes are cut back (the engines roll a failed statement back); an engine lock timeout or
     * deadlock rolls the whole transaction back and is reported as SQLState 40001.
     */
    <T> T run(Target t, Exec<T> body) throws SQLException {
        CaptureContext.takeRefusal(); // forget a refusal some earlier, unrelated failure left behind
        lastReplica = t.session().replica();
        if (t.update()) {
            int mark = changes.mark();
            CaptureContext prev = CaptureContext.enter(changes);
            T result;
            try {
                result = body.run(t.session());
            } catch (SQLException | RuntimeException e) {
                // Statement mode must forget the failed statement. Row mode keeps what the triggers
                // saw: a key whose change the engine undid ships its current image (or nothing),
                // which is right whatever the engine rolled back (all of it, or, as in a failed
                // batch, only part).
                if (statementMode()) changes.rollbackTo(mark);
                else changes.statementFailed();
                SQLException failure = afterFailure(e);
                if (autoCommit && tx == Tx.UPDATE) rollbackQuietly(); // the statement was the transaction
                throw failure;
            } finally {
                CaptureContext.restore(prev);
            }
            if (autoCommit) commit();
            return result;
        }
        CaptureContext prev = CaptureContext.enter(CaptureContext.READ_ONLY);
        try {
            return body.run(t.session());
        } catch (SQLException | RuntimeException e) {
            throw afterFailure(e);
        } finally {
            CaptureContext.restore(prev);
            if (autoCommit && tx == Tx.READ) endRead(true);
        }
    }

    /**
     * Runs one physical execution; on an engine without lock timeouts (HSQLDB) every statement is
     * cancelled when it outlives {@code lockTimeout}: reads and schema changes too, because there a
     * schema change waits for every open transaction while a new statement waits for the schema
     * change, a deadlock the engine does not break.
     */
    <T> T guarded(Session s, Statement physical, LockWaitGuard.Call<T> call) throws SQLException {
        if (db.engine().boundsLockWaitsByCancel()) return LockWaitGuard.run(physical, config.lockTimeoutMillis(), call);
        return call.run();
    }

    /**
     * What an error from reading a result becomes: if the result came from a secondary whose engine
     * is gone, the secondary leaves the rotation, the transaction ends, and the error is 40001.
     */
    SQLException resultFailure(Replica source, SQLException e) {
        if (source == null || source.isPrimary() || !db.replicaFailed(source, e, "a reader")) return e;
        if (tx == Tx.READ && readSession != null && readSession.replica() == source) rollbackQuietly();
        return SqlStates.retryable("the secondary this result was read from left the rotation (" + source.stateReason()
                + "); nothing was changed, retry the transaction", e);
    }

    /** Translates an execution failure; retryable engine conditions end the transaction. */
    private SQLException afterFailure(Exception e) throws SQLException {
        SQLException refusal = CaptureContext.takeRefusal();
        if (refusal != null) {
            if (e != refusal) refusal.setNextException(e instanceof SQLException s ? s : new SQLException(e));
            return refusal;
        }
        SQLException se = e instanceof SQLException s ? s : unwrapCapture(e);
        if (tx == Tx.READ && !readSession.isPrimary() && db.replicaFailed(readSession.replica(), se, "a reader")) {
            Replica gone = readSession.replica();
            rollbackQuietly();
            return SqlStates.retryable("the secondary this read-only transaction ran on left the rotation ("
                    + gone.stateReason() + "); nothing was changed, retry it", se);
        }
        Session onPrimary = tx == Tx.UPDATE ? primary : tx == Tx.READ && readSession.isPrimary() ? readSession : null;
        if (onPrimary != null && db.replicaFailed(onPrimary.replica(), se, "a session")) {
            onPrimary.markBroken();
            rollbackQuietly();
            return SqlStates.retryable("the primary failed during this transaction (" + onPrimary.replica().stateReason()
                    + "); it was not committed, retry it once a secondary has taken over", se);
        }
        if (db.engine().isRetryable(se) && tx != Tx.NONE) {
            rollbackQuietly();
            if (se.getSQLState() != null && se.getSQLState().equals(SqlStates.SERIALIZATION_FAILURE)) return se;
            return SqlStates.retryable("the transaction was rolled back because " + se.getMessage()
                    + "; retry it (lockTimeout bounds lock waits)", se);
        }
        return se;
    }

    private static SQLException unwrapCapture(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) return s;
        }
        if (e instanceof RuntimeException re) throw re;
        return new SQLException(e.getMessage(), "XX000", e);
    }

    /** A write that does not come from a statement of ours: an updatable result set's row change. */
    @FunctionalInterface
    interface SqlAction {
        void run() throws SQLException;
    }

    void captureWrite(SqlAction action) throws SQLException {
        checkOpen();
        if (statementMode()) {
            throw SqlStates.unsupported("statement propagation replays SQL, and a change made through an updatable result set"
                    + " has none; use an UPDATE statement, or connect with propagation=row");
        }
        if (tx == Tx.READ && optimistic) moveToPrimary();
        if (readOnly || tx == Tx.READ) throw readOnlyViolation("(a change through an updatable result set)");
        if (tx == Tx.NONE) beginUpdate();
        run(new Target(primary, true), s -> {
            action.run();
            return null;
        });
    }

    /** Runs a procedure call's execution as (part of) an update transaction on the primary. */
    <T> T call(String sql, Exec<T> body) throws SQLException {
        Target t = target(classify(sql), sql, true, false);
        changes.noteSequences(); // a procedure may draw from any sequence
        return run(t, body);
    }

    /** Called before an update-transaction statement runs: notes sequence use for the commit record. */
    void noteStatement(String sql) {
        if (changes != null && io.macrodb.sql.NonDeterminism.drawsFromSequence(sql)) changes.noteSequences();
    }

    /** Records a statement-mode write so that the secondaries replay it. */
    StatementModeWriter statementWriter() { return statementWriter; }

    TransactionChanges changes() { return changes; }

    boolean statementMode() { return statementWriter != null; }

    /**
     * Runs a schema change: ends this connection's transaction (the engines commit before DDL
     * anyway), then runs it on the primary while no update transaction is open, and logs it.
     */
    <T> T schemaChange(String sql, Object[] params, Exec<T> body) throws SQLException {
        checkOpen();
        if (readOnly) throw readOnlyViolation(sql);
        if (tx == Tx.UPDATE) commit();
        else if (tx == Tx.READ) endRead(true);
        Session p = primarySession();
        if (db.config().durability() != null && !statementMode() && CREATE_TRIGGER.matcher(sql).matches()) {
            throw SqlStates.unsupported("with row propagation and durability=log, recovery replays captured rows, and a trigger"
                    + " of the application would fire again on them; triggers need propagation=statement with durability=log");
        }
        long[] version = new long[1];
        boolean replicate = !(PRIMARY_ONLY_SET.matcher(sql).matches()
                || !statementMode() && ROW_MODE_PRIMARY_ONLY_SET.matcher(sql).matches());
        T result = db.schemaChange(p, sql, params, replicate, () -> body.run(p), version);
        if (version[0] > 0) lastCommitVersion = version[0];
        return result;
    }

    /** Statements that control the transaction: mapped onto this connection's methods. */
    int transactionControl(String sql) throws SQLException {
        checkOpen();
        Matcher m;
        if (COMMIT_SQL.matcher(sql).matches()) {
            commit();
        } else if (ROLLBACK_SQL.matcher(sql).matches()) {
            rollback();
        } else if (BEGIN_SQL.matcher(sql).matches()) {
            if (tx == Tx.UPDATE || tx == Tx.READ) commit();
            setAutoCommit(false);
        } else if (AUTOCOMMIT_SQL.matcher(sql).matches()) {
            String v = AUTOCOMMIT_SQL.matcher(sql).replaceFirst("$2").toUpperCase(Locale.ROOT);
            setAutoCommit(v.equals("TRUE") || v.equals("ON") || v.equals("1"));
        } else if ((m = SAVEPOINT_SQL.matcher(sql)).matches()) {
            String verb = m.group(1).trim().toUpperCase(Locale.ROOT);
            String name = m.group(2);
            if (verb.equals("SAVEPOINT")) {
                namedSavepoints.put(name, setSavepoint(name));
            } else {
                Savepoint sp = namedSavepoints.get(name);
                if (sp == null) {
                    throw new SQLException("MacroDB: no savepoint named " + name + " in this transaction", SqlStates.INVALID_SAVEPOINT);
                }
                if (verb.startsWith("RELEASE")) {
                    releaseSavepoint(sp);
                    namedSavepoints.remove(name);
                } else {
                    rollback(sp);
                }
            }
        } else {
            throw SqlStates.unsupported("this transaction statement is not supported through MacroDB: "
                    + SqlStates.abbreviate(sql) + "; use the Connection methods (commit, rollback, setSavepoint,"
                    + " setAutoCommit, setTransactionIsolation)");
        }
        return 0;
    }

    /** Whether a SET statement changes only the session (true) or the database (false). */
    static boolean isSessionSet(String sql) {
        return SESSION_SET.matcher(sql).matches();
    }

    /**
     * The {@code SET TIME ZONE} statement in force in this connection's sessions, or null if it has
     * none: statement mode replays writes under it, since it decides what a local timestamp means
     * in a WITH TIME ZONE column.
     */
    String timeZoneSetting() {
        String zone = null;
        for (Map.Entry<String, String> e : sessionStatements.entrySet()) {
            if (e.getKey().equals("SET TIME ZONE") || e.getKey().equals("SET TIME_ZONE")) zone = e.getValue(); // the later wins
        }
        return zone;
    }

    static boolean isAutoCommitSet(String sql) {
        return AUTOCOMMIT_SQL.matcher(sql).matches();
    }

    /**
     * A session-level SET: runs on the primary session now and on every secondary session this
     * connection uses from now on (such sessions are then kept for this connection, not pooled).
     */
    boolean sessionStatement(String sql) throws SQLException {
        checkOpen();
        Matcher schemaSet = SCHEMA_SQL.matcher(sql);
        if (schemaSet.matches()) {
            String name = schemaSet.group(2);
            setSchema(name.startsWith("\"") ? name.substring(1, name.length() - 1).replace("\"\"", "\"")
                    : name.toUpperCase(Locale.ROOT));
            return false;
        }
        Session p = primarySession();
        boolean result;
        try (Statement s = p.connection().createStatement()) {
            result = s.execute(sql);
        }
        Matcher k = SETTING_NAME.matcher(sql);
        String setting = k.lookingAt() ? k.group(1).toUpperCase(Locale.ROOT).replaceAll("\\s+", " ") : sql;
        p.noteSessionStatement(setting, sql);
        sessionStatements.remove(setting);
        sessionStatements.put(setting, sql);
        settings = null;
        if (tx == Tx.READ && !readSession.isPrimary()) readSession.sync(settings(), autoCommit);
        return result;
    }

    // ================================================================= transactions

    private void beginRead() throws SQLException {
        for (int attempt = 1; ; attempt++) {
            ReadRouter.Choice choice = router.route(Math.max(lastCommitVersion, seenVersion));
            Replica r = choice.replica();
            readWaitNanos += router.lastWaitNanos();
            Session s;
            if (r.isPrimary()) {
                s = primarySession();
            } else {
                s = ownSessions.get(r);
                try {
                    if (s == null) s = r.borrow();
                    s.sync(settings(), autoCommit);
                } catch (SQLException e) {
                    choice.permit().close();
                    ownSessions.remove(r);
                    if (s != null) {
                        s.markBroken();
                        r.release(s);
                    }
                    // Nothing ran yet: if the secondary is out of service, the transaction moves, untouched, to another.
                    if (attempt >= 3 || !db.replicaFailed(r, e, "a reader starting a session")) throw e;
                    continue;
                }
                if (s.isDedicated()) ownSessions.put(r, s);
                hold(s);
            }
            r.readerStarted();
            readPermit = choice.permit();
            readSession = s;
            tx = Tx.READ;
            return;
        }
    }

    /** Ends a read-only transaction: commit releases its snapshot, then the session may go back to its pool. */
    private void endRead(boolean commit) throws SQLException {
        Session s = readSession;
        try {
            endReadSession(s, commit);
        } finally {
            // What this transaction read is now "seen": a later read of this connection must not see
            // less (monotonic reads). Waiting for publication makes the replica's version cover it. The
            // engine transaction ends first: an applier running DDL may be waiting for it to end.
            if (s.isPrimary()) {
                db.awaitPublished();
                seenVersion = Math.max(seenVersion, db.version());
            } else {
                s.replica().awaitPublished();
                seenVersion = Math.max(seenVersion, s.replica().version());
            }
        }
    }

    private void endReadSession(Session s, boolean commit) throws SQLException {
        readSession = null;
        tx = Tx.NONE;
        optimistic = false;
        txShape = null;
        reads.clear();
        s.replica().readerEnded();
        Admission.Permit p = readPermit;
        readPermit = null;
        if (p != null) p.close();
        boolean ended = false;
        try {
            if (!s.connection().getAutoCommit()) {
                if (commit) s.connection().commit();
                else s.connection().rollback();
            }
            ended = true;
        } catch (SQLException e) {
            // Ending a read-only transaction loses nothing: what it read stands even if the secondary
            // has gone since. Its engine is gone, so it leaves the rotation; the application carries on.
            if (s.isPrimary() || !db.replicaFailed(s.replica(), e, "a reader ending its transaction")) throw e;
            s.markBroken();
        } finally {
            if (!s.isPrimary()) unhold(s, ended);
        }
    }

    private void beginUpdate() throws SQLException {
        primarySession(); // opened and synced before the transaction takes its turn
        updatePermit = db.beginUpdate();
        changes = new TransactionChanges(db.propagation(), db::shape, !db.hasApplicationTriggers(), db.shipsChanges());
        tx = Tx.UPDATE;
        savepointGeneration++;
        namedSavepoints.clear();
    }

    private void endUpdate() {
        changes = null;
        tx = Tx.NONE;
        namedSavepoints.clear();
        savepointGeneration++;
        Admission.Permit p = updatePermit;
        updatePermit = null;
        db.endUpdate(p);
    }

    /**
     * The owned primary session, synced to this connection's settings. Its physical autocommit is
     * always off: MacroDB commits it itself, inside the commit critical section.
     */
    Session primarySession() throws SQLException {
        if (primary != null && primary.replica() != db.primary()) {
            // a secondary was promoted: the old primary's session is of no use any more
            primary.markBroken();
            primary.replica().release(primary);
            primary = null;
        }
        if (primary == null) primary = db.primary().borrow();
        primary.sync(settings(), false);
        return primary;
    }

    private Session.Settings settings() {
        if (settings == null) {
            settings = new Session.Settings(isolation, schema, holdability, java.util.Collections.unmodifiableMap(
                    new java.util.LinkedHashMap<>(sessionStatements)));
        }
        return settings;
    }

    void hold(Session s) {
        holds.computeIfAbsent(s, k -> new int[1])[0]++;
    }

    void unhold(Session s) { unhold(s, false); }

    /** @param ended the session's engine transaction was just committed or rolled back: nothing to roll back */
    private void unhold(Session s, boolean ended) {
        int[] n = holds.get(s);
        if (n == null) return;
        if (--n[0] <= 0) {
            holds.remove(s);
            try {
                if (!ended && !s.connection().getAutoCommit()) s.connection().rollback();
            } catch (SQLException e) {
                s.markBroken();
            }
            if (ownSessions.get(s.replica()) != s || s.isBroken()) {
                ownSessions.remove(s.replica(), s);
                s.replica().release(s);
            }
        }
    }

    /** Statement-level commit of the update transaction, shared by commit() and autocommit. */
    @Override public void commit() throws SQLException {
        checkOpen();
        switch (tx) {
            case NONE -> { }
            case READ -> endRead(true);
            case UPDATE -> {
                try {
                    long v = db.commit(primary, changes);
                    if (v > 0) lastCommitVersion = v;
                } catch (SQLException e) {
                    try {
                        primary.connection().rollback();
                    } catch (SQLException ignored) {
                        // the commit failure is what the caller needs
                    }
                    if (db.replicaFailed(primary.replica(), e, "a commit")) {
                        // The primary died before the commit: the log, from which its successor is built,
                        // does not have this transaction (its version was published empty), so it was not committed.
                        primary.markBroken();
                        throw SqlStates.retryable("the primary failed before this transaction committed ("
                                + primary.replica().stateReason() + "); nothing was committed, retry it", e);
                    }
                    throw db.engine().isRetryable(e) ? SqlStates.retryable("the commit failed: " + e.getMessage()
                            + "; the transaction was rolled back, retry it", e) : e;
                } finally {
                    endUpdate();
                }
            }
        }
    }

    @Override public void rollback() throws SQLException {
        checkOpen();
        switch (tx) {
            case NONE -> { }
            case READ -> endRead(false);
            case UPDATE -> {
                try {
                    primary.connection().rollback();
                } finally {
                    endUpdate();
                }
            }
        }
    }

    private void rollbackQuietly() {
        try {
            rollback();
        } catch (SQLException ignored) {
            // the failure that made us roll back is what the caller sees
        }
    }

    @Override public void setAutoCommit(boolean on) throws SQLException {
        checkOpen();
        if (on == autoCommit) return;
        if (on && tx != Tx.NONE) commit(); // JDBC: switching autocommit on commits the open transaction
        autoCommit = on;
    }

    @Override public boolean getAutoCommit() throws SQLException {
        checkOpen();
        return autoCommit;
    }

    @Override public void setReadOnly(boolean ro) throws SQLException {
        checkOpen();
        if (tx != Tx.NONE && ro != readOnly) {
            throw new SQLException("MacroDB: setReadOnly cannot change a transaction in progress; commit or roll back first",
                    SqlStates.INVALID_TRANSACTION_STATE);
        }
        readOnly = ro;
    }

    @Override public boolean isReadOnly() throws SQLException {
        checkOpen();
        return readOnly;
    }

    @Override public void setTransactionIsolation(int level) throws SQLException {
        checkOpen();
        if (level != TRANSACTION_READ_UNCOMMITTED && level != TRANSACTION_READ_COMMITTED
                && level != TRANSACTION_REPEATABLE_READ && level != TRANSACTION_SERIALIZABLE) {
            throw new SQLException("MacroDB: unknown isolation level " + level + "; use one of the Connection.TRANSACTION_* constants",
                    SqlStates.INVALID_ARGUMENT);
        }
        if (tx != Tx.NONE) {
            throw new SQLException("MacroDB: the isolation level cannot change inside a transaction; commit or roll back first",
                    SqlStates.INVALID_TRANSACTION_STATE);
        }
        isolation = level;
        settings = null;
    }

    @Override public int getTransactionIsolation() throws SQLException {
        checkOpen();
        return isolation;
    }

    // ================================================================= savepoints

    @Override public Savepoint setSavepoint() throws SQLException {
        return setSavepoint(null);
    }

    @Override public Savepoint setSavepoint(String name) throws SQLException {
        checkOpen();
        if (autoCommit) {
            throw new SQLException("MacroDB: savepoints need a transaction; call setAutoCommit(false) first", SqlStates.INVALID_TRANSACTION_STATE);
        }
        if (tx == Tx.NONE) {
            if (readOnly) beginRead();
            else beginUpdate();
        } else if (tx == Tx.READ && optimistic) {
            moveToPrimary(); // a savepoint announces writes to come
        }
        Session s = tx == Tx.UPDATE ? primary : readSession;
        Savepoint phys = name == null ? s.connection().setSavepoint() : s.connection().setSavepoint(name);
        return new MacroSavepoint(this, phys, tx == Tx.UPDATE ? changes.mark() : 0, savepointGeneration, name);
    }

    private MacroSavepoint own(Savepoint sp) throws SQLException {
        if (!(sp instanceof MacroSavepoint m) || m.owner() != this || m.generation() != savepointGeneration || tx == Tx.NONE) {
            throw new SQLException("MacroDB: this savepoint does not belong to the current transaction of this connection",
                    SqlStates.INVALID_SAVEPOINT);
        }
        return m;
    }

    @Override public void rollback(Savepoint savepoint) throws SQLException {
        checkOpen();
        MacroSavepoint m = own(savepoint);
        Session s = tx == Tx.UPDATE ? primary : readSession;
        s.connection().rollback(m.physical());
        if (tx == Tx.UPDATE) changes.rollbackTo(m.mark());
    }

    @Override public void releaseSavepoint(Savepoint savepoint) throws SQLException {
        checkOpen();
        MacroSavepoint m = own(savepoint);
        Session s = tx == Tx.UPDATE ? primary : readSession;
        s.connection().releaseSavepoint(m.physical());
    }

    // ================================================================= statements

    void register(MacroStatement s) { statements.add(s); }

    void unregister(MacroStatement s) { statements.remove(s); }

    private static void checkResultSetType(int type, int concurrency, int holdability) throws SQLException {
        if (type != ResultSet.TYPE_FORWARD_ONLY && type != ResultSet.TYPE_SCROLL_INSENSITIVE && type != ResultSet.TYPE_SCROLL_SENSITIVE) {
            throw new SQLException("MacroDB: unknown result set type " + type, SqlStates.INVALID_ARGUMENT);
        }
        if (concurrency != ResultSet.CONCUR_READ_ONLY && concurrency != ResultSet.CONCUR_UPDATABLE) {
            throw new SQLException("MacroDB: unknown result set concurrency " + concurrency, SqlStates.INVALID_ARGUMENT);
        }
        if (holdability != ResultSet.HOLD_CURSORS_OVER_COMMIT && holdability != ResultSet.CLOSE_CURSORS_AT_COMMIT) {
            throw new SQLException("MacroDB: unknown result set holdability " + holdability, SqlStates.INVALID_ARGUMENT);
        }
    }

    @Override public Statement createStatement() throws SQLException {
        return createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
    }

    @Override public Statement createStatement(int type, int concurrency) throws SQLException {
        return createStatement(type, concurrency, getHoldability());
    }

    @Override public Statement createStatement(int type, int concurrency, int hold) throws SQLException {
        checkOpen();
        checkResultSetType(type, concurrency, hold);
        return new MacroStatement(this, type, concurrency, hold);
    }

    @Override public PreparedStatement prepareStatement(String sql) throws SQLException {
        return prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
    }

    @Override public PreparedStatement prepareStatement(String sql, int type, int concurrency) throws SQLException {
        return prepareStatement(sql, type, concurrency, getHoldability());
    }

    @Override public PreparedStatement prepareStatement(String sql, int type, int concurrency, int hold) throws SQLException {
        checkOpen();
        checkResultSetType(type, concurrency, hold);
        return new MacroPreparedStatement(this, sql, type, concurrency, hold, GeneratedKeys.NONE);
    }

    @Override public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        checkOpen();
        if (autoGeneratedKeys != Statement.RETURN_GENERATED_KEYS && autoGeneratedKeys != Statement.NO_GENERATED_KEYS) {
            throw new SQLException("MacroDB: autoGeneratedKeys must be Statement.RETURN_GENERATED_KEYS or NO_GENERATED_KEYS",
                    SqlStates.INVALID_ARGUMENT);
        }
        return new MacroPreparedStatement(this, sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, getHoldability(),
                autoGeneratedKeys == Statement.RETURN_GENERATED_KEYS ? GeneratedKeys.ALL : GeneratedKeys.NONE);
    }

    @Override public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        checkOpen();
        return new MacroPreparedStatement(this, sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, getHoldability(),
                GeneratedKeys.of(columnIndexes));
    }

    @Override public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        checkOpen();
        return new MacroPreparedStatement(this, sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY, getHoldability(),
                GeneratedKeys.of(columnNames));
    }

    @Override public CallableStatement prepareCall(String sql) throws SQLException {
        return prepareCall(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
    }

    @Override public CallableStatement prepareCall(String sql, int type, int concurrency) throws SQLException {
        return prepareCall(sql, type, concurrency, getHoldability());
    }

    @Override public CallableStatement prepareCall(String sql, int type, int concurrency, int hold) throws SQLException {
        checkOpen();
        checkResultSetType(type, concurrency, hold);
        if (statementMode()) {
            throw SqlStates.unsupported("a procedure call may do anything, so statement propagation cannot replay it"
                    + " safely; connect with propagation=row to use CallableStatement");
        }
        return new MacroCallableStatement(this, sql, type, concurrency, hold);
    }

    @Override public String nativeSQL(String sql) throws SQLException {
        checkOpen();
        return primarySession().connection().nativeSQL(sql);
    }

    // ================================================================= metadata and settings

    @Override public DatabaseMetaData getMetaData() throws SQLException {
        checkOpen();
        return new MacroDatabaseMetaData(this, primarySession().connection().getMetaData());
    }

    @Override public void setCatalog(String catalog) throws SQLException {
        checkOpen();
        // The engines have one catalog per database; like them, MacroDB ignores a request to switch.
    }

    @Override public String getCatalog() throws SQLException {
        checkOpen();
        return primarySession().connection().getCatalog();
    }

    @Override public void setSchema(String s) throws SQLException {
        checkOpen();
        primarySession().connection().setSchema(s); // validates the name now, as the engine would
        schema = s;
        settings = null;
        if (tx == Tx.READ && !readSession.isPrimary()) readSession.sync(settings(), autoCommit);
    }

    @Override public String getSchema() throws SQLException {
        checkOpen();
        return primarySession().connection().getSchema();
    }

    @Override public void setHoldability(int h) throws SQLException {
        checkOpen();
        if (h != ResultSet.HOLD_CURSORS_OVER_COMMIT && h != ResultSet.CLOSE_CURSORS_AT_COMMIT) {
            throw new SQLException("MacroDB: unknown holdability " + h, SqlStates.INVALID_ARGUMENT);
        }
        holdability = h;
        settings = null;
    }

    @Override public int getHoldability() throws SQLException {
        checkOpen();
        return holdability;
    }

    @Override public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        return warnings;
    }

    @Override public void clearWarnings() throws SQLException {
        checkOpen();
        warnings = null;
    }

    @Override public Map<String, Class<?>> getTypeMap() throws SQLException {
        checkOpen();
        return typeMap == null ? new HashMap<>() : typeMap;
    }

    @Override public void setTypeMap(Map<String, Class<?>> map) throws SQLException {
        checkOpen();
        typeMap = map;
    }

    @Override public Clob createClob() throws SQLException {
        checkOpen();
        return primarySession().connection().createClob();
    }

    @Override public Blob createBlob() throws SQLException {
        checkOpen();
        return primarySession().connection().createBlob();
    }

    @Override public NClob createNClob() throws SQLException {
        checkOpen();
        return primarySession().connection().createNClob();
    }

    @Override public SQLXML createSQLXML() throws SQLException {
        checkOpen();
        return primarySession().connection().createSQLXML();
    }

    @Override public Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        checkOpen();
        return primarySession().connection().createArrayOf(typeName, elements);
    }

    @Override public Struct createStruct(String typeName, Object[] attributes) throws SQLException {
        checkOpen();
        return primarySession().connection().createStruct(typeName, attributes);
    }

    @Override public boolean isValid(int timeout) throws SQLException {
        if (timeout < 0) throw new SQLException("MacroDB: timeout must not be negative", SqlStates.INVALID_ARGUMENT);
        return !closed && db.primary().isActive();
    }

    @Override public void setClientInfo(String name, String value) throws SQLClientInfoException {
        if (closed) throw new SQLClientInfoException("MacroDB: the connection is closed", SqlStates.CONNECTION_DOES_NOT_EXIST, 0, Map.of());
        if (value == null) clientInfo.remove(name);
        else clientInfo.setProperty(name, value);
    }

    @Override public void setClientInfo(Properties properties) throws SQLClientInfoException {
        if (closed) throw new SQLClientInfoException("MacroDB: the connection is closed", SqlStates.CONNECTION_DOES_NOT_EXIST, 0, Map.of());
        clientInfo.clear();
        if (properties != null) clientInfo.putAll(properties);
    }

    @Override public String getClientInfo(String name) throws SQLException {
        checkOpen();
        return clientInfo.getProperty(name);
    }

    @Override public Properties getClientInfo() throws SQLException {
        checkOpen();
        Properties p = new Properties();
        p.putAll(clientInfo);
        return p;
    }

    /**
     * Closes the connection from another thread while it may still be executing: it is marked closed
     * at once, and the executor closes its physical sessions (never returning them to a pool, since
     * the owning thread may still be using them) and lets go of the replica set.
     */
    @Override public void abort(Executor executor) throws SQLException {
        if (executor == null) throw new SQLException("MacroDB: abort needs an executor", SqlStates.INVALID_ARGUMENT);
        if (closed) return;
        closed = true;
        executor.execute(() -> {
            List<Session> sessions = new ArrayList<>();
            try {
                if (primary != null) sessions.add(primary);
                sessions.addAll(List.copyOf(holds.keySet()));
                sessions.addAll(List.copyOf(ownSessions.values()));
            } catch (RuntimeException raced) {
                // the owning thread changed its sessions meanwhile; close what we could see
            }
            for (Session s : sessions) {
                s.markBroken();
                s.replica().release(s); // a broken session is closed, not pooled
            }
            if (tx == Tx.UPDATE) db.endUpdate(updatePermit);
            Admission.Permit reading = readPermit;
            if (reading != null) reading.close(); // closing twice releases once: the owner may be ending it too
            ReplicaSets.release(db);
        });
    }

    @Override public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        checkOpen();
        if (milliseconds < 0) throw new SQLException("MacroDB: timeout must not be negative", SqlStates.INVALID_ARGUMENT);
        // Embedded engines have no network; waits are bounded by lockTimeout instead.
    }

    @Override public int getNetworkTimeout() throws SQLException {
        checkOpen();
        return 0;
    }

    // ================================================================= life

    void checkOpen() throws SQLException {
        if (closed) throw SqlStates.closed("connection");
    }

    @Override public boolean isClosed() { return closed; }

    @Override public void close() throws SQLException {
        if (closed) return;
        try {
            for (MacroStatement s : new ArrayList<>(statements)) s.closeQuietly();
            if (tx != Tx.NONE) rollbackQuietly(); // JDBC leaves this to the driver; rolling back loses nothing committed
            for (Session s : ownSessions.values()) {
                if (!holds.containsKey(s)) holds.put(s, new int[1]);
            }
            ownSessions.clear();
            for (Session s : new ArrayList<>(holds.keySet())) {
                holds.remove(s);
                try {
                    if (!s.connection().getAutoCommit()) s.connection().rollback();
                } catch (SQLException e) {
                    s.markBroken();
                }
                s.replica().release(s);
            }
            if (primary != null) {
                try {
                    primary.connection().rollback();
                } catch (SQLException e) {
                    primary.markBroken();
                }
                db.primary().release(primary);
                primary = null;
            }
        } finally {
            closed = true;
            ReplicaSets.release(db);
        }
    }

    @Override public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        if (primary != null && iface.isInstance(primary.connection())) return iface.cast(primary.connection());
        throw new SQLException("MacroDB: a MacroConnection does not wrap " + iface.getName(), SqlStates.INVALID_ARGUMENT);
    }

    @Override public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override public String toString() {
        return "MacroConnection[" + config.url() + ", tx=" + tx + ", lastCommit=v" + lastCommitVersion + "]";
    }
}
