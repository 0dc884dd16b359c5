package io.macrodb.server;

import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * The shared client scenario of {@link ClientScenarioTest} over pgjdbc, printing the same lines as
 * {@code src/test/clients/scenario.py}, {@code scenario.js} and {@code scenario.go}. pgjdbc does not expose a
 * statement's command tag: the DDL line is printed when the statement ran and returned no rows.
 */
final class PgJdbcScenario {
    private final StringBuilder out = new StringBuilder();

    private PgJdbcScenario() { }

    private void print(Object... words) {
        List<String> w = new ArrayList<>();
        for (Object o : words) w.add(String.valueOf(o));
        out.append(String.join(" ", w)).append('\n');
    }

    private static String text(String v) {
        return v == null ? "NULL" : v;
    }

    private static String state(Statement s, String sql) {
        try {
            s.execute(sql);
            return "none";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The scenario against a server; the lines it printed. */
    static String run(String host, int port, String user, String password) throws Exception {
        PgJdbcScenario sc = new PgJdbcScenario();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/shop?sslmode=disable", user, password)) {
            sc.steps(c);
        }
        sc.print("done");
        return sc.out.toString();
    }

    private void steps(Connection c) throws Exception {
        Statement s = c.createStatement();
        if (!s.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), price NUMERIC(8,2), added DATE, ok BOOLEAN, big BIGINT, ts TIMESTAMP)")) {
            print("create", "CREATE TABLE");
        }
        Object[][] rows = {
            {1, "apple", new BigDecimal("1.50"), LocalDate.of(2024, 1, 2), true, 9000000000L, LocalDateTime.of(2024, 1, 2, 3, 4, 5)},
            {2, "pear", null, LocalDate.of(2024, 3, 4), false, null, null},
            {3, null, new BigDecimal("-0.25"), null, null, -1L, LocalDateTime.of(2023, 12, 31, 23, 59, 59)},
        };
        int[] types = {Types.INTEGER, Types.VARCHAR, Types.NUMERIC, Types.DATE, Types.BOOLEAN, Types.BIGINT, Types.TIMESTAMP};
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (Object[] r : rows) {
                for (int i = 0; i < r.length; i++) {
                    if (r[i] == null) ps.setNull(i + 1, types[i]);
                    else ps.setObject(i + 1, r[i], types[i]);
                }
                print("insert", ps.executeUpdate());
            }
        }
        try (ResultSet rs = s.executeQuery("SELECT id, name, price, added, ok, big, ts FROM items ORDER BY id")) {
            while (rs.next()) {
                List<String> v = new ArrayList<>();
                for (int i = 1; i <= 7; i++) v.add(text(rs.getString(i)));
                print("row", String.join("|", v));
            }
        }
        print("update", s.executeUpdate("UPDATE items SET price = price + 1 WHERE price IS NOT NULL"));

        // a transaction rolled back
        c.setAutoCommit(false);
        print("delete in transaction", s.executeUpdate("DELETE FROM items WHERE id = 1"));
        c.rollback();
        print("after rollback", count(s, "SELECT count(*) AS n FROM items"));
        c.rollback();

        // an error inside a transaction fails it until ROLLBACK
        s.executeUpdate("INSERT INTO items (id, name) VALUES (10, 'ten')");
        print("duplicate", state(s, "INSERT INTO items (id, name) VALUES (1, 'dup')"));
        print("after error", state(s, "SELECT 1"));
        c.rollback();
        c.setAutoCommit(true);
        print("ten rolled back", count(s, "SELECT count(*) AS n FROM items WHERE id = 10"));

        // the same statement with different parameters (pgjdbc prepares it on the server from its fifth run)
        try (PreparedStatement ps = c.prepareStatement("SELECT name FROM items WHERE id = ?")) {
            for (int i : new int[] {1, 2, 3, 1, 2, 3, 1}) {
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    print("name", i, text(rs.getString(1)));
                }
            }
        }

        // COPY in and out
        CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
        print("copy in", copy.copyIn("COPY items (id, name) FROM STDIN", new StringReader("20\ttwenty\n21\t\\N\n")));
        StringWriter w = new StringWriter();
        copy.copyOut("COPY (SELECT id, name FROM items WHERE id >= 20 ORDER BY id) TO STDOUT", w);
        print("copy out", w.toString().replace("\n", "/").replace("\t", ","));

        // errors keep their SQLSTATE
        print("unknown table", state(s, "SELECT * FROM nowhere"));

        // a read-only transaction refuses writes
        c.setAutoCommit(false);
        s.execute("SET TRANSACTION READ ONLY");
        print("read only count", count(s, "SELECT count(*) AS n FROM items"));
        print("write in read only", state(s, "INSERT INTO items (id) VALUES (99)"));
        c.rollback();
        c.setAutoCommit(true);
        try (ResultSet rs = s.executeQuery("SHOW macrodb.last_commit")) {
            rs.next();
            print("last commit reported", Long.parseLong(rs.getString(1)) > 0 ? "True" : "False");
        }

        // cancel: Statement.cancel() from another thread (pgjdbc sends a CancelRequest); 57014, the session serves
        // on; inside a transaction the cancel fails it until ROLLBACK
        String[] r = cancelled(s, CancelTest.longQuery("items"));
        print("cancel", r[0], "in time", r[1]);
        print("after cancel", count(s, "SELECT count(*) AS n FROM items"));
        c.setAutoCommit(false);
        s.executeUpdate("INSERT INTO items (id, name) VALUES (30, 'thirty')");
        r = cancelled(s, CancelTest.longQuery("items"));
        print("cancel in transaction", r[0], "in time", r[1]);
        print("after cancel in transaction", state(s, "SELECT 1"));
        c.rollback();
        c.setAutoCommit(true);
        print("thirty rolled back", count(s, "SELECT count(*) AS n FROM items WHERE id = 30"));
        s.close();
    }

    /** Runs {@code sql}, cancelled after a second: its SQLSTATE and whether it ended within 10 s ("True"/"False"). */
    private static String[] cancelled(Statement s, String sql) throws InterruptedException {
        Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(1000);
                s.cancel();
            } catch (InterruptedException e) {
                // the statement ended first
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        long start = System.nanoTime();
        canceller.start();
        String state = state(s, sql);
        canceller.interrupt();
        canceller.join();
        return new String[] {state, System.nanoTime() - start < 10_000_000_000L ? "True" : "False"};
    }
}
