package io.macrodb.jdbc;

import io.macrodb.sql.SqlState;

import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransactionRollbackException;

/**
 * Factories for the exceptions MacroDB reports itself, with their {@link SqlState}. Messages say what
 * to do.
 */
public final class SqlStates {
    private SqlStates() {}

    static SQLException closed(String what) {
        return new SQLNonTransientConnectionException("MacroDB: the " + what + " is closed; open a new one", SqlState.CONNECTION_DOES_NOT_EXIST.getState());
    }

    /**
     * A statement or result set used after it was closed: the application's mistake, not a broken
     * connection, so {@link SqlState#OBJECT_NOT_IN_PREREQUISITE_STATE} as pgjdbc reports it; class 08
     * would make a pool evict the connection.
     */
    static SQLException closedObject(String what) {
        return new SQLException("MacroDB: the " + what + " is closed; create a new one", SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
    }

    static SQLException rejected(String message) {
        return new SQLNonTransientConnectionException("MacroDB: " + message, SqlState.CONNECTION_REJECTED.getState());
    }

    /** A feature MacroDB does not offer ({@link SqlState#FEATURE_NOT_OFFERED}). */
    static SQLException unsupported(String message) {
        return new SQLFeatureNotSupportedException("MacroDB: " + message, SqlState.FEATURE_NOT_OFFERED.getState());
    }

    /** A statement MacroDB cannot replicate safely ({@link SqlState#STATEMENT_NOT_REPLICABLE}). */
    static SQLException unreplicable(String message) {
        return new SQLFeatureNotSupportedException("MacroDB: " + message, SqlState.STATEMENT_NOT_REPLICABLE.getState());
    }

    static SQLException retryable(String message, Throwable cause) {
        return new SQLTransactionRollbackException("MacroDB: " + message, SqlState.SERIALIZATION_FAILURE.getState(), cause);
    }

    static SQLException readOnly(String sql) {
        return new SQLException("MacroDB: this connection is read-only (setReadOnly(true)), and this statement may"
                + " write: " + abbreviate(sql) + ". Call setReadOnly(false) to run it on the primary", SqlState.READ_ONLY_SQL_TRANSACTION.getState());
    }

    static String abbreviate(String sql) {
        String s = sql.strip().replaceAll("\\s+", " ");
        return s.length() <= 120 ? s : s.substring(0, 117) + "...";
    }
}
