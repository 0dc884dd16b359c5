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
    /** The replica this result was read from (null if unknown). */
    private final io.macrodb.replica.Replica replica;
    private boolean closed;
    private boolean skipCaptureTriggers;
    /** Set while this result belongs to an optimistic transaction's read on a secondary. */
    private TrackedRead tracker;
    private Transaction.Undeclared trackedIn;
    /** The primary's statement behind {@link #delegate} after the transaction moved there. */
    private Statement moved;
    /** {@link #session()}'s answer, and the engine result it was read from. */
    private java.sql.Connection session;
    private ResultSet sessionOf;

    MacroResultSet(MacroStatement statement, ResultSet delegate) {
        this(statement, statement.conn, statement.session == null ? null : statement.session.replica(), delegate, rs -> {
            try {
                statement.resultClosed(rs);
            } catch (SQLException ignored) {
                // closing the statement on completion failed; it is closed or broken either way
            }
        });
    }

    MacroResultSet(Statement statement, MacroConnection conn, io.macrodb.replica.Replica replica, ResultSet delegate,
                   java.util.function.Consumer<MacroResultSet> onClose) {
        super(delegate);
        this.statement = statement;
        this.conn = conn;
        this.replica = replica;
        this.onClose = onClose;
    }

    /** A secondary that died under an open result is a retryable failure, like one that dies mid-statement. */
    @Override protected SQLException failure(SQLException e) {
        return moved == null ? conn.transaction().resultFailure(replica, e, session()) : e;
    }

    /** Remembers every row the application is shown, for a possible move to the primary. */
    void track(TrackedRead read, Transaction.Undeclared transaction) {
        this.tracker = read;
        this.trackedIn = transaction;
        read.attach(this);
    }

    /**
     * The transaction moved to the primary: read on from {@code primaryResult}, which the caller
     * has positioned on the row this result set is on.
     */
    void switchTo(ResultSet primaryResult, Statement primaryStatement) {
        ResultSet old = delegate;
        delegate = primaryResult;
        moved = primaryStatement;
        tracker = null;
        try {
            old.close();
        } catch (SQLException ignored) {
            // the secondary's result is no longer needed
        }
    }

    boolean isClosedQuietly() {
        return closed;
    }

    /** This result is a SCRIPT dump: rows that create MacroDB's capture triggers are skipped ({@link Dumps}). */
    void skipCaptureTriggers() { skipCaptureTriggers = true; }

    @Override public boolean next() throws SQLException {
        // refused here, not left to the engine: some (SQLite) answer a closed result's next() with false
        checkOpen();
        boolean interruptedBefore = Thread.currentThread().isInterrupted();
        try {
            boolean hasRow = delegate.next();
            while (skipCaptureTriggers && hasRow && Dumps.createsCaptureTrigger(delegate.getString(1))) hasRow = delegate.next();
            if (tracker != null) tracker.advanced(delegate, hasRow, trackedIn);
            if (!interruptedBefore && conn.transaction().stopsInterruptThreads()) conn.transaction().afterCall(false, session());
            return hasRow;
        } catch (SQLException e) {
            try {
                throw failure(e);
            } finally {
                if (!interruptedBefore && conn.transaction().stopsInterruptThreads()) {
                    conn.transaction().afterFailedCall(false, moved == null ? replica : null, session());
                }
            }
        }
    }

    /** The engine session this result is read from, or null if it cannot be told; looked up once, not per row. */
    private java.sql.Connection session() {
        ResultSet from = delegate;
        if (sessionOf != from) { // the first row, or a result moved to the primary since (switchTo)
            sessionOf = from;
            try {
                Statement engineStatement = from.getStatement();
                session = engineStatement == null ? null : engineStatement.getConnection();
            } catch (SQLException e) {
                session = null;
            }
        }
        return session;
    }

    @Override public Statement getStatement() throws SQLException {
        checkOpen();
        return statement;
    }

    private void checkOpen() throws SQLException {
        if (closed) throw SqlStates.closedObject("result set");
    }

    @Override public void updateRow() throws SQLException {
        write(delegate::updateRow);
    }

    @Override public void insertRow() throws SQLException {
        write(delegate::insertRow);
    }

    @Override public void deleteRow() throws SQLException {
        write(delegate::deleteRow);
    }

    private void write(Transaction.SqlAction action) throws SQLException {
        conn.checkOpen();
        conn.transaction().captureWrite(action);
    }

    @Override public boolean isClosed() throws SQLException {
        return closed || delegate.isClosed();
    }

    @Override public void close() throws SQLException {
        if (closed) return;
        closed = true;
        try {
            delegate.close();
            if (moved != null) moved.close();
        } finally {
            onClose.accept(this);
        }
    }

    void closeQuietly() {
        if (closed) return;
        closed = true;
        try {
            delegate.close();
            if (moved != null) moved.close();
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
