package io.macrodb.jdbc;

import io.macrodb.replica.Session;
import io.macrodb.sql.Classification;
import io.macrodb.sql.Classification.Verb;
import io.macrodb.sql.SqlState;
import io.macrodb.sql.StatementKind;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A statement that is not bound to a replica: each execution is classified by its connection and
 * routed by the connection's {@link Transaction}, then run on a physical statement created on the chosen
 * session. Options set here (max rows, fetch size, timeouts) are applied to every physical
 * statement.
 */
class MacroStatement implements Statement {

    final MacroConnection conn;
    /** The connection's transaction state machine, which routes and runs every execution. */
    final Transaction transaction;
    final int type;
    final int concurrency;
    final int holdability;

    private int maxRows;
    private long largeMaxRows;
    private int fetchSize;
    private int fetchDirection = ResultSet.FETCH_FORWARD;
    private int queryTimeout;
    private int maxFieldSize;
    private boolean escapeProcessing = true;
    private boolean poolable;
    private boolean closeOnCompletion;
    private String cursorName;
    private final List<String> batch = new ArrayList<>();

    /** The session and physical statement of the last execution. */
    Session session;
    Statement physical;
    /** Whether {@link #physical} was made for one execution only (statement mode) and must be closed, not cached. */
    boolean physicalIsOwn;
    private MacroResultSet currentResult;
    private long updateCount = -1;
    private boolean closed;

    MacroStatement(MacroConnection conn, int type, int concurrency, int holdability) {
        this.conn = conn;
        this.transaction = conn.transaction();
        this.type = type;
        this.concurrency = concurrency;
        this.holdability = holdability;
        conn.register(this);
    }

    // ================================================================= execution core

    enum Expect { ANY, QUERY, UPDATE }

    /**
     * Classifies and routes {@code sql}, then runs {@code exec} on a physical statement for the
     * chosen session. Subclasses pass the execution of their prepared statements.
     */
    final boolean executeRouted(String sql, Object[] params, Bindings bindings, GeneratedKeys keys, Expect expect, PhysicalExec exec)
            throws SQLException {
        try {
            return route(sql, params, bindings, keys, expect, exec);
        } catch (SQLException e) {
            transaction.counters().failed(e); // MacroDB's own refusals, counted by SQLState
            throw e;
        }
    }

    private boolean route(String sql, Object[] params, Bindings bindings, GeneratedKeys keys, Expect expect, PhysicalExec exec)
            throws SQLException {
        checkOpen();
        closeCurrentResult();
        updateCount = -1;
        Classification c = conn.classify(sql);
        SQLException refused = conn.refusedByEngine(sql);
        if (refused != null) throw refused;
        StatementKind kind = c.kind();
        Verb verb = c.verb();
        if (kind == StatementKind.TRANSACTION || verb == Verb.AUTOCOMMIT_ON || verb == Verb.AUTOCOMMIT_OFF) {
            expectNoResult(expect, sql);
            detach();
            updateCount = conn.transactionControl(c, sql);
            return false;
        }
        if (verb == Verb.SHUTDOWN) {
            expectNoResult(expect, sql);
            detach();
            conn.shutdownDatabase(sql);
            updateCount = 0;
            return false;
        }
        if (kind == StatementKind.SESSION && (verb == Verb.SESSION_SET || verb == Verb.SET_SCHEMA)) {
            expectNoResult(expect, sql);
            detach();
            conn.sessionStatement(c, sql);
            updateCount = 0;
            return false;
        }
        boolean transactionSetting = verb == Verb.TRANSACTION_SET; // runs on the primary as a write does, below
        if (kind == StatementKind.DDL || kind == StatementKind.SESSION && !transactionSetting || c.runsAsSchemaChange()
                || conn.engineSchemaStatement(sql)) {
            expectNoResult(expect, sql);
            checkReplicable(c, sql);
            ComputedRows computed = ComputedRows.of(c, sql, conn.statementMode());
            return transaction.schemaChange(c, sql, params, s -> {
                attach(s);
                if (computed != null) computed.decide(s.connection());
                Statement p = physicalFor(s, sql);
                return finish(transaction.guarded(p, () -> exec.run(p, sql, expect)));
            }, computed == null ? null : s -> computed.changes(s.connection()));
        }
        if (kind == StatementKind.CALL && conn.statementMode()) {
            throw SqlStates.unreplicable("a procedure call may do anything, so statement propagation cannot replay it safely;"
                    + " connect with propagation=row to run " + SqlStates.abbreviate(sql));
        }
        boolean forceWrite = concurrency == ResultSet.CONCUR_UPDATABLE && kind == StatementKind.READ;
        boolean trackable = type == ResultSet.TYPE_FORWARD_ONLY && concurrency == ResultSet.CONCUR_READ_ONLY && !keys.wanted();
        if (conn.statementMode() && kind != StatementKind.READ) expectNoResult(expect, sql); // before anything starts
        Transaction.Target t = transaction.target(c, sql, forceWrite, trackable);
        if (transaction.logsRouting()) transaction.logRouted(t, sql);
        if (t.update()) transaction.noteStatement(c);
        if (t.update() && conn.statementMode() && kind != StatementKind.READ) {
            return transaction.run(t, s -> {
                attach(s);
                if (physical != null) {
                    releasePhysical(physical);
                    physical = null;
                }
                StatementModeWriter.Result r = conn.statementWriter().execute(this, s, sql, bindings, keys);
                physical = r.statement();
                physicalIsOwn = true;
                return finish(r.hasResultSet() ? new Outcome(physical.getResultSet(), -1) : new Outcome(null, physical.getLargeUpdateCount()));
            });
        }
        boolean ran = transaction.run(t, s -> {
            attach(s);
            Outcome outcome = execute(s, sql, expect, exec);
            if (c.verb() == Verb.SESSION_SET_CALL) conn.sessionSettingCalled(c.argument(), s);
            if (t.update() && transaction.autoCommit() && outcome.resultSet() != null && !conn.replicaSet().engine().commitsBesideOpenResults()) {
                outcome = new Outcome(materialized(outcome.resultSet()), -1); // the autocommit's commit comes next
            }
            boolean hasResult = finish(outcome);
            if (c.verb() == Verb.SCRIPT) withoutCaptureTriggers(c.argument());
            if (hasResult && !t.update() && transaction.tracking()) {
                transaction.track(sql, bindings == null ? null : bindings.copy(), holdability, largeMaxRows, maxFieldSize, currentResult);
            }
            return hasResult;
        });
        return ran;
    }

    /**
     * The rows of a write's result ({@code INSERT ... RETURNING}) read into memory, and the engine's
     * result closed: an engine that cannot commit while a statement still has rows to hand out
     * (SQLite) can then end the autocommit transaction the write was.
     */
    private static ResultSet materialized(ResultSet rs) throws SQLException {
        javax.sql.rowset.CachedRowSet copy = javax.sql.rowset.RowSetProvider.newFactory().createCachedRowSet();
        try {
            copy.populate(rs);
        } finally {
            rs.close();
        }
        return copy;
    }

    /** What one execution produced: a result set, or an update count. */
    record Outcome(ResultSet resultSet, long updateCount) {
        static Outcome of(Statement p, boolean hasResultSet) throws SQLException {
            return hasResultSet ? new Outcome(p.getResultSet(), -1) : new Outcome(null, p.getLargeUpdateCount());
        }
    }

    /** A SCRIPT dump as the application would get it from the plain engine: without MacroDB's triggers. */
    private void withoutCaptureTriggers(String file) throws SQLException {
        if (file != null) Dumps.removeCaptureTriggers(file);
        if (currentResult != null) currentResult.skipCaptureTriggers();
    }

    /** Refuses schema changes that replicas cannot all run to the same result. */
    private static void checkReplicable(Classification c, String sql) throws SQLException {
        if (c.temporaryTable()) {
            throw SqlStates.unreplicable("temporary tables hold one session's rows, and MacroDB runs a session's reads on"
                    + " other replicas, where those rows are not; use a regular table: " + SqlStates.abbreviate(sql));
        }
        String unsafe = c.unsafeSchemaChange();
        if (unsafe != null && !ComputedRows.handles(c)) { // those ship the primary's rows, or are refused against the table
            throw SqlStates.unreplicable("this schema change cannot be replicated as it is, because " + unsafe + ": "
                    + SqlStates.abbreviate(sql));
        }
    }

    /**
     * Runs the statement on a physical statement with the engine's own method for {@code expect}
     * (executeQuery, executeUpdate or execute), so that the engine refuses a mismatch before it
     * changes anything, exactly as it would without MacroDB.
     */
    @FunctionalInterface
    interface PhysicalExec {
        Outcome run(Statement physical, String sql, Expect expect) throws SQLException;
    }

    private static void expectNoResult(Expect expect, String sql) throws SQLException {
        if (expect == Expect.QUERY) {
            throw new SQLException("MacroDB: executeQuery needs a statement that returns rows, not " + SqlStates.abbreviate(sql)
                    + "; use execute or executeUpdate", SqlState.DYNAMIC_SQL_ERROR.getState());
        }
    }

    private boolean finish(Outcome outcome) {
        if (outcome.resultSet() != null) {
            currentResult = new MacroResultSet(this, outcome.resultSet());
            updateCount = -1;
            return true;
        }
        updateCount = outcome.updateCount();
        return false;
    }

    /** Binds this statement to {@code s}, which it holds until detached ({@link SessionHolds}). */
    final void attach(Session s) throws SQLException {
        if (session != s) {
            detach();
            session = s;
            transaction.holds().hold(s);
        }
    }

    /**
     * HSQLDB's "statement is invalid": a compiled statement that a schema change made stale and that
     * the engine could not compile again in place. Physical prepared statements are cached per session
     * and shared by MacroDB statements with the same SQL, so a new {@code prepareStatement} can get one
     * compiled before a schema change (Flyway on HSQLDB did), where the plain engine compiles afresh.
     */
    private static final String STALE_STATEMENT = "07502";

    /**
     * Runs one execution on {@code s}'s physical statement; if the engine reports it stale, nothing
     * ran, and it runs once more on a statement prepared afresh.
     */
    private Outcome execute(Session s, String sql, Expect expect, PhysicalExec exec) throws SQLException {
        Statement p = physicalFor(s, sql);
        try {
            return transaction.guarded(p, () -> exec.run(p, sql, expect));
        } catch (SQLException e) {
            if (!STALE_STATEMENT.equals(e.getSQLState()) || physical != p) throw e;
            physical = null;
            try {
                p.close();
            } catch (SQLException ignored) {
                // it is of no use any more
            }
            Statement fresh = physicalFor(s, sql);
            return transaction.guarded(fresh, () -> exec.run(fresh, sql, expect));
        }
    }

    /** The physical plain statement on {@code s}, created with this statement's options. */
    Statement physicalFor(Session s, String sql) throws SQLException {
        dropOwnPhysical();
        if (physical == null) {
            physical = s.connection().createStatement(type, concurrency, holdability);
            applyOptions(physical);
        }
        return physical;
    }

    /** A statement-mode physical statement served one execution; the next one gets a normal physical statement. */
    final void dropOwnPhysical() {
        if (physical != null && physicalIsOwn) {
            releasePhysical(physical);
            physical = null;
            physicalIsOwn = false;
        }
    }

    /**
     * Sets every option on a physical statement, defaults included: physical prepared statements
     * are cached per session and shared by MacroDB statements with the same SQL, so nothing one of
     * them set may linger for the next.
     */
    final void applyOptions(Statement p) throws SQLException {
        if (largeMaxRows > Integer.MAX_VALUE) p.setLargeMaxRows(largeMaxRows);
        else p.setMaxRows(maxRows);
        p.setFetchSize(fetchSize);
        // H2 runs a SET QUERY_TIMEOUT on its session for every call (it is a session setting there):
        // skip it when the physical statement already has no timeout and none is wanted
        if (queryTimeout != 0 || p.getQueryTimeout() != 0) p.setQueryTimeout(queryTimeout);
        p.setMaxFieldSize(maxFieldSize);
        p.setEscapeProcessing(escapeProcessing);
        if (cursorName != null) p.setCursorName(cursorName);
    }

    /** Lets go of the physical statement and the session. */
    void detach() {
        boolean interruptedBefore = Thread.currentThread().isInterrupted();
        Session on = session;
        closeCurrentResult();
        if (physical != null) {
            releasePhysical(physical);
            physical = null;
        }
        physicalIsOwn = false;
        if (session != null) {
            Session s = session;
            session = null;
            transaction.holds().release(s);
            transaction.primaryResultClosed(s);
        }
        if (on != null) transaction.afterClose(interruptedBefore, on);
    }

    /** Closes (or, for pooled prepared statements, returns) a physical statement. */
    void releasePhysical(Statement p) {
        try {
            p.close();
        } catch (SQLException ignored) {
            // a statement on a broken session; the session's fate is decided elsewhere
        }
    }

    private void closeCurrentResult() {
        if (currentResult != null) {
            MacroResultSet r = currentResult;
            currentResult = null;
            r.closeQuietly();
        }
    }

    /** Called by a result set of this statement when it is closed. */
    void resultClosed(MacroResultSet rs) throws SQLException {
        if (rs == currentResult) {
            currentResult = null;
            // a query on a secondary is done: let its session go back to the pool now
            if (session != null && !session.isPrimary()) detach();
            else if (session != null) transaction.primaryResultClosed(session);
        }
        if (closeOnCompletion && currentResult == null) close();
    }

    // ================================================================= java.sql.Statement: execution

    @Override public ResultSet executeQuery(String sql) throws SQLException {
        checkNotPrepared();
        executeRouted(sql, new Object[0], null, GeneratedKeys.NONE, Expect.QUERY, plain(GeneratedKeys.NONE));
        return currentResult;
    }

    @Override public int executeUpdate(String sql) throws SQLException {
        return toInt(executeLargeUpdate(sql));
    }

    @Override public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return toInt(executeLargeUpdate(sql, autoGeneratedKeys));
    }

    @Override public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return toInt(executeLargeUpdate(sql, columnIndexes));
    }

    @Override public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        return toInt(executeLargeUpdate(sql, columnNames));
    }

    @Override public long executeLargeUpdate(String sql) throws SQLException {
        return largeUpdate(sql, GeneratedKeys.NONE);
    }

    @Override public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return largeUpdate(sql, keysFlag(autoGeneratedKeys));
    }

    @Override public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return largeUpdate(sql, GeneratedKeys.of(columnIndexes));
    }

    @Override public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        return largeUpdate(sql, GeneratedKeys.of(columnNames));
    }

    private long largeUpdate(String sql, GeneratedKeys keys) throws SQLException {
        checkNotPrepared();
        executeRouted(sql, new Object[0], null, keys, Expect.UPDATE, plain(keys));
        return Math.max(updateCount, 0);
    }

    @Override public boolean execute(String sql) throws SQLException {
        checkNotPrepared();
        return executeRouted(sql, new Object[0], null, GeneratedKeys.NONE, Expect.ANY, plain(GeneratedKeys.NONE));
    }

    @Override public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        checkNotPrepared();
        GeneratedKeys keys = keysFlag(autoGeneratedKeys);
        return executeRouted(sql, new Object[0], null, keys, Expect.ANY, plain(keys));
    }

    @Override public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        checkNotPrepared();
        GeneratedKeys keys = GeneratedKeys.of(columnIndexes);
        return executeRouted(sql, new Object[0], null, keys, Expect.ANY, plain(keys));
    }

    @Override public boolean execute(String sql, String[] columnNames) throws SQLException {
        checkNotPrepared();
        GeneratedKeys keys = GeneratedKeys.of(columnNames);
        return executeRouted(sql, new Object[0], null, keys, Expect.ANY, plain(keys));
    }

    /** Execution of a plain statement's SQL with the engine method matching what the caller expects. */
    private static PhysicalExec plain(GeneratedKeys keys) {
        return (p, q, expect) -> switch (expect) {
            case QUERY -> new Outcome(p.executeQuery(q), -1);
            case UPDATE -> new Outcome(null, keys.executeLargeUpdate(p, q));
            case ANY -> Outcome.of(p, keys.execute(p, q));
        };
    }

    static GeneratedKeys keysFlag(int autoGeneratedKeys) throws SQLException {
        if (autoGeneratedKeys == RETURN_GENERATED_KEYS) return GeneratedKeys.ALL;
        if (autoGeneratedKeys == NO_GENERATED_KEYS) return GeneratedKeys.NONE;
        throw new SQLException("MacroDB: autoGeneratedKeys must be Statement.RETURN_GENERATED_KEYS or NO_GENERATED_KEYS",
                SqlState.INVALID_ARGUMENT.getState());
    }

    /** The String-taking execute methods are for plain statements; JDBC forbids them on a PreparedStatement. */
    void checkNotPrepared() throws SQLException {
        // overridden by MacroPreparedStatement
    }

    static int toInt(long n) {
        return n > Integer.MAX_VALUE ? Statement.SUCCESS_NO_INFO : (int) n;
    }

    // ================================================================= batches

    @Override public void addBatch(String sql) throws SQLException {
        checkOpen();
        checkNotPrepared();
        if (sql == null) throw new SQLException("MacroDB: a batch statement cannot be null", SqlState.INVALID_ARGUMENT.getState());
        batch.add(sql);
    }

    @Override public void clearBatch() throws SQLException {
        checkOpen();
        batch.clear();
    }

    @Override public int[] executeBatch() throws SQLException {
        long[] n = executeLargeBatch();
        int[] out = new int[n.length];
        for (int i = 0; i < n.length; i++) out[i] = toInt(n[i]);
        return out;
    }

    /**
     * Runs the batch one statement at a time, so that a failing statement's captured changes are cut
     * back exactly as for a single statement. Stops at the first failure with a
     * BatchUpdateException whose counts cover the statements before it.
     */
    @Override public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        List<String> todo = new ArrayList<>(batch);
        batch.clear();
        long[] counts = new long[todo.size()];
        for (int i = 0; i < todo.size(); i++) {
            try {
                counts[i] = largeUpdate(todo.get(i), GeneratedKeys.NONE);
            } catch (SQLException e) {
                throw batchFailure(Arrays.copyOf(counts, i), e);
            }
        }
        return counts;
    }

    static BatchUpdateException batchFailure(long[] done, SQLException e) {
        return new BatchUpdateException("MacroDB: batch statement " + (done.length + 1) + " failed: " + e.getMessage(),
                e.getSQLState(), e.getErrorCode(), done, e);
    }

    // ================================================================= results

    @Override public ResultSet getResultSet() throws SQLException {
        checkOpen();
        return currentResult;
    }

    @Override public int getUpdateCount() throws SQLException {
        checkOpen();
        return updateCount > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) updateCount;
    }

    @Override public long getLargeUpdateCount() throws SQLException {
        checkOpen();
        return updateCount;
    }

    @Override public boolean getMoreResults() throws SQLException {
        return getMoreResults(CLOSE_CURRENT_RESULT);
    }

    @Override public boolean getMoreResults(int current) throws SQLException {
        checkOpen();
        if (physical == null) {
            updateCount = -1;
            return false;
        }
        if (current == CLOSE_CURRENT_RESULT || current == CLOSE_ALL_RESULTS) closeCurrentResult();
        else currentResult = null;
        boolean rs = physical.getMoreResults(current);
        if (rs) {
            currentResult = new MacroResultSet(this, physical.getResultSet());
            updateCount = -1;
        } else {
            updateCount = physical.getLargeUpdateCount();
        }
        return rs;
    }

    @Override public ResultSet getGeneratedKeys() throws SQLException {
        checkOpen();
        if (physical == null) {
            throw new SQLException("MacroDB: no statement has run yet, so there are no generated keys", SqlState.INVALID_TRANSACTION_STATE.getState());
        }
        return new MacroResultSet(this, physical.getGeneratedKeys());
    }

    // ================================================================= options

    @Override public int getMaxFieldSize() throws SQLException { checkOpen(); return maxFieldSize; }

    @Override public void setMaxFieldSize(int max) throws SQLException {
        checkOpen();
        if (max < 0) throw negative("maxFieldSize");
        maxFieldSize = max;
        if (physical != null) physical.setMaxFieldSize(max);
    }

    @Override public int getMaxRows() throws SQLException { checkOpen(); return maxRows; }

    @Override public void setMaxRows(int max) throws SQLException {
        checkOpen();
        if (max < 0) throw negative("maxRows");
        maxRows = max;
        largeMaxRows = max;
        if (physical != null) physical.setMaxRows(max);
    }

    @Override public long getLargeMaxRows() throws SQLException { checkOpen(); return largeMaxRows; }

    @Override public void setLargeMaxRows(long max) throws SQLException {
        checkOpen();
        if (max < 0) throw negative("maxRows");
        largeMaxRows = max;
        maxRows = (int) Math.min(max, Integer.MAX_VALUE);
        if (physical != null) physical.setLargeMaxRows(max);
    }

    @Override public void setEscapeProcessing(boolean enable) throws SQLException {
        checkOpen();
        escapeProcessing = enable;
        if (physical != null) physical.setEscapeProcessing(enable);
    }

    @Override public int getQueryTimeout() throws SQLException { checkOpen(); return queryTimeout; }

    @Override public void setQueryTimeout(int seconds) throws SQLException {
        checkOpen();
        if (seconds < 0) throw negative("queryTimeout");
        queryTimeout = seconds;
        if (physical != null) physical.setQueryTimeout(seconds);
    }

    @Override public void cancel() throws SQLException {
        checkOpen();
        Statement p = physical;
        if (p != null) p.cancel();
    }

    @Override public SQLWarning getWarnings() throws SQLException {
        checkOpen();
        return physical == null ? null : physical.getWarnings();
    }

    @Override public void clearWarnings() throws SQLException {
        checkOpen();
        if (physical != null) physical.clearWarnings();
    }

    @Override public void setCursorName(String name) throws SQLException {
        checkOpen();
        cursorName = name;
    }

    @Override public void setFetchDirection(int direction) throws SQLException {
        checkOpen();
        if (direction != ResultSet.FETCH_FORWARD && direction != ResultSet.FETCH_REVERSE && direction != ResultSet.FETCH_UNKNOWN) {
            throw new SQLException("MacroDB: unknown fetch direction " + direction, SqlState.INVALID_ARGUMENT.getState());
        }
        fetchDirection = direction;
    }

    @Override public int getFetchDirection() throws SQLException { checkOpen(); return fetchDirection; }

    @Override public void setFetchSize(int rows) throws SQLException {
        checkOpen();
        if (rows < 0) throw negative("fetchSize");
        fetchSize = rows;
        if (physical != null) physical.setFetchSize(rows);
    }

    @Override public int getFetchSize() throws SQLException { checkOpen(); return fetchSize; }

    @Override public int getResultSetConcurrency() throws SQLException { checkOpen(); return concurrency; }

    @Override public int getResultSetType() throws SQLException { checkOpen(); return type; }

    @Override public int getResultSetHoldability() throws SQLException { checkOpen(); return holdability; }

    @Override public Connection getConnection() throws SQLException { checkOpen(); return conn; }

    @Override public void setPoolable(boolean p) throws SQLException { checkOpen(); poolable = p; }

    @Override public boolean isPoolable() throws SQLException { checkOpen(); return poolable; }

    @Override public void closeOnCompletion() throws SQLException { checkOpen(); closeOnCompletion = true; }

    @Override public boolean isCloseOnCompletion() throws SQLException { checkOpen(); return closeOnCompletion; }

    private static SQLException negative(String what) {
        return new SQLException("MacroDB: " + what + " must not be negative", SqlState.INVALID_ARGUMENT.getState());
    }

    // ================================================================= life

    final void checkOpen() throws SQLException {
        if (closed) throw SqlStates.closedObject("statement");
        conn.checkOpen();
    }

    @Override public boolean isClosed() { return closed || conn.isClosed(); }

    @Override public void close() throws SQLException {
        if (closed) return;
        closed = true;
        detach();
        conn.unregister(this);
    }

    void closeQuietly() {
        try {
            close();
        } catch (SQLException ignored) {
            // closing on the way out
        }
    }

    @Override public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        if (physical != null && iface.isInstance(physical)) return iface.cast(physical);
        throw new SQLException("MacroDB: this statement does not wrap " + iface.getName(), SqlState.INVALID_ARGUMENT.getState());
    }

    @Override public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override public String toString() {
        return getClass().getSimpleName() + (session == null ? "" : " on " + session.replica()) + (closed ? " (closed)" : "");
    }

}
