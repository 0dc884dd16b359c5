package io.macrodb.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A result set from one replica. Reading is handed straight to the engine; what MacroDB adds is
 * {@link #getStatement()} returning the MacroDB statement, telling that statement when the result
 * is closed (so a secondary session can go back to its pool), and routing the writes of an
 * updatable result set through the update transaction's change capture.
 */
final class MacroResultSet extends DelegatingResultSet {
    private final Statement statement;
    private final MacroConnection conn;
    private final java.util.function.Consumer<MacroResultSet> onClose;
    private boolean closed;

    MacroResultSet(MacroStatement statement, ResultSet delegate) {
        this(statement, statement.conn, delegate, rs -> {
            try {
                statement.resultClosed(rs);
            } catch (SQLException ignored) {
                // closing the statement on completion failed; it is closed or broken either way
            }
        });
    }

    MacroResultSet(Statement statement, MacroConnection conn, ResultSet delegate, java.util.function.Consumer<MacroResultSet> onClose) {
        super(delegate);
        this.statement = statement;
        this.conn = conn;
        this.onClose = onClose;
    }

    @Override public Statement getStatement() throws SQLException {
        checkOpen();
        return statement;
    }

    private void checkOpen() throws SQLException {
        if (closed) throw SqlStates.closed("result set");
    }

    @Override public void updateRow() throws SQLException {
        conn.captureWrite(delegate::updateRow);
    }

    @Override public void insertRow() throws SQLException {
        conn.captureWrite(delegate::insertRow);
    }

    @Override public void deleteRow() throws SQLException {
        conn.captureWrite(delegate::deleteRow);
    }

    @Override public boolean isClosed() throws SQLException {
        return closed || delegate.isClosed();
    }

    @Override public void close() throws SQLException {
        if (closed) return;
        closed = true;
        try {
            delegate.close();
        } finally {
            onClose.accept(this);
        }
    }

    void closeQuietly() {
        if (closed) return;
        closed = true;
        try {
            delegate.close();
        } catch (SQLException ignored) {
            // closing on the way out
        }
    }

    @Override public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        if (iface.isInstance(delegate)) return iface.cast(delegate);
        return delegate.unwrap(iface);
    }

    @Override public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || iface.isInstance(delegate) || delegate.isWrapperFor(iface);
    }
}
