package io.macrodb.engine;

import io.macrodb.testing.PgCluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rough measurement, not a test (run by hand, numbers in docs/postgresql-engine.md §0): one-row
 * UPDATE transactions from 4 clients on PostgreSQL servers that {@link PgCluster} starts ({@code
 * fsync=off}, {@code synchronous_commit=off}, so a plain commit is as cheap as it gets and capture's
 * cost shows at its largest), in rounds of: plain pgjdbc; the capture trigger alone (a primary session's
 * settings, no read-back); trigger and {@link PostgresEngine#collectChanges}; MacroDB with 1 replica; MacroDB
 * with a primary and 2 secondaries, the same with {@code capture=decoding} (and its decoder thread's CPU so far). Arguments: seconds per run, rounds. Run with the test classpath:
 * {@code java -cp target/classes:target/test-classes:<deps> io.macrodb.engine.PostgresCaptureBench 8 3}.
 */
public final class PostgresCaptureBench {
    private static final int ROWS = 1000;
    private static final int CLIENTS = 4;

    private PostgresCaptureBench() {}

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        try (PgCluster pg = PgCluster.start(3)) {
            String plainDb = pg.createDatabase();
            String plain = pg.server(0).jdbcUrl(plainDb);
            try (Connection c = DriverManager.getConnection(plain, "sa", "")) {
                setup(c);
            }
            String m1 = pg.macroUrl(1, "capture=triggers");
            String m3 = pg.macroUrl(3, "capture=triggers");
            String d3 = pg.macroUrl(3, "capture=decoding");
            try (Connection k1 = DriverManager.getConnection(m1, "sa", ""); Connection k3 = DriverManager.getConnection(m3, "sa", "");
                 Connection kd = DriverManager.getConnection(d3, "sa", "")) {
                setup(k1);
                setup(k3);
                setup(kd);
                String captured = pg.server(0).jdbcUrl(PgCluster.primaryDatabase(m1));
                for (int r = 0; r < rounds; r++) {
                    double p = run(plain, seconds, 0);
                    double trigger = run(captured, seconds, 1);
                    double collect = run(captured, seconds, 2);
                    double x1 = run(m1, seconds, 0);
                    double x3 = run(m3, seconds, 0);
                    double xd = run(d3, seconds, 0);
                    System.out.printf("round %d: plain %.0f tps; trigger only %.0f (%.2f); trigger + collectChanges %.0f (%.2f);"
                            + " MacroDB 1 replica %.0f (%.2f); MacroDB 1+2 %.0f (%.2f); MacroDB 1+2 capture=decoding %.0f (%.2f)%n", r, p,
                            trigger, trigger / p, collect, collect / p, x1, x1 / p, x3, x3 / p, xd, xd / p);
                    // the decoder thread's CPU over the transactions it decoded so far
                    System.out.println("  " + kd.unwrap(io.macrodb.jdbc.MacroAdmin.class).captureStatus());
                }
            }
        }
    }

    private static void setup(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id int PRIMARY KEY, bal bigint NOT NULL, note text)");
            s.execute("INSERT INTO acct SELECT g, 0, 'x' FROM generate_series(1, " + ROWS + ") g");
        }
    }

    /** Transactions per second; mode 1: a primary session's capture settings, 2: and collectChanges before each commit. */
    private static double run(String url, int seconds, int mode) throws Exception {
        AtomicLong n = new AtomicLong();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        PostgresEngine engine = new PostgresEngine();
        CaptureContext sink = new CaptureContext() {
            @Override public void onRow(String schema, String table, Object[] oldRow, Object[] newRow) {
            }
        };
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < CLIENTS; t++) {
            fs.add(pool.submit(() -> {
                Random rnd = new Random();
                try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                    if (mode > 0) engine.configureSession(c, 10_000, true);
                    c.setAutoCommit(false);
                    try (PreparedStatement ps = c.prepareStatement("UPDATE acct SET bal = bal + 1 WHERE id = ?")) {
                        while (System.nanoTime() < end) {
                            ps.setInt(1, 1 + rnd.nextInt(ROWS));
                            ps.executeUpdate();
                            if (mode == 2) engine.collectChanges(c, sink);
                            try {
                                c.commit();
                                n.incrementAndGet();
                            } catch (SQLException e) {
                                c.rollback();
                            }
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) f.get();
        pool.shutdown();
        return n.get() / (double) seconds;
    }
}
