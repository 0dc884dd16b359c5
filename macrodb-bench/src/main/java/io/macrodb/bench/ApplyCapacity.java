package io.macrodb.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * How fast one secondary applies the replication log, against how fast the primary produces it.
 *
 * <p>For each engine and each {@code applyThreads} K: MacroDB with two replicas
 * ({@code replicas=2&applyThreads=K&readWait=0}, HSQLDB also {@code admission=off} unless the
 * options say otherwise) is loaded, warmed up (a run with the secondary applying, then caught up),
 * and then, for each client count C and repetition:
 * <ol>
 *   <li>the secondary's applier is paused ({@code MacroAdmin.pauseApplying(1, true)});</li>
 *   <li>C clients run the mix for the measured window ({@link PointRunner}, no warm-up): the
 *       primary's update commits per second (completed transactions minus read-only ones minus
 *       TPC-C's intended rollbacks) and the CPU time over the window per update commit, which
 *       includes the read-only transactions of the mix, all run on the primary
 *       ({@code readWait=0}: they do not wait for the paused secondary). The secondary must not
 *       move meanwhile: its version after the window is that of the pause, or the window fails
 *       ({@code pausedVersionsApplied});</li>
 *   <li>with no other load, the applier resumes and {@code awaitCaughtUp} is timed: apply rate =
 *       records applied (the secondary's version delta: one record per version) / that time, CPU per applied
 *       record = the CPU time over it / records. {@code parallelBatches},
 *       {@code parallelRedos} and {@code applyGroups} are the deltas over the catch-up.</li>
 * </ol>
 * CPU time is the JVM's (every thread: clients, MacroDB's applier and decoder, JIT, GC) and, on PostgreSQL,
 * every process of the servers the benchmark started ({@link BenchEngine#serverCpuNanos}: the primary's
 * server and the secondary's, from {@code /proc}, as the rest of the benchmark counts them), whose part is
 * reported apart ({@code primaryServerCpuUsPerUpdate}, {@code applyServerCpuUsPerRecord}, and of it the
 * secondary's server, {@code applySecondaryServerCpuUsPerRecord}); {@code pausedSecondaryServerCpuMs} is
 * what the secondary's server spent while it was paused (the clients' sessions coming and going included).
 * After the last window of each K the replicas' checksums are compared ({@link Deployment#verify}):
 * {@code replicasEqual}, which every window of that K carries.
 * The backlog of every window is applied by the same K, so each K yields an apply rate per C (the
 * log of more clients is not harder to apply, but reported apart in case it is) and the primary's
 * rate is measured once per K (it does not depend on K: the secondary is paused).
 */
public final class ApplyCapacity {
    private ApplyCapacity() {}

    /** What to measure. */
    public record Settings(List<BenchEngine> engines, Workload workload, Mix mix, List<Integer> applyThreads, List<Integer> clients,
                           long jvmWarmupMillis, long warmupMillis, long measureMillis, int repetitions, String options, long seed,
                           long catchUpTimeoutMillis) {
        public Settings {
            if (engines.isEmpty() || applyThreads.isEmpty() || clients.isEmpty()) throw new IllegalArgumentException("nothing to measure");
            if (repetitions < 1) throw new IllegalArgumentException("repetitions must be >= 1");
            if (applyThreads.stream().anyMatch(k -> k < 1 || k > 64)) throw new IllegalArgumentException("applyThreads must be in 1..64");
            if (clients.stream().anyMatch(c -> c < 1)) throw new IllegalArgumentException("clients must be >= 1");
            int k = applyThreads.stream().max(Integer::compare).orElse(1);
            for (BenchEngine e : engines) {
                if (e.unavailableReason() != null) throw new IllegalArgumentException("-e " + e + ": " + e.unavailableReason());
                if (k > e.maxApplyThreads()) throw new IllegalArgumentException("applyThreads " + k + ": MacroDB applies " + e
                        + " with at most " + e.maxApplyThreads() + " apply thread" + (e.maxApplyThreads() == 1 ? "" : "s")
                        + " per secondary (it refuses more); measure " + e + " apart with at most that many");
            }
            options = options == null ? "" : options.trim();
        }
    }

    /** One recorded backlog: the primary's window and the secondary's catch-up after it. */
    @JsonPropertyOrder(alphabetic = false)
    public record Window(String engine, String config, int applyThreads, int clients, int repetition,
                         double primarySeconds, long completed, long updateCommits, double primaryCommitsPerSec, double primaryTps,
                         double primaryCpuUsPerUpdate, double primaryCpuPct, long aborts, long errors, List<String> errorSamples,
                         long backlogVersions, long appliedRecords, long applyGroups, long parallelBatches, long parallelRedos,
                         double catchUpMs, boolean caughtUp, double applyRecordsPerSec, double applyCpuUsPerRecord, double applyCpuPct,
                         String capture, long pausedVersionsApplied, double pausedSecondaryServerCpuMs, double primaryServerCpuUsPerUpdate,
                         double applyServerCpuUsPerRecord, double applySecondaryServerCpuUsPerRecord, boolean replicasEqual) {

        /** This window with whether the replicas' checksums were equal after the last window of its applyThreads. */
        public Window withReplicasEqual(boolean equal) {
            return new Window(engine, config, applyThreads, clients, repetition, primarySeconds, completed, updateCommits,
                    primaryCommitsPerSec, primaryTps, primaryCpuUsPerUpdate, primaryCpuPct, aborts, errors, errorSamples, backlogVersions,
                    appliedRecords, applyGroups, parallelBatches, parallelRedos, catchUpMs, caughtUp, applyRecordsPerSec, applyCpuUsPerRecord,
                    applyCpuPct, capture, pausedVersionsApplied, pausedSecondaryServerCpuMs, primaryServerCpuUsPerUpdate,
                    applyServerCpuUsPerRecord, applySecondaryServerCpuUsPerRecord, equal);
        }
    }

    /** The configuration measured for {@code engine} at {@code k} apply threads. */
    public static SystemConfig config(BenchEngine engine, int k, String options) {
        SystemConfig c = new SystemConfig(SystemConfig.Kind.MACRODB, 2, "leastActive", "strict", "applyThreads=" + k + "&readWait=0");
        if (engine == BenchEngine.HSQLDB && !containsOption(options, "admission")) c = c.withOptions("admission=off");
        return c.withOptions(options);
    }

    private static boolean containsOption(String options, String name) {
        return options != null && Arrays.stream(options.split("&")).anyMatch(o -> o.toLowerCase(Locale.ROOT).startsWith(name.toLowerCase(Locale.ROOT) + "="));
    }

    /**
     * Runs every engine x applyThreads x repetition x clients; {@code progress} hears of each window
     * as it ends. Before an engine's first measured load, a throw-away one at the largest K goes
     * through the same steps (half of {@code jvmWarmupMillis} applying, half paused, then the
     * catch-up) so that the JIT has compiled the primary's and the applier's code: otherwise the
     * first K measured pays for it.
     */
    public static List<Window> run(Settings s, Consumer<String> progress) throws SQLException {
        List<Window> out = new ArrayList<>();
        for (BenchEngine engine : s.engines()) {
            if (s.jvmWarmupMillis() > 0) {
                int k = s.applyThreads().stream().max(Integer::compare).orElse(1);
                int c = s.clients().stream().max(Integer::compare).orElse(1);
                SystemConfig cfg = config(engine, k, s.options());
                progress.accept("JVM warm-up " + engine + " (" + s.jvmWarmupMillis() / 1000.0 + " s, not measured)");
                try (Deployment d = Deployment.open(cfg, engine, s.workload(), s.seed(), -1)) {
                    MacroAdmin rs = d.macro().admin();
                    PointRunner.run(d, s.workload(), s.mix(), c, -1, new PointRunner.Settings(0, s.jvmWarmupMillis() / 2, true, s.seed()));
                    rs.pauseApplying(1, true);
                    try {
                        PointRunner.run(d, s.workload(), s.mix(), c, -1, new PointRunner.Settings(0, s.jvmWarmupMillis() / 2, true, s.seed()));
                    } finally {
                        rs.pauseApplying(1, false);
                    }
                    rs.awaitCaughtUp(s.catchUpTimeoutMillis());
                }
            }
            for (int k : s.applyThreads()) {
                SystemConfig cfg = config(engine, k, s.options());
                progress.accept("loading " + engine + " " + s.workload().name() + " " + cfg.macroOptions(-1));
                try (Deployment d = Deployment.open(cfg, engine, s.workload(), s.seed(), -1)) {
                    MacroConnection macro = d.macro();
                    MacroAdmin rs = macro.admin();
                    progress.accept("  capture: " + rs.captureStatus());
                    if (s.warmupMillis() > 0) {
                        int c = s.clients().stream().max(Integer::compare).orElse(1);
                        PointRunner.run(d, s.workload(), s.mix(), c, -1, new PointRunner.Settings(0, s.warmupMillis(), true, s.seed()));
                        if (!rs.awaitCaughtUp(s.catchUpTimeoutMillis())) throw new SQLException("the secondary did not catch up after the warm-up");
                    }
                    List<Window> ks = new ArrayList<>();
                    for (int rep = 0; rep < s.repetitions(); rep++) {
                        for (int c : s.clients()) {
                            Window w = window(d, rs, engine, cfg, k, c, rep, s);
                            ks.add(w);
                            progress.accept(line(w));
                        }
                    }
                    // every backlog applied: the secondary must hold what the primary holds
                    Deployment.Convergence conv = d.verify(s.catchUpTimeoutMillis());
                    progress.accept("  " + engine + " applyThreads=" + k + ": after the last window the replicas "
                            + (conv.equal() ? "are equal" : "DIFFER") + " (checksums " + conv.checksums() + ", "
                            + String.format(Locale.ROOT, "%.0f ms", conv.checksumMs()) + ")");
                    for (Window w : ks) out.add(w.withReplicasEqual(conv.equal()));
                }
            }
        }
        return out;
    }

    private static Window window(Deployment d, MacroAdmin rs, BenchEngine engine, SystemConfig cfg, int k, int clients, int rep, Settings s)
            throws SQLException {
        rs.pauseApplying(1, true);
        // pauseApplying returns once no group is in flight: from here the secondary holds this version
        long paused = secondary(rs).version();
        long[] held0 = d.engine().serverCpuNanosEach();
        RunResult r;
        try {
            r = PointRunner.run(d, s.workload(), s.mix(), clients, rep, new PointRunner.Settings(0, s.measureMillis(), true, s.seed() + rep));
        } catch (SQLException | RuntimeException e) {
            rs.pauseApplying(1, false);
            throw e;
        }
        long[] held1 = d.engine().serverCpuNanosEach();
        ReplicaStatus before = secondary(rs);
        long[] cpu0 = cpu(d);
        long t0 = System.nanoTime();
        rs.pauseApplying(1, false);
        boolean caught = rs.awaitCaughtUp(s.catchUpTimeoutMillis());
        long t1 = System.nanoTime();
        long[] cpu1 = cpu(d);
        // Records applied = versions the secondary advanced (one record per version), read from the
        // published version: the applier counts appliedRecords, groups and batches just after it
        // publishes, so a status read at once can miss the last group; wait (at most 1 s, outside
        // the timed window) until the counters have caught up with the version.
        ReplicaStatus after = secondary(rs);
        long records = after.version() - before.version();
        for (long end = System.nanoTime() + 1_000_000_000L; after.appliedRecords() - before.appliedRecords() < records
                && System.nanoTime() < end; after = secondary(rs)) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        double ms = (t1 - t0) / 1e6;
        long updates = r.completed() - r.readOnly() - r.specRollbacks();
        double cpuPrimaryNanos = Double.isNaN(r.cpuUsPerTx()) ? Double.NaN : r.cpuUsPerTx() * 1e3 * r.completed();
        double serversPrimaryNanos = Double.isNaN(r.serverCpuUsPerTx()) ? Double.NaN : r.serverCpuUsPerTx() * 1e3 * r.completed();
        double cpuApply = delta(cpu0, cpu1, 0), serversApply = delta(cpu0, cpu1, 1), secondaryApply = delta(cpu0, cpu1, 2);
        double heldSecondary = held0.length > 1 && held1.length > 1 && held0[1] >= 0 && held1[1] >= 0 ? (held1[1] - held0[1]) / 1e6 : Double.NaN;
        int cores = Runtime.getRuntime().availableProcessors();
        String capture = rs.captureStatus().split("[\\s:(]", 2)[0];
        return new Window(engine.toString(), cfg.label(), k, clients, rep, r.seconds(), r.completed(), updates, updates / r.seconds(), r.tps(),
                updates == 0 ? Double.NaN : cpuPrimaryNanos / 1e3 / updates, r.cpuPct(), r.aborts(), r.errors(), r.errorSamples(),
                before.lag(), records, after.applyGroups() - before.applyGroups(), after.parallelBatches() - before.parallelBatches(),
                after.parallelRedos() - before.parallelRedos(), ms, caught, records == 0 ? Double.NaN : records / (ms / 1e3),
                records == 0 ? Double.NaN : cpuApply / 1e3 / records, 100.0 * cpuApply / 1e6 / ms / cores,
                capture, before.version() - paused, heldSecondary, updates == 0 ? Double.NaN : serversPrimaryNanos / 1e3 / updates,
                records == 0 ? Double.NaN : serversApply / 1e3 / records, records == 0 ? Double.NaN : secondaryApply / 1e3 / records,
                false);
    }

    /**
     * The CPU time so far, read at once: {JVM + every server, every server, the secondary's server (server 1)} in
     * nanoseconds; -1 where it cannot be read, and -1 for the servers' parts where the engine runs none.
     */
    private static long[] cpu(Deployment d) {
        long jvm = PointRunner.processCpuNanos();
        long[] each = d.engine().serverCpuNanosEach();
        if (!d.engine().runsServers()) return new long[] {jvm, -1, -1};
        long servers = 0;
        for (long x : each) {
            if (x < 0) return new long[] {-1, -1, -1};
            servers += x;
        }
        return new long[] {jvm < 0 ? -1 : jvm + servers, servers, each.length > 1 ? each[1] : -1};
    }

    /** cpu1[i] - cpu0[i], NaN where either is unknown. */
    private static double delta(long[] cpu0, long[] cpu1, int i) {
        return cpu0[i] < 0 || cpu1[i] < 0 ? Double.NaN : cpu1[i] - cpu0[i];
    }

    private static ReplicaStatus secondary(MacroAdmin rs) throws SQLException {
        List<ReplicaStatus> all = rs.replicaStatus();
        return all.stream().filter(x -> x.index() == 1).findFirst()
                .orElseThrow(() -> new IllegalStateException("no secondary 1 in " + all));
    }

    static String line(Window w) {
        boolean servers = !Double.isNaN(w.applyServerCpuUsPerRecord()) || !Double.isNaN(w.primaryServerCpuUsPerUpdate());
        return String.format(Locale.ROOT, "  %s applyThreads=%d c=%d #%d: primary %,.0f commits/s %.0f us CPU/commit%s;"
                        + " backlog %,d records applied in %.0f ms = %,.0f records/s, %.1f us CPU/record%s, %d parallel batches, %d redos%s%s%s%s",
                w.engine(), w.applyThreads(), w.clients(), w.repetition(), w.primaryCommitsPerSec(), w.primaryCpuUsPerUpdate(),
                servers ? String.format(Locale.ROOT, " (servers %.0f)", w.primaryServerCpuUsPerUpdate()) : "",
                w.appliedRecords(), w.catchUpMs(), w.applyRecordsPerSec(), w.applyCpuUsPerRecord(),
                servers ? String.format(Locale.ROOT, " (servers %.1f, the secondary's %.1f)", w.applyServerCpuUsPerRecord(),
                        w.applySecondaryServerCpuUsPerRecord()) : "",
                w.parallelBatches(), w.parallelRedos(),
                Double.isNaN(w.pausedSecondaryServerCpuMs()) ? "" : String.format(Locale.ROOT, "; paused secondary's server %.0f ms CPU",
                        w.pausedSecondaryServerCpuMs()),
                w.pausedVersionsApplied() == 0 ? "" : " APPLIED " + w.pausedVersionsApplied() + " VERSIONS WHILE PAUSED",
                w.caughtUp() ? "" : " NOT CAUGHT UP", w.errors() > 0 ? " ERRORS " + w.errors() : "");
    }

    /**
     * Whether every window ran without unexpected errors, the secondary held still while paused and caught up, and the
     * replicas were equal after the last window of each applyThreads.
     */
    public static boolean passed(List<Window> ws) {
        return ws.stream().allMatch(w -> w.caughtUp() && w.errors() == 0 && w.pausedVersionsApplied() == 0 && w.replicasEqual());
    }

    private static double median(List<Double> xs) {
        double[] v = xs.stream().filter(x -> !Double.isNaN(x)).mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) return Double.NaN;
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /**
     * The tables, in Markdown: apply capacity per engine x applyThreads (median over every window
     * of that K, all client counts), the primary per engine x clients (median over every K and
     * repetition), and the ratio of the two.
     */
    public static String tables(List<Window> ws) {
        StringBuilder b = new StringBuilder();
        Map<String, Map<Integer, List<Window>>> byK = new TreeMap<>(), byC = new TreeMap<>();
        for (Window w : ws) {
            byK.computeIfAbsent(w.engine(), e -> new TreeMap<>()).computeIfAbsent(w.applyThreads(), x -> new ArrayList<>()).add(w);
            byC.computeIfAbsent(w.engine(), e -> new TreeMap<>()).computeIfAbsent(w.clients(), x -> new ArrayList<>()).add(w);
        }
        b.append("Apply capacity of one secondary (median over every backlog applied at that applyThreads):\n\n");
        b.append("| engine | applyThreads | apply records/s | CPU us/record | of it servers | of it secondary's server | CPU % of machine"
                + " | records/group | parallel batches/1k rec | redos/1k rec | backlogs |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        Map<String, Map<Integer, Double>> applyRate = new LinkedHashMap<>();
        byK.forEach((e, m) -> m.forEach((k, l) -> {
            double rate = median(l.stream().map(Window::applyRecordsPerSec).toList());
            applyRate.computeIfAbsent(e, x -> new TreeMap<>()).put(k, rate);
            long rec = l.stream().mapToLong(Window::appliedRecords).sum();
            long groups = l.stream().mapToLong(Window::applyGroups).sum();
            long pb = l.stream().mapToLong(Window::parallelBatches).sum(), pr = l.stream().mapToLong(Window::parallelRedos).sum();
            b.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %.1f | %s | %s | %.0f%% | %.1f | %.1f | %.1f | %d |%n", e, k, rate,
                    median(l.stream().map(Window::applyCpuUsPerRecord).toList()),
                    orDash(median(l.stream().map(Window::applyServerCpuUsPerRecord).toList()), "%.1f"),
                    orDash(median(l.stream().map(Window::applySecondaryServerCpuUsPerRecord).toList()), "%.1f"),
                    median(l.stream().map(Window::applyCpuPct).toList()),
                    groups == 0 ? Double.NaN : (double) rec / groups, rec == 0 ? Double.NaN : 1000.0 * pb / rec,
                    rec == 0 ? Double.NaN : 1000.0 * pr / rec, l.size()));
        }));
        b.append("\nThe primary producing the log (median over every applyThreads and repetition; the secondary paused):\n\n");
        b.append("| engine | clients | update commits/s | all tx/s | CPU us/update commit | of it servers | CPU % of machine | aborts | windows |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        Map<String, Map<Integer, Double>> primaryRate = new LinkedHashMap<>();
        byC.forEach((e, m) -> m.forEach((c, l) -> {
            double rate = median(l.stream().map(Window::primaryCommitsPerSec).toList());
            primaryRate.computeIfAbsent(e, x -> new TreeMap<>()).put(c, rate);
            b.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %.1f | %s | %.0f%% | %d | %d |%n", e, c, rate,
                    median(l.stream().map(Window::primaryTps).toList()), median(l.stream().map(Window::primaryCpuUsPerUpdate).toList()),
                    orDash(median(l.stream().map(Window::primaryServerCpuUsPerUpdate).toList()), "%.1f"),
                    median(l.stream().map(Window::primaryCpuPct).toList()), l.stream().mapToLong(Window::aborts).sum(), l.size()));
        }));
        b.append("\nApply capacity / primary commit rate (above 1: the secondary applies faster than the primary commits):\n\n");
        for (String e : applyRate.keySet()) {
            Map<Integer, Double> pr = primaryRate.getOrDefault(e, Map.of());
            b.append("| ").append(e).append(" applyThreads \\ clients |");
            pr.keySet().forEach(c -> b.append(' ').append(c).append(" |"));
            b.append("\n|---|").append("---:|".repeat(pr.size())).append('\n');
            applyRate.get(e).forEach((k, a) -> {
                b.append("| ").append(k).append(" |");
                pr.values().forEach(p -> b.append(String.format(Locale.ROOT, " %.2f |", a / p)));
                b.append('\n');
            });
            b.append('\n');
        }
        b.append(notes(ws));
        return b.toString();
    }

    private static String orDash(double x, String format) {
        return Double.isNaN(x) ? "-" : String.format(Locale.ROOT, format, x);
    }

    /** What the CPU figures count, which capture ran, and whether the secondary held still while paused. */
    static String notes(List<Window> ws) {
        StringBuilder b = new StringBuilder();
        Map<String, List<Window>> byEngine = new TreeMap<>();
        for (Window w : ws) byEngine.computeIfAbsent(w.engine(), e -> new ArrayList<>()).add(w);
        List<String> servers = byEngine.keySet().stream().filter(e -> BenchEngine.parse(e).runsServers()).toList();
        b.append("- CPU: the benchmark JVM's CPU time over the window (every thread: clients, MacroDB's appliers and capture, JIT, GC)");
        if (servers.isEmpty()) {
            b.append(".\n");
        } else {
            b.append("; on ").append(String.join(", ", servers)).append(" also every process of the servers the benchmark started"
                    + " (the primary's server and the secondary's, from /proc, in 10 ms ticks per process): \"of it servers\" is their"
                    + " part, \"of it secondary's server\" the secondary's alone; the JVM's part is the rest.\n");
        }
        b.append("- Capture:");
        byEngine.forEach((e, l) -> b.append(' ').append(e).append(' ')
                .append(String.join("/", l.stream().map(Window::capture).distinct().toList())).append(';'));
        b.setLength(b.length() - 1);
        b.append(".\n");
        long moved = ws.stream().filter(w -> w.pausedVersionsApplied() != 0).count();
        b.append(moved == 0
                ? "- Paused: in every window (" + ws.size() + ") the secondary was still at its version of the pause when the window ended"
                : "- Paused: in " + moved + " of " + ws.size() + " windows THE SECONDARY APPLIED while paused (pausedVersionsApplied)");
        for (String e : servers) {
            List<Window> l = byEngine.get(e);
            double held = median(l.stream().map(Window::pausedSecondaryServerCpuMs).toList());
            double heldMax = l.stream().mapToDouble(Window::pausedSecondaryServerCpuMs).filter(x -> !Double.isNaN(x)).max().orElse(Double.NaN);
            double applying = median(l.stream().map(w -> w.applySecondaryServerCpuUsPerRecord() * w.appliedRecords() / 1e3).toList());
            b.append(String.format(Locale.ROOT, "; %s: the secondary's server used %.0f ms CPU (median; max %.0f) over each paused window,"
                    + " clients' sessions coming and going included, and %.0f ms over each catch-up", e, held, heldMax, applying));
        }
        b.append(".\n");
        Map<String, Boolean> equal = new TreeMap<>();
        for (Window w : ws) equal.merge(w.engine() + " applyThreads=" + w.applyThreads(), w.replicasEqual(), Boolean::logicalAnd);
        List<String> differ = equal.entrySet().stream().filter(x -> !x.getValue()).map(Map.Entry::getKey).toList();
        b.append(differ.isEmpty()
                ? "- Converged: after the last window of every engine and applyThreads (" + equal.size() + ") the primary's and the"
                        + " secondary's checksums were equal.\n"
                : "- Converged: THE REPLICAS DIFFERED after the last window of " + String.join(", ", differ) + ".\n");
        return b.toString();
    }

    /** Writes {@code windows.csv}, {@code results.json} (environment, settings, windows) and {@code summary.md} to {@code dir}. */
    public static void write(Path dir, List<Window> ws, Environment env, Map<String, Object> settings) throws IOException {
        Files.createDirectories(dir);
        StringBuilder csv = new StringBuilder("engine,config,applyThreads,clients,repetition,primarySeconds,completed,updateCommits,"
                + "primaryCommitsPerSec,primaryTps,primaryCpuUsPerUpdate,primaryCpuPct,aborts,errors,backlogVersions,appliedRecords,"
                + "applyGroups,parallelBatches,parallelRedos,catchUpMs,caughtUp,applyRecordsPerSec,applyCpuUsPerRecord,applyCpuPct,"
                + "capture,pausedVersionsApplied,pausedSecondaryServerCpuMs,primaryServerCpuUsPerUpdate,applyServerCpuUsPerRecord,"
                + "applySecondaryServerCpuUsPerRecord,replicasEqual\n");
        for (Window w : ws) {
            csv.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%.3f,%d,%d,%.1f,%.1f,%.2f,%.1f,%d,%d,%d,%d,%d,%d,%d,%.1f,%b,%.1f,%.2f,%.1f,"
                            + "%s,%d,%.1f,%.2f,%.2f,%.2f,%b%n",
                    w.engine(), w.config(), w.applyThreads(), w.clients(), w.repetition(), w.primarySeconds(), w.completed(), w.updateCommits(),
                    w.primaryCommitsPerSec(), w.primaryTps(), w.primaryCpuUsPerUpdate(), w.primaryCpuPct(), w.aborts(), w.errors(),
                    w.backlogVersions(), w.appliedRecords(), w.applyGroups(), w.parallelBatches(), w.parallelRedos(), w.catchUpMs(),
                    w.caughtUp(), w.applyRecordsPerSec(), w.applyCpuUsPerRecord(), w.applyCpuPct(), w.capture(), w.pausedVersionsApplied(),
                    w.pausedSecondaryServerCpuMs(), w.primaryServerCpuUsPerUpdate(), w.applyServerCpuUsPerRecord(),
                    w.applySecondaryServerCpuUsPerRecord(), w.replicasEqual()));
        }
        Files.writeString(dir.resolve("windows.csv"), csv);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("environment", env);
        json.put("settings", settings);
        json.put("windows", ws);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("results.json").toFile(), json);
        Files.writeString(dir.resolve("summary.md"), "`" + env.command() + "`\n\n" + tables(ws));
    }
}
