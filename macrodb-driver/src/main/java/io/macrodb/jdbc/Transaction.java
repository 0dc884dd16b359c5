package io.macrodb.jdbc;

import io.macrodb.capture.TransactionChanges;
import io.macrodb.engine.CaptureContext;
import io.macrodb.log.Change;
import io.macrodb.log.Propagation;
import io.macrodb.replica.Admission;
import io.macrodb.replica.Replica;
import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.Session;
import io.macrodb.replica.UpdateTurn;
import io.macrodb.route.Balancer;
import io.macrodb.route.ReadRouter;
import io.macrodb.route.ReadWaits;
import io.macrodb.route.ShapeLearning;
import io.macrodb.sql.Classification;
import io.macrodb.sql.Classification.Verb;
import io.macrodb.sql.SqlFingerprint;
import io.macrodb.sql.SqlState;
import io.macrodb.sql.StatementKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The transaction state machine of one connection: which transaction is open (none, a read-only one
 * on a secondary or the primary, an update transaction on the primary), where each statement runs,
 * and how a transaction begins and ends. {@link MacroConnection} is the JDBC face over it; the
 * statements ask it for a {@link Target} and run through {@link #run}.
 *
 * <ul>
 *   <li><b>NONE → READ</b> ({@link #beginRead}): a {@code readOnly} connection, an autocommit pure
 *       read, or an undeclared transaction whose first statement is a pure read. The route is chosen
 *       once, here: only the first statement waits for a fresh secondary.</li>
 *   <li><b>NONE → UPDATE</b> ({@link #beginUpdate}): everything else, on the primary, with a writer
 *       turn and change capture. The transaction enters the update gate before its first statement
 *       that may write ({@link Target#mayWrite}), not before, so that reading and locking rows does
 *       not hold back a schema change on another connection ({@link UpdateTurn}).</li>
 *   <li><b>READ → UPDATE</b> ({@link #moveToPrimary}): only an undeclared transaction, at its first
 *       statement that may write; its reads are checked again on the primary.</li>
 *   <li><b>→ NONE</b>: {@link #commit}, {@link #rollback}, a schema change, the end of an autocommit
 *       statement ({@link #run}), and a failure that ends the transaction ({@link #afterFailure}).</li>
 * </ul>
 *
 * The primary session is owned here for the connection's life; secondary sessions are borrowed and
 * given back by the rule {@link SessionHolds} states. Used by the connection's thread only, except
 * {@link #abandon}.
 */
final class Transaction {

    /**
     * The failure that ended the application's open transaction in the engine without its asking (Derby closed the
     * session under it, {@code 08000}; SQLite's {@code INSERT OR ROLLBACK}), until the application ends it: its commit
     * then fails and rolls back what ran since, as the engine alone would fail it, instead of committing the statements
     * after the failure as if they were the whole transaction.
     */
    private SQLException endedUnder;
    enum State { NONE, READ, UPDATE }

    /** Rows an undeclared transaction may remember before its first write. */
    static final int REMEMBERED_ROWS = 10_000;

    private final ReplicaSet db;
    private final MacroConfig config;
    private final ReadRouter router;
    private final ShapeLearning learning;
    private final boolean statementMode;
    /** The engine has no lock timeout of its own (HSQLDB): statements are cancelled after {@code lockTimeout}. */
    private final boolean cancelsLockWaits;
    private final SessionHolds holds = new SessionHolds();
    /** The database's routing counters (shared by its connections). */
    private final RoutingCounters counters;
    /** The per-statement routing log: null unless the connection was opened with {@code routingLog=true}. */
    private final RoutingLog routingLog;
    /** How the transaction the last {@link #target} call began started; null if that call began none. */
    private Route began;

    private Session primary;
    private Session.Settings settings;
    private boolean autoCommit = true;
    private boolean readOnly;

    private State state = State.NONE;
    private Session readSession;
    /**
     * What the open transaction holds: the admission on its read replica, or its turn on the primary
     * for an update transaction. Volatile: {@link #abandon} hands them back from another thread.
     */
    private volatile Admission.Permit readPermit;
    private volatile UpdateTurn turn;
    /** Set while the READ transaction is an undeclared one that started on a secondary and may still write. */
    private Undeclared undeclared;
    private TransactionChanges changes;
    /**
     * The tables' shapes as a schema change of the open update transaction left them (an engine whose DDL is
     * transactional), by schema and table; null while it has made none. The replica set's shapes are the committed
     * schema's, which the transaction's own rows no longer fit.
     */
    private Map<String, io.macrodb.log.TableShape> ownShapes;
    private long lastCommitVersion;
    /** The newest version this connection may have read: reads never go back before it. */
    private long seenVersion;
    private Replica lastReplica;
    /** Time the current or last transaction waited for a secondary when it began. */
    private long readWaitNanos;
    private final Map<String, Savepoint> namedSavepoints = new HashMap<>();
    private int savepointGeneration;

    Transaction(ReplicaSet db, MacroConfig config, Session.Settings settings) {
        this.db = db;
        this.config = config;
        this.router = new ReadRouter(db, config.consistency(),
                db.extension(Balancer.Shared.class, Balancer.Shared::new).get(config.balancerName()), config.readWaitMillis(),
                config.primaryReadsWhenIdle(), db.extension(ReadWaits.class, ReadWaits::new));
        this.learning = db.extension(ShapeLearning.class, ShapeLearning::new);
        this.counters = db.extension(RoutingCounters.class, () -> new RoutingCounters(db.config().replicas()));
        this.routingLog = config.routingLog() ? new RoutingLog() : null;
        this.statementMode = db.propagation() == Propagation.STATEMENT;
        this.cancelsLockWaits = db.engine().boundsLockWaitsByCancel();
        this.settings = settings;
    }

    // ================================================================= state the connection reads and sets

    State state() { return state; }

    boolean isOpen() { return state != State.NONE; }

    boolean autoCommit() { return autoCommit; }

    /** JDBC: switching autocommit on commits the open transaction. */
    void setAutoCommit(boolean on) throws SQLException {
        if (on == autoCommit) return;
        // switching autocommit on commits; a transaction a failure ended fails that commit (endedUnder), and no later
        // autocommit statement inherits it
        if (on && (state != State.NONE || endedUnder != null)) commit();
        autoCommit = on;
    }

    boolean readOnly() { return readOnly; }

    void setReadOnly(boolean ro) throws SQLException {
        if (state != State.NONE && ro != readOnly) {
            throw new SQLException("MacroDB: setReadOnly cannot change a transaction in progress; commit or roll back first",
                    SqlState.INVALID_TRANSACTION_STATE.getState());
        }
        readOnly = ro;
    }

    /**
     * The connection's session settings changed: sessions are synced to them when next used, and an
     * open read on a secondary at once (its next statement runs under them).
     */
    void useSettings(Session.Settings s) throws SQLException {
        settings = s;
        if (state == State.READ && !readSession.isPrimary()) readSession.sync(settings, autoCommit);
    }

    long lastCommitVersion() { return lastCommitVersion; }

    ReadRouter router() { return router; }

    /** Later read-only transactions of this connection see at least {@code version} (never moves back). */
    void readAtLeast(long version) { seenVersion = Math.max(seenVersion, version); }

    Replica lastReplica() { return lastReplica; }

    long readWaitNanos() { return readWaitNanos; }

    /** Where the open transaction runs: null if none is open. */
    Replica currentReplica() {
        return switch (state) {
            case NONE -> null;
            case READ -> readSession.replica();
            case UPDATE -> db.primary();
        };
    }

    TransactionChanges changes() { return changes; }

    SessionHolds holds() { return holds; }

    RoutingCounters counters() { return counters; }

    /**
     * Logs where the statement {@link #target} just routed runs, and why (with {@code routingLog=true};
     * a no-op otherwise, and the caller checks {@link #routingLog} first so that nothing is built).
     */
    void logRouted(Target t, String sql) {
        if (routingLog == null) return;
        routingLog.statement(t.session().replica(), t.update(), began, router.lastRequired(), router.lastWaitNanos(), sql);
    }

    boolean logsRouting() { return routingLog != null; }

    /**
     * The owned primary session, synced to this connection's settings. Its physical autocommit is
     * always off: MacroDB commits it itself, inside the commit critical section.
     *
     * <p>A session opened or synced before anything ran on it moves to the new primary when the
     * primary's engine turns out to be gone (its server stopped, say, before the failure was noticed):
     * the promotion is awaited (bounded by {@code lockTimeout}) and the session opened there, so the
     * application never sees the old primary's connection error. A transaction that already ran on the
     * old primary cannot move: it is rolled back and the error is 40001.
     */
    Session primarySession() throws SQLException {
        for (int attempt = 1; ; attempt++) {
            Replica p = db.primary();
            if (primary != null && primary.replica() != p) {
                // a secondary was promoted: the old primary's session is of no use any more
                Replica old = primary.replica();
                if (!nothingRanOnPrimary()) {
                    primary.markBroken();
                    rollbackQuietly();
                    dropPrimarySession();
                    throw SqlStates.retryable("the primary failed during this transaction (" + old.stateReason()
                            + "); it was not committed, retry it", null);
                }
                dropPrimarySession();
            }
            try {
                if (primary == null) primary = p.borrow();
                primary.sync(settings, false);
                return primary;
            } catch (SQLException e) {
                if (!nothingRanOnPrimary() || !db.replicaFailed(p, e, "a session starting")) throw e;
                dropPrimarySession();
                if (attempt >= 3) {
                    throw SqlStates.retryable("the primary failed (" + p.stateReason() + ") and its successor could not be"
                            + " reached either; nothing ran, retry it", e);
                }
                db.awaitPrimary(); // 40001 if no secondary takes over within lockTimeout
            }
        }
    }

    /** A call on the primary session's physical connection. */
    @FunctionalInterface
    interface OnConnection<T> {
        T apply(java.sql.Connection c) throws SQLException;
    }

    /**
     * Runs a call that is not a data statement (metadata, the schema, a LOB or array factory, a
     * session setting, preparing a call) on the primary session's connection. An engine that this
     * call finds gone fails over as for a session starting: with nothing run on the primary yet, the
     * call waits for the successor and runs there; in an update transaction, the transaction is rolled
     * back and the error is {@code 40001}. The engine's own error never reaches the application.
     */
    <T> T onPrimary(OnConnection<T> call) throws SQLException {
        boolean interruptedBefore = Thread.currentThread().isInterrupted();
        for (int attempt = 1; ; attempt++) {
            Session s = primarySession();
            try {
                T result = call.apply(s.connection());
                afterCall(interruptedBefore, s.connection());
                return result;
            } catch (SQLException | RuntimeException thrown) {
                SQLException e = thrown instanceof SQLException se ? se : engineFailure(s, (RuntimeException) thrown);
                if (!db.replicaFailed(s.replica(), e, "a connection call", s.connection())) {
                    afterFailedCall(interruptedBefore, s);
                    throw e;
                }
                boolean lost = !nothingRanOnPrimary();
                if (lost) rollbackQuietly();
                dropPrimarySession();
                // closing the gone engine's session may have set the engine's stop interrupt again (Derby)
                afterFailedCall(interruptedBefore, s);
                if (lost) {
                    throw SqlStates.retryable("the primary failed during this transaction (" + s.replica().stateReason()
                            + "); it was not committed, retry it", e);
                }
                if (attempt >= 3) {
                    throw SqlStates.retryable("the primary failed (" + s.replica().stateReason() + ") and its successor could not"
                            + " be reached either; nothing ran, retry it", e);
                }
                db.awaitPrimary(); // 40001 if no secondary takes over within lockTimeout
            }
        }
    }

    /** Whether the open transaction, if any, has not run anything on the primary session yet. */
    private boolean nothingRanOnPrimary() {
        return state == State.NONE || state == State.READ && readSession != primary;
    }

    private void dropPrimarySession() {
        if (primary == null) return;
        primary.markBroken();
        primary.replica().release(primary);
        primary = null;
    }

    // ================================================================= routing a statement

    /**
     * Where a statement runs, with the transaction it starts if none is open.
     *
     * @param update   it runs in an update transaction on the primary
     * @param mayWrite it may change data, so the update transaction enters the update gate before it
     *                 runs (a pure or locking read in an update transaction does not)
     */
    record Target(Session session, boolean update, boolean mayWrite) {
        static Target read(Session s) { return new Target(s, false, false); }
    }

    /**
     * Chooses the session for a data statement (not DDL, SESSION or TRANSACTION kinds) and begins a
     * transaction if none is open. A "write" here is any statement whose kind is not READ.
     *
     * @param forceWrite the statement must run as an update (updatable result set, a write in disguise)
     * @param trackable  its result can be remembered row by row (forward-only, read-only, no generated keys)
     */
    Target target(Classification c, String sql, boolean forceWrite, boolean trackable) throws SQLException {
        began = null;
        boolean write = forceWrite || c.kind() != StatementKind.READ;
        boolean mayWrite = forceWrite || c.mayWrite();
        switch (state) {
            case UPDATE:
                return new Target(primary, true, mayWrite);
            case READ:
                if (!readSession.isPrimary() && !readSession.replica().isActive()) {
                    Replica gone = readSession.replica();
                    rollbackQuietly();
                    throw SqlStates.retryable("the secondary this read-only transaction ran on left the rotation ("
                            + gone.stateReason() + "); nothing was changed, retry it", null);
                }
                if (undeclared != null && (write || !c.pureRead() || !trackable)) {
                    moveToPrimary();
                    began = Route.MOVED_TO_PRIMARY;
                    return new Target(primary, true, mayWrite);
                }
                if (write) throw SqlStates.readOnly(sql);
                return Target.read(readSession);
            default:
                break;
        }
        readWaitNanos = 0; // a new transaction begins here
        // a read of the catalog runs on the primary: the secondaries' catalogs differ from it (Classification#readsCatalog)
        boolean catalog = c.readsCatalog() && !forceWrite;
        if (readOnly) {
            if (write) throw SqlStates.readOnly(sql);
            beginRead(catalog);
            return Target.read(readSession);
        }
        if (catalog) {
            if (autoCommit) {
                beginRead(true);
                return Target.read(readSession);
            }
            beginUpdate(Route.PRIMARY_CATALOG); // it may write next: an update transaction, which enters the gate at its first write
            return new Target(primary, true, false);
        }
        Route why = Route.PRIMARY_UPDATE;
        if (c.pureRead() && !forceWrite) {
            if (autoCommit) {
                beginRead();
                return Target.read(readSession);
            }
            if (!config.optimisticReads()) {
                why = Route.PRIMARY_OPTIMISTIC_OFF;
            } else if (!trackable) {
                why = Route.PRIMARY_UNTRACKABLE;
            } else if (db.secondaries().isEmpty()) {
                why = Route.PRIMARY_NO_SECONDARY;
            } else {
                String shape = SqlFingerprint.of(sql);
                if (learning.startOptimistic(shape)) {
                    beginRead();
                    undeclared = new Undeclared(shape);
                    return Target.read(readSession);
                }
                why = Route.PRIMARY_LEARNED;
            }
        }
        beginUpdate(why);
        return new Target(primary, true, mayWrite);
    }

    /** Body of a statement execution on a physical session. */
    @FunctionalInterface
    interface Exec<T> {
        T run(Session s) throws SQLException;
    }

    /**
     * Runs {@code body} on the target with MacroDB's capture context. A failed statement's captured
     * changes are cut back (the engines roll a failed statement back); an engine lock timeout or
     * deadlock rolls the whole transaction back and is reported as SQLState 40001. In autocommit the
     * statement is the transaction: it ends here.
     */
    <T> T run(Target t, Exec<T> body) throws SQLException {
        CaptureContext.takeRefusal(); // forget a refusal some earlier, unrelated failure left behind
        Session s = t.session();
        lastReplica = s.replica();
        boolean interruptedBefore = Thread.currentThread().isInterrupted();
        T result;
        try {
            result = runOn(t, s, body);
        } catch (SQLException | RuntimeException e) {
            afterFailedCall(interruptedBefore, s);
            throw e;
        }
        afterCall(interruptedBefore, s.connection());
        return result;
    }

    /**
     * Ends the transaction of an autocommit statement that failed: rolled back, or, where the engine's autocommit
     * commits what a statement failing on a constraint left ({@link io.macrodb.engine.Engine#failedStatementsMayKeepRows},
     * SQLite's {@code INSERT OR FAIL}), committed as there; the statement's own failure is what the caller sees.
     */
    private void endFailedAutocommitStatement(SQLException failure) {
        String state23 = failure.getSQLState();
        if (db.engine().failedStatementsMayKeepRows() && state23 != null && state23.startsWith("23")) {
            try {
                commit();
                return;
            } catch (SQLException e) {
                failure.addSuppressed(e);
            }
        }
        rollbackQuietly();
    }

    /** {@link #afterFailedCall(boolean, Replica, Connection)} for a call on {@code s}. */
    private void afterFailedCall(boolean interruptedBefore, Session s) {
        afterFailedCall(interruptedBefore, s == null ? null : s.replica(), s == null ? null : s.connection());
    }

    /**
     * After closing a statement's engine statement and result on {@code s} ({@code MacroStatement.detach}), which enter
     * the engine too and whose failures are not reported: as {@link #afterFailedCall}.
     */
    void afterClose(boolean interruptedBefore, Session s) {
        afterFailedCall(interruptedBefore, s);
    }

    /**
     * After a call that began uninterrupted and failed, on an engine that {@link io.macrodb.engine.Engine#interruptsThreadsWhenStopped
     * interrupts the threads inside a database it stops}: clears the stop's interrupt if the call's replica has left
     * the rotation since, or if the engine stopped the database under the call ({@link io.macrodb.engine.Engine#stoppedUnder}).
     * <ul>
     * <li>A replica that left: Derby sets the interrupt again at the end of every call on a session of the stopped
     * database (MacroDB's rollback of the dead session too), after {@code Failover.replicaFailed} cleared it.
     * <li>A stop under a failure that does not tell the engine gone: a deadlock's victim, woken as the database was
     * dropped, fails with 40001 and keeps the drop's interrupt, and the replica is still in the rotation. The application's
     * retry loop then found its sleep cut short (FailoverConvergenceTest over Derby, about 1 run in 40; made certain by
     * DerbyEngineTest.aFailureUnderTheDatabasesStopFailsOverAndLeavesNoInterrupt).
     * </ul>
     * Derby answers by the session's mark, for a session it closed under the failure too: one it closed because the
     * application interrupted the thread during the call has no mark, and that interrupt stays.
     */
    void afterFailedCall(boolean interruptedBefore, Replica r, Connection session) {
        if (interruptedBefore || !db.engine().interruptsThreadsWhenStopped()) return;
        if (r != null && !r.isActive() || session != null && db.engine().stoppedUnder(session)) db.engine().clearStopInterrupt();
    }

    /**
     * After a call on {@code session} that succeeded and began uninterrupted, on an engine that
     * {@link io.macrodb.engine.Engine#interruptsThreadsWhenStopped interrupts the threads inside a database it stops}:
     * if the engine stopped the session's database under the call ({@link io.macrodb.engine.Engine#stoppedUnder}), the
     * stop's interrupt is dropped. It can reach a call in its last steps, after the engine last looked for the stop, or
     * come just after the call has returned (the stop marks the session first and interrupts its thread after), so the
     * mark is what is asked, not the flag. It reached the thread's next call, on the primary, where Derby closed the
     * session as if the application had interrupted it (a dropped secondary, FaultInjectionTest in CI; in a loop with an
     * agent that slowed every interrupt, one that came after a read's commit). An interrupt of the application's own,
     * set before the call, stays.
     */
    void afterCall(boolean interruptedBefore, Connection session) {
        if (interruptedBefore || session == null || !db.engine().interruptsThreadsWhenStopped()) return;
        if (db.engine().stoppedUnder(session)) db.engine().clearStopInterrupt();
    }

    /** Whether {@link #afterCall} asks anything of this engine. */
    boolean stopsInterruptThreads() { return db.engine().interruptsThreadsWhenStopped(); }

    private <T> T runOn(Target t, Session s, Exec<T> body) throws SQLException {
        if (t.update()) {
            if (t.mayWrite()) enterGate();
            int mark = changes.mark();
            Savepoint undo = statementSavepoint(t, s);
            CaptureContext prev = CaptureContext.enter(changes);
            T result;
            try {
                result = body.run(s);
            } catch (SQLException | RuntimeException e) {
                // Statement mode must forget the failed statement. So does row mode where the engine is back at the
                // statement's savepoint. Otherwise row mode keeps what the triggers saw: a key whose change the engine
                // undid ships its current image (or nothing), which is right whatever the engine rolled back (all of
                // it, or only part); a table without a key cannot be read back, and then the commit is refused.
                CaptureContext.restore(prev);
                if (statementMode || undo != null && backToSavepoint(s, undo)) changes.rollbackTo(mark);
                else changes.statementFailed();
                SQLException failure = afterFailure(e);
                if (autoCommit && state == State.UPDATE) endFailedAutocommitStatement(failure); // the statement was the transaction
                throw failure;
            } finally {
                CaptureContext.restore(prev);
            }
            if (undo != null) releaseQuietly(s, undo);
            if (autoCommit) commit();
            return result;
        }
        CaptureContext prev = CaptureContext.enter(CaptureContext.READ_ONLY);
        try {
            return body.run(s);
        } catch (SQLException | RuntimeException e) {
            throw afterFailure(e);
        } finally {
            CaptureContext.restore(prev);
            if (autoCommit && state == State.READ) endRead(true);
        }
    }

    /**
     * The engine savepoint a write of an open row-mode transaction runs under where the database has a table without
     * a key ({@link io.macrodb.engine.Engine#undoesFailedStatementsToASavepoint}), or null. A transaction that changed
     * the schema itself has shapes of its own, and takes one whatever the committed schema holds. Costs two engine
     * calls per write (about 0.3 us on H2, 1 us on Derby, 3 us on HSQLDB, measured by hand), so only where it helps.
     */
    private Savepoint statementSavepoint(Target t, Session s) throws SQLException {
        if (statementMode || autoCommit || !t.mayWrite() || !db.engine().undoesFailedStatementsToASavepoint()) return null;
        if (!db.hasTablesWithoutKey() && ownShapes == null) return null;
        try {
            return s.connection().setSavepoint();
        } catch (SQLException | RuntimeException e) {
            throw afterFailure(e);
        }
    }

    /**
     * After a write failed: rolls the engine back to the statement's savepoint, and says whether it is there. Not
     * where the failure ended the engine's transaction (a deadlock), took the savepoint with it, or lost the engine;
     * the failure itself then says what happens to the transaction.
     */
    private static boolean backToSavepoint(Session s, Savepoint undo) {
        try {
            s.connection().rollback(undo);
        } catch (SQLException | RuntimeException gone) {
            return false;
        }
        releaseQuietly(s, undo);
        return true;
    }

    /** A savepoint left unreleased is released by the transaction's end: nothing depends on this one going now. */
    private static void releaseQuietly(Session s, Savepoint sp) {
        try {
            s.connection().releaseSavepoint(sp);
        } catch (SQLException | RuntimeException ignored) {
            // as above
        }
    }

    /**
     * Runs one physical execution; on an engine without lock timeouts (HSQLDB) every statement is
     * cancelled when it outlives {@code lockTimeout}: reads and schema changes too, because there a
     * schema change waits for every open transaction while a new statement waits for the schema
     * change, a deadlock the engine does not break.
     */
    <T> T guarded(Statement physical, LockWaitGuard.Call<T> call) throws SQLException {
        if (cancelsLockWaits) return LockWaitGuard.run(physical, config.lockTimeoutMillis(), call);
        return call.run();
    }

    /** Called before an update-transaction statement runs: notes sequence use for the commit record. */
    void noteStatement(Classification c) {
        if (changes != null && c.drawsFromSequence()) changes.noteSequences();
    }

    /** Runs a procedure call's execution as (part of) an update transaction on the primary. */
    <T> T call(Classification c, String sql, Exec<T> body) throws SQLException {
        Target t = target(c, sql, true, false);
        changes.noteSequences(); // a procedure may draw from any sequence
        return run(t, body);
    }

    /**
     * HSQLDB's {@code LOCK TABLE}: taken on the primary, in the update transaction (begun if none is
     * open; in autocommit it ends at once, as in the engine). It changes nothing, so it does not enter
     * the update gate, and it is not replicated: only the primary's transactions contend for locks.
     */
    void lockTables(Classification c, String sql) throws SQLException {
        Target t = target(c, sql, false, false);
        if (routingLog != null) logRouted(t, sql);
        run(t, s -> {
            try (Statement physical = s.connection().createStatement()) {
                return guarded(physical, () -> physical.execute(sql));
            }
        });
    }

    /** A call on the engine's sessions that is not a statement of ours: an updatable result set's row change, a transaction's end. */
    @FunctionalInterface
    interface SqlAction {
        void run() throws SQLException;
    }

    void captureWrite(SqlAction action) throws SQLException {
        if (statementMode) {
            throw SqlStates.unreplicable("statement propagation replays SQL, and a change made through an updatable result set"
                    + " has none; use an UPDATE statement, or connect with propagation=row");
        }
        if (state == State.READ && undeclared != null) moveToPrimary();
        if (readOnly || state == State.READ) throw SqlStates.readOnly("(a change through an updatable result set)");
        if (state == State.NONE) beginUpdate(Route.PRIMARY_UPDATE);
        run(new Target(primary, true, true), s -> {
            action.run();
            return null;
        });
    }

    /**
     * Runs a schema change, and logs it with what {@code shipped} (if not null) reads on the primary right after it:
     * rows the statement computed that the secondaries take instead of computing their own.
     *
     * <p>On an engine whose schema changes are transactional (SQLite, Derby, PostgreSQL), with autocommit off, it runs
     * inside this connection's update transaction (begun if none is open) and is shipped with it at commit, or undone
     * with it ({@link #schemaChangeInTransaction}). Elsewhere it ends this connection's transaction first (H2 and
     * HSQLDB commit before DDL anyway), then runs on the primary while no update transaction is open, committed at once.
     */
    <T> T schemaChange(Classification c, String sql, Object[] params, Exec<T> body, Exec<List<Change>> shipped) throws SQLException {
        if (readOnly) throw SqlStates.readOnly(sql);
        if (db.engine().maintenanceOnPrimary(sql)) return maintenance(sql, body);
        if (db.config().durability() != null && !statementMode && c.verb() == Verb.CREATE_TRIGGER) {
            throw SqlStates.unreplicable("with row propagation and durability=log, recovery replays captured rows, and a trigger"
                    + " of the application would fire again on them; triggers need propagation=statement with durability=log");
        }
        // Settings that secondaries keep their own values of (Verb says which and why) run on the primary only.
        boolean replicate = !(c.verb() == Verb.PRIMARY_ONLY_SET || !statementMode && c.verb() == Verb.ROW_MODE_PRIMARY_ONLY_SET);
        if (replicate && !autoCommit && db.engine().schemaChangesAreTransactional()) {
            if (!db.engine().schemaChangeOutsideTransaction(sql)) return schemaChangeInTransaction(sql, params, body, shipped);
            if (state == State.UPDATE) {
                // as PostgreSQL itself answers it in a transaction block; committing the transaction first would end it behind the application's back
                throw new SQLException("MacroDB: " + SqlStates.abbreviate(sql) + " cannot run inside a transaction block, and this"
                        + " connection's transaction has changed rows; commit or roll it back first (or run the statement in"
                        + " autocommit). The transaction is still open", "25001");
            }
        }
        if (state == State.UPDATE) commit();
        else if (state == State.READ) endRead(true);
        Session p = primarySession();
        counters.began(Route.PRIMARY_SCHEMA_CHANGE);
        if (routingLog != null) routingLog.schemaChange(p.replica(), sql);
        ReplicaSet.SchemaChanged<T> done = db.schemaChange(p, sql, params, replicate, () -> body.run(p),
                shipped == null ? null : () -> shipped.run(p));
        if (done.version() > 0) lastCommitVersion = done.version();
        return done.result();
    }

    /**
     * Maintenance of the primary's storage ({@link io.macrodb.engine.Engine#maintenanceOnPrimary}: PostgreSQL's {@code
     * VACUUM}): run on the primary session in autocommit, as the engine requires, outside the update gate (it changes no
     * row, and may run for minutes), and not logged. Inside an update transaction it is refused with 25001, as the engine
     * refuses it in a transaction block, the transaction left open.
     */
    private <T> T maintenance(String sql, Exec<T> body) throws SQLException {
        if (state == State.UPDATE) {
            throw new SQLException("MacroDB: " + SqlStates.abbreviate(sql) + " cannot run inside a transaction block, and this"
                    + " connection's transaction has begun on the primary; commit or roll it back first (or run the statement in"
                    + " autocommit). The transaction is still open", "25001");
        }
        if (state == State.READ) endRead(true);
        Session p = primarySession();
        counters.began(Route.PRIMARY_SCHEMA_CHANGE);
        if (routingLog != null) routingLog.schemaChange(p.replica(), sql);
        java.sql.Connection pc = p.connection();
        boolean auto = pc.getAutoCommit();
        try {
            if (!auto) pc.setAutoCommit(true); // nothing of this connection's is open there (state NONE)
            return body.run(p);
        } catch (SQLException | RuntimeException e) {
            if (db.replicaFailed(p.replica(), e instanceof SQLException se ? se : new SQLException(e), "a session", pc)) {
                dropPrimarySession();
                throw SqlStates.retryable("the primary failed while " + SqlStates.abbreviate(sql) + " ran (" + p.replica().stateReason()
                        + "); nothing was changed, retry it once a secondary has taken over", e);
            }
            throw e;
        } finally {
            if (!auto && !p.isBroken() && primary == p) pc.setAutoCommit(false);
        }
    }

    /**
     * A schema change inside the open update transaction, on an engine whose DDL is transactional. The transaction
     * takes the update gate alone (no other update transaction writes until it ends, as with a schema change in
     * autocommit), its changes so far are built in the schema they were made in, and the statement runs inside an
     * engine savepoint: if it fails, or MacroDB refuses what it did, the savepoint is rolled back and the transaction
     * goes on as it was. Then capture is made current on the transaction's own session (a new table gets its triggers,
     * in the transaction) and the transaction's rows are captured in the new shapes ({@link #ownShapes}). At commit
     * the record carries the rows before the change, the change (with the rows it computed on the primary) and the rows
     * after it; a rollback undoes it all, and nothing is logged.
     */
    private <T> T schemaChangeInTransaction(String sql, Object[] params, Exec<T> body, Exec<List<Change>> shipped) throws SQLException {
        if (state == State.READ) {
            if (undeclared != null) moveToPrimary();
            else endRead(true);
        }
        if (state == State.NONE) beginUpdate(Route.PRIMARY_SCHEMA_CHANGE);
        Session p = primary;
        if (routingLog != null) routingLog.schemaChange(p.replica(), sql);
        try {
            turn.holdGateAlone();
        } catch (SQLException e) {
            // as after an engine lock timeout: the transaction is rolled back (an interrupted wait, 57014, leaves it open)
            if (SqlState.SERIALIZATION_FAILURE.getState().equals(e.getSQLState())) rollbackQuietly();
            throw e;
        }
        io.macrodb.engine.Engine engine = db.engine();
        java.sql.Connection pc = p.connection();
        Savepoint before;
        try {
            engine.collectChanges(pc, changes); // an engine whose triggers record the rows in the server (PostgreSQL)
            // the shapes the rows so far were made in, for rows that come from the engine's log after the commit: this
            // transaction's own (a map replaced, never changed, by each schema change of it) over the committed ones,
            // which no other schema change can move before this transaction ends (it holds the update gate alone)
            Map<String, io.macrodb.log.TableShape> own = ownShapes;
            changes.beforeSchemaChange(pc, p, (schema, table) -> {
                io.macrodb.log.TableShape t = own == null ? null : own.get(schema + '\u0000' + table);
                return t != null ? t : db.shape(schema, table);
            });
            before = pc.setSavepoint();
        } catch (SQLException | RuntimeException e) {
            throw afterFailure(e);
        }
        T result;
        List<Change> computed;
        Map<String, String> names;
        List<io.macrodb.log.TableShape> shapes;
        boolean applicationTriggers;
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        try {
            engine.beforeSchemaChange(pc);
            result = body.run(p);
            engine.checkSchemaChange(pc);
            names = engine.generatedNames(pc);
            computed = shipped == null ? null : shipped.run(p);
            shapes = engine.refreshCapture(pc);
            applicationTriggers = io.macrodb.engine.Catalog.hasApplicationTriggers(pc);
            pc.releaseSavepoint(before);
        } catch (SQLException | RuntimeException e) {
            CaptureContext.restore(prev);
            try {
                pc.rollback(before);
                pc.releaseSavepoint(before);
            } catch (SQLException | RuntimeException gone) {
                // the failure ended the engine's transaction (a deadlock, a lock timeout on Derby, a lost engine)
                e.addSuppressed(gone);
                throw afterFailure(e);
            }
            // the transaction is as it was before the statement, and so is what it ships
            changes.schemaChangeFailed();
            SQLException refusal = CaptureContext.takeRefusal(); // CaptureContext's refusal, if any, is the error
            if (refusal != null) throw refusal;
            throw e instanceof SQLException se ? se : new SQLException("MacroDB: " + SqlStates.abbreviate(sql) + " failed: " + e,
                    SqlState.INTERNAL_ERROR.getState(), e);
        } finally {
            CaptureContext.restore(prev);
        }
        Map<String, io.macrodb.log.TableShape> byName = new HashMap<>();
        for (io.macrodb.log.TableShape t : shapes) byName.put(t.schema() + '\u0000' + t.table(), t);
        ownShapes = byName;
        String schema;
        try {
            schema = engine.sessionSchema(pc);
        } catch (SQLException e) {
            throw afterFailure(e);
        }
        changes.schemaChanged(new io.macrodb.log.StatementChange(sql, params, true, schema, null, names), computed, applicationTriggers);
        return result;
    }

    /** The shape capture records a table's rows in: as a schema change of this transaction left it, or as committed. */
    private io.macrodb.log.TableShape shape(String schema, String table) throws SQLException {
        Map<String, io.macrodb.log.TableShape> own = ownShapes;
        if (own != null) {
            io.macrodb.log.TableShape t = own.get(schema + '\u0000' + table);
            if (t != null) return t;
        }
        return db.shape(schema, table);
    }

    /**
     * A statement's result on the primary was closed. A read on the primary ends its engine transaction as soon as
     * MacroDB ends the read (an autocommit query: right after it executes), and rows read from a held result after
     * that run in a new engine transaction. On an engine whose reads take locks (Derby) that transaction's locks
     * would stay until this connection's next transaction on the primary, holding every writer of those rows back:
     * with no transaction of this connection open, it is ended here. If that fails, the session is given up (nothing
     * of the application's was written in it) and the next statement opens another, which tells whether the engine
     * is gone.
     */
    void primaryResultClosed(Session s) {
        if (s != primary || state != State.NONE || !db.engine().readsTakeLocks()) return;
        try {
            if (!s.connection().isClosed()) s.connection().commit();
        } catch (SQLException e) {
            dropPrimarySession();
        }
    }

    // ================================================================= failures

    /**
     * What an error from reading a result becomes: if the result came from a replica whose engine is
     * gone, the replica leaves the rotation (the primary fails over), the transaction ends, and the
     * error is 40001. {@code session}: the engine session the result is read from, or null if it cannot be told.
     */
    SQLException resultFailure(Replica source, SQLException e, Connection session) {
        if (source == null) return e;
        if (!db.replicaFailed(source, e, "a reader", session)) {
            // A lock wait that ended in a deadlock or a timeout while rows were fetched (an engine that streams
            // results and locks on read: Derby) rolled the engine's transaction back: so does this one, as when a
            // statement fails so, or its commit would ship the changes of a transaction the engine undid.
            boolean ours = state == State.READ ? readSession != null && readSession.replica() == source
                    : state == State.UPDATE && source.isPrimary();
            if (!ours || !db.engine().isRetryable(e)) return e;
            rollbackQuietly();
            if (SqlState.SERIALIZATION_FAILURE.getState().equals(e.getSQLState())) return e;
            return SqlStates.retryable("the transaction was rolled back because " + e.getMessage()
                    + " while its rows were read; retry it (lockTimeout bounds lock waits)", e);
        }
        if (source.isPrimary()) {
            // the primary failed under the result: the transaction reading it (on the primary) is over, as when a
            // statement meets a failed primary (afterFailure)
            if (state == State.UPDATE && primary != null && primary.replica() == source) {
                primary.markBroken();
                rollbackQuietly();
            } else if (state == State.READ && readSession != null && readSession.replica() == source) {
                rollbackQuietly();
            }
            return SqlStates.retryable("the primary failed while this result was read (" + source.stateReason()
                    + "); the transaction was not committed, retry it once a secondary has taken over", e);
        }
        if (state == State.READ && readSession != null && readSession.replica() == source) rollbackQuietly();
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
        Session on = state == State.UPDATE ? primary : state == State.READ ? readSession : null;
        SQLException se = e instanceof SQLException s ? s : e instanceof RuntimeException re && on != null ? engineFailure(on, re) : unwrapCapture(e);
        if (state == State.READ && !readSession.isPrimary()
                && db.replicaFailed(readSession.replica(), se, "a reader", readSession.connection())) {
            Replica gone = readSession.replica();
            rollbackQuietly();
            return SqlStates.retryable("the secondary this read-only transaction ran on left the rotation ("
                    + gone.stateReason() + "); nothing was changed, retry it", se);
        }
        Session onPrimary = state == State.UPDATE ? primary : state == State.READ && readSession.isPrimary() ? readSession : null;
        if (onPrimary != null && db.replicaFailed(onPrimary.replica(), se, "a session", onPrimary.connection())) {
            onPrimary.markBroken();
            rollbackQuietly();
            return SqlStates.retryable("the primary failed during this transaction (" + onPrimary.replica().stateReason()
                    + "); it was not committed, retry it once a secondary has taken over", se);
        }
        if (db.engine().isRetryable(se) && state != State.NONE) {
            rollbackQuietly();
            if (se.getSQLState() != null && se.getSQLState().equals(SqlState.SERIALIZATION_FAILURE.getState())) return se;
            return SqlStates.retryable("the transaction was rolled back because " + se.getMessage()
                    + "; retry it (lockTimeout bounds lock waits)", se);
        }
        // The engine closed the session under its transaction (Derby, when the application's thread was
        // interrupted: 08000): the transaction is over, and the next one starts on a new session. Or the
        // failure ended the engine's transaction (SQLite's INSERT OR ROLLBACK): it is over too.
        if (state == State.UPDATE && (isClosed(primary) || db.engine().failureEndedTransaction(primary.connection()))) {
            rollbackQuietly();
            if (!autoCommit) endedUnder = se;
        }
        // A read-only transaction's too, ended without a call on the closed session: Derby answers it with 08003, which
        // stands for a gone engine, and the replica, which the failure above found there, was taken out of the rotation
        // (a healthy primary failed over: a reader that an interrupt reached while it waited for a lock).
        if (state == State.READ && isClosed(readSession)) {
            readSession.markBroken();
            rollbackQuietly();
        }
        return db.engine().withSqlState(se);
    }

    /**
     * What an unchecked exception out of the engine's driver means. A driver may fail that way when
     * its engine went away under a session (HSQLDB's in-process session after {@code SHUTDOWN}:
     * a NullPointerException in {@code setSavepoint}; Derby's in-memory store under a session of a
     * database being dropped: one in {@code BlockedByteArray}), and HSQLDB's and SQLite's drivers pass
     * on what an application's stream or value threw. A probe on the same session tells: if it fails,
     * its error stands for the engine's state (and the original is attached). If it runs, the
     * exception becomes the cause of an {@link SqlState#INTERNAL_ERROR}, as H2 and Derby wrap it
     * themselves: a JDBC call fails with an SQLException, and the caller's failure handling sees it as
     * any other (a replica that left the rotation meanwhile makes it retryable).
     */
    private SQLException engineFailure(Session s, RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException se) return se; // a capture trigger's failure, carried through the engine
        }
        try (Statement st = s.connection().createStatement()) {
            st.execute(db.engine().probeSql());
        } catch (SQLException probe) {
            probe.addSuppressed(e);
            return probe;
        } catch (RuntimeException probe) {
            e.addSuppressed(probe);
        }
        return new SQLException("MacroDB: the call failed with an unchecked exception (" + e + ") where JDBC reports an"
                + " SQLException; the engine still answers on its session. The cause has its stack: a value or stream the"
                + " application passed, the engine's driver or MacroDB", SqlState.INTERNAL_ERROR.getState(), e);
    }

    private static SQLException unwrapCapture(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) return s;
        }
        if (e instanceof RuntimeException re) throw re;
        return new SQLException(e.getMessage(), SqlState.INTERNAL_ERROR.getState(), e);
    }

    // ================================================================= beginning and ending

    private void beginRead() throws SQLException {
        beginRead(false);
    }

    /**
     * Begins a read-only transaction on a replica the router chooses, or on the primary ({@code onPrimary}: a read of
     * the catalog, {@link Route#PRIMARY_CATALOG}).
     */
    private void beginRead(boolean onPrimary) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            ReadRouter.Choice choice;
            if (onPrimary) {
                Replica p = db.primary();
                choice = new ReadRouter.Choice(p, p.admission().enter(db.config().lockTimeoutMillis(), "the primary"));
            } else {
                choice = router.route(Math.max(lastCommitVersion, seenVersion));
                readWaitNanos += router.lastWaitNanos();
            }
            Replica r = choice.replica();
            boolean turnTimedOut = false;
            Session s;
            if (r.isPrimary()) {
                s = primarySession();
            } else {
                long started = System.nanoTime();
                try {
                    s = holds.borrow(r, settings, autoCommit, db.config().lockTimeoutMillis());
                } catch (SQLException e) {
                    choice.permit().close();
                    // Nothing ran yet: if the secondary is out of service, the transaction moves, untouched, to another.
                    if (!db.replicaFailed(r, e, "a reader starting a session")) throw e;
                    if (attempt >= 3) {
                        throw SqlStates.retryable("three secondaries in a row left the rotation as this read-only transaction"
                                + " began (the last: " + r.stateReason() + "); nothing ran, retry it", e);
                    }
                    continue;
                }
                if (s == null) {
                    // On an engine whose reads take locks a secondary's readers and applier take turns; an applier that
                    // kept the turn for lockTimeout (behind a read-only transaction left open there) sends this read to
                    // the primary, as a secondary that does not catch up does.
                    choice.permit().close();
                    readWaitNanos += System.nanoTime() - started;
                    r = db.primary();
                    choice = new ReadRouter.Choice(r, r.admission().enter(db.config().lockTimeoutMillis(), "the primary"));
                    s = primarySession();
                    turnTimedOut = true;
                }
            }
            // counted where it runs: primarySession() runs it on the successor of a primary that failed since routing
            s.replica().readerStarted();
            if (!s.isPrimary() && s.replica().keepsReadersOut()) {
                // its applier began a schema change with the primary's computed values after routing: nothing ran, elsewhere
                s.replica().readerEnded();
                choice.permit().close();
                holds.release(s);
                continue;
            }
            Route why = onPrimary ? Route.PRIMARY_CATALOG : turnTimedOut ? Route.PRIMARY_WAIT_TIMED_OUT : switch (router.lastDecision()) {
                case FRESH -> Route.SECONDARY_FRESH;
                case WAITED -> Route.SECONDARY_AFTER_WAIT;
                case WAIT_TIMED_OUT -> Route.PRIMARY_WAIT_TIMED_OUT;
                case NO_WAIT -> Route.PRIMARY_NO_WAIT;
                case PRIMARY_IDLE -> Route.PRIMARY_IDLE;
                case NO_SECONDARY -> Route.PRIMARY_NO_SECONDARY;
            };
            counters.began(why);
            counters.readOn(s.replica().index());
            began = why;
            readPermit = choice.permit();
            readSession = s;
            state = State.READ;
            return;
        }
    }

    /** Ends a read-only transaction: commit releases its snapshot, then the session may go back to its pool. */
    private void endRead(boolean commit) throws SQLException {
        Session s = readSession;
        boolean stands = true;
        try {
            endReadSession(s, commit);
        } finally {
            // What this transaction read is now "seen": a later read of this connection must not see
            // less (monotonic reads). Waiting for publication makes the replica's version cover it. The
            // engine transaction ends first: an applier running DDL may be waiting for it to end.
            if (s.isPrimary()) {
                stands = db.awaitPublished(s.replica());
                seenVersion = Math.max(seenVersion, db.version());
            } else {
                s.replica().awaitPublished();
                seenVersion = Math.max(seenVersion, s.replica().version());
            }
        }
        if (commit && !stands) {
            // it may have read rows of a commit that the failed primary took with it: no record carries them
            throw SqlStates.retryable("the primary this read-only transaction ran on failed (" + s.replica().stateReason()
                    + ") with a commit whose outcome its engine took with it, and this transaction may have read that"
                    + " commit's rows, which the database does not have; retry it", null);
        }
    }

    private void endReadSession(Session s, boolean commit) throws SQLException {
        readSession = null;
        state = State.NONE;
        undeclared = null;
        s.replica().readerEnded();
        Admission.Permit p = readPermit;
        readPermit = null;
        if (p != null) p.close();
        boolean ended = false;
        try {
            if (s.isBroken()) { // the engine closed it under a failure that found the engine there (afterFailure)
                ended = true; // with its transaction: nothing to roll back
                if (s == primary) dropPrimarySession();
                return;
            }
            if (!s.connection().getAutoCommit()) {
                if (commit) s.connection().commit();
                else s.connection().rollback();
            }
            ended = true;
        } catch (SQLException e) {
            // Ending a read-only transaction loses nothing: what it read stands even if the replica
            // has gone since (a secondary, or the primary a read ran on). Its engine is gone, so it leaves
            // the rotation (the primary fails over); the application carries on.
            if (!db.replicaFailed(s.replica(), e, "a reader ending its transaction", s.connection()) && !isClosed(s)) throw e;
            s.markBroken(); // its engine is gone, or the engine closed this session (it opens afresh next time)
            if (s == primary) dropPrimarySession();
        } finally {
            holds.release(s, ended);
        }
    }

    /**
     * {@code -Dmacrodb.checkCaptureImages=false} turns off the check of capture images that engines
     * with failing isolation ask for ({@link io.macrodb.engine.Engine#checksCaptureImages()}): for
     * measuring what the check costs, or for a workload that never deadlocks. Unsafe on H2 otherwise.
     */
    private static final boolean CHECK_IMAGES = !"false".equals(System.getProperty("macrodb.checkCaptureImages"));

    private void beginUpdate(Route why) throws SQLException {
        primarySession(); // opened and synced before the transaction takes its turn
        turn = db.beginUpdate();
        counters.began(why);
        began = why;
        changes = new TransactionChanges(db.propagation(), this::shape, !db.hasApplicationTriggers(), db.shipsChanges(), db.engine(),
                CHECK_IMAGES && db.engine().checksCaptureImages());
        state = State.UPDATE;
        savepointGeneration++;
        namedSavepoints.clear();
    }

    /**
     * Enters the update gate before a statement that may write (once per transaction). A transaction
     * that waited {@code lockTimeout} for a schema change is rolled back, as after an engine lock
     * timeout (40001); an interrupted wait (57014) leaves it open, the statement not run.
     */
    private void enterGate() throws SQLException {
        try {
            turn.enterGate();
        } catch (SQLException e) {
            if (SqlState.SERIALIZATION_FAILURE.getState().equals(e.getSQLState())) rollbackQuietly();
            throw e;
        }
    }

    private void endUpdate() {
        changes = null;
        ownShapes = null;
        state = State.NONE;
        namedSavepoints.clear();
        savepointGeneration++;
        UpdateTurn t = turn;
        turn = null;
        t.close();
    }

    void commit() throws SQLException {
        SQLException ended = endedUnder;
        if (ended != null) {
            endedUnder = null;
            rollbackQuietly(); // what ran since, in a transaction of the engine's own
            throw new SQLException("MacroDB: this transaction was rolled back when a statement of it failed with "
                    + ended.getSQLState() + " (" + ended.getMessage() + "), which ended it in the engine; nothing of it was"
                    + " committed. Run it again from its start", SqlState.TRANSACTION_ROLLBACK.getState(), ended);
        }
        endGuarded(this::commitOrEnd);
    }

    /**
     * Ends the transaction with {@code end} (its commit or rollback): a stop of the engine's database under that call
     * leaves no interrupt ({@link #afterCall}, {@link #afterFailedCall}).
     */
    private void endGuarded(SqlAction end) throws SQLException {
        boolean interruptedBefore = Thread.currentThread().isInterrupted();
        Session on = state == State.UPDATE ? primary : state == State.READ ? readSession : null;
        try {
            end.run();
        } catch (SQLException e) {
            afterFailedCall(interruptedBefore, on);
            throw e;
        }
        if (on != null) afterCall(interruptedBefore, on.connection());
    }

    private void commitOrEnd() throws SQLException {
        switch (state) {
            case NONE -> { }
            case READ -> endRead(true);
            case UPDATE -> {
                try {
                    long v = db.commit(primary, changes, turn);
                    if (v > 0) lastCommitVersion = v;
                } catch (SQLException e) {
                    try {
                        primary.connection().rollback();
                    } catch (SQLException ignored) {
                        // the commit failure is what the caller needs
                    }
                    if (db.replicaFailed(primary.replica(), e, "a commit", primary.connection())) {
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

    /** The application's rollback: it ends what a failure had ended too ({@link #endedUnder}). */
    void rollbackByApplication() throws SQLException {
        endedUnder = null;
        endGuarded(this::rollback);
    }

    void rollback() throws SQLException {
        switch (state) {
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
        // An error of the engine's that ends the session (Derby closes a connection after an error of session
        // severity) leaves the engine up: the next transaction starts on a session opened afresh.
        if (primary != null && isClosed(primary)) dropPrimarySession();
    }

    private static boolean isClosed(Session s) {
        try {
            return s.connection().isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    // ================================================================= savepoints

    Savepoint setSavepoint(String name) throws SQLException {
        if (autoCommit) {
            throw new SQLException("MacroDB: savepoints need a transaction; call setAutoCommit(false) first", SqlState.INVALID_TRANSACTION_STATE.getState());
        }
        if (state == State.NONE) {
            if (readOnly) beginRead();
            else beginUpdate(Route.PRIMARY_UPDATE);
        } else if (state == State.READ && undeclared != null) {
            moveToPrimary(); // a savepoint announces writes to come
        }
        Session s = state == State.UPDATE ? primary : readSession;
        Savepoint phys = onSession(s, c -> name == null ? c.setSavepoint() : c.setSavepoint(name));
        return new MacroSavepoint(this, phys, state == State.UPDATE ? changes.mark() : 0, savepointGeneration, name);
    }

    private MacroSavepoint own(Savepoint sp) throws SQLException {
        if (!(sp instanceof MacroSavepoint m) || m.owner() != this || m.generation() != savepointGeneration || state == State.NONE) {
            throw new SQLException("MacroDB: this savepoint does not belong to the current transaction of this connection",
                    SqlState.INVALID_SAVEPOINT_SPECIFICATION.getState());
        }
        return m;
    }

    void rollback(Savepoint savepoint) throws SQLException {
        MacroSavepoint m = own(savepoint);
        if (state == State.UPDATE && !changes.canRollBackTo(m.mark())) {
            throw SqlStates.unsupported("this savepoint was set before a schema change of the transaction, and MacroDB"
                    + " captured the transaction's rows up to that change when it ran; roll back the whole transaction, or set"
                    + " the savepoint after the schema change. Nothing was rolled back: the transaction is as it was");
        }
        Session s = state == State.UPDATE ? primary : readSession;
        onSession(s, c -> {
            c.rollback(m.physical());
            return null;
        });
        if (state == State.UPDATE) changes.rollbackTo(m.mark());
    }

    void releaseSavepoint(Savepoint savepoint) throws SQLException {
        MacroSavepoint m = own(savepoint);
        Session s = state == State.UPDATE ? primary : readSession;
        onSession(s, c -> {
            c.releaseSavepoint(m.physical());
            return null;
        });
    }

    /**
     * Runs a call of the transaction's own on its session (a savepoint's), with the stop-interrupt guard of a statement
     * ({@link #afterCall}, {@link #afterFailedCall}); a failure is what {@link #afterFailure} makes of it.
     */
    private <T> T onSession(Session s, OnConnection<T> call) throws SQLException {
        boolean interruptedBefore = Thread.currentThread().isInterrupted();
        T result;
        try {
            result = call.apply(s.connection());
        } catch (SQLException | RuntimeException e) {
            try {
                throw afterFailure(e);
            } finally {
                afterFailedCall(interruptedBefore, s); // after afterFailure's rollback, which Derby may end with the interrupt again
            }
        }
        afterCall(interruptedBefore, s.connection());
        return result;
    }

    /** Savepoints set by SQL ({@code SAVEPOINT name}), by name, for {@code RELEASE} and {@code ROLLBACK TO}. */
    Map<String, Savepoint> namedSavepoints() { return namedSavepoints; }

    // ================================================================= undeclared transactions

    /**
     * What an undeclared transaction (autocommit off, no {@code setReadOnly}) that started on a
     * secondary has shown the application, so that it can move to the primary at its first write:
     * the shape of its first statement (what {@link ShapeLearning} is keyed by), each read, and how
     * many more rows it may remember ({@value #REMEMBERED_ROWS} in all; a read past that is too large
     * to check again, and the transaction fails if it writes).
     */
    static final class Undeclared {
        private final String shape;
        private final List<TrackedRead> reads = new ArrayList<>();
        private int rowsLeft = REMEMBERED_ROWS;

        Undeclared(String shape) { this.shape = shape; }

        /** Takes one row from the budget: false once the transaction has remembered all it may. */
        boolean rememberRow() { return --rowsLeft >= 0; }
    }

    /** Whether reads of the open transaction are being remembered for a possible move to the primary. */
    boolean tracking() {
        return state == State.READ && undeclared != null;
    }

    /** Remembers a read of the undeclared transaction, shown to the application through {@code rs}. */
    void track(String sql, Bindings bindings, int holdability, long maxRows, int maxFieldSize, MacroResultSet rs) {
        TrackedRead read = new TrackedRead(sql, bindings, holdability, maxRows, maxFieldSize);
        undeclared.reads.add(read);
        rs.track(read, undeclared);
    }

    /**
     * Moves the undeclared transaction to the primary because it is about to write: starts an update
     * transaction there, runs every read again and compares it with what the application was shown.
     * Same results: the transaction goes on on the primary as if it had run there from the start
     * (open result sets read on from the primary). Different results: it fails with 40001 and
     * nothing has changed anywhere.
     */
    private void moveToPrimary() throws SQLException {
        Undeclared moving = undeclared;
        endRead(false);
        beginUpdate(Route.MOVED_TO_PRIMARY);
        String conflict = null;
        try {
            for (TrackedRead r : moving.reads) {
                if (r.tooLarge()) {
                    learning.tooLarge(moving.shape);
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
            learning.conflicted(moving.shape);
            rollbackQuietly();
            throw SqlStates.retryable("this transaction started on a secondary (it had not called setReadOnly) and "
                    + conflict + "; nothing was changed, retry it", null);
        }
        learning.promoted(moving.shape);
    }

    /** Runs a remembered read on the primary; true if it shows what the application saw. */
    private boolean revalidate(TrackedRead r) throws SQLException {
        PreparedStatement ps = primary.connection().prepareStatement(r.sql(), ResultSet.TYPE_FORWARD_ONLY,
                ResultSet.CONCUR_READ_ONLY, r.holdability());
        boolean keep = false;
        try {
            if (r.bindings() != null) r.bindings().applyTo(ps, true);
            r.applyOptions(ps);
            ResultSet rs = guarded(ps, ps::executeQuery);
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

    // ================================================================= the connection's end

    /** The connection closes: the open transaction is rolled back and every session given back. */
    void close() {
        if (state != State.NONE) rollbackQuietly(); // JDBC leaves this to the driver; rolling back loses nothing committed
        holds.releaseAll();
        if (primary != null) {
            try {
                db.engine().beforeReuse(primary.connection()); // the transaction it may begin ends with the rollback
                primary.connection().rollback();
            } catch (SQLException | RuntimeException e) {
                primary.markBroken();
            }
            db.primary().release(primary);
            primary = null;
        }
    }

    /**
     * The connection is aborted from another thread while its own may still be executing: every
     * physical session is closed (never pooled, since the owning thread may still be using it) and
     * the admissions are handed back.
     */
    void abandon() {
        List<Session> sessions = new ArrayList<>();
        try {
            if (primary != null) sessions.add(primary);
            sessions.addAll(holds.all());
        } catch (RuntimeException raced) {
            // the owning thread changed its sessions meanwhile; close what we could see
        }
        for (Session s : sessions) {
            s.markBroken();
            s.replica().release(s); // a broken session is closed, not pooled
        }
        UpdateTurn updating = turn;
        if (updating != null) updating.close(); // closing twice hands back once: the owner may be ending it too
        Admission.Permit reading = readPermit;
        if (reading != null) reading.close(); // closing twice releases once: the owner may be ending it too
    }

    /** The primary session's engine connection, if it is open (for {@code unwrap}). */
    java.sql.Connection primaryConnection() { return primary == null ? null : primary.connection(); }

    /** {@link #primaryConnection}, handed to the application: the session is marked so ({@link Session#markHandedOut}). */
    java.sql.Connection handOutPrimaryConnection() {
        Session p = primary;
        if (p == null) return null;
        p.markHandedOut();
        return p.connection();
    }
}
