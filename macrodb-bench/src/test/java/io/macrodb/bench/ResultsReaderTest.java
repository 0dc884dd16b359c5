package io.macrodb.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** results.json reads back into the results it was written from. */
class ResultsReaderTest {

    @Test
    void whatIsWrittenReadsBackTheSame(@TempDir Path dir) throws Exception {
        for (int reps : new int[] {1, 3}) {
            BenchResults r = Fixtures.results(reps);
            Environment env = Environment.capture("macrodb bench -w micro");
            Map<String, Object> plan = new LinkedHashMap<>();
            plan.put("repetitions", reps);
            plan.put("configs", List.of("standalone", "macrodb-2", "independent-2"));
            Path d = Files.createDirectories(dir.resolve("r" + reps));
            ResultsWriter.write(d, r, env, plan, (x, y) -> List.of());
            ResultsReader.Stored s = ResultsReader.read(d);
            // records compare their doubles with Double.compare: NaN equals NaN, every number exactly
            assertEquals(r, s.results());
            assertEquals(env, s.environment());
            assertEquals(plan, s.plan());
            assertEquals(Report.pointRows(r), Report.pointRows(s.results()));
            assertEquals(Report.peakRows(r), Report.peakRows(s.results()));
        }
    }

    @Test
    void notResultsAreRefused(@TempDir Path dir) throws Exception {
        assertThrows(NoSuchFileException.class, () -> ResultsReader.read(dir));
        Files.writeString(dir.resolve("results.json"), "{\"runs\": []}");
        IOException e = assertThrows(IOException.class, () -> ResultsReader.read(dir));
        assertTrue(e.getMessage().contains("not a benchmark's results (no \"points\" list)"), e.getMessage());
    }
}
