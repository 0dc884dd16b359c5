package io.macrodb.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A child JVM for {@code ReplicaSetLifetimeTest}: opens {@code args[0]} (a MacroDB URL whose set is
 * kept after its last connection), writes a row, closes the connection, and exits normally with the
 * set still open, so that only MacroDB's JVM shutdown hook can close it.
 */
public final class KeptSetExitWorker {
    private KeptSetExitWorker() {}

    public static void main(String[] args) throws SQLException {
        try (Connection c = DriverManager.getConnection(args[0], "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
            s.execute("INSERT INTO t VALUES (1, 'kept')");
        }
        System.out.println("kept open: " + io.macrodb.replica.ReplicaSets.isOpen(args[1]));
    }
}
