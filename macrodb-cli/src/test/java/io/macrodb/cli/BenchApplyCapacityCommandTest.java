package io.macrodb.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.macrodb.cli.InProcess.macrodb;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code macrodb bench apply-capacity}, tiny: both engines, two apply thread counts, two client counts. */
class BenchApplyCapacityCommandTest {

    @Test
    void measuresApplyCapacityAgainstThePrimary(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "apply-capacity", "-e", "h2,hsqldb", "-t", "1,2", "-c", "1,2", "--scale", "0.01",
                "--warehouses", "2", "--jvm-warmup", "0.4", "--warmup", "0.2", "-d", "0.3", "-o", dir.toString());
        assertEquals(0, rc, out + "\n" + err);
        String o = out.toString();
        assertTrue(o.contains("Apply capacity of one secondary"), o);
        assertTrue(o.startsWith("macrodb bench apply-capacity -e h2,hsqldb "), o);
        assertTrue(o.contains("| hsqldb | 2 |"), o);
        List<String> csv = Files.readAllLines(dir.resolve("windows.csv"));
        assertEquals(1 + 2 * 2 * 2, csv.size(), String.join("\n", csv));
        for (String line : csv.subList(1, csv.size())) {
            String[] f = line.split(",");
            assertTrue(Long.parseLong(f[7]) > 0, "update commits > 0: " + line);
            assertTrue(Long.parseLong(f[15]) > 0, "records applied > 0: " + line);
            assertEquals("true", f[20], "caught up: " + line);
            assertTrue(Double.parseDouble(f[21]) > 0, "apply rate > 0: " + line);
            assertEquals("true", f[f.length - 1], "replicas equal after the last window: " + line);
        }
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("hsqldb,macrodb-2-applyThreads=2-readWait=0-admission=off,")), csv.toString());
        String json = Files.readString(dir.resolve("results.json"));
        assertTrue(json.contains("\"environment\"") && json.contains("\"parallelBatches\""), json);
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("Apply capacity / primary commit rate"));
    }

    /**
     * {@code -e postgresql}: a primary and a secondary on servers the benchmark starts (and stops at the end); the
     * secondary held still while paused and caught up after every window, the driver's default capture (decoding), and
     * the servers' CPU counted in the CPU figures. Skipped with the reason where the server binaries are missing (a
     * failure under -Dmacrodb.requirePostgres=true).
     */
    @Test
    void postgresqlSecondaryHeldStillThenCaughtUpWithTheServersCpuCounted(@TempDir Path dir) throws Exception {
        String reason = io.macrodb.bench.BenchEngine.POSTGRESQL.unavailableReason();
        if (reason != null) {
            if (Boolean.getBoolean("macrodb.requirePostgres")) org.junit.jupiter.api.Assertions.fail("macrodb.requirePostgres=true but " + reason);
            System.out.println("SKIPPED (PostgreSQL): " + reason);
            org.junit.jupiter.api.Assumptions.assumeTrue(false, reason);
        }
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "apply-capacity", "-e", "postgresql", "-t", "1,2", "-c", "2", "--scale", "0.01",
                "--warehouses", "1", "--jvm-warmup", "0.4", "--warmup", "0.2", "-d", "0.6", "-o", dir.toString());
        String o = out.toString(), all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        assertTrue(o.contains("postgresql: the benchmark starts its own servers from "), all);
        assertTrue(o.contains("| postgresql | 1 |") && o.contains("| postgresql | 2 |"), all);
        assertTrue(o.contains("| postgresql applyThreads \\ clients | 2 |"), all);
        assertTrue(o.contains("on postgresql also every process of the servers the benchmark started"), all);
        assertTrue(o.contains("- Capture: postgresql decoding."), all);
        assertTrue(o.contains("- Paused: in every window (2) the secondary was still at its version of the pause"), all);
        assertTrue(o.contains("- Converged: after the last window of every engine and applyThreads (2) the primary's and the secondary's"
                + " checksums were equal."), all);
        List<String> csv = Files.readAllLines(dir.resolve("windows.csv"));
        assertEquals(1 + 2, csv.size(), String.join("\n", csv));
        List<String> header = List.of(csv.get(0).split(","));
        double applyServers = 0;
        for (String line : csv.subList(1, csv.size())) {
            String[] f = line.split(",");
            java.util.function.Function<String, String> col = name -> f[header.indexOf(name)];
            assertEquals("postgresql", col.apply("engine"), line);
            assertTrue(Long.parseLong(col.apply("updateCommits")) > 0, "update commits > 0: " + line);
            long backlog = Long.parseLong(col.apply("backlogVersions"));
            assertTrue(backlog > 0, "a backlog: " + line);
            assertEquals(backlog, Long.parseLong(col.apply("appliedRecords")), "the secondary applied the whole backlog: " + line);
            assertEquals("true", col.apply("caughtUp"), "caught up: " + line);
            assertEquals("0", col.apply("pausedVersionsApplied"), "held still while paused: " + line);
            assertEquals("decoding", col.apply("capture"), line);
            assertEquals("true", col.apply("replicasEqual"), "the replicas' checksums after the last window of its K: " + line);
            assertTrue(Double.parseDouble(col.apply("applyRecordsPerSec")) > 0, "apply rate > 0: " + line);
            // the servers' part of the CPU figures: read (not NaN), and no more than the whole
            double primaryServers = Double.parseDouble(col.apply("primaryServerCpuUsPerUpdate"));
            assertTrue(primaryServers > 0 && primaryServers <= Double.parseDouble(col.apply("primaryCpuUsPerUpdate")), line);
            double servers = Double.parseDouble(col.apply("applyServerCpuUsPerRecord"));
            assertTrue(servers >= 0 && servers <= Double.parseDouble(col.apply("applyCpuUsPerRecord")), line);
            assertTrue(Double.parseDouble(col.apply("applySecondaryServerCpuUsPerRecord")) <= servers, line);
            applyServers += servers;
        }
        // 10 ms ticks per process: one small backlog's apply may read 0 on the servers, not every one
        assertTrue(applyServers > 0, "the secondary's server applied the backlogs: " + csv);
        assertEquals(0, io.macrodb.bench.BenchEngine.POSTGRESQL.serverCpuNanos(), "the servers are stopped at the end");
    }

    @Test
    void badOptionsAreUsageErrors(@TempDir Path dir) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        assertEquals(2, macrodb(out, err, "bench", "apply-capacity", "-t", "0", "-o", dir.toString()));
        assertEquals(2, macrodb(out, err, "bench", "apply-capacity", "-m", "bogus", "-o", dir.toString()));
        assertEquals(2, macrodb(out, err, "bench", "apply-capacity", "--options", "replicas=3", "-o", dir.toString()));
        // MacroDB applies Derby with one session per secondary: refused before anything is loaded, not after
        assertEquals(2, macrodb(out, err, "bench", "apply-capacity", "-e", "derby", "-t", "1,2", "-o", dir.toString()));
        assertTrue(err.toString().contains("derby"), err.toString());
    }
}
