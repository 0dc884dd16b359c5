package io.macrodb.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The child process of {@code CrashRecoveryTest}: writes transactions through a durable MacroDB
 * URL as fast as it can, until it is killed, and records in a journal file {@code TRY <id>} before
 * each attempt and {@code ACK <id>} once its commit() has returned. (A file, not standard output: the
 * JDK may drop what is left in a killed process's pipe.) Each transaction inserts its id into two
 * tables, so a half-recovered transaction shows. Usage: {@code CrashWorker <url> <first id> <journal>}.
 */
public final class CrashWorker {
    private CrashWorker() {}

    /** One unbuffered write per line: once write() returns, the line survives the process. */
    private static void note(java.io.FileOutputStream journal, String line) throws java.io.IOException {
        journal.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static void main(String[] args) throws SQLException, java.io.IOException {
        String url = args[0];
        long id = Long.parseLong(args[1]);
        try (java.io.FileOutputStream journal = new java.io.FileOutputStream(args[2], true);
             Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS a (id BIGINT PRIMARY KEY, payload VARCHAR(100))");
                s.execute("CREATE TABLE IF NOT EXISTS b (id BIGINT PRIMARY KEY)");
            }
            note(journal, "READY");
            c.setAutoCommit(false);
            try (PreparedStatement pa = c.prepareStatement("INSERT INTO a VALUES (?, ?)");
                 PreparedStatement pb = c.prepareStatement("INSERT INTO b VALUES (?)")) {
                while (true) {
                    note(journal, "TRY " + id); // before the attempt: the parent must know of every id that may exist
                    pa.setLong(1, id);
                    pa.setString(2, "payload of " + id);
                    pa.executeUpdate();
                    pb.setLong(1, id);
                    pb.executeUpdate();
                    c.commit();
                    note(journal, "ACK " + id);
                    id++;
                }
            }
        }
    }
}
