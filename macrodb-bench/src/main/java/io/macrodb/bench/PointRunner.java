package io.macrodb.bench;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.jdbc.ReplicaRef;
import io.macrodb.replica.ReplicaStatus;
import org.HdrHistogram.Histogram;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs one point: {@code clients} threads, each with its own connection, run transactions of a mix
 * back to back (no think time); a warm-up whose results are dropped, then a measured window.
 * Times come from {@link System#nanoTime()}; latencies go into per-thread HdrHistograms (3
 * significant digits, nanoseconds) merged at the end.
 */
public final class PointRunner {
    private static final int WARMUP = 0, MEASURE = 1, STOP = 2;
    private static final int MAX_ERROR_SAMPLES = 5;

    private PointRunner() {}

    /** What shapes one run besides the deployment. */
    public record Settings(long warmupMillis, long measureMillis, boolean declareReadOnly, long seed) {}

    public static RunResult run(Deployment d, Workload w, Mix mix, int clients, int repetition, Settings s) throws SQLException {
        List<Client> all = new ArrayList<>();
        int dbs = d.databases();
        int[] perDb = new int[dbs];
        for (int i = 0; i < clients; i++) perDb[i % dbs]++;
        CountDownLatch started = new CountDownLatch(clients);
        try {
            for (int i = 0; i < clients; i++) {
                int db = i % dbs;
                Connection c = d.connect(db);
                c.setAutoCommit(false);
                MacroConnection mc = d.macro() == null ? null : c.unwrap(MacroConnection.class);
                long seed = s.seed() * 1_000_003L + repetition * 7919L + i;
                all.add(new Client(c, mc, w.client(d.engine(), i / dbs, perDb[db], seed), mix, w.types().size(), new Random(seed),
                        s.declareReadOnly() && (mc != null || d.engine().plainSetReadOnly()), started));
            }
        } catch (SQLException | RuntimeException e) {
            for (Client c : all) c.closeQuietly();
            throw e;
        }
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Thread t = new Thread(all.get(i), "bench-client-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        Sampler sampler = new Sampler(d.macro());
        long t0, t1, cpu0, cpu1, srv0, srv1;
        try {
            started.await();
            sleep(s.warmupMillis());
            t0 = System.nanoTime();
            srv0 = d.engine().serverCpuNanos();
            cpu0 = processCpuNanos();
            for (Client c : all) c.phase = MEASURE;
            long end = t0 + TimeUnit.MILLISECONDS.toNanos(s.measureMillis());
            while (System.nanoTime() < end) {
                sampler.sample();
                sleep(Math.min(25, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
            }
            for (Client c : all) c.phase = STOP;
            t1 = System.nanoTime();
            cpu1 = processCpuNanos();
            srv1 = d.engine().serverCpuNanos();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            for (Client c : all) c.phase = STOP;
            throw new SQLException("interrupted", "57014", e);
        }
        List<String> stuck = new ArrayList<>();
        for (Thread t : threads) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) stuck.add(t.getName());
        }
        for (Client c : all) c.closeQuietly();
        long servers = srv0 < 0 || srv1 < 0 ? -1 : srv1 - srv0;
        long cpu = cpu0 < 0 || cpu1 < 0 || servers < 0 ? -1 : cpu1 - cpu0 + servers;
        return merge(d, w, mix, clients, repetition, (t1 - t0) / 1e9, cpu, d.engine().runsServers() ? servers : -1, all, sampler, stuck);
    }

    private static final java.lang.management.OperatingSystemMXBean OS = java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    /**
     * CPU time this JVM has used, all threads (clients, MacroDB's appliers and monitor, JIT, GC), or
     * -1 where the JVM cannot tell. Unlike throughput, CPU time per transaction does not move when a
     * shared machine lends the cores to someone else for a while.
     */
    static long processCpuNanos() {
        return OS instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    /**
     * This JVM's CPU time ({@link #processCpuNanos}) plus that of the engine's own processes outside it
     * (PostgreSQL's servers, which the benchmark started on this machine: {@link BenchEngine#serverCpuNanos}), or
     * -1 where either cannot be read.
     */
    static long cpuNanos(Deployment d) {
        long jvm = processCpuNanos(), servers = d.engine().serverCpuNanos();
        return jvm < 0 || servers < 0 ? -1 : jvm + servers;
    }

    private static RunResult merge(Deployment d, Workload w, Mix mix, int clients, int rep, double seconds, long cpuNanos, long serverNanos,
                                   List<Client> all, Sampler sampler, List<String> stuck) {
        Histogram lat = new Histogram(3), roSec = new Histogram(3), roPri = new Histogram(3), roWait = new Histogram(3);
        int nt = w.types().size();
        Histogram[] byType = new Histogram[nt];
        for (int i = 0; i < nt; i++) byType[i] = new Histogram(3);
        long completed = 0, rollbacks = 0, aborts = 0, errors = 0, ro = 0, onSec = 0, onPri = 0, waited = 0, fellBack = 0;
        Map<String, Long> causes = new TreeMap<>();
        List<String> samples = new ArrayList<>();
        long[] perType = new long[nt];
        for (Client c : all) {
            lat.add(c.latency);
            roSec.add(c.roSecondary);
            roPri.add(c.roPrimary);
            roWait.add(c.roWait);
            for (int i = 0; i < nt; i++) {
                byType[i].add(c.byType[i]);
                perType[i] += c.completedByType[i];
            }
            completed += c.completed;
            rollbacks += c.specRollbacks;
            aborts += c.aborts;
            errors += c.errors;
            ro += c.readOnly;
            onSec += c.onSecondary;
            onPri += c.onPrimary;
            waited += c.waited;
            fellBack += c.fellBack;
            c.causes.forEach((k, v) -> causes.merge(k, v, Long::sum));
            for (String e : c.errorSamples) if (samples.size() < MAX_ERROR_SAMPLES) samples.add(e);
        }
        for (String t : stuck) {
            errors++;
            if (samples.size() < MAX_ERROR_SAMPLES) samples.add(t + " did not stop within 30 s of the end of the run");
        }
        Map<String, Long> types = new LinkedHashMap<>();
        Map<String, Double> typeP50 = new LinkedHashMap<>();
        for (TxType t : w.types()) {
            if (mix.share(t.index()) == 0) continue;
            types.put(t.name(), perType[t.index()]);
            typeP50.put(t.name(), ms(byType[t.index()], 50));
        }
        return new RunResult(d.engine().toString(), w.name(), mix.name(), d.config().label(), clients, rep, seconds,
                completed, rollbacks, completed / seconds, cpuNanos < 0 || completed == 0 ? Double.NaN : cpuNanos / 1e3 / completed,
                cpuNanos < 0 ? Double.NaN : 100.0 * cpuNanos / 1e9 / seconds / Runtime.getRuntime().availableProcessors(), ms(lat, 50), ms(lat, 90), ms(lat, 99),
                lat.getTotalCount() == 0 ? 0 : lat.getMaxValue() / 1e6, aborts, causes, errors, samples,
                ro, onSec, onPri, ms(roSec, 50), ms(roSec, 99), ms(roPri, 50), ms(roPri, 99),
                waited, fellBack, roWait.getTotalCount() == 0 ? 0 : roWait.getMean() / 1e6, ms(roWait, 99),
                sampler.meanLag(), sampler.maxLag, sampler.meanStaleness(), types, typeP50, Double.NaN, true,
                serverNanos < 0 || completed == 0 ? Double.NaN : serverNanos / 1e3 / completed);
    }

    /** Percentile in milliseconds of a histogram of nanoseconds (0 when empty). */
    private static double ms(Histogram h, double pct) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(pct) / 1e6;
    }

    private static void sleep(long ms) throws InterruptedException {
        if (ms > 0) Thread.sleep(ms);
    }

    /** Samples the secondaries' lag during the measured window (MacroDB only). */
    private static final class Sampler {
        private final MacroConnection macro;
        private double lagSum, stalenessSum;
        private long samples, maxLag;

        Sampler(MacroConnection macro) { this.macro = macro; }

        void sample() {
            if (macro == null) return;
            for (ReplicaStatus r : macro.replicaStatus()) {
                if (r.index() == 0) continue;
                lagSum += r.lag();
                stalenessSum += r.stalenessMillis();
                maxLag = Math.max(maxLag, r.lag());
                samples++;
            }
        }

        double meanLag() { return samples == 0 ? 0 : lagSum / samples; }
        double meanStaleness() { return samples == 0 ? 0 : stalenessSum / samples; }
    }

    /** One client thread: its connection, its workload state and its counters (read by the runner after join). */
    private static final class Client implements Runnable {
        final Connection conn;
        final MacroConnection macro;
        final Workload.Client work;
        final Mix mix;
        final Random rnd;
        final boolean declare;
        final CountDownLatch started;
        volatile int phase = WARMUP;
        final Histogram latency = new Histogram(3), roSecondary = new Histogram(3), roPrimary = new Histogram(3),
                roWait = new Histogram(3);
        final Histogram[] byType;
        final long[] completedByType;
        long completed, specRollbacks, aborts, errors, readOnly, onSecondary, onPrimary, waited, fellBack;
        final Map<String, Long> causes = new TreeMap<>();
        final List<String> errorSamples = Collections.synchronizedList(new ArrayList<>());

        Client(Connection conn, MacroConnection macro, Workload.Client work, Mix mix, int types, Random rnd, boolean declare,
               CountDownLatch started) {
            this.conn = conn;
            this.macro = macro;
            this.work = work;
            this.mix = mix;
            this.rnd = rnd;
            this.declare = declare;
            this.started = started;
            byType = new Histogram[types];
            for (int i = 0; i < types; i++) byType[i] = new Histogram(3);
            completedByType = new long[types];
        }

        @Override public void run() {
            started.countDown();
            while (phase != STOP) {
                TxType t = mix.pick(rnd);
                boolean ro = declare && t.readOnly();
                long start = System.nanoTime();
                try {
                    if (ro) conn.setReadOnly(true);
                    Workload.Outcome o = work.run(t, conn, rnd);
                    if (o == Workload.Outcome.COMMIT) conn.commit();
                    else conn.rollback();
                    long nanos = System.nanoTime() - start;
                    if (phase != MEASURE) continue;
                    completed++;
                    completedByType[t.index()]++;
                    if (o == Workload.Outcome.ROLLBACK) specRollbacks++;
                    latency.recordValue(nanos);
                    byType[t.index()].recordValue(nanos);
                    if (t.readOnly()) {
                        readOnly++;
                        ReplicaRef where = macro == null ? null : macro.lastReplica();
                        if (where != null) {
                            long wait = macro.lastReadWaitNanos();
                            roWait.recordValue(wait);
                            if (wait > 0) {
                                waited++;
                                if (where.isPrimary()) fellBack++;
                            }
                            if (where.isPrimary()) {
                                onPrimary++;
                                roPrimary.recordValue(nanos);
                            } else {
                                onSecondary++;
                                roSecondary.recordValue(nanos);
                            }
                        }
                    }
                } catch (SQLException e) {
                    rollbackQuietly();
                    if (phase != MEASURE) continue;
                    if (isAbort(e)) {
                        aborts++;
                        causes.merge(cause(e), 1L, Long::sum);
                    } else {
                        error(t, e);
                    }
                } catch (RuntimeException e) {
                    rollbackQuietly();
                    if (phase == MEASURE) error(t, e);
                } finally {
                    if (ro) {
                        try {
                            conn.setReadOnly(false);
                        } catch (SQLException e) {
                            if (phase == MEASURE) error(t, e);
                        }
                    }
                }
            }
        }

        private void error(TxType t, Exception e) {
            errors++;
            if (errorSamples.size() < MAX_ERROR_SAMPLES) {
                String state = e instanceof SQLException s ? " (SQLState " + s.getSQLState() + ")" : "";
                errorSamples.add(t.name() + ": " + e.getClass().getSimpleName() + state + ": " + e.getMessage());
            }
        }

        private void rollbackQuietly() {
            try {
                conn.rollback();
            } catch (SQLException ignored) {
                // the transaction is over either way
            }
        }

        void closeQuietly() {
            try {
                conn.close();
            } catch (SQLException ignored) {
                // discarded with the run
            }
        }
    }

    /**
     * A failure the client is expected to retry: SQLState class 40 (serialization, deadlock; Derby's lock timeouts 40XL1 and
     * 40XL2 too), lock timeouts (PostgreSQL's lock_timeout: 55P03), H2's concurrent
     * update, and plain SQLite's SQLITE_BUSY / SQLITE_LOCKED (xerial's driver gives them no SQLState; through MacroDB they
     * arrive as 40001).
     */
    static boolean isAbort(SQLException e) {
        String s = e.getSQLState();
        return s != null && (s.startsWith("40") || s.equals("HYT00") || s.equals("55P03")) || e.getErrorCode() == 90131 || e.getErrorCode() == 50200
                || sqliteBusy(e);
    }

    /** SQLite's SQLITE_BUSY (5) or SQLITE_LOCKED (6), extended codes included (517 is BUSY_SNAPSHOT). */
    static boolean sqliteBusy(SQLException e) {
        if (!(e instanceof org.sqlite.SQLiteException se)) return false;
        int primary = se.getResultCode().code & 0xff;
        return primary == 5 || primary == 6;
    }

    /** A short name of an abort's cause for the report. */
    static String cause(SQLException e) {
        String m = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        String kind;
        if (sqliteBusy(e)) return "busy (" + ((org.sqlite.SQLiteException) e).getResultCode().name() + ")";
        if (m.contains("deadlock")) kind = "deadlock";
        else if (m.contains("timeout") || m.contains("timed out") || "HYT00".equals(e.getSQLState()) || e.getErrorCode() == 50200
                || "40XL1".equals(e.getSQLState()) || "40XL2".equals(e.getSQLState())) kind = "lock timeout"; // Derby's: "within the time requested"
        else if (m.contains("concurrent update") || e.getErrorCode() == 90131) kind = "concurrent update";
        else if (m.contains("serializ") || m.contains("conflict")) kind = "serialization";
        else kind = "retryable";
        return kind + " (" + e.getSQLState() + ")";
    }
}
