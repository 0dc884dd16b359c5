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

/** {@code macrodb bench report DIR} draws a finished run's tables and charts again from its results.json. */
class BenchReportCommandTest {

    @Test
    void reportRedrawsTheTablesAndChartsOfARun(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-w", "micro", "-m", "80-20,100-0", "--scale", "0.01", "-C", "standalone,macrodb:2,independent:2",
                "-c", "1,2", "--jvm-warmup", "0", "--warmup", "0", "-d", "0.2", "--repetitions", "2", "--no-progress", "-o", dir.toString());
        assertEquals(0, rc, out + "\n" + err);
        List<String> derived = List.of("summary.txt", "summary.md", "h2-micro-80-20.png", "h2-micro-100-0.png");
        String txt = Files.readString(dir.resolve("summary.txt")), md = Files.readString(dir.resolve("summary.md"));
        String json = Files.readString(dir.resolve("results.json")), runs = Files.readString(dir.resolve("runs.csv"));
        for (String f : derived) Files.delete(dir.resolve(f));

        StringWriter rout = new StringWriter(), rerr = new StringWriter();
        rc = macrodb(rout, rerr, "bench", "report", dir.toString());
        assertEquals(0, rc, rout + "\n" + rerr);
        for (String f : derived) assertTrue(Files.size(dir.resolve(f)) > 0, f + " not drawn again\n" + rout + rerr);
        assertEquals(txt, Files.readString(dir.resolve("summary.txt")), "the same tables");
        assertEquals(md, Files.readString(dir.resolve("summary.md")), "the same tables");
        assertEquals(json, Files.readString(dir.resolve("results.json")), "results.json untouched");
        assertEquals(runs, Files.readString(dir.resolve("runs.csv")), "the CSV untouched");
        // and printed as the run printed them
        String printed = out.toString();
        String tables = printed.substring(printed.indexOf("Peak to peak"), printed.indexOf("Wrote "))
                .replaceAll("(?m)^  end: .*\\R", ""); // the run's own timing of its end, which a report has not
        assertTrue(rout.toString().contains(tables), "report prints the run's tables\n" + rout);
        assertTrue(rout.toString().contains("Results of macrodb bench -w micro"), rout.toString());
        assertTrue(rout.toString().contains("and 2 charts."), rout.toString());
    }

    @Test
    void aFolderWithoutResultsIsAUsageError(@TempDir Path dir) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        assertEquals(2, macrodb(out, err, "bench", "report", dir.toString()));
        assertTrue(err.toString().contains("no results.json in " + dir), err.toString());
        assertEquals(2, macrodb(out, err, "bench", "report"), "DIR is required");
    }
}
