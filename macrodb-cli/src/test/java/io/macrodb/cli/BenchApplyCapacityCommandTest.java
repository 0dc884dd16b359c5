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
        }
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("hsqldb,macrodb-2-applyThreads=2-readWait=0-admission=off,")), csv.toString());
        String json = Files.readString(dir.resolve("results.json"));
        assertTrue(json.contains("\"environment\"") && json.contains("\"parallelBatches\""), json);
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("Apply capacity / primary commit rate"));
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
