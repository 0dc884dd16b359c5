package io.macrodb.testing;

import io.macrodb.jdbc.MacroConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Helpers shared by the driver's tests: fresh database URLs, convergence checks, seeds, retries. */
public final class TestDb {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private TestDb() {}

    /**
     * A URL for a new, private in-memory database of {@code engine} with the given MacroDB options.
     * An HSQLDB one gets {@code closeDelay=0} (unless the options name a closeDelay): HSQLDB keeps a
     * memory database, and so MacroDB its replica set, until SHUTDOWN, and the suite's hundreds of
     * databases would stay open to the end of the run; closing with the last connection is what every
     * test written before the close delay expects. Every engine's URL has the form {@code
     * <engine>:mem:<name>} (for SQLite, MacroDB's name for an in-memory database).
     */
    public static String url(String engine, String options) {
        String name = "t" + COUNTER.incrementAndGet() + "_" + Long.toHexString(System.nanoTime());
        String o = options == null ? "" : options;
        if (engine.equalsIgnoreCase("hsqldb") && !o.contains("closeDelay")) o = o.isEmpty() ? "closeDelay=0" : o + "&closeDelay=0";
        if (engine.equalsIgnoreCase("postgresql")) return postgresUrl(o);
        if (engine.equalsIgnoreCase("derby")) { // an in-memory Derby database lives until dropped, like HSQLDB's
            if (!o.contains("closeDelay")) o = o.isEmpty() ? "closeDelay=0" : o + "&closeDelay=0";
            return "jdbc:macrodb:derby:memory:" + name + ";create=true" + (o.isEmpty() ? "" : "?" + o);
        }
        return "jdbc:macrodb:" + engine + ":mem:" + name + (o.isEmpty() ? "" : "?" + o);
    }

    /**
     * How the engine-parameterised suites capture PostgreSQL's rows: {@code -Dmacrodb.pgCapture=decoding} (the
     * surefire execution with parallel apply runs them so) or {@code triggers} (the default).
     */
    public static final String CAPTURE = System.getProperty("macrodb.pgCapture", "triggers");

    /**
     * A PostgreSQL URL over new databases of the shared servers ({@link PgCluster#shared}, which skips the
     * test without them): {@code replicas=N} in the options says how many (3 by default: the primary and
     * two secondaries, each on a server of its own), and {@code capture=}{@link #CAPTURE} is added unless the
     * options name one.
     */
    private static String postgresUrl(String options) {
        int replicas = 3;
        StringBuilder rest = new StringBuilder();
        for (String pair : options.split("&")) {
            if (pair.isEmpty()) continue;
            if (pair.startsWith("replicas=")) replicas = Integer.parseInt(pair.substring(9));
            else rest.append(rest.length() == 0 ? "" : "&").append(pair);
        }
        String capture = "capture=" + CAPTURE;
        if (!rest.toString().contains("capture=")) rest.insert(0, rest.length() == 0 ? capture : capture + "&");
        try {
            return PgCluster.shared().macroUrl(replicas, rest.toString());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the test databases: " + e.getMessage(), e);
        }
    }

    /** The rows of a query, each as its columns' {@code getString} joined by {@code separator}, in the query's order. */
    public static List<String> rows(Connection c, String sql, String separator) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) sb.append(i == 1 ? "" : separator).append(rs.getString(i));
                out.add(sb.toString());
            }
        }
        return out;
    }

    /**
     * Once every secondary has caught up: a one-row query run on each replica's own engine (its URL, past MacroDB), as
     * {@code role:columns} with the columns joined by '|', in the order of {@code replicaStatus}.
     */
    public static List<String> onEveryReplica(MacroConnection mc, String sql) throws SQLException {
        List<io.macrodb.replica.ReplicaStatus> replicas = new java.util.ArrayList<>();
        List<List<String>> all = everyReplica(mc, sql, replicas);
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            List<String> row = all.get(i);
            io.macrodb.replica.ReplicaStatus r = replicas.get(i);
            assertEquals(1, row.size(), () -> sql + " on " + r.url() + ": " + row);
            out.add(r.role() + ":" + row.get(0));
        }
        return out;
    }

    /**
     * Once every secondary has caught up: each replica's rows of {@code sql}, run on its own engine (its URL, past
     * MacroDB), the columns joined by '|', in the order of {@code replicaStatus}.
     */
    public static List<List<String>> everyReplica(Connection c, String sql) throws SQLException {
        return everyReplica(macro(c), sql, new java.util.ArrayList<>());
    }

    /** {@link #everyReplica(Connection, String)}, the replicas' status added to {@code replicas} in the same order. */
    private static List<List<String>> everyReplica(MacroConnection mc, String sql, List<io.macrodb.replica.ReplicaStatus> replicas)
            throws SQLException {
        assertTrue(mc.admin().awaitCaughtUp(30_000), () -> "secondaries did not catch up: " + mc.replicaStatus());
        List<List<String>> out = new java.util.ArrayList<>();
        for (io.macrodb.replica.ReplicaStatus r : mc.replicaStatus()) {
            try (Connection d = DriverManager.getConnection(r.url(), "sa", "")) {
                out.add(rows(d, sql, "|"));
            }
            replicas.add(r);
        }
        return out;
    }

    /** There are {@code replicas} replicas, and each one's rows of {@code sql} ({@link #everyReplica}) are {@code expected}. */
    public static void assertOnEveryReplica(Connection c, int replicas, String sql, List<String> expected) throws SQLException {
        List<List<String>> all = everyReplica(c, sql);
        assertEquals(replicas, all.size(), "replicas");
        for (int i = 0; i < all.size(); i++) assertEquals(expected, all.get(i), "replica " + i + ": " + sql);
    }

    public static Connection open(String url) throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    public static MacroConnection macro(Connection c) throws SQLException {
        return c.unwrap(MacroConnection.class);
    }

    /**
     * Waits for every secondary to apply everything, then asserts that every replica has the same
     * content checksum as the primary.
     */
    public static List<String> assertConverged(Connection c) throws SQLException {
        MacroConnection mc = macro(c);
        assertTrue(mc.admin().awaitCaughtUp(30_000), () -> "secondaries did not catch up: " + mc.replicaStatus());
        List<String> sums = mc.admin().checksums();
        for (int i = 1; i < sums.size(); i++) {
            int idx = i;
            assertEquals(sums.get(0), sums.get(i), () -> "replica " + idx + " diverged from the primary: " + sums + " "
                    + mc.replicaStatus() + "\n" + contents(mc) + differences(mc, idx));
        }
        return sums;
    }

    /**
     * The rows in which replica {@code idx} (its place in {@code replicaStatus}) and the primary
     * differ, table by table (at most 20 each), for a divergence report.
     */
    private static String differences(MacroConnection mc, int idx) {
        List<io.macrodb.replica.ReplicaStatus> status = mc.replicaStatus();
        StringBuilder sb = new StringBuilder();
        try (Connection p = DriverManager.getConnection(status.get(0).url(), "sa", "");
             Connection r = DriverManager.getConnection(status.get(idx).url(), "sa", "")) {
            for (io.macrodb.log.TableShape t : io.macrodb.engine.Catalog.readTables(p)) {
                java.util.Set<String> onPrimary = rows(p, t);
                java.util.Set<String> onReplica = rows(r, t);
                java.util.List<String> out = new java.util.ArrayList<>();
                for (String row : onPrimary) if (!onReplica.contains(row)) out.add("primary only " + row);
                for (String row : onReplica) if (!onPrimary.contains(row)) out.add("replica only " + row);
                if (!out.isEmpty()) sb.append(t).append(": ").append(out.subList(0, Math.min(20, out.size()))).append('\n');
            }
        } catch (SQLException e) {
            sb.append("(rows not compared: ").append(e.getMessage()).append(")\n");
        }
        return sb.toString();
    }

    private static java.util.Set<String> rows(Connection c, io.macrodb.log.TableShape t) throws SQLException {
        java.util.Set<String> out = new java.util.TreeSet<>();
        try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT * FROM " + t.qualifiedName())) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder("[");
                for (int i = 1; i <= n; i++) row.append(i > 1 ? ", " : "").append(rs.getString(i));
                out.add(row.append(']').toString());
            }
        }
        return out;
    }

    /** Every replica's tables with their row counts, for a divergence report. */
    private static String contents(MacroConnection mc) {
        StringBuilder sb = new StringBuilder();
        List<io.macrodb.replica.ReplicaStatus> status = mc.replicaStatus();
        for (io.macrodb.replica.ReplicaStatus r : status) {
            sb.append(r.role()).append(' ').append(r.index()).append(':');
            try (Connection c = DriverManager.getConnection(r.url(), "sa", "");
                 java.sql.Statement s = c.createStatement()) {
                for (io.macrodb.log.TableShape t : io.macrodb.engine.Catalog.readTables(c)) {
                    try (java.sql.ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + t.qualifiedName())) {
                        rs.next();
                        sb.append(' ').append(t).append('=').append(rs.getLong(1));
                    }
                }
                try (java.sql.ResultSet rs = s.executeQuery("SELECT DISTINCT TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS")) {
                    while (rs.next()) sb.append(" trigger:").append(rs.getString(1));
                }
            } catch (SQLException e) {
                sb.append(" (").append(e.getMessage()).append(')');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The seed for a randomized test: -Dmacrodb.seed=N reproduces a run. Printed so a failure can be replayed. */
    public static long seed(String test) {
        long seed = Long.getLong("macrodb.seed", System.nanoTime());
        System.out.println(test + " seed=" + seed + " (rerun with -Dmacrodb.seed=" + seed + ")");
        return seed;
    }

    /** Work inside one transaction. */
    @FunctionalInterface
    public interface Work {
        void run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} as one transaction (autocommit off), retrying on SQLState 40001 with a short
     * random back-off, as a correct client must; rolls back and rethrows anything else.
     */
    public static void inTransaction(Connection c, Work work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                work.run(c);
                c.commit();
                return;
            } catch (SQLException e) {
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // the connection reports the original failure
                }
                if (!"40001".equals(e.getSQLState()) || attempt >= 100) {
                    if (attempt > 1) e.addSuppressed(new IllegalStateException("gave up after " + attempt + " attempts"));
                    throw e;
                }
                // Back off a little, randomly: retrying at once can take the same locks again before the
                // deadlock's other party runs, over and over (a livelock, on two cores especially).
                try {
                    Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextInt(1 + Math.min(attempt, 20)));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
