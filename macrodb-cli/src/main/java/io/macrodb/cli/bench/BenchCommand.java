package io.macrodb.cli.bench;

import io.macrodb.bench.BenchEngine;
import io.macrodb.bench.BenchListener;
import io.macrodb.bench.PartialResults;
import io.macrodb.bench.BenchPlan;
import io.macrodb.bench.BenchResults;
import io.macrodb.bench.Benchmark;
import io.macrodb.bench.BuildCommit;
import io.macrodb.bench.ConsoleProgress;
import io.macrodb.bench.Environment;
import io.macrodb.bench.Mix;
import io.macrodb.bench.ResultsWriter;
import io.macrodb.bench.RunResult;
import io.macrodb.bench.SystemConfig;
import io.macrodb.bench.Workload;
import io.macrodb.bench.micro.Micro;
import io.macrodb.bench.tpcc.Tpcc;
import io.macrodb.bench.tpcw.TpcwLike;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code macrodb bench}: TPC-C, a TPC-W-like mix and a micro workload, run side by side on the
 * standalone engine, MacroDB with 1..N replicas and N independent engines; prints the summary
 * tables and writes CSV, JSON and charts.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false, subcommands = {BenchReportCommand.class, BenchApplyCapacityCommand.class},
        description = {
                "Measures MacroDB against the plain engine and against N independent engines, side by side in one run.",
                "",
                "Every engine x workload x mix x configuration x client count is run (warm-up, then a measured window,"
                        + " repeated); each configuration gets freshly loaded databases for each mix, and the configurations take"
                        + " turns point by point (see --sequential). At the end a table shows"
                        + " throughput, latency, aborts, read-only routing and the ratios to the standalone engine and to the"
                        + " independent-engines aggregate, at equal client counts and peak to peak; CSV, JSON and PNG charts go"
                        + " to --out. See benchmarks/README.md.",
                ""},
        footer = {"", "Configurations: standalone | macrodb:N[:balancer[:consistency]][:option=value]... (any MacroDB URL option,"
                + " e.g. macrodb:2:admission=off) | independent:N (N plain databases,"
                + " client i on database i mod N, throughput summed: the upper bound of the thesis, section 3.1.3).",
                "Mixes: tpcc 8-92 (standard), 50-50, 80-20, 100-0, any R-U, or Type=weight,...; tpcw browsing, shopping,"
                        + " ordering; micro R-U. Prefix with the workload to aim it at one: tpcc/80-20.",
                "", "'macrodb bench report DIR' draws the tables and charts of a finished run again from DIR/results.json.",
                "", "Exit status: 0 every check passed (no unexpected errors, MacroDB's replicas converged), 1 a check failed"
                + " or an error stopped the run, 2 invalid usage."})
public final class BenchCommand implements Callable<Integer> {
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    @Spec private CommandSpec spec;

    private final ResultsWriter.ChartWriter chartWriter;

    public BenchCommand() { this(ResultsWriter.XCHART); }

    /** With another chart writer: tests make it fail as AWT does on a machine without fonts. */
    BenchCommand(ResultsWriter.ChartWriter chartWriter) { this.chartWriter = chartWriter; }

    @Option(names = {"-w", "--workload"}, split = ",", paramLabel = "NAME", defaultValue = "tpcc",
            description = "Workloads: tpcc, tpcw, micro, all (default: ${DEFAULT-VALUE}).")
    private List<String> workloads;

    @Option(names = {"-m", "--mix"}, split = ",", paramLabel = "MIX",
            description = "Mixes to run (default: each workload's own: tpcc 8-92,50-50,80-20,100-0; tpcw browsing,shopping,ordering;"
                    + " micro 50-50,90-10,100-0). Custom weights: --mix 'tpcc/NewOrder=10;Payment=10;OrderStatus=80'.")
    private List<String> mixes = new ArrayList<>();

    @Option(names = {"-e", "--engine"}, split = ",", paramLabel = "ENGINE", defaultValue = "h2",
            description = "Engines: h2, hsqldb, sqlite, derby in memory, postgresql (default: ${DEFAULT-VALUE}). derby: Apache Derby"
                    + " embedded. postgresql: the benchmark starts its own servers from Debian's packages"
                    + " (/usr/lib/postgresql/*/bin) on free loopback ports, one per replica or independent engine, and stops"
                    + " them at the end.")
    private List<String> engines;

    @Option(names = {"-C", "--configs"}, split = ",", paramLabel = "CONFIG",
            description = "Configurations (default: standalone, macrodb:1, macrodb:2, macrodb:R, independent:R with R = --replicas).")
    private List<String> configs = new ArrayList<>();

    @Option(names = {"-r", "--replicas"}, paramLabel = "N",
            description = "R of the default configurations (default: half the cores, at least 2, at most 8: MacroDB's own default).")
    private Integer replicas;

    @Option(names = "--balancer", paramLabel = "NAME", defaultValue = "leastActive",
            description = "Balancer of MacroDB configurations that name none: leastActive, freshest, roundRobin (default: ${DEFAULT-VALUE}).")
    private String balancer;

    @Option(names = "--consistency", paramLabel = "LEVEL", defaultValue = "strict",
            description = "Consistency of MacroDB configurations that name none: strict, session, bounded:N, bounded:Nms (default: ${DEFAULT-VALUE}).")
    private String consistency;

    @Option(names = "--read-wait", paramLabel = "MS", description = "MacroDB's readWait option (default: the driver's).")
    private Long readWait;

    @Option(names = {"-c", "--clients"}, split = ",", paramLabel = "N",
            description = "Client counts (default: 1, 2, 4, ... up to 2 x cores, and 2 x cores).")
    private List<Integer> clients = new ArrayList<>();

    @Option(names = "--warmup", paramLabel = "SECONDS", defaultValue = "5", description = "Warm-up of each run, not measured (default: ${DEFAULT-VALUE}).")
    private double warmup;

    @Option(names = {"-d", "--duration"}, paramLabel = "SECONDS", defaultValue = "20", description = "Measured window of each run (default: ${DEFAULT-VALUE}).")
    private double duration;

    @Option(names = "--jvm-warmup", paramLabel = "SECONDS", defaultValue = "10",
            description = "Before measuring, run each workload on each kind of configuration this long in all, unmeasured, so that"
                    + " the configuration measured first does not pay for the JIT (default: ${DEFAULT-VALUE}; 0: none).")
    private double jvmWarmup;

    @Option(names = "--repetitions", paramLabel = "N", defaultValue = "3", description = "Runs of each point; the median is reported (default: ${DEFAULT-VALUE}).")
    private int repetitions;

    @Option(names = "--sequential",
            description = "Run one configuration at a time (load it, run all its points, close it) instead of the default: load every"
                    + " configuration of a mix, then run each point on each configuration in turn (A1 B1 C1, B2 C2 A2, ...), so that a"
                    + " machine whose speed drifts over minutes slows all configurations alike. Sequential holds only one"
                    + " configuration's databases in memory: for large --scale or --warehouses on a small machine.")
    private boolean sequential;

    @Option(names = "--undeclared", description = "Run read-only transactions without setReadOnly(true), as many real clients do"
            + " (MacroDB starts them on a secondary and moves them to the primary only if they write).")
    private boolean undeclared;

    @Option(names = "--warehouses", paramLabel = "W", defaultValue = "1", description = "TPC-C warehouses (default: ${DEFAULT-VALUE}).")
    private int warehouses;

    @Option(names = "--scale", paramLabel = "F", defaultValue = "1",
            description = "Shrinks the data for quick runs (NOT the specification's sizes when < 1): TPC-C items, customers and orders"
                    + " x F; TPC-W-like 10,000 x F items, 28,800 x F customers; micro 100,000 x F rows (default: ${DEFAULT-VALUE}).")
    private double scale;

    @Option(names = "--seed", defaultValue = "20130826", description = "Seed of the data and of the clients (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = {"-o", "--out"}, paramLabel = "DIR",
            description = "Folder for results.json, *.csv, summary.md/txt and the charts (default: bench-results/<date-time>);"
                    + " created and checked for writing before anything runs.")
    private Path out;

    @Option(names = "--no-progress", description = "No progress bar (for logs and CI): a line per run on stdout instead. Also"
            + " the case, without this option, when stderr is not a terminal.")
    private boolean noProgress;

    @Option(names = "--no-verify", description = "Skip the convergence check of MacroDB's replicas after each mix's runs.")
    private boolean noVerify;

    @Override public Integer call() throws Exception {
        BenchPlan plan = plan();
        PrintWriter o = spec.commandLine().getOut();
        Path dir = out != null ? out : Path.of("bench-results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        try {
            checkOutputDir(dir);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        String command = "macrodb " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        o.printf(Locale.ROOT, "%s%n%d runs of %.0f s (+ loading), configurations %s, = about %.1f min on %d cores; results in %s%n",
                command, plan.runs(), (plan.warmupMillis() + plan.measureMillis()) / 1000.0, plan.order().label(),
                plan.runMillis() / 60_000.0, CORES, dir);
        o.println(builds(io.macrodb.jdbc.MacroDriver.VERSION, BuildCommit.of(io.macrodb.jdbc.MacroDriver.class), BuildCommit.of(Benchmark.class)));
        for (BenchEngine e : plan.engines()) if (e.describe() != null) o.println(e.describe());
        o.flush();
        BenchListener lines = new BenchListener() {
            @Override public void runFinished(RunResult r) {
                String catchUp = Double.isNaN(r.catchUpMs()) ? "" : r.caughtUp()
                        ? String.format(Locale.ROOT, ", secondaries caught up in %.1f ms", r.catchUpMs())
                        : String.format(Locale.ROOT, ", secondaries NOT caught up in %.0f ms", r.catchUpMs());
                o.printf(Locale.ROOT, "  %s %s %s %s c=%d #%d: %,.0f tx/s p99 %.2f ms%s%s%n", r.engine(), r.workload(), r.mix(),
                        r.config(), r.clients(), r.repetition(), r.tps(), r.p99Ms(), catchUp, r.errors() > 0 ? " ERRORS " + r.errors() : "");
                o.flush();
            }
        };
        BenchListener listener = noProgress ? lines : ConsoleProgress.onStderr(lines);
        if (listener == lines && !noProgress) {
            o.println("(stderr is not a terminal: no progress bar, a line per run instead)");
            o.flush();
        }
        Map<String, Object> planJson = new LinkedHashMap<>();
        planJson.put("engines", plan.engines().stream().map(Object::toString).toList());
        planJson.put("workloads", plan.workloads().stream().map(w -> Map.of("workload", w.workload().toString(),
                "mixes", w.mixes().stream().map(Mix::name).toList())).toList());
        planJson.put("configs", plan.configs().stream().map(SystemConfig::label).toList());
        planJson.put("clients", plan.clients());
        planJson.put("warmupSeconds", warmup);
        planJson.put("measureSeconds", duration);
        planJson.put("repetitions", repetitions);
        planJson.put("order", plan.order().label());
        planJson.put("jvmWarmupSeconds", jvmWarmup);
        planJson.put("readOnlyDeclared", !undeclared);
        planJson.put("readWaitMillis", readWait == null ? "driver default" : readWait);
        planJson.put("warehouses", warehouses);
        planJson.put("scale", scale);
        planJson.put("seed", seed);
        // results so far written after every run and check, and by a shutdown hook if the run is stopped (a time limit's SIGTERM)
        PartialResults partial = PartialResults.install(dir, Environment.capture(command), planJson, System.err);
        BenchListener endNotes = new BenchListener() {
            @Override public void note(String message) {
                if (!message.startsWith("end: ")) return;
                o.println("  " + message);
                o.flush();
            }
        };
        BenchResults res;
        long lastRunEnded;
        try {
            res = Benchmark.run(plan, BenchListener.all(listener, partial, endNotes));
            lastRunEnded = System.nanoTime();
        } finally {
            // PostgreSQL's servers are stopped now (a shutdown hook would, at the latest)
            for (BenchEngine e : plan.engines()) e.release();
        }
        String text = BenchSummary.text(res);
        o.print(text);
        long writing = System.nanoTime();
        ResultsWriter.Written written = partial.complete(() -> {
            ResultsWriter.Written w = ResultsWriter.write(dir, res, Environment.capture(command), planJson, chartWriter);
            Files.writeString(dir.resolve("summary.txt"), BenchSummary.summaryTxt(command, text));
            return w;
        });
        o.printf(Locale.ROOT, "  end: results and charts written in %.1f s (%.1f s after the end of the benchmark)%n",
                (System.nanoTime() - writing) / 1e9, (System.nanoTime() - lastRunEnded) / 1e9);
        int charts = written.charts().size();
        o.println("Wrote " + dir.resolve("results.json") + ", runs.csv, points.csv, peaks.csv, summary.md, summary.txt and "
                + charts + " chart" + (charts == 1 ? "" : "s") + ".");
        o.flush();
        if (written.chartsFailed()) {
            // the results are complete: missing charts do not fail the run (its exit status is its checks')
            PrintWriter err = spec.commandLine().getErr();
            err.println(BenchSummary.chartWarning(dir, written.chartFailure()));
            err.flush();
        }
        return res.passed() ? 0 : 1;
    }

    /** One line: which driver and benchmark builds run (or ran), by the commits their builds recorded. */
    static String builds(String driverVersion, BuildCommit driver, BuildCommit bench) {
        return "driver " + driverVersion + " built from commit " + driver.commit() + ", benchmark built from commit " + bench.commit();
    }

    /**
     * Makes sure the results can be written before an hour of benchmarking: creates {@code dir}
     * (and its parents) and writes and deletes a probe file in it.
     *
     * @throws IllegalArgumentException saying what is in the way: a file where a folder is needed,
     *         a folder that cannot be written, a path that cannot be created
     */
    static void checkOutputDir(Path dir) {
        String what = "--out " + dir + ": ";
        Path abs = dir.toAbsolutePath().normalize();
        for (Path p = abs; p != null; p = p.getParent()) {
            if (Files.exists(p) && !Files.isDirectory(p)) {
                throw new IllegalArgumentException(what + (p.equals(abs) ? "exists and is a file, not a folder"
                        : p + " is a file, so no folder can be created under it"));
            }
            if (Files.isDirectory(p)) break;
        }
        try {
            Files.createDirectories(abs);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + "cannot create the folder (" + describe(e) + ")", e);
        }
        try {
            Files.delete(Files.createTempFile(abs, ".macrodb-write-check-", ".tmp"));
        } catch (IOException e) {
            throw new IllegalArgumentException(what + "cannot write in the folder (" + describe(e) + ")", e);
        }
    }

    private static String describe(IOException e) {
        String kind = e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                : e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null ? fs.getReason() : e.getClass().getSimpleName();
        return kind + (e instanceof java.nio.file.FileSystemException fs && fs.getFile() != null ? ": " + fs.getFile() : ": " + e.getMessage());
    }

    /** Checks the options and turns them into a plan; bad values are usage errors (exit 2). */
    BenchPlan plan() {
        try {
            List<BenchEngine> es = engines.stream().map(BenchEngine::parse).distinct().toList();
            for (BenchEngine e : es) {
                // PostgreSQL's servers: refused here, before anything runs, not as a stack trace from the first load
                if (e.unavailableReason() != null) throw new IllegalArgumentException("-e " + e + ": " + e.unavailableReason());
            }
            if (!(scale > 0 && scale <= 1)) throw new IllegalArgumentException("--scale must be in (0, 1]");
            List<Workload> ws = new ArrayList<>();
            for (String w : workloads) {
                switch (w.trim().toLowerCase(Locale.ROOT)) {
                    case "tpcc", "tpc-c" -> ws.add(new Tpcc(warehouses, scale));
                    case "tpcw", "tpc-w" -> ws.add(new TpcwLike(scale));
                    case "micro" -> ws.add(new Micro(Math.max(1000, (int) Math.round(100_000 * scale))));
                    case "all" -> {
                        ws.add(new Tpcc(warehouses, scale));
                        ws.add(new TpcwLike(scale));
                        ws.add(new Micro(Math.max(1000, (int) Math.round(100_000 * scale))));
                    }
                    default -> throw new IllegalArgumentException("--workload " + w + " is not one of tpcc, tpcw, micro, all");
                }
            }
            List<BenchPlan.WorkloadMixes> wm = new ArrayList<>();
            // an unprefixed mix that no workload takes is an error (the first workload's reason), not silently dropped
            Map<String, IllegalArgumentException> refused = new LinkedHashMap<>();
            java.util.Set<String> taken = new java.util.HashSet<>();
            for (Workload w : ws) {
                List<Mix> ms = new ArrayList<>();
                for (String m : mixes) {
                    int slash = m.indexOf('/');
                    if (slash > 0) {
                        if (m.substring(0, slash).equalsIgnoreCase(w.name())) ms.add(w.mix(m.substring(slash + 1).replace(';', ',')));
                        continue;
                    }
                    try {
                        ms.add(w.mix(m.replace(';', ',')));
                        taken.add(m);
                    } catch (IllegalArgumentException e) {
                        if (ws.size() == 1) throw e; // with several workloads, a named mix belongs to the one that knows it
                        refused.putIfAbsent(m, e);
                    }
                }
                if (ms.isEmpty()) w.defaultMixes().forEach(m -> ms.add(w.mix(m)));
                wm.add(new BenchPlan.WorkloadMixes(w, ms));
            }
            for (var e : refused.entrySet()) {
                if (!taken.contains(e.getKey())) throw new IllegalArgumentException("no workload takes --mix " + e.getKey() + ": "
                        + e.getValue().getMessage(), e.getValue());
            }
            int r = replicas != null ? replicas : Math.max(2, Math.min(8, CORES / 2));
            List<String> cs = !configs.isEmpty() ? configs : defaultConfigs(r);
            List<SystemConfig> sc = cs.stream().map(c -> SystemConfig.parse(c, balancer, consistency)).distinct().toList();
            List<Integer> cl = !clients.isEmpty() ? clients : defaultClients();
            return new BenchPlan(es, wm, sc, cl, Math.round(warmup * 1000), Math.round(duration * 1000), repetitions, !undeclared,
                    readWait == null ? -1 : readWait, seed, !noVerify, Math.round(jvmWarmup * 1000),
                    sequential ? BenchPlan.Order.SEQUENTIAL : BenchPlan.Order.INTERLEAVED);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    static List<String> defaultConfigs(int r) {
        List<String> cs = new ArrayList<>(List.of("standalone", "macrodb:1", "macrodb:2"));
        if (r > 2) cs.add("macrodb:" + r);
        cs.add("independent:" + r);
        return cs;
    }

    static List<Integer> defaultClients() {
        List<Integer> cl = new ArrayList<>();
        for (int c = 1; c < 2 * CORES; c *= 2) cl.add(c);
        cl.add(2 * CORES);
        return cl;
    }
}
