package io.macrodb.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code macrodb bench} on a machine where the charts cannot be drawn: the run is not lost. */
class BenchChartFailureTest {

    @Test
    void aRunWhoseChartsFailSucceedsWithAWarning(@TempDir Path dir) throws Exception {
        CommandLine cl = new CommandLine(new BenchCommand((d, r) -> {
            throw new InternalError("Fontconfig head is null");
        }));
        StringWriter out = new StringWriter(), err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute("-w", "micro", "-m", "80-20", "--scale", "0.01", "-C", "standalone,macrodb:2", "-c", "1",
                "--jvm-warmup", "0", "--warmup", "0", "-d", "0.2", "--repetitions", "1", "--no-progress", "-o", dir.toString());
        String all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        assertTrue(err.toString().contains("WARNING: the charts could not be drawn (java.lang.InternalError: Fontconfig head is null)"), all);
        assertTrue(err.toString().contains("macrodb bench report " + dir), all);
        assertTrue(out.toString().contains("and 0 charts."), all);
        for (String f : new String[] {"results.json", "runs.csv", "points.csv", "peaks.csv", "summary.md", "summary.txt"}) {
            assertTrue(Files.size(dir.resolve(f)) > 0, f + " missing or empty\n" + all);
        }
        assertFalse(Files.exists(dir.resolve("h2-micro-80-20.png")), all);
    }
}
