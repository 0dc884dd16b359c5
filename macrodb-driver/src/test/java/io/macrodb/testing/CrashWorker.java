package io.macrodb.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The child process of {@code CrashRecoveryTest}: writes transactions through a durable MacroDB
 * URL as fast as it can and prints {@code ACK <id>} once each commit() has returned, until it is
 * killed. Each transaction inserts its id into two tables, so a half-recovered transaction shows.
 * Usage: {@code CrashWorker <url> <first id>}.
 */
public final class CrashWorker {
    private CrashWorker() {}

    public static void main(String[] args) throws SQLException {
        String url = args[0];
        long id = Long.parseLong(args[1]);
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS a (id BIGINT PRIMARY KEY, payload VARCHAR(100))");
                s.execute("CREATE TABLE IF NOT EXISTS b (id BIGINT PRIMARY KEY)");
            }
            System.out.println("READY");
            System.out.flush();
            c.setAutoCommit(false);
            try (PreparedStatement pa = c.prepareStatement("INSERT INTO a VALUES (?, ?)");
                 PreparedStatement pb = c.prepareStatement("INSERT INTO b VALUES (?)")) {
                while (true) {
                    System.out.println("TRY " + id);
                    System.out.flush(); // before the attempt: the parent must know of every id that may exist
                    pa.setLong(1, id);
                    pa.setString(2, "payload of " + id);
                    pa.executeUpdate();
                    pb.setLong(1, id);
                    pb.executeUpdate();
                    c.commit();
                    System.out.println("ACK " + id);
                    System.out.flush();
                    id++;
                }
            }
        }
    }
}
