package io.macrodb.jdbc;

import io.macrodb.sql.SqlState;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A procedure call. A procedure may read or write anything, so a call always runs on the primary
 * as (part of) an update transaction, where row capture sees whatever it changes; the physical
 * statement is prepared on this connection's primary session and everything else (parameters,
 * OUT values) goes straight to it. Not available with statement propagation.
 */
final class MacroCallableStatement extends DelegatingCallableStatement {
    private final MacroConnection conn;
    private final String sql;
    private boolean closed;
    private boolean closeOnCompletion;

    MacroCallableStatement(MacroConnection conn, String sql, int type, int concurrency, int holdability) throws SQLException {
        super(conn.transaction().onPrimary(c -> c.prepareCall(sql, type, concurrency, holdability)));
        this.conn = conn;
        this.sql = sql;
    }

    private void checkOpen() throws SQLException {
        if (closed) throw SqlStates.closedObject("statement");
        conn.checkOpen();
    }

    /** Runs one execution of the physical call on the primary, as (part of) an update transaction. */
    private <T> T call(LockWaitGuard.Call<T> execution) throws SQLException {
        Transaction t = conn.transaction();
        return t.call(conn.classify(sql), sql, s -> t.guarded(delegate, execution));
    }

    private ResultSet wrap(ResultSet rs) {
        return rs == null ? null : new MacroResultSet(this, conn, null, rs, r -> {
            if (closeOnCompletion) {
                try {
                    close();
                } catch (SQLException ignored) {
                    // already closed
                }
            }
        });
    }

    @Override public boolean execute() throws SQLException {
        checkOpen();
        return call(delegate::execute);
    }

    @Override public ResultSet executeQuery() throws SQLException {
        checkOpen();
        return wrap(call(delegate::executeQuery));
    }

    @Override public int executeUpdate() throws SQLException {
        checkOpen();
        return call(delegate::executeUpdate);
    }

    @Override public long executeLargeUpdate() throws SQLException {
        checkOpen();
        return call(delegate::executeLargeUpdate);
    }

    @Override public void addBatch() throws SQLException {
        checkOpen();
        delegate.addBatch();
    }

    @Override public void addBatch(String s) throws SQLException {
        throw new SQLException("MacroDB: a CallableStatement runs its own SQL; call addBatch() without an argument", SqlState.DYNAMIC_SQL_ERROR.getState());
    }

    @Override public int[] executeBatch() throws SQLException {
        checkOpen();
        return call(delegate::executeBatch);
    }

    @Override public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        return call(delegate::executeLargeBatch);
    }

    private static SQLException notHere() {
        return new SQLException("MacroDB: a CallableStatement runs its own SQL; call execute() without a SQL argument", SqlState.DYNAMIC_SQL_ERROR.getState());
    }

    @Override public boolean execute(String s) throws SQLException { throw notHere(); }
    @Override public boolean execute(String s, int k) throws SQLException { throw notHere(); }
    @Override public boolean execute(String s, int[] k) throws SQLException { throw notHere(); }
    @Override public boolean execute(String s, String[] k) throws SQLException { throw notHere(); }
    @Override public ResultSet executeQuery(String s) throws SQLException { throw notHere(); }
    @Override public int executeUpdate(String s) throws SQLException { throw notHere(); }
    @Override public int executeUpdate(String s, int k) throws SQLException { throw notHere(); }
    @Override public int executeUpdate(String s, int[] k) throws SQLException { throw notHere(); }
    @Override public int executeUpdate(String s, String[] k) throws SQLException { throw notHere(); }
    @Override public long executeLargeUpdate(String s) throws SQLException { throw notHere(); }
    @Override public long executeLargeUpdate(String s, int k) throws SQLException { throw notHere(); }
    @Override public long executeLargeUpdate(String s, int[] k) throws SQLException { throw notHere(); }
    @Override public long executeLargeUpdate(String s, String[] k) throws SQLException { throw notHere(); }

    @Override public ResultSet getResultSet() throws SQLException {
        checkOpen();
        return wrap(delegate.getResultSet());
    }

    @Override public boolean getMoreResults() throws SQLException {
        checkOpen();
        return delegate.getMoreResults();
    }

    @Override public boolean getMoreResults(int current) throws SQLException {
        checkOpen();
        return delegate.getMoreResults(current);
    }

    @Override public ResultSet getGeneratedKeys() throws SQLException {
        checkOpen();
        return wrap(delegate.getGeneratedKeys());
    }

    @Override public Connection getConnection() throws SQLException {
        checkOpen();
        return conn;
    }

    @Override public void closeOnCompletion() throws SQLException {
        checkOpen();
        closeOnCompletion = true;
    }

    @Override public boolean isCloseOnCompletion() throws SQLException {
        checkOpen();
        return closeOnCompletion;
    }

    @Override public boolean isClosed() {
        return closed || conn.isClosed();
    }

    @Override public void close() throws SQLException {
        if (closed) return;
        closed = true;
        delegate.close();
    }

    @Override public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        if (iface.isInstance(delegate)) return iface.cast(delegate);
        throw new SQLException("MacroDB: this statement does not wrap " + iface.getName(), SqlState.INVALID_ARGUMENT.getState());
    }

    @Override public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this) || iface.isInstance(delegate);
    }
}
