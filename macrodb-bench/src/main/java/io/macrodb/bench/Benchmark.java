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

    /** Runs each workload's first mix on each kind of configuration, unmeasured (see {@link BenchPlan}). */
    private static void warmUpJvm(BenchPlan plan, BenchListener listener) throws SQLException {
        List<SystemConfig> kinds = new ArrayList<>();
        for (SystemConfig c : plan.configs()) {
            if (kinds.stream().noneMatch(k -> k.kind() == c.kind() && (k.n() > 1) == (c.n() > 1))) kinds.add(c);
        }
        int clients = plan.clients().stream().mapToInt(Integer::intValue).max().orElse(1);
        long each = Math.max(200, plan.jvmWarmupMillis() / Math.max(1, kinds.size() * plan.workloads().size() * plan.engines().size()));
        PointRunner.Settings s = new PointRunner.Settings(0, each, plan.declareReadOnly(), plan.seed() + 1);
        for (BenchEngine engine : plan.engines()) {
            for (BenchPlan.WorkloadMixes wm : plan.workloads()) {
                for (SystemConfig cfg : kinds) {
                    listener.note("loading JVM warm-up " + engine + " " + wm.workload().name() + " " + cfg.label());
                    try (Deployment d = Deployment.open(cfg, engine, wm.workload(), plan.seed(), plan.readWaitMillis())) {
                        PointRunner.run(d, wm.workload(), wm.mixes().get(0), clients, 0, s);
                    }
                }
            }
        }
    }

    public static BenchResults run(BenchPlan plan, BenchListener listener) throws SQLException {
        listener.started(plan);
        List<RunResult> runs = new ArrayList<>();
        List<BenchResults.Check> checks = new ArrayList<>();
        PointRunner.Settings settings = new PointRunner.Settings(plan.warmupMillis(), plan.measureMillis(), plan.declareReadOnly(), plan.seed());
        if (plan.jvmWarmupMillis() > 0) warmUpJvm(plan, listener);
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
