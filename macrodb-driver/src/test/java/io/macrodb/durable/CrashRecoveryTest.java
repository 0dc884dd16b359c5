package io.macrodb.durable;

import io.macrodb.testing.CrashWorker;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Tag;

import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kills a real child JVM ({@code kill -9}: {@link Process#destroyForcibly()}) in the middle of a
 * write load, again and again on the same log directory. After each kill the log is recovered in
 * this JVM and checked: every transaction whose commit() returned in the child is there, both of
 * its rows; no transaction is there in part; nothing is there that the child never tried; the
 * replicas converge. {@code -Dmacrodb.crashes=N} runs a longer soak.
 */
@Tag("slow") // left out of the fast test command (README); CI runs it
class CrashRecoveryTest {

    @ParameterizedTest(name = "{0} {1} fsync={2}")
    @CsvSource({"h2,row,commit", "hsqldb,row,commit", "sqlite,row,commit", "h2,statement,commit", "h2,row,5ms"})
    void everyAcknowledgedCommitSurvivesKillNine(String engine, String propagation, String fsync, @TempDir Path dir) throws Exception {
        int crashes = Integer.getInteger("macrodb.crashes", 4);
        long seed = TestDb.seed("crash " + engine + " " + propagation + " fsync=" + fsync);
        Random rnd = new Random(seed);
        String url = "jdbc:macrodb:" + engine + ":mem:crash?replicas=2&propagation=" + propagation
                + "&durability=log:" + dir + "&fsync=" + fsync + "&snapshotEvery=2000";
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Set<Long> acknowledged = new HashSet<>();
        long maxTried = -1;
        for (int run = 0; run < crashes; run++) {
            long first = run * 1_000_000L;
            // stderr (the driver's log lines) goes to a file: interleaved with stdout it could cut an ACK or TRY line
            Path journal = dir.resolve("child-" + run + ".journal");
            Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), CrashWorker.class.getName(), url,
                    Long.toString(first), journal.toString())
                    .redirectOutput(dir.resolve("child-" + run + ".out").toFile())
                    .redirectError(dir.resolve("child-" + run + ".err").toFile()).start();
            // Kill at a random point of the load, drawn in acknowledged commits rather than in time, so that a slow
            // machine kills as late in the work as a fast one and the seed replays it (before: 100 to 500 ms after the
            // 50th, which was 127 to 1,602 commits on this project's 2-core machine). 60 s is only a hang guard.
            long killAt = 50 + rnd.nextInt(600);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long seen;
            while ((seen = countAcks(journal)) < killAt && p.isAlive()) {
                if (System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    fail("hang guard: the child acknowledged " + seen + " of the " + killAt + " commits to kill it at in 60 s: "
                            + errors(dir, run));
                }
                Thread.sleep(5);
            }
            p.destroyForcibly(); // SIGKILL: no shutdown hook, no flush
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            Set<Long> acks = new HashSet<>();
            long tried = -1;
            for (String line : Files.readAllLines(journal, StandardCharsets.UTF_8)) {
                if (line.matches("ACK \\d+")) acks.add(Long.parseLong(line.substring(4)));
                else if (line.matches("TRY \\d+")) tried = Math.max(tried, Long.parseLong(line.substring(4)));
            }
            int thisRun = run;
            assertTrue(acks.size() >= killAt, () -> "the child acknowledged " + acks.size() + " commits, not the " + killAt
                    + " to kill it at (it stopped by itself?): " + errors(dir, thisRun));
            acknowledged.addAll(acks);
            maxTried = Math.max(maxTried, tried);

            try (Connection c = TestDb.open(url)) {
                Set<Long> inA = ids(c, "a");
                Set<Long> inB = ids(c, "b");
                assertEquals(inA, inB, "a transaction was recovered in part");
                Set<Long> missing = new HashSet<>(acknowledged);
                missing.removeAll(inA);
                assertTrue(missing.isEmpty(), () -> "acknowledged commits lost after crash: " + missing.stream().limit(10).toList());
                for (long id : inA) {
                    long r = id / 1_000_000L;
                    assertTrue(r <= run, "an id no child wrote: " + id);
                }
                long last = maxTried;
                assertTrue(inA.stream().filter(id -> id / 1_000_000L == thisRun).allMatch(id -> id <= last),
                        () -> "a row beyond what the child tried (" + last + "): "
                                + inA.stream().filter(id -> id > last).sorted().limit(5).toList());
                TestDb.assertConverged(c);
                System.out.println("crash " + run + ": killed at " + killAt + ", " + acks.size() + " acknowledged, " + inA.size() + " recovered in all; "
                        + TestDb.macro(c).admin().durabilityStatus());
            }
        }
    }

    private static long countAcks(Path journal) throws java.io.IOException {
        if (!Files.exists(journal)) return 0;
        return Files.readAllLines(journal, StandardCharsets.UTF_8).stream().filter(l -> l.startsWith("ACK ")).count();
    }

    private static String errors(Path dir, int run) {
        try {
            return Files.readString(dir.resolve("child-" + run + ".err"));
        } catch (java.io.IOException e) {
            return "(no error output)";
        }
    }

    private static Set<Long> ids(Connection c, String table) throws Exception {
        Set<Long> out = new HashSet<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM " + table)) {
            while (rs.next()) out.add(rs.getLong(1));
        }
        return out;
    }
}
