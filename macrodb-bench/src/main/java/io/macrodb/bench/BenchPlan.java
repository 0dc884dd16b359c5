package io.macrodb.bench;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Everything one {@code macrodb bench} run measures: every engine x workload x mix x configuration
 * x client count, each point repeated. Every configuration gets fresh databases for each mix, and
 * runs every client count x every repetition on them, in that order; {@link #order()} says how the
 * configurations of one mix share the machine's time (see {@link Order}).
 *
 * <p>{@code jvmWarmupMillis}: before anything is measured, each workload's first mix runs for this
 * long on every kind of configuration, unmeasured, so that the configuration measured first does
 * not pay for the JIT compiling the engine's and the workload's code.
 */
public record BenchPlan(List<BenchEngine> engines, List<WorkloadMixes> workloads, List<SystemConfig> configs,
                        List<Integer> clients, long warmupMillis, long measureMillis, int repetitions,
                        boolean declareReadOnly, long readWaitMillis, long seed, boolean verify, long jvmWarmupMillis,
                        Order order) {

    /** A workload and the mixes of it to run. */
    public record WorkloadMixes(Workload workload, List<Mix> mixes) {}

    /**
     * How the configurations of one engine x workload x mix are scheduled. Either way each
     * configuration's deployment receives the same runs in the same order (every client count, every
     * repetition), so its data grows the same; only what runs next to what in time differs.
     */
    public enum Order {
        /**
         * The default: every configuration is loaded first, then each point (client count,
         * repetition) is run by each configuration in turn, the first of them rotating from one
         * repetition to the next: A1 B1 C1, B2 C2 A2, C3 A3 B3, ... A machine whose speed drifts over
         * minutes (a shared VM, thermal throttling, a noisy neighbour) then slows every configuration
         * alike, instead of whichever happened to be measured during the slow minutes, and no
         * configuration always runs first after loading or a change of client count. Costs memory:
         * every configuration's databases are held at once.
         */
        INTERLEAVED,
        /**
         * One configuration at a time: load it, run all its points, check it, close it, then the
         * next. Holds only one configuration's databases in memory (large scales on small machines),
         * but configurations measured minutes apart are compared under whatever the machine was
         * doing in each of those minutes.
         */
        SEQUENTIAL;

        /** {@code interleaved} or {@code sequential}, as written into results. */
        public String label() { return name().toLowerCase(Locale.ROOT); }
    }

    public BenchPlan {
        if (engines.isEmpty() || workloads.isEmpty() || configs.isEmpty() || clients.isEmpty()) {
            throw new IllegalArgumentException("a benchmark needs at least one engine, workload, configuration and client count");
        }
        if (repetitions < 1) throw new IllegalArgumentException("repetitions must be >= 1");
        if (measureMillis < 100) throw new IllegalArgumentException("the measured window must be at least 100 ms");
        if (clients.stream().anyMatch(c -> c < 1)) throw new IllegalArgumentException("client counts must be >= 1");
        Objects.requireNonNull(order, "order");
        engines = List.copyOf(engines);
        workloads = List.copyOf(workloads);
        configs = List.copyOf(configs);
        clients = List.copyOf(clients);
    }

    /** Measured runs in all (the same in either {@link Order}). */
    public int runs() {
        int mixes = workloads.stream().mapToInt(w -> w.mixes().size()).sum();
        return engines.size() * mixes * configs.size() * clients.size() * repetitions;
    }

    /** Wall time of the runs themselves (warm-up + measured window), without loading. */
    public long runMillis() { return runs() * (warmupMillis + measureMillis); }
}
