package io.macrodb.bench;

import io.macrodb.bench.micro.Micro;
import io.macrodb.bench.tpcc.Tpcc;
import io.macrodb.bench.tpcw.TpcwLike;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Smoke test, not a measurement: every workload x every kind of configuration runs for about a
 * second at tiny scale with 1-2 clients, on every engine (PostgreSQL where its server binaries are installed: skipped
 * with the reason printed where they are not, failed instead under {@code -Dmacrodb.requirePostgres=true}). Checks that the numbers are sane
 * (throughput > 0, latencies ordered, no unexpected errors, read-only transactions of MacroDB
 * with secondaries reach secondaries) and that MacroDB's replicas converge.
 */
class BenchSmokeTest {

    @ParameterizedTest
    @EnumSource(BenchEngine.class)
    void everyWorkloadAndConfigurationRunsAndConverges(BenchEngine engine) throws Exception {
        if (engine == BenchEngine.POSTGRESQL) Postgres.assumeAvailable();
        Tpcc tpcc = new Tpcc(1, 0.01);
        Micro micro = new Micro(1000);
        TpcwLike tpcw = new TpcwLike(0.02);
        List<SystemConfig> configs = List.of(SystemConfig.standalone(), SystemConfig.parse("macrodb:1", null, null),
                SystemConfig.parse("macrodb:2", null, null), SystemConfig.parse("macrodb:3:roundRobin:session", null, null),
                SystemConfig.parse("independent:2", null, null));
        BenchPlan plan = new BenchPlan(List.of(engine), List.of(
                new BenchPlan.WorkloadMixes(tpcc, List.of(tpcc.mix("50-50"))),
                new BenchPlan.WorkloadMixes(tpcw, List.of(tpcw.mix("shopping"))),
                new BenchPlan.WorkloadMixes(micro, List.of(micro.mix("80-20")))),
                configs, List.of(2), warmupMillis(engine), measureMillis(engine), 1, true, 5, 42, true, 0, BenchPlan.Order.INTERLEAVED);
        BenchResults res = Benchmark.run(plan, new BenchListener() {
            @Override public void runFinished(RunResult r) { System.out.println(r); }
            @Override public void note(String m) { System.out.println(m); }
        });
        res.checks().forEach(c -> assertTrue(c.passed(), () -> c.what() + ": " + c.detail()));
        assertEquals(3 * configs.size(), res.runs().size());
        for (RunResult r : res.runs()) {
            String where = r.engine() + " " + r.workload() + " " + r.mix() + " " + r.config();
            assertTrue(r.tps() > 0 && r.completed() > 0, () -> "no throughput: " + where);
            assertEquals(0, r.errors(), () -> where + ": " + r.errorSamples());
            assertTrue(r.p50Ms() > 0 && r.p50Ms() <= r.p99Ms() && r.p99Ms() <= r.maxMs() + 1e-9, () -> "latencies out of order: " + r);
            assertTrue(r.readOnly() > 0, () -> "no read-only transaction ran: " + where);
            if (r.config().startsWith("macrodb-") && !r.config().equals("macrodb-1")) {
                if (r.engine().equals("derby") && r.workload().equals("tpcc")) {
                    // MacroDB over Derby commits and applies TPC-C's updates slowly (a handful in this window; README,
                    // "Measured results", Derby): the secondaries stay behind, and a strict read that the apply rate says
                    // cannot wait runs on the primary. Every read-only transaction is still routed.
                    assertEquals(r.readOnly(), r.readOnlyOnSecondary() + r.readOnlyOnPrimary(), () -> "unrouted reads: " + r);
                } else {
                    assertTrue(r.readOnlyOnSecondary() > 0, () -> "MacroDB ran no read-only transaction on a secondary: " + r);
                }
            }
            if (r.config().equals("macrodb-1")) assertEquals(0, r.readOnlyOnSecondary(), where);
            // A sanity bound, not a measurement: over a 0.8 s window the process CPU clock and a
            // container's CPU quota (enforced per 100 ms period) can run a few percent past the cores
            // the JVM reports (CI once saw 100.51%); a unit slip (ns for us, no division by cores)
            // lands far outside it.
            assertTrue(r.cpuUsPerTx() > 0 && r.cpuPct() > 0 && r.cpuPct() <= 115, () -> "CPU time out of range: " + r);
            // PostgreSQL's servers' share of it (the rest is this JVM); none for the embedded engines
            if (engine.runsServers()) assertTrue(r.serverCpuUsPerTx() > 0 && r.serverCpuUsPerTx() <= r.cpuUsPerTx(), () -> "servers' CPU: " + r);
            else assertTrue(Double.isNaN(r.serverCpuUsPerTx()), () -> "no servers: " + r);
            // read waits: counted among the routed read-only transactions, fall-backs among the waits
            assertTrue(r.readOnlyWaited() <= r.readOnlyOnSecondary() + r.readOnlyOnPrimary(), () -> "more waits than reads: " + r);
            assertTrue(r.readOnlyFellBack() <= r.readOnlyWaited() && r.readOnlyFellBack() <= r.readOnlyOnPrimary(), () -> "fall-backs: " + r);
            assertTrue(r.roWaitMeanMs() >= 0 && r.roWaitMeanMs() <= r.roWaitP99Ms() + r.maxMs(), () -> "read wait out of range: " + r);
            if (!r.config().startsWith("macrodb-") || r.config().equals("macrodb-1")) {
                assertEquals(0, r.readOnlyWaited(), () -> "nothing to wait for: " + r);
            }
        }
        assertTrue(res.points().stream().filter(p -> !p.config().equals("standalone")).allMatch(p -> p.vsStandalone() > 0));
    }

    /** PostgreSQL's servers (started by the first configuration that needs them) are stopped with the class. */
    @AfterAll
    static void stopPostgres() { BenchEngine.POSTGRESQL.release(); }

    /**
     * MacroDB over Derby compiles its capture triggers' statements as a transaction first fires them and then commits
     * TPC-C's updates at tens per second (README, "Measured results", Derby): in 0.2 + 0.8 s on a busy 2-core machine its
     * MacroDB-1 once completed no TPC-C transaction at all. Derby gets 2 + 2 s; the others 0.2 + 0.8 s.
     */
    private static long warmupMillis(BenchEngine engine) { return engine == BenchEngine.DERBY ? 2000 : 200; }

    private static long measureMillis(BenchEngine engine) { return engine == BenchEngine.DERBY ? 2000 : 800; }
}
