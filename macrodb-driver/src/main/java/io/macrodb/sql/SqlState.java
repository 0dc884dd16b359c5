package io.macrodb.sql;

/**
 * The SQLStates MacroDB reports itself (exceptions of the engines pass through with their own).
 *
 * <p>Only {@link #CONNECTION_REJECTED} and {@link #CONNECTION_DOES_NOT_EXIST} are in class 08, the
 * class connection pools (HikariCP, among others) take for a dead connection and evict: every other
 * state leaves the connection usable. MacroDB's refusals use the implementation-defined subclasses
 * {@code 0AM00} and {@code 0AM01} of class 0A rather than {@code 0A000}, which HikariCP also evicts on.
 * {@code docs/sqlstates.md} tells what to do about each.
 */
public enum SqlState {
    /** A connection cannot be established: a bad URL, option or engine, or a database that cannot open. */
    CONNECTION_REJECTED("08001"),
    /** The connection, statement, result set or replica set is closed. */
    CONNECTION_DOES_NOT_EXIST("08003"),
    /** A statement or method that needs a dynamic SQL argument it does not take, or the reverse. */
    DYNAMIC_SQL_ERROR("07000"),
    /** A parameter index out of range. */
    INVALID_DESCRIPTOR_INDEX("07009"),
    /**
     * A feature MacroDB does not offer: a JDBC method, a transaction statement or an operation that
     * needs an option the database was not opened with. Nothing ran; the connection remains usable.
     */
    FEATURE_NOT_OFFERED("0AM00"),
    /**
     * A statement MacroDB cannot replicate safely (it would leave the replicas different): a
     * non-deterministic write in statement propagation, a temporary table, an unsafe schema change, a
     * keyless row it cannot compare. Nothing changed; the connection and its transaction remain usable.
     */
    STATEMENT_NOT_REPLICABLE("0AM01"),
    /** A stream or reader given as a parameter could not be read. */
    DATA_EXCEPTION("22000"),
    /** The operation needs a transaction state it is not in. */
    INVALID_TRANSACTION_STATE("25000"),
    /** A write in a read-only transaction. */
    READ_ONLY_SQL_TRANSACTION("25006"),
    /** A savepoint that does not belong to the current transaction. */
    INVALID_SAVEPOINT_SPECIFICATION("3B001"),
    /** The transaction was rolled back: a failure ended it in the engine before the application's commit. */
    TRANSACTION_ROLLBACK("40000"),
    /** Retryable: the transaction was rolled back (lock wait timed out, deadlock, failover, admission). */
    SERIALIZATION_FAILURE("40001"),
    /** The thread was interrupted while waiting; the statement did not run. */
    QUERY_CANCELED("57014"),
    /** An object is not in the state the operation needs (a directory in use, a table changed behind MacroDB). */
    OBJECT_NOT_IN_PREREQUISITE_STATE("55000"),
    /** A file MacroDB needs (durable log, snapshot, temporary copy) cannot be read or written. */
    IO_ERROR("58030"),
    /** An argument out of range. */
    INVALID_ARGUMENT("HY024"),
    /** A null where a value is needed. */
    INVALID_USE_OF_NULL("HY009"),
    /** An internal error: a state MacroDB did not expect. */
    INTERNAL_ERROR("XX000"),
    /** Data on disk (a snapshot, a script) is damaged or not what MacroDB wrote. */
    DATA_CORRUPTED("XX001");

    private final String state;

    SqlState(String state) {
        this.state = state;
    }

    /** The five-character SQLState. */
    public String getState() {
        return state;
    }
}
