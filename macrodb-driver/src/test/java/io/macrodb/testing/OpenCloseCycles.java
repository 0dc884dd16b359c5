package io.macrodb.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Measures the connection lifetime (issue 12, item 5): cycles of "open a connection when none is
 * open, read, close it" through MacroDB and through the plain engine, in one run, and prints each
 * case's time per cycle and the ratio. Not a test (no timing is asserted); run it by hand:
 *
 * <pre>
 * mvn -B -o -q -pl macrodb-driver test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -cp macrodb-driver/target/test-classes:macrodb-driver/target/classes:$(cat /tmp/cp.txt) \
 *     io.macrodb.testing.OpenCloseCycles [emptyCycles=50] [rows=200000] [rowCycles=5] [replicas=3]
 * </pre>
 *
 * Cases: an empty in-memory database (each cycle a new one, as the engine does without a close
 * delay), an in-memory database of {@code rows} rows kept with {@code DB_CLOSE_DELAY=-1} (H2) or by
 * HSQLDB's own rule (a memory database lives until SHUTDOWN), and a file database of {@code rows}
 * rows (H2). Each cycle opens the first connection, counts the rows, and closes it.
 */
public final class OpenCloseCycles {
    private OpenCloseCycles() {}

    public static void main(String[] args) throws Exception {
        int emptyCycles = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int rowCycles = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int replicas = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Class.forName("io.macrodb.jdbc.MacroDriver");
        String q = "?replicas=" + replicas;
        System.out.printf(Locale.ROOT, "open/close cycles, MacroDB replicas=%d vs the plain engine; %d processors; java %s%n",
                replicas, Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        List<String> out = new ArrayList<>();
        // warm-up: class loading and JIT of both paths
        cycles("jdbc:macrodb:h2:mem:warm" + q, 5, false);
        cycles("jdbc:h2:mem:warm", 5, false);

        out.add(compare("h2 mem, empty, " + emptyCycles + " cycles",
                cycles("jdbc:macrodb:h2:mem:empty" + q, emptyCycles, false),
                cycles("jdbc:h2:mem:emptyplain", emptyCycles, false), emptyCycles));
        out.add(compare("hsqldb mem, empty, " + emptyCycles + " cycles",
                cycles("jdbc:macrodb:hsqldb:mem:empty" + q, emptyCycles, true),
                cycles("jdbc:hsqldb:mem:emptyplain", emptyCycles, true), emptyCycles));

        String h2Kept = "h2:mem:rows;DB_CLOSE_DELAY=-1";
        fill("jdbc:macrodb:" + h2Kept + q, rows);
        fill("jdbc:h2:mem:rowsplain;DB_CLOSE_DELAY=-1", rows);
        out.add(compare("h2 mem, " + rows + " rows, DB_CLOSE_DELAY=-1, " + rowCycles + " cycles",
                cycles("jdbc:macrodb:" + h2Kept + q, rowCycles, false),
                cycles("jdbc:h2:mem:rowsplain;DB_CLOSE_DELAY=-1", rowCycles, false), rowCycles));
        shutdown("jdbc:macrodb:" + h2Kept + q);
        shutdown("jdbc:h2:mem:rowsplain;DB_CLOSE_DELAY=-1");

        fill("jdbc:macrodb:hsqldb:mem:rows" + q, rows);
        fill("jdbc:hsqldb:mem:rowsplain", rows);
        out.add(compare("hsqldb mem, " + rows + " rows, " + rowCycles + " cycles",
                cycles("jdbc:macrodb:hsqldb:mem:rows" + q, rowCycles, false),
                cycles("jdbc:hsqldb:mem:rowsplain", rowCycles, false), rowCycles));
        shutdown("jdbc:macrodb:hsqldb:mem:rows" + q);
        shutdown("jdbc:hsqldb:mem:rowsplain");

        Path dir = Files.createTempDirectory("macrodb-cycles");
        try {
            String file = "h2:file:" + dir.resolve("db");
            String plain = "jdbc:h2:file:" + dir.resolve("plain");
            fill("jdbc:macrodb:" + file + q, rows);
            fill(plain, rows);
            out.add(compare("h2 file, " + rows + " rows, " + rowCycles + " cycles",
                    cycles("jdbc:macrodb:" + file + q, rowCycles, false), cycles(plain, rowCycles, false), rowCycles));
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%-52s %14s %14s %8s%n", "case", "MacroDB ms/cycle", "plain ms/cycle", "ratio");
        out.forEach(System.out::println);
    }

    private static String compare(String name, long macroNanos, long plainNanos, int cycles) {
        double m = macroNanos / 1e6 / cycles;
        double p = plainNanos / 1e6 / cycles;
        String line = String.format(Locale.ROOT, "%-52s %14.1f %14.1f %7.1fx", name, m, p, m / p);
        System.out.println(line);
        return line;
    }

    /** {@code n} cycles of: first connection, a read, close. Returns the nanoseconds they took. */
    private static long cycles(String url, int n, boolean shutdownEach) throws SQLException {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery(count(url))) {
                    rs.next();
                }
                // a plain HSQLDB memory database lives until SHUTDOWN: an empty-database cycle ends with one
                if (shutdownEach) s.execute("SHUTDOWN");
            }
        }
        return System.nanoTime() - t0;
    }

    private static String count(String url) {
        return url.contains("rows") || url.contains("file:") ? "SELECT COUNT(*) FROM t" : "SELECT 1 FROM (VALUES (1)) v(x)";
    }

    private static void fill(String url, int rows) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(12,2), created DATE)");
            }
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?)")) {
                java.sql.Date d = java.sql.Date.valueOf("2026-11-25");
                for (int i = 0; i < rows; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "customer " + i);
                    ps.setBigDecimal(3, java.math.BigDecimal.valueOf(i % 100_000, 2));
                    ps.setDate(4, d);
                    ps.addBatch();
                    if (i % 1000 == 999) {
                        ps.executeBatch();
                        c.commit();
                    }
                }
                ps.executeBatch();
                c.commit();
            }
            if (url.startsWith("jdbc:macrodb:")) {
                c.unwrap(io.macrodb.jdbc.MacroAdmin.class).awaitCaughtUp(600_000);
            }
        }
    }

    private static void shutdown(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        } catch (SQLException e) {
            // a database that is already gone
        }
    }
}
