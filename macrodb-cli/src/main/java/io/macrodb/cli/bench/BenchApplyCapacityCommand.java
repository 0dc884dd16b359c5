package io.macrodb.cli.bench;

import io.macrodb.bench.ApplyCapacity;
import io.macrodb.bench.BenchEngine;
import io.macrodb.bench.BuildCommit;
import io.macrodb.bench.Environment;
import io.macrodb.bench.Mix;
import io.macrodb.bench.tpcc.Tpcc;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code macrodb bench apply-capacity}: how many log records per second one secondary applies
 * (at applyThreads = K) against how many update transactions per second the primary commits (at C
 * clients), and the CPU time of each. See {@link ApplyCapacity} and benchmarks/README.md.
 */
@Command(name = "apply-capacity", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Measures whether a secondary keeps up: MacroDB with 2 replicas runs TPC-C with the secondary's applier paused"
                        + " (the primary's update commits/s and CPU per update commit, C clients, -d seconds), then the applier"
                        + " resumes with no other load and the catch-up is timed (records/s and CPU per applied record at"
                        + " applyThreads=K). Every engine x K gets one freshly loaded database, warmed up, then one backlog per"
                        + " client count and repetition. CPU: the JVM's, and on postgresql also its servers'. See benchmarks/README.md.",
                ""},
        footer = {"", "Exit status: 0 every window ran without errors, the secondary held still while paused and caught up after it,"
                + " and the replicas' checksums were equal after the last window of each K; 1 otherwise; 2 invalid usage."})
public final class BenchApplyCapacityCommand implements Callable<Integer> {
    @Spec private CommandSpec spec;

    @Option(names = {"-e", "--engine"}, split = ",", paramLabel = "ENGINE", defaultValue = "h2,hsqldb",
            description = "h2, hsqldb, sqlite, derby, postgresql or several (default: ${DEFAULT-VALUE}). derby: applied with"
                    + " one thread per secondary only: -t 1. postgresql: the benchmark starts two servers of its own from"
                    + " Debian's packages (/usr/lib/postgresql/*/bin) on free loopback ports, the primary's and the secondary's,"
                    + " and stops them at the end; the driver's default capture=decoding unless --options says capture=triggers;"
                    + " the CPU figures count every process of those servers too, and say which part is theirs.")
    private List<String> engines;

    @Option(names = {"-m", "--mix"}, paramLabel = "MIX", defaultValue = "8-92",
            description = "TPC-C mix (default: ${DEFAULT-VALUE}, the update-heavy standard mix).")
    private String mix;

    @Option(names = {"-t", "--apply-threads"}, split = ",", paramLabel = "K", defaultValue = "1,2,4",
            description = "The secondary's applyThreads values (default: ${DEFAULT-VALUE}).")
    private List<Integer> applyThreads;

    @Option(names = {"-c", "--clients"}, split = ",", paramLabel = "N", defaultValue = "1,2,4,8",
            description = "Client threads on the primary while the backlog is recorded (default: ${DEFAULT-VALUE}).")
    private List<Integer> clients;

    @Option(names = "--jvm-warmup", paramLabel = "SECONDS", defaultValue = "10",
            description = "Per engine, before the first measured load: a throw-away load at the largest K and client count, half"
                    + " applying and half paused, then caught up, so that the first K measured does not pay for the JIT (default: ${DEFAULT-VALUE}).")
    private double jvmWarmup;

    @Option(names = "--warmup", paramLabel = "SECONDS", defaultValue = "3",
            description = "Warm-up after each load, the secondary applying, at the largest client count (default: ${DEFAULT-VALUE}).")
    private double warmup;

    @Option(names = {"-d", "--duration"}, paramLabel = "SECONDS", defaultValue = "5",
            description = "Window in which the backlog is recorded (default: ${DEFAULT-VALUE}).")
    private double duration;

    @Option(names = "--repetitions", paramLabel = "N", defaultValue = "1", description = "Windows per client count (default: ${DEFAULT-VALUE}).")
    private int repetitions;

    @Option(names = "--warehouses", paramLabel = "W", defaultValue = "2", description = "TPC-C warehouses (default: ${DEFAULT-VALUE}).")
    private int warehouses;

    @Option(names = "--scale", paramLabel = "F", defaultValue = "0.1", description = "TPC-C data scale (default: ${DEFAULT-VALUE}).")
    private double scale;

    @Option(names = "--options", paramLabel = "NAME=VALUE&...",
            description = "More MacroDB URL options (e.g. applyGroup=64, or capture=triggers on postgresql). Always set: replicas=2,"
                    + " applyThreads=K, readWait=0 (the"
                    + " read-only transactions run on the primary instead of waiting for the paused secondary); HSQLDB also"
                    + " admission=off unless given here.")
    private String options;

    @Option(names = "--seed", defaultValue = "20130826", description = "Seed of the data and of the clients (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = {"-o", "--out"}, paramLabel = "DIR",
            description = "Folder for windows.csv, results.json and summary.md (default: bench-results/apply-capacity-<date-time>).")
    private Path out;

    @Override public Integer call() throws Exception {
        ApplyCapacity.Settings s;
        Tpcc w;
        try {
            if (!(scale > 0 && scale <= 1)) throw new IllegalArgumentException("--scale must be in (0, 1]");
            w = new Tpcc(warehouses, scale);
            Mix m = w.mix(mix.replace(';', ','));
            s = new ApplyCapacity.Settings(engines.stream().map(BenchEngine::parse).distinct().toList(), w, m, applyThreads, clients,
                    Math.round(jvmWarmup * 1000), Math.round(warmup * 1000), Math.round(duration * 1000), repetitions, options, seed, 300_000);
            if (s.options().contains("replicas=")) throw new IllegalArgumentException("--options: the replicas are always 2");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        Path dir = out != null ? out : Path.of("bench-results",
                "apply-capacity-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        try {
            BenchCommand.checkOutputDir(dir);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        PrintWriter o = spec.commandLine().getOut();
        String command = "macrodb " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        o.println(command);
        o.println(BenchCommand.builds(io.macrodb.jdbc.MacroDriver.VERSION, BuildCommit.of(io.macrodb.jdbc.MacroDriver.class),
                BuildCommit.of(ApplyCapacity.class)));
        o.flush();
        for (BenchEngine e : s.engines()) if (e.describe() != null) o.println(e.describe());
        List<ApplyCapacity.Window> ws;
        try {
            ws = ApplyCapacity.run(s, line -> {
                o.println(line);
                o.flush();
            });
        } finally {
            for (BenchEngine e : s.engines()) e.release();
        }
        String tables = ApplyCapacity.tables(ws);
        o.println();
        o.print(tables);
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("engines", s.engines().stream().map(Object::toString).toList());
        settings.put("workload", "tpcc");
        settings.put("mix", s.mix().name());
        settings.put("applyThreads", applyThreads);
        settings.put("clients", clients);
        settings.put("jvmWarmupSeconds", jvmWarmup);
        settings.put("warmupSeconds", warmup);
        settings.put("measureSeconds", duration);
        settings.put("repetitions", repetitions);
        settings.put("warehouses", warehouses);
        settings.put("scale", scale);
        settings.put("options", s.options());
        settings.put("seed", seed);
        settings.put("urlOptions", s.engines().stream().flatMap(e -> applyThreads.stream()
                .map(k -> e + ": " + ApplyCapacity.config(e, k, s.options()).macroOptions(-1))).toList());
        ApplyCapacity.write(dir, ws, Environment.capture(command), settings);
        o.println("Wrote " + dir.resolve("windows.csv") + ", results.json and summary.md.");
        boolean ok = ApplyCapacity.passed(ws);
        if (!ok) o.println("Some window had errors, applied while paused or did not catch up, or the replicas differed: see windows.csv.");
        o.flush();
        return ok ? 0 : 1;
    }
}
