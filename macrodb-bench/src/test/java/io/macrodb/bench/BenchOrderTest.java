package io.macrodb.bench;

import io.macrodb.bench.micro.Micro;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link Benchmark} schedules the configurations of a mix: interleaved by default (all loaded
 * first, then each point on each configuration in turn, the first rotating every repetition), one
 * after the other with {@link BenchPlan.Order#SEQUENTIAL}; results grouped the same either way.
 * Tiny and short: micro at 1,000 rows, 100 ms runs without warm-up; what is checked is the order,
 * not the numbers.
 */
class BenchOrderTest {
    private static final Micro MICRO = new Micro(1000);
    private static final Mix MIX = MICRO.mix("80-20");
    private static final String WHERE = "h2 micro " + MIX.name() + " ";
    private static final List<SystemConfig> CONFIGS = List.of(SystemConfig.standalone(),
            SystemConfig.parse("macrodb:2", null, null), SystemConfig.parse("independent:2", null, null));

    /** Three configurations x clients 1, 2 x 2 repetitions. */
    private static BenchPlan plan(Workload w, List<SystemConfig> configs, BenchPlan.Order order) {
        return new BenchPlan(List.of(BenchEngine.H2), List.of(new BenchPlan.WorkloadMixes(w, List.of(MIX))), configs,
                List.of(1, 2), 0, 100, 2, true, 5, 42, true, 0, order);
    }

    /** What a listener sees, in order: "load X", "loaded X", "run X c=N #R", "done X c=N #R". */
    private static final class Recorder implements BenchListener {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());

        @Override public void runStarting(String description, long millis) {
            assertEquals(100, millis, "a run's length for the progress bar");
            events.add("run " + description.substring(WHERE.length()));
        }

        @Override public void runFinished(RunResult r) {
            events.add("done " + r.config() + " c=" + r.clients() + " #" + r.repetition());
        }

        @Override public void note(String m) {
            if (m.startsWith("loading ")) events.add("load " + m.substring(("loading " + WHERE).length()));
            else if (m.startsWith("loaded ")) events.add("loaded " + m.substring(("loaded " + WHERE).length()).replaceAll(" in .*", ""));
        }

        List<String> starting(String prefix) {
            return events.stream().filter(e -> e.startsWith(prefix)).map(e -> e.substring(prefix.length())).toList();
        }
    }

    /** Every configuration's points, configuration by configuration: the sequential order, and the order of the results. */
    private static final List<String> GROUPED = List.of(
            "standalone c=1 #1", "standalone c=1 #2", "standalone c=2 #1", "standalone c=2 #2",
            "macrodb-2 c=1 #1", "macrodb-2 c=1 #2", "macrodb-2 c=2 #1", "macrodb-2 c=2 #2",
            "independent-2 c=1 #1", "independent-2 c=1 #2", "independent-2 c=2 #1", "independent-2 c=2 #2");

    private static List<String> runsOf(BenchResults res) {
        return res.runs().stream().map(r -> r.config() + " c=" + r.clients() + " #" + r.repetition()).toList();
    }

    private static void assertResultsGroupedAndChecked(BenchResults res) {
        assertEquals(GROUPED, runsOf(res), "results grouped by configuration, as in the sequential order");
        assertEquals(List.of("standalone c=1", "standalone c=2", "macrodb-2 c=1", "macrodb-2 c=2", "independent-2 c=1", "independent-2 c=2"),
                res.points().stream().map(p -> p.config() + " c=" + p.clients()).toList());
        assertEquals(List.of("no unexpected errors: " + WHERE + "standalone", "no unexpected errors: " + WHERE + "macrodb-2",
                "replicas converged: " + WHERE + "macrodb-2", "no unexpected errors: " + WHERE + "independent-2"),
                res.checks().stream().map(BenchResults.Check::what).toList());
        res.checks().forEach(c -> assertTrue(c.passed(), () -> c.what() + ": " + c.detail()));
        // after every MacroDB run, in either order, the catch-up is waited for and recorded; the plain ones have none
        for (RunResult r : res.runs()) {
            if (r.config().startsWith("macrodb")) assertTrue(r.catchUpMs() >= 0 && r.caughtUp(), () -> "catch-up not recorded: " + r);
            else assertTrue(Double.isNaN(r.catchUpMs()) && r.caughtUp(), () -> "nothing to catch up: " + r);
        }
        for (PointSummary p : res.points()) {
            assertEquals(p.config().startsWith("macrodb"), !Double.isNaN(p.catchUpMaxMs()), p.toString());
            assertEquals(0, p.notCaughtUp(), p.toString());
        }
        assertTrue(res.checks().get(2).detail().matches("caught up in [0-9]+\\.[0-9] ms, checksums .*"), res.checks().get(2).detail());
        // no throughput check: a 100 ms window without warm-up may see none (BenchSmokeTest checks the numbers)
    }

    @Test
    void interleavedLoadsEveryConfigurationThenTakesTurnsRotatingTheFirst() throws Exception {
        BenchPlan plan = plan(MICRO, CONFIGS, BenchPlan.Order.INTERLEAVED);
        Recorder rec = new Recorder();
        BenchResults res = Benchmark.run(plan, rec);

        assertEquals(List.of(
                "standalone c=1 #1", "macrodb-2 c=1 #1", "independent-2 c=1 #1",
                "macrodb-2 c=1 #2", "independent-2 c=1 #2", "standalone c=1 #2",
                "independent-2 c=2 #1", "standalone c=2 #1", "macrodb-2 c=2 #1",
                "standalone c=2 #2", "macrodb-2 c=2 #2", "independent-2 c=2 #2"), rec.starting("run "));
        assertEquals(List.of("load standalone", "loaded standalone", "load macrodb-2", "loaded macrodb-2",
                "load independent-2", "loaded independent-2"), rec.events.subList(0, 6), "every configuration loaded before any run");
        assertEquals(6, rec.starting("load").size(), "loaded once each: " + rec.events);
        assertEquals(rec.starting("run "), rec.starting("done "), "each run finishes before the next starts");
        assertEquals(plan.runs(), rec.starting("done ").size());
        assertResultsGroupedAndChecked(res);
    }

    @Test
    void sequentialRunsOneConfigurationAfterTheOther() throws Exception {
        BenchPlan plan = plan(MICRO, CONFIGS, BenchPlan.Order.SEQUENTIAL);
        Recorder rec = new Recorder();
        BenchResults res = Benchmark.run(plan, rec);

        assertEquals(GROUPED, rec.starting("run "));
        List<String> expected = new ArrayList<>();
        for (SystemConfig c : CONFIGS) {
            expected.add("load " + c.label());
            expected.add("loaded " + c.label());
            for (String run : GROUPED) {
                if (run.startsWith(c.label() + " ")) {
                    expected.add("run " + run);
                    expected.add("done " + run);
                }
            }
        }
        assertEquals(expected, rec.events, "each configuration loaded just before its own runs");
        assertResultsGroupedAndChecked(res);
    }

    /** Micro, whose {@code failAt}-th load (1-based) fails; remembers the databases it loaded. */
    private static final class FailingLoad implements Workload {
        final AtomicInteger loads = new AtomicInteger();
        final List<String> loadedUrls = Collections.synchronizedList(new ArrayList<>());
        final int failAt;

        FailingLoad(int failAt) { this.failAt = failAt; }

        @Override public String name() { return MICRO.name(); }
        @Override public List<TxType> types() { return MICRO.types(); }
        @Override public List<String> defaultMixes() { return MICRO.defaultMixes(); }
        @Override public Mix mix(String spec) { return MICRO.mix(spec); }
        @Override public Client client(BenchEngine engine, int index, int clients, long seed) {
            return MICRO.client(engine, index, clients, seed);
        }

        @Override public void load(Connection c, BenchEngine engine, long seed) throws SQLException {
            if (loads.incrementAndGet() == failAt) throw new SQLException("load " + failAt + " fails on purpose");
            MICRO.load(c, engine, seed);
            loadedUrls.add(c.getMetaData().getURL());
        }
    }

    @Test
    void aFailedLoadClosesTheDeploymentsAlreadyOpen() {
        // standalone (load 1), independent:2 (loads 2 and 3), then macrodb:1 (load 4) fails
        FailingLoad w = new FailingLoad(4);
        List<SystemConfig> configs = List.of(SystemConfig.standalone(), SystemConfig.parse("independent:2", null, null),
                SystemConfig.parse("macrodb:1", null, null));
        Recorder rec = new Recorder();
        SQLException e = assertThrows(SQLException.class, () -> Benchmark.run(plan(w, configs, BenchPlan.Order.INTERLEAVED), rec));
        assertTrue(e.getMessage().contains("on purpose"), e::toString);
        assertEquals(List.of(), rec.starting("run "));
        assertEquals(3, w.loadedUrls.size(), w.loadedUrls::toString);
        for (String url : w.loadedUrls) {
            assertThrows(SQLException.class, () -> DriverManager.getConnection(url + ";IFEXISTS=TRUE", "sa", "").close(),
                    () -> url + " still open");
        }
    }
}
