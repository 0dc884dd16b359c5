package io.macrodb.bench;

import java.util.List;

/**
 * Everything one {@code macrodb bench} run measures: every engine x workload x mix x configuration
 * x client count, each point repeated. Configurations are measured one after the other on fresh
 * databases, for each mix; repetitions of a point run back to back on the same database.
 *
 * <p>{@code jvmWarmupMillis}: before anything is measured, each workload's first mix runs for this
 * long on every kind of configuration, unmeasured, so that the configuration measured first does
 * not pay for the JIT compiling the engine's and the workload's code.
 */
public record BenchPlan(List<BenchEngine> engines, List<WorkloadMixes> workloads, List<SystemConfig> configs,
                        List<Integer> clients, long warmupMillis, long measureMillis, int repetitions,
                        boolean declareReadOnly, long readWaitMillis, long seed, boolean verify, long jvmWarmupMillis) {

    /** A workload and the mixes of it to run. */
    public record WorkloadMixes(Workload workload, List<Mix> mixes) {}

    public BenchPlan {
        if (engines.isEmpty() || workloads.isEmpty() || configs.isEmpty() || clients.isEmpty()) {
            throw new IllegalArgumentException("a benchmark needs at least one engine, workload, configuration and client count");
        }
        if (repetitions < 1) throw new IllegalArgumentException("repetitions must be >= 1");
        if (measureMillis < 100) throw new IllegalArgumentException("the measured window must be at least 100 ms");
        if (clients.stream().anyMatch(c -> c < 1)) throw new IllegalArgumentException("client counts must be >= 1");
        engines = List.copyOf(engines);
        workloads = List.copyOf(workloads);
        configs = List.copyOf(configs);
        clients = List.copyOf(clients);
    }

    /** Measured runs in all. */
    public int runs() {
        int mixes = workloads.stream().mapToInt(w -> w.mixes().size()).sum();
        return engines.size() * mixes * configs.size() * clients.size() * repetitions;
    }

    /** Wall time of the runs themselves (warm-up + measured window), without loading. */
    public long runMillis() { return runs() * (warmupMillis + measureMillis); }
}
