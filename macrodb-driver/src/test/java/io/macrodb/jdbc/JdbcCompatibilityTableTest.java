package io.macrodb.jdbc;

import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Builds the JDBC compatibility table ({@code docs/jdbc-compatibility.md}) by reflection over the
 * MacroDB classes and checks that the checked-in document is up to date.
 *
 * <p>Each method of the six interfaces is classified from the class that implements it:
 * <ul>
 *   <li><b>delegated</b>: declared in a generated {@code Delegating*} base class and not overridden;</li>
 *   <li><b>supported</b>: declared in a MacroDB class (or a JDK default method that does not refuse);</li>
 *   <li><b>refused</b>: listed in {@link #REFUSED}, found by reading the source: it throws
 *       SQLFeatureNotSupportedException unconditionally.</li>
 * </ul>
 * Methods refused only under some condition stay supported, with the condition in their note.
 *
 * <p>When the driver changes, regenerate the document with
 * {@code mvn -pl macrodb-driver test -Dtest=JdbcCompatibilityTableTest -Dmacrodb.regenerateDocs=true}
 * and review the diff.
 */
class JdbcCompatibilityTableTest {
    static final String REGENERATE_PROPERTY = "macrodb.regenerateDocs";
    static final String DOC_NAME = "jdbc-compatibility.md";

    enum Support {
        SUPPORTED("supported"), DELEGATED("delegated"), REFUSED("refused");

        final String word;

        Support(String word) { this.word = word; }
    }

    /** One interface, the MacroDB class behind it, and where its delegated methods go. */
    record Api(Class<?> iface, Class<?> impl, String delegatesTo) {}

    static final List<Api> APIS = List.of(
            new Api(Connection.class, MacroConnection.class, null),
            new Api(Statement.class, MacroStatement.class, null),
            new Api(PreparedStatement.class, MacroPreparedStatement.class, null),
            new Api(CallableStatement.class, MacroCallableStatement.class,
                    "the engine's CallableStatement, prepared on this connection's primary session"),
            new Api(ResultSet.class, MacroResultSet.class,
                    "the engine's ResultSet on the replica that ran the query"),
            new Api(DatabaseMetaData.class, MacroDatabaseMetaData.class,
                    "the primary's engine DatabaseMetaData (every replica has the same schema)"));

    record Row(String signature, String declaredIn, Support support, String note) {}

    // ================================================================= refused methods

    /**
     * Methods that throw SQLFeatureNotSupportedException unconditionally, keyed by
     * {@code DeclaringClass#signature} of the method that runs (a MacroDB class, or a JDBC interface
     * whose default method MacroDB does not override). Value: the reason shown in the table.
     */
    static final Map<String, String> REFUSED = new LinkedHashMap<>();

    static {
        String sharding = "Throws SQLFeatureNotSupportedException with SQLState 0AM00 (the JDK's default has none). The embedded engines have no sharding.";
        REFUSED.put("MacroConnection#setShardingKey(ShardingKey)", sharding);
        REFUSED.put("MacroConnection#setShardingKey(ShardingKey, ShardingKey)", sharding);
        REFUSED.put("MacroConnection#setShardingKeyIfValid(ShardingKey, int)", sharding);
        REFUSED.put("MacroConnection#setShardingKeyIfValid(ShardingKey, ShardingKey, int)", sharding);
    }

    // ================================================================= notes

    /**
     * Notes on what a method does, keyed by {@code DeclaringClass#signature} of the method that runs,
     * so that a note on a MacroStatement method shows in every table that uses it.
     */
    static final Map<String, String> NOTES = new LinkedHashMap<>();
    /**
     * Notes for one table only, keyed by {@code Interface:signature}; they take precedence over
     * {@link #NOTES} (a method inherited from MacroStatement behaves differently in a prepared statement).
     */
    static final Map<String, String> TABLE_NOTES = new LinkedHashMap<>();

    private static void note(String note, String... keys) {
        for (String k : keys) {
            String prev = (k.contains("#") ? NOTES : TABLE_NOTES).put(k, note);
            if (prev != null) throw new IllegalStateException("two notes for " + k);
        }
    }

    static {
        // ---------------------------------------------------------------- Connection
        String c = "MacroConnection#";
        note("Runs close() on the given executor (rolling back an open transaction); does nothing if already closed. Null executor: HY024.",
                c + "abort(Executor)");
        note("JDK default method, not overridden: does nothing.", "Connection#beginRequest()", "Connection#endRequest()");
        note("MacroDB's own warning chain, which stays empty; statement warnings come from the engine (see Statement).",
                c + "getWarnings()", c + "clearWarnings()");
        note("Closes the connection's statements, rolls back an open transaction and returns its sessions to the replicas' pools.",
                c + "close()");
        note("Update transaction: committed on the primary and logged with the next version for the secondaries to apply."
                + " Read-only transaction: ends it and lets its secondary session go back to the pool.", c + "commit()");
        note("Rolls back the transaction on the replica it runs on and discards its captured changes.", c + "rollback()");
        note("Made by the primary's engine connection, so the object is the engine's own;"
                + " a prepared statement copies its value when it is bound as a parameter.",
                c + "createArrayOf(String, Object[])", c + "createBlob()", c + "createClob()", c + "createNClob()",
                c + "createSQLXML()");
        note("Made by the primary's engine connection, so the object is the engine's own.", c + "createStruct(String, Object[])");
        String newStatement = "A MacroDB statement bound to no replica: each execution is routed."
                + " Unknown type, concurrency or holdability values are rejected (HY024).";
        note(newStatement, c + "createStatement()", c + "createStatement(int, int)", c + "createStatement(int, int, int)");
        String newPrepared = "A MacroDB prepared statement bound to no replica: each execution is routed, and the SQL is prepared"
                + " once per replica session and cached there.";
        note(newPrepared, c + "prepareStatement(String)", c + "prepareStatement(String, int, int)",
                c + "prepareStatement(String, int, int, int)", c + "prepareStatement(String, int)",
                c + "prepareStatement(String, int[])", c + "prepareStatement(String, String[])");
        note("Refused (SQLFeatureNotSupportedException) with statement propagation, which cannot replay a procedure call."
                + " With row propagation: a MacroCallableStatement prepared on the primary.",
                c + "prepareCall(String)", c + "prepareCall(String, int, int)", c + "prepareCall(String, int, int, int)");
        note("MacroDB's own flag. The physical primary session always runs with autocommit off, and MacroDB commits it.",
                c + "getAutoCommit()");
        note("MacroDB's own flag; switching it on commits an open transaction. In autocommit, a statement the SQL classifier"
                + " proves to be a pure read runs on a secondary.", c + "setAutoCommit(boolean)");
        note("Asks the primary's engine connection.", c + "getCatalog()", c + "getSchema()");
        note("Accepted and ignored (the engines have one catalog per database, and ignore it too).", c + "setCatalog(String)");
        note("Checked by the primary's engine connection, then applied to every session this connection uses.",
                c + "setSchema(String)");
        note("Kept by MacroDB; not passed to the engines.", c + "getClientInfo()", c + "getClientInfo(String)",
                c + "setClientInfo(Properties)", c + "setClientInfo(String, String)");
        note("Applied to every session this connection uses. Unknown values are rejected (HY024).",
                c + "setHoldability(int)");
        note("Stored and returned; not passed to the engines.", c + "getTypeMap()", c + "setTypeMap(Map)");
        note("The primary's metadata, wrapped in MacroDatabaseMetaData (see below).", c + "getMetaData()");
        note("Always 0.", c + "getNetworkTimeout()");
        note("Accepted and ignored (a negative timeout is rejected, HY024): the embedded engines have no network;"
                + " lock waits are bounded by the lockTimeout option.", c + "setNetworkTimeout(Executor, int)");
        note("Routing: a read-only transaction runs on a secondary that is recent enough for the consistency level"
                + " (or on the primary if it is idle, or if none catches up within readWait); a write in it fails with 25006."
                + " Cannot change inside a transaction (25000).", c + "setReadOnly(boolean)");
        note("Applied to every session this connection uses. Cannot change inside a transaction (25000);"
                + " unknown levels are rejected (HY024).", c + "setTransactionIsolation(int)");
        note("True while the connection is open and the primary replica is active; the timeout is not used"
                + " (a negative one is rejected, HY024).", c + "isValid(int)");
        note("The primary engine's translation.", c + "nativeSQL(String)");
        note("Needs autocommit off (25000); starts the transaction if none is open. Set on the transaction's session,"
                + " and rolling back to it also cuts back the captured changes.", c + "setSavepoint()", c + "setSavepoint(String)");
        note("Only for a savepoint of the current transaction (3B001); rolls back the engine and the captured changes.",
                c + "rollback(Savepoint)");
        note("Only for a savepoint of the current transaction (3B001).", c + "releaseSavepoint(Savepoint)");
        note("Gives the MacroConnection, or the engine's primary connection once this connection has used one.",
                c + "unwrap(Class)");
        note("True only for MacroDB's own types (though unwrap also gives the engine's primary connection).",
                c + "isWrapperFor(Class)");

        // ---------------------------------------------------------------- Statement
        String s = "MacroStatement#";
        String routed = "Classified and routed (see [How a statement runs](#how-a-statement-runs)).";
        String noRows = " Fails (07000) if the statement returns rows.";
        note(routed, s + "execute(String)");
        note(routed + " Fails (07000) if the statement returns no rows.", s + "executeQuery(String)");
        note(routed + noRows, s + "executeUpdate(String)", s + "executeLargeUpdate(String)");
        String routedKeys = "Routed like execute(String); the generated keys are asked of the engine on the replica that runs it.";
        note(routedKeys, s + "execute(String, int)", s + "execute(String, int[])", s + "execute(String, String[])");
        note(routedKeys + noRows, s + "executeUpdate(String, int)", s + "executeUpdate(String, int[])",
                s + "executeUpdate(String, String[])", s + "executeLargeUpdate(String, int)",
                s + "executeLargeUpdate(String, int[])", s + "executeLargeUpdate(String, String[])");
        note("Kept by MacroDB until the batch runs.", s + "addBatch(String)");
        note("Runs the statements one at a time, each routed and captured like a single statement; stops at the first"
                + " failure with a BatchUpdateException counting the statements before it.",
                s + "executeBatch()", s + "executeLargeBatch()");
        note("Cancels the physical statement of the last execution, if any.", s + "cancel()");
        note("The warnings of the physical statement of the last execution.", s + "getWarnings()", s + "clearWarnings()");
        note("From the physical statement of the last execution.", s + "getMoreResults()", s + "getMoreResults(int)");
        note("From the physical statement of the last execution; fails (25000) before any execution.", s + "getGeneratedKeys()");
        note("Closes the physical statement and lets a secondary session go back to its pool.", s + "close()");
        note("JDK default method, not overridden: implemented in Java by the SQL standard rules, without asking the engine.",
                "Statement#enquoteIdentifier(String, boolean)", "Statement#enquoteLiteral(String)",
                "Statement#enquoteNCharLiteral(String)", "Statement#isSimpleIdentifier(String)");
        note("The MacroConnection.", s + "getConnection()");
        note("Stored and reported; not passed to the engine.", s + "setFetchDirection(int)",
                s + "setPoolable(boolean)");
        String option = "Stored, and applied to the physical statement of every execution.";
        note(option, s + "setFetchSize(int)", s + "setMaxRows(int)", s + "setLargeMaxRows(long)", s + "setMaxFieldSize(int)",
                s + "setQueryTimeout(int)", s + "setEscapeProcessing(boolean)");
        note("Stored, and applied to the physical statements created after the call (on the next replica session used).",
                s + "setCursorName(String)");
        note("Gives the MacroDB statement, or the physical statement of the last execution.", s + "unwrap(Class)");
        note("True only for MacroDB's own types.", s + "isWrapperFor(Class)");

        // ---------------------------------------------------------------- PreparedStatement
        String p = "MacroPreparedStatement#";
        String own = "Fails (07000): a PreparedStatement runs its own SQL, as JDBC requires.";
        for (String m : List.of("execute(String)", "execute(String, int)", "execute(String, int[])", "execute(String, String[])",
                "executeQuery(String)", "executeUpdate(String)", "executeUpdate(String, int)", "executeUpdate(String, int[])",
                "executeUpdate(String, String[])", "executeLargeUpdate(String)", "executeLargeUpdate(String, int)",
                "executeLargeUpdate(String, int[])", "executeLargeUpdate(String, String[])", "addBatch(String)")) {
            note(own, "PreparedStatement:" + m);
        }
        note("Runs one execution per parameter set, each routed and captured like a single execution; stops at the first"
                + " failure with a BatchUpdateException counting the executions before it.",
                "PreparedStatement:executeBatch()", p + "executeLargeBatch()");
        String prepRouted = "Classified and routed like Statement.execute; the stored parameters are bound on the chosen"
                + " replica's physical statement (prepared once per session and cached).";
        note(prepRouted, p + "execute()");
        note(prepRouted + noRows, p + "executeUpdate()", p + "executeLargeUpdate()");
        note(prepRouted + " Fails (07000) if the statement returns no rows.", p + "executeQuery()");
        note("Copies the current parameters into the batch.", p + "addBatch()");
        note("Prepares the SQL on the primary and asks the engine.", p + "getMetaData()", p + "getParameterMetaData()");
        String stream = "The stream is read fully into memory when set, so that it can be bound on any replica.";
        note(stream, p + "setAsciiStream(int, InputStream)", p + "setAsciiStream(int, InputStream, int)",
                p + "setAsciiStream(int, InputStream, long)", p + "setBinaryStream(int, InputStream)",
                p + "setBinaryStream(int, InputStream, int)", p + "setBinaryStream(int, InputStream, long)",
                p + "setCharacterStream(int, Reader)", p + "setCharacterStream(int, Reader, int)",
                p + "setCharacterStream(int, Reader, long)", p + "setNCharacterStream(int, Reader)",
                p + "setNCharacterStream(int, Reader, long)");
        note(stream + " Bound with setBinaryStream.", p + "setBlob(int, InputStream)", p + "setBlob(int, InputStream, long)",
                p + "setUnicodeStream(int, InputStream, int)");
        note(stream + " Bound with setCharacterStream.", p + "setClob(int, Reader)", p + "setClob(int, Reader, long)");
        note(stream + " Bound with setNCharacterStream.", p + "setNClob(int, Reader)", p + "setNClob(int, Reader, long)");
        note("The value is copied out (and the engine object freed) when set, then bound with setObject on any replica.",
                p + "setArray(int, Array)", p + "setBlob(int, Blob)", p + "setClob(int, Clob)", p + "setNClob(int, NClob)",
                p + "setSQLXML(int, SQLXML)");
        note("A stream, reader or LOB value is copied when set, as with the typed setters.",
                p + "setObject(int, Object)", p + "setObject(int, Object, int)", p + "setObject(int, Object, int, int)",
                p + "setObject(int, Object, SQLType)", p + "setObject(int, Object, SQLType, int)");

        // ---------------------------------------------------------------- CallableStatement
        String k = "MacroCallableStatement#";
        String call = "Runs on the primary as (part of) an update transaction, where row capture sees whatever the procedure changes.";
        note(call, k + "execute()", k + "executeQuery()", k + "executeUpdate()", k + "executeLargeUpdate()",
                k + "executeBatch()", k + "executeLargeBatch()");
        note("Handed to the engine's statement after checking the statement is open.", k + "addBatch()",
                k + "getMoreResults()", k + "getMoreResults(int)");
        note("The engine's result set, wrapped so that getStatement gives this statement.", k + "getResultSet()",
                k + "getGeneratedKeys()");
        String callOwn = "Fails (07000): a CallableStatement runs its own SQL.";
        note(callOwn, k + "addBatch(String)", k + "execute(String)", k + "execute(String, int)", k + "execute(String, int[])",
                k + "execute(String, String[])", k + "executeQuery(String)", k + "executeUpdate(String)",
                k + "executeUpdate(String, int)", k + "executeUpdate(String, int[])", k + "executeUpdate(String, String[])",
                k + "executeLargeUpdate(String)", k + "executeLargeUpdate(String, int)", k + "executeLargeUpdate(String, int[])",
                k + "executeLargeUpdate(String, String[])");
        note("The MacroConnection.", k + "getConnection()");
        note("Closes the engine's statement.", k + "close()");
        note("Also gives the engine's CallableStatement.", k + "unwrap(Class)");
        note("True for MacroDB's own types and the engine's CallableStatement.", k + "isWrapperFor(Class)");

        // ---------------------------------------------------------------- ResultSet
        String r = "MacroResultSet#";
        String rowChange = "Runs as (part of) an update transaction on the primary, with the change captured for the secondaries."
                + " Refused (SQLFeatureNotSupportedException) with statement propagation, which has no SQL to replay;"
                + " fails (25006) in a read-only transaction.";
        note(rowChange, r + "updateRow()", r + "insertRow()", r + "deleteRow()");
        note("The MacroDB statement that made the result set.", r + "getStatement()");
        note("Closes the engine's result set and tells the MacroDB statement, so a secondary session can go back to its pool"
                + " (and closeOnCompletion can close the statement).", r + "close()");
        note("Also gives the engine's result set, or what it wraps.", r + "unwrap(Class)");
        note("True for MacroDB's own types, the engine's result set and what it wraps.", r + "isWrapperFor(Class)");

        // ---------------------------------------------------------------- DatabaseMetaData
        String d = "MacroDatabaseMetaData#";
        note("The MacroConnection.", d + "getConnection()");
        note("The MacroDB URL the connection was opened with.", d + "getURL()");
        note("\"MacroDB over \" and the engine driver's name.", d + "getDriverName()");
        note("MacroDB's version, with the engine driver's version in parentheses.", d + "getDriverVersion()");
        note("MacroDB's major version.", d + "getDriverMajorVersion()");
        note("MacroDB's minor version.", d + "getDriverMinorVersion()");
        note("Always true: MacroDB runs batches itself.", d + "supportsBatchUpdates()");
        note("Also gives the engine's metadata.", d + "unwrap(Class)");
        note("True for MacroDB's own types and the engine's metadata.", d + "isWrapperFor(Class)");
        note("The engine's answer, which MacroDB keeps: a schema change commits the open transaction on H2 and HSQLDB, and is part of it on SQLite, Derby and PostgreSQL.",
                "DelegatingDatabaseMetaData#dataDefinitionCausesTransactionCommit()",
                "DelegatingDatabaseMetaData#supportsDataDefinitionAndDataManipulationTransactions()");
        note("The engine's answer; with statement propagation MacroDB refuses procedure calls.",
                "DelegatingDatabaseMetaData#supportsStoredProcedures()");
        note("The engine's answer; with statement propagation MacroDB refuses changes through an updatable result set.",
                "DelegatingDatabaseMetaData#supportsResultSetConcurrency(int, int)");
    }

    // ================================================================= building the table

    /** {@code name(Type, Type)} with simple type names. */
    static String signature(Method m) {
        return m.getName() + "(" + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ")) + ")";
    }

    /** Public instance methods of the interface, inherited ones included, one per signature, sorted. */
    static List<Method> interfaceMethods(Class<?> iface) {
        Map<String, Method> bySignature = new LinkedHashMap<>();
        for (Method m : iface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) continue;
            String key = m.getName() + Arrays.toString(m.getParameterTypes());
            Method prev = bySignature.get(key);
            // keep the most specific declaration (Statement.close over AutoCloseable.close)
            if (prev == null || prev.getDeclaringClass().isAssignableFrom(m.getDeclaringClass())) bySignature.put(key, m);
        }
        Comparator<String> text = String.CASE_INSENSITIVE_ORDER.thenComparing(Comparator.naturalOrder());
        Comparator<Method> order = Comparator.comparing(Method::getName, text)
                .thenComparing(m -> Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ")), text);
        return bySignature.values().stream().sorted(order).toList();
    }

    static String key(Method implementation) {
        return implementation.getDeclaringClass().getSimpleName() + "#" + signature(implementation);
    }

    static List<Row> rows(Api api, Set<String> usedKeys) throws NoSuchMethodException {
        List<Row> rows = new ArrayList<>();
        for (Method m : interfaceMethods(api.iface())) {
            Method impl = api.impl().getMethod(m.getName(), m.getParameterTypes());
            Class<?> owner = impl.getDeclaringClass();
            String implKey = key(impl);
            String tableKey = api.iface().getSimpleName() + ":" + signature(m);
            String note = TABLE_NOTES.get(tableKey);
            if (note != null) usedKeys.add(tableKey);
            else if ((note = NOTES.get(implKey)) != null) usedKeys.add(implKey);
            Support support;
            if (REFUSED.containsKey(implKey)) {
                usedKeys.add(implKey);
                support = Support.REFUSED;
                note = REFUSED.get(implKey);
            } else if (owner.getPackage() == MacroConnection.class.getPackage() && owner.getSimpleName().startsWith("Delegating")) {
                support = Support.DELEGATED;
            } else if (owner.getPackage() == MacroConnection.class.getPackage() && owner.getSimpleName().startsWith("Macro")) {
                support = Support.SUPPORTED;
            } else if (owner.isInterface() && impl.isDefault() && note != null) {
                // A JDK default MacroDB does not override: it runs on MacroDB's object, without the engine.
                support = Support.SUPPORTED;
            } else {
                throw new AssertionError(api.iface().getSimpleName() + "." + signature(m) + " is implemented by " + owner.getName()
                        + ": classify it (a note in NOTES, or an entry in REFUSED, keyed " + implKey + ")");
            }
            rows.add(new Row(signature(m), m.getDeclaringClass().getSimpleName(), support, note == null ? "" : note));
        }
        return rows;
    }

    static Map<Api, List<Row>> tables(Set<String> usedKeys) throws NoSuchMethodException {
        Map<Api, List<Row>> tables = new LinkedHashMap<>();
        for (Api api : APIS) tables.put(api, rows(api, usedKeys));
        return tables;
    }

    // ================================================================= rendering

    static String render(Map<Api, List<Row>> tables) {
        StringBuilder md = new StringBuilder();
        md.append("# JDBC compatibility\n\n");
        md.append("<!-- Generated by macrodb-driver/src/test/java/io/macrodb/jdbc/JdbcCompatibilityTableTest.java; do not edit by hand.\n");
        md.append("     Regenerate: mvn -pl macrodb-driver test -Dtest=JdbcCompatibilityTableTest -D").append(REGENERATE_PROPERTY).append("=true -->\n\n");
        md.append("""
                How the MacroDB driver (`io.macrodb.jdbc`) implements each method of the six main JDBC interfaces.
                Every method of an interface is listed, including those it inherits (from `Statement`, `Wrapper`,
                `AutoCloseable`); *Declared in* names the interface that declares it.

                - **supported**: MacroDB implements the method itself: routing, transaction and session state,
                  change capture, or settings it keeps and applies to the engine sessions it uses.
                - **delegated**: handed straight to the engine's object (H2 or HSQLDB) behind it, and behaves exactly
                  as the engine documents.
                - **refused**: throws `SQLFeatureNotSupportedException` (SQLState `0AM00`, see [sqlstates.md](sqlstates.md)). A method refused only in
                  some cases is listed as supported, with the case in its note.

                ## How a statement runs

                A MacroDB statement is not bound to a replica. Each execution is classified by a SQL parser and runs
                on the replica chosen by routing:

                - A query in a **read-only transaction** (declared with `Connection.setReadOnly(true)`), or an
                  autocommit statement the classifier proves to be a pure read, runs on a **secondary** that has
                  applied every update the consistency level requires, or on the primary if none gets there within
                  `readWait`. A statement that may write fails there with SQLState `25006`.
                - Every other data statement runs on the **primary** as (part of) an **update transaction**: its
                  changes are captured as it goes and, at commit, logged with the next version for the secondaries to
                  apply. So does a query that asks for an updatable result set, and a procedure call.
                - Transaction statements (`COMMIT`, `ROLLBACK`, `BEGIN`, `START TRANSACTION`, `SAVEPOINT`,
                  `RELEASE`, `ROLLBACK TO`, `SET AUTOCOMMIT`) are mapped onto the `Connection` methods (`BEGIN` and
                  `START TRANSACTION` in autocommit start one transaction, as in the engines: autocommit is back once it
                  ends, by SQL or by `commit()`/`rollback()`); any other
                  (`LOCK`, `PREPARE COMMIT`, ...) is refused with `SQLFeatureNotSupportedException`.
                - A session `SET` (`SET SCHEMA`, `SET LOCK_TIMEOUT`, ...) runs on the primary session and on every
                  secondary session the connection uses afterwards.
                - A schema change (DDL, `TRUNCATE`, a `SET` that changes the database) runs on the primary and is
                  replayed on every secondary. On H2 and HSQLDB it commits the open transaction first, as those engines
                  do. On SQLite, Derby and PostgreSQL, whose DDL is transactional, it runs inside the open transaction
                  (autocommit off) and is committed or rolled back with it; MacroDB cannot roll back to a savepoint set
                  before it (`0AM00`, nothing rolled back), and PostgreSQL's `CREATE INDEX CONCURRENTLY` in a
                  transaction that has changed rows gets `25001`, as on PostgreSQL.

                Statement options and prepared statement parameters are kept by MacroDB and applied to the engine's
                statement on whichever replica the execution runs.

                With **statement propagation** (`propagation=statement`) MacroDB refuses, with
                `SQLFeatureNotSupportedException`, what it cannot replay as SQL: `Connection.prepareCall`, a `CALL`
                statement, and changes through an updatable result set. Row propagation (the default) allows them.

                MacroDB wraps connections, statements, the result sets of statements, database metadata and
                savepoints. Every other JDBC object a method returns (`Blob`, `Clob`, `NClob`, `Array`, `SQLXML`,
                `Struct`, `Ref`, `RowId`, `ResultSetMetaData`, `ParameterMetaData`, and the result sets of
                `DatabaseMetaData` methods) is the engine's own, from the replica the statement ran on (the primary
                for the `Connection` factories, metadata and procedure calls).

                """);
        md.append("## Summary\n\n");
        md.append("| Interface | MacroDB class | Methods | supported | delegated | refused |\n");
        md.append("|---|---|---:|---:|---:|---:|\n");
        for (Map.Entry<Api, List<Row>> e : tables.entrySet()) {
            Map<Support, Long> counts = counts(e.getValue());
            md.append("| [`").append(e.getKey().iface().getSimpleName()).append("`](#").append(anchor(e.getKey())).append(") | `")
                    .append(e.getKey().impl().getSimpleName()).append("` | ").append(e.getValue().size());
            for (Support s : Support.values()) md.append(" | ").append(counts.get(s));
            md.append(" |\n");
        }
        for (Map.Entry<Api, List<Row>> e : tables.entrySet()) {
            Api api = e.getKey();
            md.append("\n## ").append(api.iface().getName()).append("\n\n");
            md.append("Implemented by `").append(api.impl().getSimpleName()).append("`");
            if (api.delegatesTo() != null) md.append("; delegated methods go to ").append(api.delegatesTo());
            md.append(".\n\n");
            md.append("| Method | Declared in | Support | Notes |\n");
            md.append("|---|---|---|---|\n");
            for (Row row : e.getValue()) {
                md.append("| `").append(row.signature()).append("` | ").append(row.declaredIn()).append(" | ")
                        .append(row.support().word).append(" | ").append(row.note().replace("|", "\\|")).append(" |\n");
            }
        }
        return md.toString();
    }

    static String anchor(Api api) {
        return api.iface().getName().toLowerCase(java.util.Locale.ROOT).replace(".", "");
    }

    static Map<Support, Long> counts(List<Row> rows) {
        Map<Support, Long> counts = new EnumMap<>(Support.class);
        for (Support s : Support.values()) counts.put(s, 0L);
        for (Row row : rows) counts.merge(row.support(), 1L, Long::sum);
        return counts;
    }

    /** {@code docs/} at the repository root; the test normally runs in {@code macrodb-driver}. */
    static Path docPath() {
        Path here = Path.of("").toAbsolutePath();
        Path root = Files.isDirectory(here.resolve("macrodb-driver")) ? here : here.getParent();
        return root.resolve("docs").resolve(DOC_NAME);
    }

    // ================================================================= tests

    @Test
    void documentIsUpToDate() throws Exception {
        Set<String> used = new HashSet<>();
        String expected = render(tables(used));
        Path doc = docPath();
        if (Boolean.getBoolean(REGENERATE_PROPERTY)) {
            Files.createDirectories(doc.getParent());
            Files.writeString(doc, expected, StandardCharsets.UTF_8);
            System.out.println("Wrote " + doc);
            return;
        }
        String actual = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8).replace("\r\n", "\n") : "";
        if (!expected.equals(actual)) {
            fail(doc + " is out of date with the driver (or missing). Regenerate it with\n"
                    + "  mvn -pl macrodb-driver test -Dtest=JdbcCompatibilityTableTest -D" + REGENERATE_PROPERTY + "=true\n"
                    + "and review the diff. First difference at line " + firstDifferentLine(expected, actual));
        }
    }

    private static int firstDifferentLine(String a, String b) {
        String[] x = a.split("\n", -1), y = b.split("\n", -1);
        int i = 0;
        while (i < x.length && i < y.length && x[i].equals(y[i])) i++;
        return i + 1;
    }

    /** Every note and refusal must still name a method that is in a table, so none goes stale silently. */
    @Test
    void everyNoteAndRefusalIsUsed() throws Exception {
        Set<String> used = new HashSet<>();
        tables(used);
        Set<String> unused = new TreeSet<>();
        for (String k : NOTES.keySet()) if (!used.contains(k)) unused.add(k);
        for (String k : TABLE_NOTES.keySet()) if (!used.contains(k)) unused.add(k);
        for (String k : REFUSED.keySet()) if (!used.contains(k)) unused.add(k);
        assertTrue(unused.isEmpty(), "notes or refusals for methods no table shows (renamed, removed or now overridden?): " + unused);
    }

    /**
     * A refusal that comes from a JDK default method really throws SQLFeatureNotSupportedException, and
     * one MacroConnection declares throws it with SQLState 0AM00, which connection pools do not take
     * for a dead connection.
     */
    @Test
    void refusedMethodsThrow() throws Exception {
        int checked = 0;
        try (Connection c = io.macrodb.testing.TestDb.open(io.macrodb.testing.TestDb.url("h2", "replicas=2"))) {
            for (Method m : interfaceMethods(Connection.class)) {
                Method impl = MacroConnection.class.getMethod(m.getName(), m.getParameterTypes());
                if (!REFUSED.containsKey(key(impl)) || impl.getDeclaringClass() != MacroConnection.class) continue;
                Object[] args = Arrays.stream(m.getParameterTypes()).map(JdbcCompatibilityTableTest::zero).toArray();
                java.lang.reflect.InvocationTargetException e =
                        assertThrows(java.lang.reflect.InvocationTargetException.class, () -> impl.invoke(c, args));
                assertEquals(SQLFeatureNotSupportedException.class, e.getCause().getClass(), key(impl));
                assertEquals("0AM00", ((SQLFeatureNotSupportedException) e.getCause()).getSQLState(), key(impl));
                checked++;
            }
            assertTrue(c.isValid(1), "a refusal leaves the connection usable");
        }
        for (Api api : APIS) {
            Object proxy = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {api.iface()},
                    (self, method, args) -> {
                        if (method.isDefault()) return InvocationHandler.invokeDefault(self, method, args);
                        throw new AssertionError("a default method called " + method);
                    });
            for (Method m : interfaceMethods(api.iface())) {
                Method impl = api.impl().getMethod(m.getName(), m.getParameterTypes());
                if (!REFUSED.containsKey(key(impl)) || !impl.getDeclaringClass().isInterface()) continue;
                Object[] args = Arrays.stream(m.getParameterTypes()).map(JdbcCompatibilityTableTest::zero).toArray();
                java.lang.reflect.InvocationTargetException e =
                        assertThrows(java.lang.reflect.InvocationTargetException.class, () -> impl.invoke(proxy, args));
                assertEquals(SQLFeatureNotSupportedException.class, e.getCause().getClass(), key(impl));
                checked++;
            }
        }
        assertTrue(checked > 0);
    }

    private static Object zero(Class<?> type) {
        if (!type.isPrimitive()) return null;
        if (type == boolean.class) return false;
        if (type == char.class) return '\0';
        if (type == long.class) return 0L;
        if (type == float.class) return 0f;
        if (type == double.class) return 0d;
        if (type == byte.class) return (byte) 0;
        if (type == short.class) return (short) 0;
        return 0;
    }
}
