package io.macrodb.bench;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs a {@link BenchPlan}: for each engine, workload and mix, every configuration on a fresh
 * deployment, every client count, every repetition; then, for MacroDB, checks that the replicas
 * converged (equal content checksums once caught up).
 *
 * <p>The configurations of one engine x workload x mix are scheduled as {@link BenchPlan#order()}
 * says. {@link BenchPlan.Order#INTERLEAVED} (the default) loads all of them, then runs each point
 * (client count, repetition) on each configuration in turn, rotating which goes first from one
 * repetition to the next; configurations compared side by side are thus measured within seconds
 * of each other, and a machine whose speed drifts over minutes (a shared VM) slows them alike
 * instead of skewing their ratios. {@link BenchPlan.Order#SEQUENTIAL} runs one configuration's
 * points after the other's, holding one deployment at a time. Both are the same procedure: the
 * sequential order is the interleaved one over groups of a single configuration.
 *
 * <p>Whatever the order, each deployment receives the same runs in the same order, and the
 * results come out grouped as in the sequential order (engine, workload, mix, configuration,
 * client count, repetition), so that tables and files do not depend on the order.
 */
public final class Benchmark {
    /** The longest wait for MacroDB's secondaries to catch up, after each run and before the convergence check. */
    public static final long CATCH_UP_MILLIS = 120_000;

    private final BenchPlan plan;
    private final BenchListener listener;
    private final PointRunner.Settings settings;
    private final List<RunResult> runs = new ArrayList<>();
    private final List<BenchResults.Check> checks = new ArrayList<>();
    /** The lanes of the group running now whose runs have not joined {@link #runs} yet. */
    private final List<Lane> pending = new ArrayList<>();

    private Benchmark(BenchPlan plan, BenchListener listener) {
        this.plan = plan;
        this.listener = listener;
        this.settings = new PointRunner.Settings(plan.warmupMillis(), plan.measureMillis(), plan.declareReadOnly(), plan.seed());
    }

    public static BenchResults run(BenchPlan plan, BenchListener listener) throws SQLException {
        return new Benchmark(plan, listener).runAll();
    }

    private BenchResults runAll() throws SQLException {
        listener.started(plan);
        if (plan.jvmWarmupMillis() > 0) warmUpJvm();
        for (BenchEngine engine : plan.engines()) {
            for (BenchPlan.WorkloadMixes wm : plan.workloads()) {
                for (Mix mix : wm.mixes()) {
                    if (plan.order() == BenchPlan.Order.SEQUENTIAL) {
                        for (SystemConfig cfg : plan.configs()) runGroup(engine, wm.workload(), mix, List.of(cfg));
                    } else {
                        runGroup(engine, wm.workload(), mix, plan.configs());
                    }
                }
            }
        }
        BenchResults all = BenchResults.of(runs, checks);
        listener.finished();
        return all;
    }

    /** Runs each workload's first mix on each kind of configuration, unmeasured (see {@link BenchPlan}). */
    private void warmUpJvm() throws SQLException {
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

    /** One configuration of a group: its open deployment and its runs so far, in the order they ran. */
    private record Lane(String where, Deployment deployment, List<RunResult> runs) {}

    /**
     * Loads every configuration of {@code group} on a fresh deployment, then, for each client count
     * and each repetition, runs that point on each of them in turn, starting with the next one at
     * every repetition (A1 B1 C1, B2 C2 A2, ...); then checks each (no unexpected errors, MacroDB's
     * replicas converged) and closes them all, even when one fails. A group of one configuration is
     * the sequential order. The group's runs join the results configuration by configuration.
     */
    private void runGroup(BenchEngine engine, Workload w, Mix mix, List<SystemConfig> group) throws SQLException {
        try (OpenDeployments open = new OpenDeployments()) {
            List<Lane> lanes = new ArrayList<>();
            pending.clear();
            for (SystemConfig cfg : group) {
                String where = engine + " " + w.name() + " " + mix.name() + " " + cfg.label();
                listener.note("loading " + where);
                Deployment d = open.add(Deployment.open(cfg, engine, w, plan.seed(), plan.readWaitMillis()));
                listener.note(String.format("loaded %s in %.1f s", where, d.loadSeconds()));
                lanes.add(new Lane(where, d, new ArrayList<>()));
            }
            pending.addAll(lanes);
            int turn = 0;
            for (int clients : plan.clients()) {
                for (int rep = 1; rep <= plan.repetitions(); rep++, turn++) {
                    for (int i = 0; i < lanes.size(); i++) {
                        Lane lane = lanes.get((turn + i) % lanes.size());
                        runPoint(lane, w, mix, clients, rep);
                    }
                }
            }
            long end = System.nanoTime();
            List<Timed<Deployment.Convergence>> converged = verifyAll(lanes);
            long verified = converged.stream().filter(java.util.Objects::nonNull).count();
            if (verified > 0) {
                listener.note(String.format(Locale.ROOT, "end: convergence checks of %d configuration%s, side by side, in %.1f s",
                        verified, verified == 1 ? "" : "s", (System.nanoTime() - end) / 1e9));
            }
            for (int i = 0; i < lanes.size(); i++) {
                Lane lane = lanes.get(i);
                runs.addAll(lane.runs());
                pending.remove(lane);
                check(lane, converged.get(i));
                listener.progress(soFar());
            }
            open.timeClosing(listener, lanes.stream().map(Lane::where).toList());
            open.close();
            listener.note(String.format(Locale.ROOT, "end: checks and closing of %s %s %s took %.1f s after its last run",
                    engine, w.name(), mix.name(), (System.nanoTime() - end) / 1e9));
        }
    }

    /** Every run so far and every check made, in the order of the final results. */
    private BenchResults soFar() {
        List<RunResult> all = new ArrayList<>(runs);
        for (Lane lane : pending) all.addAll(lane.runs());
        return BenchResults.of(all, checks);
    }

    /**
     * Runs one repetition of one point on a lane's deployment, then (MacroDB) waits for its
     * secondaries to catch up, and tells the listener.
     */
    private void runPoint(Lane lane, Workload w, Mix mix, int clients, int rep) throws SQLException {
        listener.runStarting(lane.where() + " c=" + clients + " #" + rep, plan.warmupMillis() + plan.measureMillis());
        RunResult r = settle(lane, PointRunner.run(lane.deployment(), w, mix, clients, rep, settings));
        lane.runs().add(r);
        listener.runFinished(r);
        listener.progress(soFar());
    }

    /**
     * MacroDB only: waits, at most {@link #CATCH_UP_MILLIS}, until the deployment's secondaries
     * have applied what the run committed, and records how long that took in the run's result
     * ({@link RunResult#catchUpMs()}): the replication backlog a run leaves behind is a result,
     * not a silent pause. Interleaved, it also keeps that backlog from being applied while the next
     * configuration is measured; sequential, the next run starts from caught-up secondaries alike.
     * A deployment that does not catch up in time is noted and left to the convergence check.
     */
    private RunResult settle(Lane lane, RunResult r) throws SQLException {
        Deployment.CatchUp c = lane.deployment().awaitCaughtUp(CATCH_UP_MILLIS);
        if (c == null) return r;
        if (!c.caughtUp()) {
            listener.note("secondaries of " + lane.where() + " not caught up in " + CATCH_UP_MILLIS + " ms; going on");
        }
        return r.withCatchUp(c.ms(), c.caughtUp());
    }

    /** A result and how long it took, in seconds. */
    private record Timed<T>(T value, double seconds) {}

    /**
     * The convergence check of every MacroDB configuration of a group ({@link Deployment#verify}),
     * all at once (each on a thread of its own; each computes its replicas' checksums side by side
     * where it can): the deployments are idle by then, and one after the other they were most of
     * the end of a run. Null for the others, and for all without {@link BenchPlan#verify()}.
     * Returns once every check has ended, even when one failed (its failure is thrown then).
     */
    private List<Timed<Deployment.Convergence>> verifyAll(List<Lane> lanes) throws SQLException {
        List<Timed<Deployment.Convergence>> out = new ArrayList<>();
        List<java.util.concurrent.FutureTask<Timed<Deployment.Convergence>>> tasks = new ArrayList<>();
        for (Lane lane : lanes) {
            Deployment d = lane.deployment();
            if (!plan.verify() || d.macro() == null) {
                tasks.add(null);
                continue;
            }
            java.util.concurrent.FutureTask<Timed<Deployment.Convergence>> t = new java.util.concurrent.FutureTask<>(() -> {
                long t0 = System.nanoTime();
                Deployment.Convergence c = d.verify(CATCH_UP_MILLIS);
                return new Timed<>(c, (System.nanoTime() - t0) / 1e9);
            });
            Thread th = new Thread(t, "bench-verify-" + d.config().label());
            th.setDaemon(true);
            th.start();
            tasks.add(t);
        }
        SQLException failure = null;
        for (var t : tasks) {
            try {
                out.add(t == null ? null : t.get());
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable cause = e.getCause();
                SQLException s = cause instanceof SQLException q ? q : new SQLException("convergence check failed: " + cause, cause);
                if (failure == null) failure = s;
                else failure.addSuppressed(s);
                out.add(null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure == null) failure = new SQLException("interrupted", "57014", e);
                out.add(null);
            }
        }
        if (failure != null) throw failure;
        return out;
    }

    /**
     * The checks of one configuration once all its runs are done: no unexpected errors, and MacroDB's
     * replicas converged ({@code converged}: what {@link #verifyAll} found; null when not checked).
     */
    private void check(Lane lane, Timed<Deployment.Convergence> converged) {
        long errors = lane.runs().stream().mapToLong(RunResult::errors).sum();
        checks.add(new BenchResults.Check("no unexpected errors: " + lane.where(), errors == 0,
                errors == 0 ? "" : errors + " errors; first: " + lane.runs().stream()
                        .filter(r -> r.errors() > 0).findFirst().map(r -> r.errorSamples().toString()).orElse("")));
        if (converged != null) {
            Deployment.Convergence c = converged.value();
            checks.add(new BenchResults.Check("replicas converged: " + lane.where(), c.equal(),
                    (c.caughtUp() ? String.format(Locale.ROOT, "caught up in %.1f ms", c.catchUpMs())
                            : "NOT caught up in " + CATCH_UP_MILLIS + " ms") + ", checksums " + c.checksums()));
            listener.note(String.format(Locale.ROOT, "end: replicas of %s %s in %.1f s: caught up in %.1f s, %d checksums in %.1f s",
                    lane.where(), c.equal() ? "converged" : "did NOT converge", converged.seconds(), c.catchUpMs() / 1e3,
                    c.checksums().size(), c.checksumMs() / 1e3));
        }
    }

    /**
     * The deployments of a group, closed together in reverse order of opening; one that fails to
     * close does not keep the others open (its failure is thrown after, the others' suppressed).
     */
    private static final class OpenDeployments implements AutoCloseable {
        private final List<Deployment> open = new ArrayList<>();

        private BenchListener timing;
        private List<String> names = List.of();

        Deployment add(Deployment d) {
            open.add(d);
            return d;
        }

        /** Has {@link #close} note how long each deployment took to close ({@code names}: in the order they were added). */
        void timeClosing(BenchListener listener, List<String> names) {
            this.timing = listener;
            this.names = names;
        }

        @Override public void close() {
            RuntimeException failure = null;
            for (int i = open.size() - 1; i >= 0; i--) {
                long t0 = System.nanoTime();
                try {
                    open.get(i).close();
                    if (timing != null && i < names.size()) {
                        timing.note(String.format(Locale.ROOT, "end: closed %s in %.1f s", names.get(i), (System.nanoTime() - t0) / 1e9));
                    }
                } catch (RuntimeException e) {
                    if (failure == null) failure = e;
                    else failure.addSuppressed(e);
                }
            }
            open.clear();
            if (failure != null) throw failure;
        }
    }
}
