package io.macrodb.bench;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link BenchPlan}: for each engine, workload and mix, each configuration on a fresh
 * deployment, every client count, every repetition; then, for MacroDB, checks that the replicas
 * converged (equal content checksums once caught up).
 */
public final class Benchmark {
    private static final long CATCH_UP_MILLIS = 120_000;

    private Benchmark() {}

    public static BenchResults run(BenchPlan plan, BenchListener listener) throws SQLException {
        listener.started(plan);
        List<RunResult> runs = new ArrayList<>();
        List<BenchResults.Check> checks = new ArrayList<>();
        PointRunner.Settings settings = new PointRunner.Settings(plan.warmupMillis(), plan.measureMillis(), plan.declareReadOnly(), plan.seed());
        for (BenchEngine engine : plan.engines()) {
            for (BenchPlan.WorkloadMixes wm : plan.workloads()) {
                Workload w = wm.workload();
                for (Mix mix : wm.mixes()) {
                    for (SystemConfig cfg : plan.configs()) {
                        String where = engine + " " + w.name() + " " + mix.name() + " " + cfg.label();
                        listener.note("loading " + where);
                        try (Deployment d = Deployment.open(cfg, engine, w, plan.seed(), plan.readWaitMillis())) {
                            listener.note(String.format("loaded %s in %.1f s", where, d.loadSeconds()));
                            long errors = 0;
                            for (int clients : plan.clients()) {
                                for (int rep = 1; rep <= plan.repetitions(); rep++) {
                                    listener.runStarting(where + " c=" + clients + " #" + rep, plan.warmupMillis() + plan.measureMillis());
                                    RunResult r = PointRunner.run(d, w, mix, clients, rep, settings);
                                    runs.add(r);
                                    errors += r.errors();
                                    listener.runFinished(r);
                                }
                            }
                            checks.add(new BenchResults.Check("no unexpected errors: " + where, errors == 0,
                                    errors == 0 ? "" : errors + " errors; first: " + runs.stream()
                                            .filter(r -> r.errors() > 0).findFirst().map(r -> r.errorSamples().toString()).orElse("")));
                            if (plan.verify() && d.macro() != null) {
                                Deployment.Convergence c = d.verify(CATCH_UP_MILLIS);
                                checks.add(new BenchResults.Check("replicas converged: " + where, c.equal(),
                                        (c.caughtUp() ? "caught up" : "NOT caught up in " + CATCH_UP_MILLIS + " ms") + ", checksums " + c.checksums()));
                            }
                        }
                    }
                }
            }
        }
        listener.finished();
        return BenchResults.of(runs, checks);
    }
}
