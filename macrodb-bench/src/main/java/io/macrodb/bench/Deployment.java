package io.macrodb.bench;

import io.macrodb.engine.Checksums;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One configuration, opened and loaded: the database(s) the clients of a run connect to. Each
 * deployment gets fresh databases of its own (the paper ran every configuration on a fresh copy): in memory, or on
 * PostgreSQL created on the benchmark's servers and dropped by {@link #close()}. It holds one "keeper" connection per
 * database so that it lives until {@link #close()}.
 *
 * <p>MacroDB is loaded through the plain engine into what becomes its primary, then MacroDB opens
 * over it and copies it to the secondaries, as it does with an existing file database. Loading is
 * not measured; this keeps it as fast as the standalone load.
 */
public final class Deployment implements AutoCloseable {
    private static final AtomicInteger SEQ = new AtomicInteger();

    private final SystemConfig config;
    private final BenchEngine engine;
    private final List<String> urls = new ArrayList<>();
    private final List<Connection> keepers = new ArrayList<>();
    private final List<String> plainUrls = new ArrayList<>();
    private final String base;
    private MacroConnection macro;
    private final double loadSeconds;

    private Deployment(SystemConfig config, BenchEngine engine, Workload w, long seed, long readWaitMillis) throws SQLException {
        this.config = config;
        this.engine = engine;
        long t0 = System.nanoTime();
        String base = "bench" + SEQ.incrementAndGet() + "_" + config.label().replaceAll("[^A-Za-z0-9]", "_");
        this.base = base;
        try {
            switch (config.kind()) {
                case STANDALONE -> {
                    String url = engine.newPlainDatabase(base, 0);
                    keepers.add(loadPlain(url, w, seed));
                    urls.add(url);
                    plainUrls.add(url);
                }
                case INDEPENDENT -> loadIndependent(base, w, seed);
                case MACRODB -> {
                    String plain = engine.primaryLoadUrl(base);
                    try (Connection loader = loadPlain(plain, w, seed)) {
                        String url = engine.macroUrl(base, config.macroOptions(readWaitMillis), config.n());
                        Connection k = DriverManager.getConnection(url, "sa", "");
                        keepers.add(k);
                        urls.add(url);
                        plainUrls.add(plain);
                        macro = k.unwrap(MacroConnection.class);
                    }
                    engine.afterMacroOpen(base, config.n());
                }
            }
        } catch (SQLException | RuntimeException e) {
            close();
            throw e;
        }
        loadSeconds = (System.nanoTime() - t0) / 1e9;
    }

    /** Opens {@code config} on {@code engine} and loads {@code w} into every database of it. */
    public static Deployment open(SystemConfig config, BenchEngine engine, Workload w, long seed, long readWaitMillis) throws SQLException {
        return new Deployment(config, engine, w, seed, readWaitMillis);
    }

    private Connection loadPlain(String url, Workload w, long seed) throws SQLException {
        Connection c = DriverManager.getConnection(url, "sa", "");
        try {
            // Every configuration's data is created under the settings it runs with, MacroDB's primary
            // too (MVCC on HSQLDB, which MacroDB would set anyway): HSQLDB tables created under LOCKS
            // and switched to MVCC afterwards keep a slower, read-locked index path until the database
            // is reopened, and measured that way MacroDB-1 cost 1.3x the CPU per transaction.
            engine.configurePlain(c);
            w.load(c, engine, seed);
            c.setAutoCommit(true);
            engine.afterLoad(c);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void loadIndependent(String base, Workload w, long seed) throws SQLException {
        int n = config.n();
        for (int i = 0; i < n; i++) {
            urls.add(engine.newPlainDatabase(base + "_e" + i, i));
            plainUrls.add(urls.get(i));
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, Runtime.getRuntime().availableProcessors()));
        try {
            List<Future<Connection>> loads = new ArrayList<>();
            for (String url : urls) loads.add(pool.submit(() -> loadPlain(url, w, seed)));
            SQLException first = null;
            for (Future<Connection> f : loads) {
                try {
                    keepers.add(f.get());
                } catch (Exception e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    if (first == null) first = cause instanceof SQLException s ? s : new SQLException("load failed: " + cause, cause);
                }
            }
            if (first != null) throw first;
        } finally {
            pool.shutdown();
        }
    }

    public SystemConfig config() { return config; }
    public BenchEngine engine() { return engine; }
    public double loadSeconds() { return loadSeconds; }

    /** Databases the clients are spread over (N for independent engines, else 1). */
    public int databases() { return urls.size(); }

    /** The URL clients of database {@code i} connect to. */
    String url(int i) { return urls.get(i); }

    /** A new client connection to database {@code i}. */
    public Connection connect(int i) throws SQLException {
        return DriverManager.getConnection(urls.get(i), "sa", "");
    }

    /**
     * MacroDB only: waits at most {@code timeoutMillis} for every secondary to apply what the
     * primary committed. Call when no client is running.
     *
     * @return how long that took and whether they caught up in time; null for the plain configurations
     */
    public CatchUp awaitCaughtUp(long timeoutMillis) throws SQLException {
        if (macro == null) return null;
        long start = System.nanoTime();
        boolean caught = macro.admin().awaitCaughtUp(timeoutMillis);
        return new CatchUp((System.nanoTime() - start) / 1e6, caught);
    }

    /** How long MacroDB's secondaries took to catch up, and whether they did before the time-out. */
    public record CatchUp(double ms, boolean caughtUp) {}

    /** MacroDB's own view (replica status, convergence), or null for the plain configurations. */
    public MacroConnection macro() { return macro; }

    /** What the convergence check found, and how long its checksums took. */
    public record Convergence(boolean caughtUp, double catchUpMs, List<String> checksums, boolean equal, double checksumMs) {}

    /**
     * MacroDB only: waits for every secondary to apply everything, then compares the content
     * checksums of all replicas ({@link #checksums}). Call when no client is running.
     */
    public Convergence verify(long timeoutMillis) throws SQLException {
        if (macro == null) return null;
        CatchUp c = awaitCaughtUp(timeoutMillis);
        boolean caught = c.caughtUp();
        double ms = c.ms();
        long t0 = System.nanoTime();
        List<String> sums = checksums();
        boolean equal = sums.stream().allMatch(s -> s != null && Objects.equals(s, sums.get(0)));
        return new Convergence(caught, ms, sums, caught && equal, (System.nanoTime() - t0) / 1e6);
    }

    /**
     * MacroDB only: the content checksum of every replica, primary first, as
     * {@code MacroAdmin.checksums()} computes them ({@link Checksums#of}: every row of every table),
     * computed side by side where the engine allows: one thread per replica (at most one per core),
     * each on a connection of its own to that replica's in-memory database (H2, HSQLDB), instead of
     * one replica after the other (on 8 replicas of TPC-C at 8 warehouses that was most of the end
     * of a run). Side by side only when every replica is active and at the primary's version before
     * and after, and every connection opens the existing database ({@code existingOnlyUrl}: never a
     * new, empty one); otherwise, or on any failure, {@code MacroAdmin.checksums()} answers.
     */
    public List<String> checksums() throws SQLException {
        if (macro == null) return null;
        List<String> sums = engine == BenchEngine.H2 || engine == BenchEngine.HSQLDB ? checksumsSideBySide() : null;
        return sums != null ? sums : macro.admin().checksums();
    }

    /** The checksums side by side, or null where they cannot be (then the driver's own answer). */
    List<String> checksumsSideBySide() throws SQLException {
        List<ReplicaStatus> before = macro.admin().replicaStatus();
        if (!steady(before)) return null;
        io.macrodb.engine.Engine e = io.macrodb.engine.Engines.forName(engine.name());
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(before.size(), Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "bench-checksum");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<String>> sums = new ArrayList<>();
            for (ReplicaStatus r : before) {
                String url = e.existingOnlyUrl(r.url());
                sums.add(pool.submit(() -> {
                    try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                        c.setAutoCommit(true);
                        return Checksums.of(c);
                    }
                }));
            }
            List<String> out = new ArrayList<>();
            for (Future<String> f : sums) out.add(f.get());
            List<ReplicaStatus> after = macro.admin().replicaStatus();
            if (!steady(after) || !versions(before).equals(versions(after))) return null;
            return out;
        } catch (ExecutionException | RuntimeException failed) {
            return null; // the driver's own, one replica after the other
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted", "57014", ie);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Every replica active and at the primary's version. */
    private static boolean steady(List<ReplicaStatus> status) {
        return !status.isEmpty() && status.stream().allMatch(r -> r.state() == ReplicaState.ACTIVE && r.version() == status.get(0).version());
    }

    private static List<Long> versions(List<ReplicaStatus> status) {
        return status.stream().map(ReplicaStatus::version).toList();
    }

    @Override public void close() {
        for (Connection k : keepers) {
            try {
                // H2 in memory ends with its last connection; HSQLDB's must be shut down and Derby's dropped
                // (MacroDB's primary too, below).
                if (engine.outlivesConnections() && macro == null) engine.shutdown(k);
                k.close();
            } catch (SQLException ignored) {
                // closing is best effort; the database is discarded
            }
        }
        keepers.clear();
        // SQLite's plain databases are files that outlive their connections
        if (macro == null) for (String url : plainUrls) engine.discard(url);
        if (engine.outlivesConnections() && config.kind() == SystemConfig.Kind.MACRODB) {
            for (String url : plainUrls) {
                try (Connection c = DriverManager.getConnection(engine.existingUrl(url), "sa", "")) {
                    engine.shutdown(c);
                } catch (SQLException ignored) {
                    // already gone
                }
            }
        }
        // PostgreSQL's databases live on servers: dropped once every connection is closed
        engine.dropDatabases(base);
        for (int i = 0; i < config.n(); i++) engine.dropDatabases(base + "_e" + i);
    }
}
