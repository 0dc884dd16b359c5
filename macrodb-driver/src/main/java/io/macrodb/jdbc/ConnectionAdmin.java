package io.macrodb.jdbc;

import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.route.ReadWaits;
import io.macrodb.route.ShapeLearning;
import io.macrodb.sql.SqlState;

import java.sql.SQLException;
import java.util.List;

/**
 * {@link MacroAdmin} over the replica set of one connection. Checks the connection is open before
 * each call (after the last connection closes, the replica set may be shut down) and turns the
 * replica set's argument errors into SQLExceptions.
 */
final class ConnectionAdmin implements MacroAdmin {
    private final MacroConnection connection;
    private final ReplicaSet db;

    ConnectionAdmin(MacroConnection connection, ReplicaSet db) {
        this.connection = connection;
        this.db = db;
    }

    private ReplicaSet db() throws SQLException {
        if (connection.isClosed()) throw SqlStates.closed("connection this MacroAdmin was reached from");
        return db;
    }

    @Override public long version() throws SQLException { return db().version(); }

    @Override public List<ReplicaStatus> replicaStatus() throws SQLException { return db().status(); }

    @Override public boolean awaitCaughtUp(long timeoutMillis) throws SQLException {
        if (timeoutMillis < 0) throw new SQLException("MacroDB: awaitCaughtUp needs a timeout >= 0 ms, not " + timeoutMillis, SqlState.INVALID_ARGUMENT.getState());
        return db().awaitCaughtUp(timeoutMillis);
    }

    @Override public List<String> checksums() throws SQLException { return db().checksums(); }

    @Override public void pauseApplying(int index, boolean paused) throws SQLException {
        ReplicaSet rs = db();
        try {
            rs.pauseApplying(index, paused);
        } catch (IllegalArgumentException e) {
            throw new SQLException("MacroDB: " + e.getMessage(), SqlState.INVALID_ARGUMENT.getState(), e);
        }
    }

    @Override public void rebuild(int index) throws SQLException {
        ReplicaSet rs = db();
        try {
            rs.rebuild(index);
        } catch (IllegalArgumentException e) {
            throw new SQLException("MacroDB: " + e.getMessage(), SqlState.INVALID_ARGUMENT.getState(), e);
        }
    }

    @Override public long snapshot() throws SQLException { return db().snapshot(); }

    @Override public String durabilityStatus() throws SQLException { return db().durabilityStatus(); }

    @Override public String captureStatus() throws SQLException { return db().captureStatus(); }

    @Override public long throttledTransactions() throws SQLException { return db().throttledTransactions(); }

    @Override public ReadWaits.Stats readWaits() throws SQLException {
        return db().extension(ReadWaits.class, ReadWaits::new).snapshot();
    }

    @Override public List<ShapeLearning.ShapeStats> routingStats() throws SQLException {
        return db().extension(ShapeLearning.class, ShapeLearning::new).stats();
    }

    @Override public RoutingCounts routingCounts() throws SQLException {
        ReplicaSet rs = db();
        return rs.extension(RoutingCounters.class, () -> new RoutingCounters(rs.config().replicas())).snapshot();
    }

    @Override public String toString() { return "MacroAdmin[" + db + "]"; }
}
