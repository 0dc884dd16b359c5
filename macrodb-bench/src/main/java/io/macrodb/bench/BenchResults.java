package io.macrodb.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Every run of a benchmark, and the summaries derived from them. */
public record BenchResults(List<RunResult> runs, List<PointSummary> points, List<PeakSummary> peaks,
                           List<Check> checks) {

    /** A sanity check the run made (convergence of MacroDB's replicas, no unexpected errors). */
    public record Check(String what, boolean passed, String detail) {}

    public boolean passed() { return checks.stream().allMatch(Check::passed); }

    public static BenchResults of(List<RunResult> runs, List<Check> checks) {
        List<PointSummary> points = summarize(runs);
        return new BenchResults(List.copyOf(runs), points, peaks(points), List.copyOf(checks));
    }

    private record Key(String engine, String workload, String mix, String config, int clients) {}

    private static List<PointSummary> summarize(List<RunResult> runs) {
        Map<Key, List<RunResult>> byPoint = new LinkedHashMap<>();
        for (RunResult r : runs) {
            byPoint.computeIfAbsent(new Key(r.engine(), r.workload(), r.mix(), r.config(), r.clients()), k -> new ArrayList<>()).add(r);
        }
        Map<Key, Double> median = new LinkedHashMap<>();
        byPoint.forEach((k, rs) -> median.put(k, median(rs.stream().mapToDouble(RunResult::tps).toArray())));
        Map<Key, Double> cpu = new LinkedHashMap<>();
        byPoint.forEach((k, rs) -> cpu.put(k, median(rs.stream().mapToDouble(RunResult::cpuUsPerTx).filter(v -> !Double.isNaN(v)).toArray())));
        List<PointSummary> out = new ArrayList<>();
        byPoint.forEach((k, rs) -> {
            double[] tps = rs.stream().mapToDouble(RunResult::tps).toArray();
            double med = median.get(k);
            double min = java.util.Arrays.stream(tps).min().orElse(0), max = java.util.Arrays.stream(tps).max().orElse(0);
            long completed = rs.stream().mapToLong(RunResult::completed).sum();
            long aborts = rs.stream().mapToLong(RunResult::aborts).sum();
            Map<String, Long> causes = new TreeMap<>();
            rs.forEach(r -> r.abortCauses().forEach((c, n) -> causes.merge(c, n, Long::sum)));
            long ro = rs.stream().mapToLong(r -> r.readOnlyOnSecondary() + r.readOnlyOnPrimary()).sum();
            long onSec = rs.stream().mapToLong(RunResult::readOnlyOnSecondary).sum();
            Double sa = median.get(new Key(k.engine, k.workload, k.mix, "standalone", k.clients));
            String indRef = independentRef(k.config, byPoint.keySet().stream()
                    .filter(o -> o.engine.equals(k.engine) && o.workload.equals(k.workload) && o.mix.equals(k.mix))
                    .map(Key::config).distinct().toList());
            Double ind = indRef == null ? null : median.get(new Key(k.engine, k.workload, k.mix, indRef, k.clients));
            out.add(new PointSummary(k.engine, k.workload, k.mix, k.config, k.clients, rs.size(), med, min, max,
                    rs.size() < 2 ? Double.NaN : med > 0 ? 100 * (max - min) / med : 0, // one repetition has no spread
                    cpu.get(k), cpuRatio(cpu.get(k), cpu.get(new Key(k.engine, k.workload, k.mix, "standalone", k.clients))),
                    median(rs.stream().mapToDouble(RunResult::p50Ms).toArray()),
                    median(rs.stream().mapToDouble(RunResult::p99Ms).toArray()),
                    completed + aborts == 0 ? 0 : 100.0 * aborts / (completed + aborts), causes,
                    rs.stream().mapToLong(RunResult::errors).sum(),
                    ro == 0 ? Double.NaN : 100.0 * onSec / ro,
                    median(rs.stream().filter(r -> r.readOnlyOnSecondary() > 0).mapToDouble(RunResult::roSecondaryP50Ms).toArray()),
                    median(rs.stream().filter(r -> r.readOnlyOnPrimary() > 0).mapToDouble(RunResult::roPrimaryP50Ms).toArray()),
                    ro == 0 ? Double.NaN : 100.0 * rs.stream().mapToLong(RunResult::readOnlyWaited).sum() / ro,
                    median(rs.stream().mapToDouble(RunResult::roWaitMeanMs).toArray()),
                    rs.stream().mapToDouble(RunResult::lagMeanVersions).average().orElse(0),
                    rs.stream().mapToLong(RunResult::lagMaxVersions).max().orElse(0),
                    sa == null || sa == 0 ? Double.NaN : med / sa, indRef, ind == null || ind == 0 ? Double.NaN : med / ind,
                    median(rs.stream().mapToDouble(RunResult::catchUpMs).filter(v -> !Double.isNaN(v)).toArray()),
                    rs.stream().mapToDouble(RunResult::catchUpMs).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN),
                    (int) rs.stream().filter(r -> !r.caughtUp()).count()));
        });
        return out;
    }

    /**
     * The independent configuration a configuration is compared with: independent-N for
     * macrodb-N..., else the largest independent configuration run.
     */
    static String independentRef(String config, List<String> configs) {
        List<String> ind = configs.stream().filter(c -> c.startsWith("independent-")).toList();
        if (ind.isEmpty()) return null;
        if (config.startsWith("macrodb-")) {
            String n = config.substring("macrodb-".length()).split("-")[0];
            if (ind.contains("independent-" + n)) return "independent-" + n;
        }
        return ind.stream().max(Comparator.comparingInt(c -> Integer.parseInt(c.substring("independent-".length())))).orElse(null);
    }

    private static List<PeakSummary> peaks(List<PointSummary> points) {
        Map<List<String>, List<PointSummary>> byConfig = points.stream().collect(Collectors.groupingBy(
                p -> List.of(p.engine(), p.workload(), p.mix(), p.config()), LinkedHashMap::new, Collectors.toList()));
        List<PeakSummary> out = new ArrayList<>();
        byConfig.forEach((k, ps) -> {
            PointSummary best = ps.stream().max(Comparator.comparingDouble(PointSummary::tpsMedian)).orElseThrow();
            Optional<PointSummary> sa = best(byConfig.get(List.of(k.get(0), k.get(1), k.get(2), "standalone")));
            String ref = best.independentRef();
            Optional<PointSummary> ind = ref == null ? Optional.empty() : best(byConfig.get(List.of(k.get(0), k.get(1), k.get(2), ref)));
            double saTps = sa.map(PointSummary::tpsMedian).orElse(Double.NaN);
            double indTps = ind.map(PointSummary::tpsMedian).orElse(Double.NaN);
            out.add(new PeakSummary(k.get(0), k.get(1), k.get(2), k.get(3), best.clients(), best.tpsMedian(), saTps,
                    best.tpsMedian() / saTps, ref, indTps, best.tpsMedian() / indTps));
        });
        return out;
    }

    private static Optional<PointSummary> best(List<PointSummary> ps) {
        return ps == null ? Optional.empty() : ps.stream().max(Comparator.comparingDouble(PointSummary::tpsMedian));
    }

    private static double cpuRatio(Double cpu, Double standalone) {
        return cpu == null || standalone == null || Double.isNaN(cpu) || Double.isNaN(standalone) || standalone == 0
                ? Double.NaN : cpu / standalone;
    }

    static double median(double[] v) {
        if (v.length == 0) return Double.NaN;
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
