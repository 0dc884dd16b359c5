package io.macrodb.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The results are written whatever becomes of the charts. */
class ResultsWriterTest {
    private static final List<String> DATA = List.of("results.json", "runs.csv", "points.csv", "peaks.csv", "summary.md");

    @Test
    void chartsAreDrawn(@TempDir Path dir) throws Exception {
        ResultsWriter.Written w = ResultsWriter.write(dir, Fixtures.results(2), Environment.capture("test"), Map.of());
        assertFalse(w.chartsFailed(), w.chartFailure());
        assertEquals(List.of(dir.resolve("h2-micro-80-20.png")), w.charts());
        assertTrue(Files.size(w.charts().get(0)) > 0);
        for (String f : DATA) assertTrue(Files.size(dir.resolve(f)) > 0, f);
    }

    @Test
    void aChartFailureLosesNothingElse(@TempDir Path dir) throws Exception {
        // what AWT throws on machines without fonts or fontconfig: errors as well as exceptions
        List<Throwable> failures = List.of(new InternalError("Fontconfig head is null"), new NullPointerException("Fontconfig head is null"),
                new UnsatisfiedLinkError("libfontmanager.so: libfreetype.so.6: cannot open shared object file"),
                new NoClassDefFoundError("Could not initialize class sun.awt.X11FontManager"), new java.awt.AWTError("no toolkit"),
                new ExceptionInInitializerError("font configuration"));
        for (Throwable t : failures) {
            Path d = Files.createDirectories(dir.resolve(t.getClass().getSimpleName()));
            ResultsWriter.Written w = ResultsWriter.write(d, Fixtures.results(1), Environment.capture("test"), Map.of(), (x, r) -> {
                if (t instanceof Error e) throw e;
                throw (RuntimeException) t;
            });
            assertTrue(w.chartsFailed(), t.toString());
            assertEquals(t.toString(), w.chartFailure());
            assertEquals(List.of(), w.charts());
            for (String f : DATA) assertTrue(Files.size(d.resolve(f)) > 0, f + " after " + t);
        }
    }

    @Test
    void outOfMemoryIsNotAChartFailure(@TempDir Path dir) {
        assertThrows(OutOfMemoryError.class, () -> ResultsWriter.drawCharts(dir, Fixtures.results(1), (x, r) -> {
            throw new OutOfMemoryError("Java heap space");
        }));
    }
}
