package io.macrodb.jdbc;

import io.macrodb.log.Propagation;
import io.macrodb.replica.Replica;
import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.ReplicaSets;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.replica.Session;
import io.macrodb.route.ReadWaits;
import io.macrodb.route.ShapeLearning;
import io.macrodb.sql.Classification;
import io.macrodb.sql.Classification.Verb;
import io.macrodb.sql.Dialect;
import io.macrodb.sql.SqlClassifier;
import io.macrodb.sql.SqlState;

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
import java.sql.ShardingKey;
import java.sql.Statement;
import java.sql.Struct;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * One client connection to a replicated database: the JDBC face over its {@link Transaction}.
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
 * Which transaction is open, where it runs and how it begins and ends is {@link Transaction}'s job,
 * with the sessions it holds ({@link SessionHolds}). This class keeps what JDBC asks of a connection:
 * argument checks, the statements it made, the session settings (isolation, schema, holdability,
 * session-level {@code SET}) that every session it uses must carry, and the transaction-control and
 * session statements written as SQL, mapped onto its methods.
 *
 * <p>Like the engines' own connections, a MacroConnection may be used by one thread at a time.
 */
public final class MacroConnection implements Connection {
    private static final Map<Dialect, SqlClassifier> CLASSIFIERS = new ConcurrentHashMap<>();

    private final ReplicaSet db;
    private final MacroConfig config;
    private final SqlClassifier classifier;
    private final StatementModeWriter statementWriter;
    private final Transaction transaction;
    /** Whether a SQL BEGIN turned autocommit off for one transaction ({@link #endSqlBegun}). */
    private boolean sqlBegun;
    private final MacroAdmin admin;

    private int isolation;
    private int holdability;
    private String schema;
    /** The last session-level SET of each setting, in the order they were last set. */
    private final LinkedHashMap<String, String> sessionStatements = new LinkedHashMap<>();

    private final Set<MacroStatement> statements = Collections.newSetFromMap(new IdentityHashMap<>());
    private volatile boolean closed;
    private SQLWarning warnings;
    private Map<String, Class<?>> typeMap;
    private final Properties clientInfo = new Properties();

    MacroConnection(ReplicaSet db, MacroConfig config) {
        this.db = db;
        this.isolation = db.engine().defaultIsolation();
        this.holdability = db.engine().defaultHoldability();
        this.config = config;
        this.classifier = CLASSIFIERS.computeIfAbsent(db.engine().dialect(), SqlClassifier::new);
        this.statementWriter = db.propagation() == Propagation.STATEMENT ? new StatementModeWriter(this, db.engine().dialect()) : null;
        this.schema = db.defaultSchema();
        this.transaction = new Transaction(db, config, settings());
        this.admin = new ConnectionAdmin(this, db);
        if (config.jmx()) ReplicaSetJmx.register(db);
    }

    // ================================================================= MacroDB's own API

    /** The replica set behind this connection: for this package (and its tests) only; the public face is {@link #admin()}. */
    ReplicaSet replicaSet() { return db; }

    /** The database's operator face: replica status, catching up, checksums, snapshots, rebuilds. Also {@code unwrap(MacroAdmin.class)}. */
    public MacroAdmin admin() { return admin; }

    /** Versions, lag, state and apply counters of every replica, primary first (as {@link MacroAdmin#replicaStatus()}). */
    public List<ReplicaStatus> replicaStatus() { return db.status(); }

    /** What routing has learned about undeclared transactions (as {@link MacroAdmin#routingStats()}). */
    public List<ShapeLearning.ShapeStats> routingStats() { return db.extension(ShapeLearning.class, ShapeLearning::new).stats(); }

    /** Read-only transactions of the database by where they ran and how long they waited (as {@link MacroAdmin#readWaits()}). */
    public ReadWaits.Stats readWaits() { return db.extension(ReadWaits.class, ReadWaits::new).snapshot(); }

    /**
     * How long this connection's current or last transaction waited, when it began, for a secondary
     * to catch up with the versions it must see: 0 if it ran at once, or was not routed as a read.
     */
    public long lastReadWaitNanos() { return transaction.readWaitNanos(); }

    /** Version of this connection's last committed update transaction (0 if none). */
    public long lastCommitVersion() { return transaction.lastCommitVersion(); }

    /** The options this connection was opened with. */
    public MacroConfig config() { return config; }

    /** This connection's read consistency ({@code strict}, {@code session}, {@code bounded:N}, {@code bounded:Nms}). */
    public String readConsistency() { return transaction.router().consistency().toString(); }

    /**
     * Sets this connection's read consistency, from its next read-only transaction on (the {@code consistency} URL
     * option sets every connection's at first); the database's other connections keep theirs.
     *
     * @throws SQLException 22023 for a value that is not one of the forms the option takes
     */
    public void setReadConsistency(String level) throws SQLException {
        checkOpen();
        try {
            transaction.router().setConsistency(io.macrodb.route.ReadConsistency.parse(level));
        } catch (IllegalArgumentException e) {
            throw new SQLException("MacroDB: " + e.getMessage(), "22023");
        }
    }

    /**
     * Makes this connection's later read-only transactions see at least {@code version}, as if it had committed it
     * itself: a read-your-writes token (another connection's {@link #lastCommitVersion()}) carried across a
     * connection pool. It binds at every consistency level.
     */
    public void readAtLeast(long version) throws SQLException {
        checkOpen();
        transaction.readAtLeast(version);
    }

    /** Where the last statement of this connection ran (also after an autocommit statement ended); null before the first. */
    public ReplicaRef lastReplica() { return ref(transaction.lastReplica()); }

    /** Where the current transaction runs: null if none is open. */
    public ReplicaRef currentReplica() { return ref(transaction.currentReplica()); }

    private static ReplicaRef ref(Replica r) { return r == null ? null : new ReplicaRef(r.index(), r.isPrimary()); }

    // ================================================================= used by statements

    Classification classify(String sql) { return classifier.classify(sql); }

    /** The transaction state machine the statements route through. */
    Transaction transaction() { return transaction; }

    /** Records a statement-mode write so that the secondaries replay it. */
    StatementModeWriter statementWriter() { return statementWriter; }

    boolean statementMode() { return statementWriter != null; }

    /**
     * Whether the engine takes {@code sql} for a schema change or maintenance that the classifier's dialect does not know
     * (PostgreSQL's {@code VACUUM}, {@code REINDEX ... CONCURRENTLY}): it goes the schema-change way, where the engine
     * decides how it runs.
     */
    boolean engineSchemaStatement(String sql) {
        io.macrodb.engine.Engine e = db.engine();
        return e.maintenanceOnPrimary(sql) || e.schemaChangeOutsideTransaction(sql);
    }

    /** The engine's refusal of {@code sql} ({@link io.macrodb.engine.Engine#unsupportedStatement}), or null. */
    SQLException refusedByEngine(String sql) { return db.engine().unsupportedStatement(sql); }

    /** Statements that control the transaction (and {@code SET AUTOCOMMIT}): mapped onto this connection's methods. */
    int transactionControl(Classification c, String sql) throws SQLException {
        checkOpen();
        Map<String, Savepoint> named = transaction.namedSavepoints();
        switch (c.verb()) {
            case COMMIT, ROLLBACK -> {
                if (transaction.autoCommit()) {
                    // no transaction to end: an engine that fails such a statement fails it through MacroDB too
                    SQLException none = db.engine().noTransactionToEnd(c.verb() == Verb.COMMIT);
                    if (none != null) throw none;
                }
                if (c.verb() == Verb.COMMIT) commit();
                else rollback();
            }
            case BEGIN -> {
                if (transaction.isOpen()) commit();
                boolean wasAutoCommit = transaction.autoCommit();
                setAutoCommit(false);
                sqlBegun = wasAutoCommit; // autocommit comes back when this transaction ends (endSqlBegun)
            }
            case AUTOCOMMIT_ON -> setAutoCommit(true);
            case AUTOCOMMIT_OFF -> setAutoCommit(false);
            case LOCK_TABLE -> transaction.lockTables(c, sql);
            case SAVEPOINT -> named.put(c.argument(), setSavepoint(c.argument()));
            case RELEASE_SAVEPOINT, ROLLBACK_TO_SAVEPOINT -> {
                Savepoint sp = named.get(c.argument());
                if (sp == null) {
                    throw new SQLException("MacroDB: no savepoint named " + c.argument() + " in this transaction", SqlState.INVALID_SAVEPOINT_SPECIFICATION.getState());
                }
                if (c.verb() == Verb.RELEASE_SAVEPOINT) {
                    releaseSavepoint(sp);
                    named.remove(c.argument());
                } else {
                    rollback(sp);
                    // SQL's ROLLBACK TO keeps the savepoint; an engine whose JDBC rollback(Savepoint) ends the object it was
                    // given (HSQLDB) gets it set again, here, where the transaction is as it was when it was set
                    if (db.engine().rollbackToSavepointEndsIt()) named.put(c.argument(), setSavepoint(c.argument()));
                }
            }
            default -> throw SqlStates.unsupported("this transaction statement is not supported through MacroDB: "
                    + SqlStates.abbreviate(sql) + "; use the Connection methods (commit, rollback, setSavepoint,"
                    + " setAutoCommit, setTransactionIsolation)");
        }
        return 0;
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

    /**
     * A session-level SET: runs on the primary session now and on every secondary session this
     * connection uses from now on (such sessions are then kept for this connection, not pooled).
     */
    boolean sessionStatement(Classification c, String sql) throws SQLException {
        checkOpen();
        if (c.verb() == Verb.SET_SCHEMA) {
            setSchema(c.argument());
            return false;
        }
        boolean result = transaction.onPrimary(pc -> {
            try (Statement s = pc.createStatement()) {
                return s.execute(sql);
            }
        });
        keepSessionStatement(c.argument() != null ? c.argument() : sql, sql, transaction.primarySession());
        return result;
    }

    /**
     * A query whose effect was a session setting ({@link Verb#SESSION_SET_CALL}) ran on session {@code ranOn} (the
     * primary's, or a read-only transaction's): the setting, as it now stands there, is carried to every other session
     * this connection uses, as a session-level SET is.
     */
    void sessionSettingCalled(String setting, Session ranOn) throws SQLException {
        String sql = db.engine().sessionSettingStatement(ranOn.connection(), setting);
        if (sql != null) keepSessionStatement(setting, sql, ranOn);
    }

    /** {@code sql}, which ran on session {@code ranOn}, sets {@code setting}: the connection's other sessions run it too. */
    private void keepSessionStatement(String setting, String sql, Session ranOn) throws SQLException {
        ranOn.noteSessionStatement(setting, sql);
        sessionStatements.remove(setting);
        sessionStatements.put(setting, sql);
        transaction.useSettings(settings());
    }

    /** What every session this connection uses must have: isolation, schema, holdability, session-level SETs. */
    private Session.Settings settings() {
        return new Session.Settings(isolation, schema, holdability, Collections.unmodifiableMap(new LinkedHashMap<>(sessionStatements)));
    }

    // ================================================================= transactions (the state machine is Transaction)

    @Override public void commit() throws SQLException {
        checkOpen();
        try {
            transaction.commit();
        } catch (SQLException e) {
            transaction.counters().failed(e); // MacroDB's own refusals (40001 ...), counted by SQLState
            throw e;
        } finally {
            endSqlBegun();
        }
    }

    @Override public void rollback() throws SQLException {
        checkOpen();
        try {
            transaction.rollbackByApplication();
        } finally {
            endSqlBegun();
        }
    }

    @Override public void setAutoCommit(boolean on) throws SQLException {
        checkOpen();
        sqlBegun = false;
        transaction.setAutoCommit(on);
    }

    /**
     * A transaction a SQL {@code BEGIN} started in autocommit has ended: autocommit is back, as in the engines
     * (H2's {@code BEGIN}, HSQLDB's {@code START TRANSACTION}, SQLite's and PostgreSQL's {@code BEGIN} start one
     * transaction, not a mode).
     */
    private void endSqlBegun() throws SQLException {
        if (!sqlBegun) return;
        sqlBegun = false;
        transaction.setAutoCommit(true);
    }

    @Override public boolean getAutoCommit() throws SQLException {
        checkOpen();
        return transaction.autoCommit();
    }

    @Override public void setReadOnly(boolean ro) throws SQLException {
        checkOpen();
        transaction.setReadOnly(ro);
    }

    @Override public boolean isReadOnly() throws SQLException {
        checkOpen();
        return transaction.readOnly();
    }

    @Override public void setTransactionIsolation(int level) throws SQLException {
        checkOpen();
        if (level != TRANSACTION_READ_UNCOMMITTED && level != TRANSACTION_READ_COMMITTED
                && level != TRANSACTION_REPEATABLE_READ && level != TRANSACTION_SERIALIZABLE) {
            throw new SQLException("MacroDB: unknown isolation level " + level + "; use one of the Connection.TRANSACTION_* constants",
                    SqlState.INVALID_ARGUMENT.getState());
        }
        if (transaction.isOpen()) {
            throw new SQLException("MacroDB: the isolation level cannot change inside a transaction; commit or roll back first",
                    SqlState.INVALID_TRANSACTION_STATE.getState());
        }
        isolation = level;
        transaction.useSettings(settings());
    }

    @Override public int getTransactionIsolation() throws SQLException {
        checkOpen();
        return isolation;
    }

    @Override public Savepoint setSavepoint() throws SQLException {
        return setSavepoint(null);
    }

    @Override public Savepoint setSavepoint(String name) throws SQLException {
        checkOpen();
        return transaction.setSavepoint(name);
    }

    @Override public void rollback(Savepoint savepoint) throws SQLException {
        checkOpen();
        transaction.rollback(savepoint);
    }

    @Override public void releaseSavepoint(Savepoint savepoint) throws SQLException {
        checkOpen();
        transaction.releaseSavepoint(savepoint);
    }

    // ================================================================= statements

    void register(MacroStatement s) { statements.add(s); }

    void unregister(MacroStatement s) { statements.remove(s); }

    private static void checkResultSetType(int type, int concurrency, int holdability) throws SQLException {
        if (type != ResultSet.TYPE_FORWARD_ONLY && type != ResultSet.TYPE_SCROLL_INSENSITIVE && type != ResultSet.TYPE_SCROLL_SENSITIVE) {
            throw new SQLException("MacroDB: unknown result set type " + type, SqlState.INVALID_ARGUMENT.getState());
        }
        if (concurrency != ResultSet.CONCUR_READ_ONLY && concurrency != ResultSet.CONCUR_UPDATABLE) {
            throw new SQLException("MacroDB: unknown result set concurrency " + concurrency, SqlState.INVALID_ARGUMENT.getState());
        }
        if (holdability != ResultSet.HOLD_CURSORS_OVER_COMMIT && holdability != ResultSet.CLOSE_CURSORS_AT_COMMIT) {
            throw new SQLException("MacroDB: unknown result set holdability " + holdability, SqlState.INVALID_ARGUMENT.getState());
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
                    SqlState.INVALID_ARGUMENT.getState());
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
            throw SqlStates.unreplicable("a procedure call may do anything, so statement propagation cannot replay it"
                    + " safely; connect with propagation=row to use CallableStatement");
        }
        return new MacroCallableStatement(this, sql, type, concurrency, hold);
    }

    @Override public String nativeSQL(String sql) throws SQLException {
        checkOpen();
        return transaction.onPrimary(c -> c.nativeSQL(sql));
    }

    // ================================================================= metadata and settings

    @Override public DatabaseMetaData getMetaData() throws SQLException {
        checkOpen();
        return new MacroDatabaseMetaData(this, transaction.onPrimary(Connection::getMetaData));
    }

    @Override public void setCatalog(String catalog) throws SQLException {
        checkOpen();
        // The engines have one catalog per database; like them, MacroDB ignores a request to switch.
    }

    @Override public String getCatalog() throws SQLException {
        checkOpen();
        return transaction.onPrimary(Connection::getCatalog);
    }

    @Override public void setSchema(String s) throws SQLException {
        checkOpen();
        // validates the name now, as the engine would; kept as the engine says it (on PostgreSQL, the search_path it made)
        schema = transaction.onPrimary(c -> {
            c.setSchema(s);
            return db.engine().sessionSchema(c);
        });
        transaction.useSettings(settings());
    }

    @Override public String getSchema() throws SQLException {
        checkOpen();
        return transaction.onPrimary(Connection::getSchema);
    }

    @Override public void setHoldability(int h) throws SQLException {
        checkOpen();
        if (h != ResultSet.HOLD_CURSORS_OVER_COMMIT && h != ResultSet.CLOSE_CURSORS_AT_COMMIT) {
            throw new SQLException("MacroDB: unknown holdability " + h, SqlState.INVALID_ARGUMENT.getState());
        }
        holdability = h;
        transaction.useSettings(settings());
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
        return transaction.onPrimary(Connection::createClob);
    }

    @Override public Blob createBlob() throws SQLException {
        checkOpen();
        return transaction.onPrimary(Connection::createBlob);
    }

    @Override public NClob createNClob() throws SQLException {
        checkOpen();
        return transaction.onPrimary(Connection::createNClob);
    }

    @Override public SQLXML createSQLXML() throws SQLException {
        checkOpen();
        return transaction.onPrimary(Connection::createSQLXML);
    }

    @Override public Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        checkOpen();
        return transaction.onPrimary(c -> c.createArrayOf(typeName, elements));
    }

    @Override public Struct createStruct(String typeName, Object[] attributes) throws SQLException {
        checkOpen();
        return transaction.onPrimary(c -> c.createStruct(typeName, attributes));
    }

    @Override public boolean isValid(int timeout) throws SQLException {
        if (timeout < 0) throw new SQLException("MacroDB: timeout must not be negative", SqlState.INVALID_ARGUMENT.getState());
        return !closed && db.primary().isActive();
    }

    @Override public void setClientInfo(String name, String value) throws SQLClientInfoException {
        if (closed) throw new SQLClientInfoException("MacroDB: the connection is closed", SqlState.CONNECTION_DOES_NOT_EXIST.getState(), 0, Map.of());
        if (value == null) clientInfo.remove(name);
        else clientInfo.setProperty(name, value);
    }

    @Override public void setClientInfo(Properties properties) throws SQLClientInfoException {
        if (closed) throw new SQLClientInfoException("MacroDB: the connection is closed", SqlState.CONNECTION_DOES_NOT_EXIST.getState(), 0, Map.of());
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
        if (executor == null) throw new SQLException("MacroDB: abort needs an executor", SqlState.INVALID_ARGUMENT.getState());
        if (closed) return;
        closed = true;
        executor.execute(() -> {
            transaction.abandon();
            ReplicaSets.release(db);
        });
    }

    @Override public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        checkOpen();
        if (milliseconds < 0) throw new SQLException("MacroDB: timeout must not be negative", SqlState.INVALID_ARGUMENT.getState());
        // Embedded engines have no network; waits are bounded by lockTimeout instead.
    }

    @Override public int getNetworkTimeout() throws SQLException {
        checkOpen();
        return 0;
    }

    // The JDK's defaults refuse sharding with no SQLState; MacroDB refuses it with its own (0AM00).

    @Override public void setShardingKey(ShardingKey shardingKey) throws SQLException {
        throw noSharding();
    }

    @Override public void setShardingKey(ShardingKey shardingKey, ShardingKey superShardingKey) throws SQLException {
        throw noSharding();
    }

    @Override public boolean setShardingKeyIfValid(ShardingKey shardingKey, int timeout) throws SQLException {
        throw noSharding();
    }

    @Override public boolean setShardingKeyIfValid(ShardingKey shardingKey, ShardingKey superShardingKey, int timeout) throws SQLException {
        throw noSharding();
    }

    private static SQLException noSharding() {
        return SqlStates.unsupported("sharding keys are not supported: the embedded engines have no sharding");
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
            transaction.close();
        } finally {
            closed = true;
            ReplicaSets.release(db);
        }
    }

    /**
     * {@code SHUTDOWN}: closes the database as the engine does: this connection's transaction is
     * rolled back, the replica set closes whatever its close delay (its other connections fail from
     * now on), the engine closes the primary's database, and this connection is closed.
     */
    void shutdownDatabase(String sql) throws SQLException {
        checkOpen();
        try {
            transaction.close();
        } finally {
            closed = true;
            try {
                ReplicaSets.shutdown(db, sql);
            } finally {
                ReplicaSets.release(db);
            }
        }
    }

    @Override public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        if (iface == MacroAdmin.class) return iface.cast(admin);
        java.sql.Connection engine = transaction.primaryConnection();
        if (engine != null && iface.isInstance(engine)) return iface.cast(transaction.handOutPrimaryConnection());
        throw new SQLException("MacroDB: a MacroConnection does not wrap " + iface.getName(), SqlState.INVALID_ARGUMENT.getState());
    }

    @Override public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this) || iface == MacroAdmin.class;
    }

    @Override public String toString() {
        return "MacroConnection[" + config.url() + ", tx=" + transaction.state() + ", lastCommit=v" + transaction.lastCommitVersion() + "]";
    }
}
