package io.macrodb.jdbc;

import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransactionRollbackException;

/** The SQLStates MacroDB reports itself, and factories for its exceptions. Messages say what to do. */
public final class SqlStates {
    /** Connection cannot be established: bad URL, option or engine. */
    public static final String CONNECTION_REJECTED = "08001";
    /** The connection (or statement) is closed. */
    public static final String CONNECTION_DOES_NOT_EXIST = "08003";
    /** Retryable: the transaction was rolled back (lock wait timed out, deadlock, failover). */
    public static final String SERIALIZATION_FAILURE = "40001";
    /** A write in a read-only transaction. */
    public static final String READ_ONLY_TRANSACTION = "25006";
    /** The operation needs a transaction state it is not in. */
    public static final String INVALID_TRANSACTION_STATE = "25000";
    /** A feature MacroDB does not offer, or a statement it cannot replicate safely. */
    public static final String FEATURE_NOT_SUPPORTED = "0A000";
    /** An argument out of range. */
    public static final String INVALID_ARGUMENT = "HY024";
    /** A savepoint that does not belong to the current transaction. */
    public static final String INVALID_SAVEPOINT = "3B001";

    private SqlStates() {}

    static SQLException closed(String what) {
        return new SQLNonTransientConnectionException("MacroDB: the " + what + " is closed; open a new one", CONNECTION_DOES_NOT_EXIST);
    }

    static SQLException rejected(String message) {
        return new SQLNonTransientConnectionException("MacroDB: " + message, CONNECTION_REJECTED);
    }

    static SQLException unsupported(String message) {
        return new SQLFeatureNotSupportedException("MacroDB: " + message, FEATURE_NOT_SUPPORTED);
    }

    static SQLException retryable(String message, Throwable cause) {
        return new SQLTransactionRollbackException("MacroDB: " + message, SERIALIZATION_FAILURE, cause);
    }

    static SQLException readOnly(String sql) {
        return new SQLException("MacroDB: this connection is read-only (setReadOnly(true)), and this statement may"
                + " write: " + abbreviate(sql) + ". Call setReadOnly(false) to run it on the primary", READ_ONLY_TRANSACTION);
    }

    static String abbreviate(String sql) {
        String s = sql.strip().replaceAll("\\s+", " ");
        return s.length() <= 120 ? s : s.substring(0, 117) + "...";
    }
}
