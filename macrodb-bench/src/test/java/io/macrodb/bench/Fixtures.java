package io.macrodb.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Results made up for tests of what is derived from them (tables, files), without running anything. */
final class Fixtures {
    private Fixtures() {}

    static RunResult run(String config, int clients, int rep, double tps) {
        boolean macro = config.startsWith("macrodb");
        return new RunResult("h2", "micro", "80-20", config, clients, rep, 1.0, (long) tps, 0, tps, 50.0 + rep, 40.0,
                0.5, 0.8, 1.0 + rep / 10.0, 3.0, 2, Map.of("lock timeout (HYT00)", 2L), 0, List.of(),
                (long) (tps * 0.8), macro ? (long) (tps * 0.6) : 0, macro ? (long) (tps * 0.2) : (long) (tps * 0.8),
                macro ? 0.4 : Double.NaN, macro ? 0.9 : Double.NaN, 0.45, 0.95,
                macro ? 3 : 0, 0, macro ? 0.01 : 0, macro ? 0.2 : 0, macro ? 0.5 : 0, macro ? 3 : 0, Double.NaN,
                Map.of("PointRead", (long) tps), Map.of("PointRead", 0.5), macro ? 2.5 * rep : Double.NaN, true, Double.NaN);
    }

    /** standalone, macrodb-2 and independent-2 at 1 and 2 clients, {@code reps} repetitions each. */
    static BenchResults results(int reps) {
        List<RunResult> runs = new ArrayList<>();
        for (String config : List.of("standalone", "macrodb-2", "independent-2")) {
            for (int clients : List.of(1, 2)) {
                for (int rep = 1; rep <= reps; rep++) runs.add(run(config, clients, rep, 1000.0 * clients + 37 * rep + config.length()));
            }
        }
        return BenchResults.of(runs, List.of(new BenchResults.Check("replicas converged: h2 micro 80-20 macrodb-2", true, "caught up")));
    }
}
