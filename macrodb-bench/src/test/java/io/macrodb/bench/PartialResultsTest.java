package io.macrodb.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.macrodb.bench.micro.Micro;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A benchmark stopped before its end (a time limit's SIGTERM) leaves usable files: after every run
 * and check, {@link PartialResults} has written everything known so far, and its shutdown hook
 * writes it once more, marked cut off, unless the run completed.
 */
class PartialResultsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logged, true, StandardCharsets.UTF_8);

    private static List<String> lines(Path file) throws Exception {
        return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
    }

    @Test
    void runsCsvAndResultsJsonHoldEveryRunAfterEachRun(@TempDir Path dir) throws Exception {
        Micro micro = new Micro(1000);
        Mix mix = micro.mix("80-20");
        BenchPlan plan = new BenchPlan(List.of(BenchEngine.H2), List.of(new BenchPlan.WorkloadMixes(micro, List.of(mix))),
                List.of(SystemConfig.standalone(), SystemConfig.parse("macrodb:2", null, null)),
                List.of(1, 2), 0, 100, 2, true, 5, 42, true, 0, BenchPlan.Order.INTERLEAVED);
        PartialResults partial = new PartialResults(dir, Environment.capture("test"), Map.of("seed", 42), log);
        List<Integer> seen = new ArrayList<>();
        List<String> notes = Collections.synchronizedList(new ArrayList<>());
        BenchListener checker = new BenchListener() {
            @Override public void progress(BenchResults soFar) {
                try {
                    // what the partial writer just wrote, as a reader after a kill at this moment finds it
                    List<String> csv = lines(dir.resolve("runs.csv"));
                    assertEquals(soFar.runs().size() + 1, csv.size(), "runs.csv: a header and every run so far");
                    assertTrue(csv.get(0).contains("cpuUsPerTx") && csv.get(0).contains("readOnlyOnSecondary")
                            && csv.get(0).contains("lagMeanVersions") && csv.get(0).contains("catchUpMs"), csv.get(0));
                    ResultsReader.Stored s = ResultsReader.read(dir);
                    assertEquals(soFar.runs(), s.results().runs());
                    assertEquals(soFar.points(), s.results().points());
                    assertFalse(s.results().passed(), "partial results never pass for a finished run's");
                    assertTrue(Files.readString(dir.resolve("summary.md")).contains("partial results (running): " + soFar.runs().size()
                            + " of 8 runs done"));
                    try (Stream<Path> files = Files.list(dir)) {
                        assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".tmp")).toList());
                    }
                    seen.add(soFar.runs().size());
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }

            @Override public void note(String message) { notes.add(message); }
        };
        BenchResults res = Benchmark.run(plan, BenchListener.all(partial, checker));

        // after each of the 8 runs, then after each configuration's checks (no errors; and converged for macrodb-2)
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 8, 8), seen);
        assertEquals(res.runs(), ResultsReader.read(dir).results().runs());
        assertEquals("", logged.toString(StandardCharsets.UTF_8));
        // the end of the group is timed, phase by phase
        String where = "h2 micro " + mix.name() + " ";
        assertTrue(notes.stream().anyMatch(n -> n.matches("end: replicas of " + where + "macrodb-2 converged in [0-9.]+ s: caught up in [0-9.]+ s,"
                + " 2 checksums in [0-9.]+ s")), notes.toString());
        assertTrue(notes.contains(notes.stream().filter(n -> n.matches("end: convergence checks of 1 configuration, side by side, in [0-9.]+ s"))
                .findFirst().orElse("none")), notes.toString());
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("end: closed " + where + "standalone in ")), notes.toString());
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("end: closed " + where + "macrodb-2 in ")), notes.toString());
        assertTrue(notes.stream().anyMatch(n -> n.startsWith("end: checks and closing of h2 micro " + mix.name() + " took ")), notes.toString());
    }

    @Test
    void theShutdownHookWritesReadablePartialResults(@TempDir Path dir) throws Exception {
        BenchResults r = Fixtures.results(2);
        PartialResults partial = new PartialResults(dir, Environment.capture("test"), Map.of("repetitions", 2), log);
        partial.cutOff(); // nothing run yet: nothing to write
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
        partial.progress(r);
        for (String f : List.of("results.json", "runs.csv", "points.csv", "peaks.csv", "summary.md")) Files.delete(dir.resolve(f));
        partial.cutOff();

        ResultsReader.Stored s = ResultsReader.read(dir);
        assertEquals(r.runs(), s.results().runs());
        assertEquals(r.points(), s.results().points());
        assertEquals(r.peaks(), s.results().peaks());
        assertEquals(Map.of("repetitions", 2), s.plan());
        assertTrue(s.isPartial());
        assertEquals("cut off", s.partial().get("state"));
        BenchResults.Check last = s.results().checks().get(s.results().checks().size() - 1);
        assertEquals("all runs done and checked", last.what());
        assertFalse(last.passed());
        assertEquals("partial results (cut off): 12 of ? runs done, 1 checks made", last.detail());
        JsonNode json = JSON.readTree(dir.resolve("results.json").toFile());
        assertEquals("cut off", json.path("partial").path("state").asText());
        assertEquals(12, json.path("partial").path("runsDone").asInt());
        assertEquals(r.runs().size() + 1, lines(dir.resolve("runs.csv")).size());
        assertEquals(r.points().size() + 1, lines(dir.resolve("points.csv")).size());
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("**FAILED**: all runs done and checked (partial results (cut off)"));
        assertTrue(logged.toString(StandardCharsets.UTF_8).startsWith("bench: stopped before the end; wrote the partial results (12 of ? runs)"),
                logged.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aCompletedRunsFilesAreNeverOverwritten(@TempDir Path dir) throws Exception {
        PartialResults partial = new PartialResults(dir, Environment.capture("test"), Map.of(), log);
        partial.progress(Fixtures.results(1));
        BenchResults done = Fixtures.results(2);
        partial.complete(() -> ResultsWriter.write(dir, done, Environment.capture("test"), Map.of(), (x, y) -> List.of()));
        byte[] json = Files.readAllBytes(dir.resolve("results.json")), runs = Files.readAllBytes(dir.resolve("runs.csv"));

        partial.progress(Fixtures.results(3)); // a late listener call
        partial.cutOff();                      // SIGTERM after the end
        assertArrayEquals(json, Files.readAllBytes(dir.resolve("results.json")));
        assertArrayEquals(runs, Files.readAllBytes(dir.resolve("runs.csv")));
        assertTrue(JSON.readTree(json).path("partial").isMissingNode(), "a finished run's results.json is not marked partial");
        assertEquals(done, ResultsReader.read(dir).results());
        assertFalse(ResultsReader.read(dir).isPartial());
    }

    @Test
    void theHookWaitsForTheFinalWriteInsteadOfRacingIt(@TempDir Path dir) throws Exception {
        PartialResults partial = new PartialResults(dir, Environment.capture("test"), Map.of(), log);
        partial.progress(Fixtures.results(1));
        java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
        Thread hook = new Thread(() -> {
            try {
                writing.await();
            } catch (InterruptedException e) {
                return;
            }
            partial.cutOff();
        });
        hook.start();
        partial.complete(() -> {
            writing.countDown();
            try {
                Thread.sleep(300); // the hook arrives while the final results are being written
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return ResultsWriter.write(dir, Fixtures.results(2), Environment.capture("test"), Map.of(), (x, y) -> List.of());
        });
        hook.join(5_000);
        assertFalse(hook.isAlive());
        assertTrue(JSON.readTree(dir.resolve("results.json").toFile()).path("partial").isMissingNode());
        assertEquals(Fixtures.results(2), ResultsReader.read(dir).results());
        assertEquals("", logged.toString(StandardCharsets.UTF_8));
    }
}
