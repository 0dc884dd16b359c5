package io.macrodb.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * A child JVM for {@code DirectoryLockTest}: opens a durable MacroDB database, writes one row, says
 * {@code OPEN} on stdout, and keeps the database open until its stdin closes or says anything.
 */
public final class DirectoryHolder {
    private DirectoryHolder() {}

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS held (id INT PRIMARY KEY)");
            s.execute("INSERT INTO held VALUES (1)");
            System.out.println("OPEN");
            System.out.flush();
            System.in.read();
        }
    }
}
