package io.macrodb.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@code results.json} that {@link ResultsWriter} wrote back into {@link BenchResults}, so
 * that its tables and charts can be drawn again elsewhere ({@code macrodb bench report}). The
 * points and peaks are read as they were stored, not derived again: the tables show what the run
 * showed. Files from before a field existed read with that field as "not measured" (NaN, or no
 * catch-up to report); fields this version does not know are ignored. A partial results.json (a
 * run stopped before its end, see {@link PartialResults}) reads like a finished one.
 */
public final class ResultsReader {
    private ResultsReader() {}

    /**
     * What a results folder holds: the results, the machine and command, the plan as written, and,
     * for a run that had not finished ({@link PartialResults}: results written as it went, or when it
     * was stopped), how far it got ({@code state}, {@code runsDone}, {@code runsPlanned}, ...; null for
     * a finished run's results).
     */
    public record Stored(BenchResults results, Environment environment, Map<String, Object> plan, Map<String, Object> partial) {
        public boolean isPartial() { return partial != null; }
    }

    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /**
     * @throws NoSuchFileException when {@code dir/results.json} does not exist
     * @throws IOException when it cannot be read or is not a benchmark's results
     */
    public static Stored read(Path dir) throws IOException {
        Path file = dir.resolve("results.json");
        if (!Files.isRegularFile(file)) throw new NoSuchFileException(file.toString(), null, "no results.json there");
        JsonNode root = JSON.readTree(file.toFile());
        for (String field : List.of("runs", "points", "peaks", "checks")) {
            if (root == null || !root.path(field).isArray()) throw new IOException(file + ": not a benchmark's results (no \"" + field + "\" list)");
        }
        for (JsonNode run : root.get("runs")) defaults((ObjectNode) run, Map.of("catchUpMs", "NaN", "caughtUp", true, "serverCpuUsPerTx", "NaN"));
        for (JsonNode point : root.get("points")) {
            defaults((ObjectNode) point, Map.of("catchUpMedianMs", "NaN", "catchUpMaxMs", "NaN", "notCaughtUp", 0));
        }
        try {
            BenchResults r = new BenchResults(
                    JSON.convertValue(root.get("runs"), new TypeReference<List<RunResult>>() {}),
                    JSON.convertValue(root.get("points"), new TypeReference<List<PointSummary>>() {}),
                    JSON.convertValue(root.get("peaks"), new TypeReference<List<PeakSummary>>() {}),
                    JSON.convertValue(root.get("checks"), new TypeReference<List<BenchResults.Check>>() {}));
            Environment env = root.hasNonNull("environment") ? JSON.convertValue(root.get("environment"), Environment.class) : null;
            Map<String, Object> plan = root.hasNonNull("plan") ? JSON.convertValue(root.get("plan"), new TypeReference<Map<String, Object>>() {})
                    : Map.of();
            Map<String, Object> partial = root.hasNonNull("partial")
                    ? JSON.convertValue(root.get("partial"), new TypeReference<Map<String, Object>>() {}) : null;
            return new Stored(r, env, plan, partial);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": not a benchmark's results: " + e.getMessage(), e);
        }
    }

    private static void defaults(ObjectNode node, Map<String, Object> values) {
        values.forEach((k, v) -> {
            if (!node.has(k)) node.set(k, JSON.valueToTree(v));
        });
    }
}
