package io.macrodb.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The two summary tables as rows of cells, for the terminal (the CLI's TextTable) and for
 * Markdown: every point with its ratios at equal client counts, and peak-to-peak ratios.
 */
public final class Report {
    private Report() {}

    public static final List<String> POINT_HEADER = List.of("engine", "workload", "mix", "config", "clients", "tx/s", "spread",
            "CPU us/tx", "CPU x sa", "p50 ms", "p99 ms", "aborts", "RO on sec", "RO sec p50", "RO pri p50", "RO waited", "RO wait ms", "lag", "catch-up ms", "x standalone", "x independent");

    public static final List<String> PEAK_HEADER = List.of("engine", "workload", "mix", "config", "peak tx/s", "at clients",
            "x standalone peak", "x independent peak", "independent ref");

    public static List<List<String>> pointRows(BenchResults r) {
        List<List<String>> rows = new ArrayList<>();
        for (PointSummary p : r.points()) {
            boolean macro = p.config().startsWith("macrodb");
            rows.add(List.of(p.engine(), p.workload(), p.mix(), p.config(), String.valueOf(p.clients()), num(p.tpsMedian()),
                    p.repetitions() > 1 ? pct(p.spreadPct()) : ONE_REPETITION, Double.isNaN(p.cpuUsPerTx()) ? "-" : dec(p.cpuUsPerTx(), 1),
                    ratio(p.cpuVsStandalone()),
                    dec(p.p50Ms(), 3), dec(p.p99Ms(), 3), aborts(p),
                    macro && !Double.isNaN(p.roOnSecondaryPct()) ? pct(p.roOnSecondaryPct()) : "-",
                    macro && p.roOnSecondaryPct() > 0 ? dec(p.roSecondaryP50Ms(), 3) : "-",
                    macro && p.roOnSecondaryPct() < 100 ? dec(p.roPrimaryP50Ms(), 3) : "-",
                    macro && !Double.isNaN(p.roWaitedPct()) ? pct(p.roWaitedPct()) : "-",
                    macro && !Double.isNaN(p.roWaitedPct()) ? dec(p.roWaitMeanMs(), 3) : "-",
                    macro ? dec(p.lagMeanVersions(), 1) + "/" + p.lagMaxVersions() : "-",
                    Double.isNaN(p.catchUpMaxMs()) ? "-" : dec(p.catchUpMedianMs(), 1) + "/" + dec(p.catchUpMaxMs(), 1)
                            + (p.notCaughtUp() > 0 ? " NOT " + p.notCaughtUp() + "x" : ""),
                    ratio(p.vsStandalone()), ratio(p.vsIndependent())));
        }
        return rows;
    }

    /** The spread cell of a point measured once: there is no spread to show, and a 0% would be a fake one. */
    public static final String ONE_REPETITION = "1 rep";

    /**
     * Notes that depend on the results, printed under the tables: a point measured once has no
     * spread, so its tx/s and every ratio built on it come with no idea of their uncertainty.
     */
    public static List<String> notes(BenchResults r) {
        List<String> notes = new ArrayList<>();
        for (PointSummary p : r.points()) {
            if (p.notCaughtUp() > 0) notes.add("secondaries of " + p.engine() + " " + p.workload() + " " + p.mix() + " " + p.config()
                    + " c=" + p.clients() + " did not catch up within " + Benchmark.CATCH_UP_MILLIS / 1000 + " s after "
                    + p.notCaughtUp() + " of " + p.repetitions() + " repetitions.");
        }
        long once = r.points().stream().filter(p -> p.repetitions() < 2).count();
        if (once == 0) return notes;
        notes.add((once == r.points().size() ? "1 repetition: no spread (every point ran once"
                : once + " of " + r.points().size() + " points have 1 repetition: no spread (\"" + ONE_REPETITION + "\"")
                + "; --repetitions 3 or more shows how much the numbers move from run to run).");
        return notes;
    }

    public static List<List<String>> peakRows(BenchResults r) {
        List<List<String>> rows = new ArrayList<>();
        for (PeakSummary p : r.peaks()) {
            rows.add(List.of(p.engine(), p.workload(), p.mix(), p.config(), num(p.peakTps()), String.valueOf(p.peakClients()),
                    ratio(p.vsStandalone()), ratio(p.vsIndependent()), p.independentRef() == null ? "-" : p.independentRef()));
        }
        return rows;
    }

    /** What the columns mean, printed under the tables. */
    public static final List<String> LEGEND = List.of(
            "tx/s: median over repetitions of completed transactions per second (TPC-C's intended NewOrder rollbacks count);",
            "spread: (max-min)/median over repetitions; CPU us/tx: CPU time of the whole JVM (clients, MacroDB's threads,",
            "JIT, GC; on postgresql also every process of the servers the benchmark started) per transaction, median over",
            "repetitions, steadier than tx/s on a shared machine; CPU x sa: that over",
            "the standalone engine's at the same client count (MacroDB-1's is its overhead per transaction);",
            "p50/p99: median over repetitions of whole-transaction latency;",
            "aborts: share of transactions that failed with a retryable error, by cause; RO on sec: share of read-only",
            "transactions MacroDB ran on a secondary; RO sec/pri p50: their median latency on a secondary (any wait for the",
            "secondary to catch up included) and on the primary; RO waited: share of read-only transactions that waited,",
            "when they began, for a secondary to catch up (those that then ran on the primary included); RO wait ms: the mean",
            "wait over all read-only transactions; lag: mean/max versions a secondary was behind (sampled);",
            "catch-up ms: median/max over repetitions of the time MacroDB's secondaries took, after the run, to apply what",
            "it committed (waited for before anything else runs, at most " + Benchmark.CATCH_UP_MILLIS / 1000 + " s; NOT: did not in time);",
            "x standalone / x independent: this configuration's throughput over the standalone engine's and over the",
            "aggregate of N independent engines (independent ref), at the same client count, or each at its best client count (peak).");

    public static String markdown(List<String> header, List<List<String>> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| ").append(String.join(" | ", header)).append(" |\n|");
        for (String h : header) sb.append(isNumeric(h, rows, header.indexOf(h)) ? "---:|" : "---|");
        sb.append('\n');
        for (List<String> r : rows) sb.append("| ").append(String.join(" | ", r).replace("|", "\\|").replace(" \\| ", " | ")).append(" |\n");
        return sb.toString();
    }

    private static boolean isNumeric(String h, List<List<String>> rows, int col) {
        return !rows.isEmpty() && rows.stream().allMatch(r -> r.get(col).matches("-|[-+]?[0-9][0-9,]*(\\.[0-9]+)?[%x]?"));
    }

    private static String aborts(PointSummary p) {
        if (p.abortCauses().isEmpty()) return p.errors() > 0 ? "errors: " + p.errors() : "0";
        String causes = p.abortCauses().entrySet().stream().map(Map.Entry::getKey).map(k -> k.replaceAll(" \\(.*", ""))
                .collect(Collectors.joining("+"));
        return pct(p.abortPct()) + " " + causes + (p.errors() > 0 ? ", errors: " + p.errors() : "");
    }

    static String num(double v) {
        if (Double.isNaN(v)) return "-";
        return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    static String dec(double v, int digits) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    static String pct(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v < 10 ? "%.1f%%" : "%.0f%%", v);
    }

    static String ratio(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
    }
}
