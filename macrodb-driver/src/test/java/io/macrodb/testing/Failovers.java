package io.macrodb.testing;

import io.macrodb.jdbc.MacroConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the fault tests fail a primary and wait for its successor. */
public final class Failovers {
    private Failovers() {}

    /**
     * Stops an embedded engine from outside, the way a crash of its database would look: H2's and HSQLDB's
     * {@code SHUTDOWN IMMEDIATELY}; an in-memory Derby database is dropped (Derby boots one that was only shut down
     * again on the next connection, so a shut-down one is no gone engine).
     */
    public static void shutDown(String engineUrl) {
        if (engineUrl.startsWith("jdbc:derby:")) {
            String dropped = engineUrl.replace(";create=true", "") + ";drop=true";
            try (Connection ignored = DriverManager.getConnection(dropped)) {
                throw new AssertionError("Derby did not drop " + engineUrl);
            } catch (SQLException expected) {
                // 08006: the database was dropped
            }
            return;
        }
        try (Connection k = DriverManager.getConnection(engineUrl, "sa", ""); Statement s = k.createStatement()) {
            s.execute("SHUTDOWN IMMEDIATELY");
        } catch (SQLException expectedClose) {
            // the engine closes the connection that shut it down
        }
    }

    /** Waits (30 s at most) until a secondary was promoted, and asserts it was. */
    public static void awaitPromotion(MacroConnection mc) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && !mc.replicaStatus().get(0).stateReason().startsWith("promoted")) Thread.sleep(20);
        assertTrue(mc.replicaStatus().get(0).stateReason().startsWith("promoted"), () -> "no promotion: " + mc.replicaStatus());
    }

    /**
     * Derby's lock and transaction tables ({@code SYSCS_DIAG.LOCK_TABLE}, {@code SYSCS_DIAG.TRANSACTION_TABLE}) of each of
     * {@code mc}'s replicas, read through a session of its own: what a stalled workload waits for. Other engines: nothing.
     */
    public static String derbyLocks(MacroConnection mc) {
        StringBuilder sb = new StringBuilder();
        for (io.macrodb.replica.ReplicaStatus r : mc.replicaStatus()) {
            if (!r.url().startsWith("jdbc:derby:")) continue;
            sb.append("\nDerby tables of replica ").append(r.index()).append(' ').append(r.state()).append(' ').append(r.url());
            try (Connection c = DriverManager.getConnection(r.url().replace(";create=true", ""))) {
                dump(c, "SELECT XID, TYPE, MODE, TABLENAME, LOCKNAME, STATE, TABLETYPE, LOCKCOUNT, INDEXNAME FROM SYSCS_DIAG.LOCK_TABLE", sb);
                dump(c, "SELECT XID, GLOBAL_XID, USERNAME, TYPE, STATUS, FIRST_INSTANT, SQL_TEXT FROM SYSCS_DIAG.TRANSACTION_TABLE", sb);
            } catch (SQLException e) {
                sb.append("\n  (cannot read: ").append(e.getSQLState()).append(' ').append(e.getMessage()).append(')');
            }
        }
        return sb.toString();
    }

    private static void dump(Connection c, String sql, StringBuilder sb) throws SQLException {
        try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
            java.sql.ResultSetMetaData md = rs.getMetaData();
            sb.append("\n  ").append(sql.substring(sql.lastIndexOf(' ') + 1)).append(':');
            while (rs.next()) {
                sb.append("\n    ");
                for (int i = 1; i <= md.getColumnCount(); i++) sb.append(i == 1 ? "" : " | ").append(rs.getString(i));
            }
        }
    }
}
