package io.macrodb.jdbc;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The committed Delegating* classes are exactly what {@link DelegateGenerator} writes. With
 * {@code -Dmacrodb.regenerate=true} it writes them instead (see {@link DelegateGenerator#REGENERATE_COMMAND}).
 */
class DelegatingClassesAreGeneratedTest {

    /** The package folder, from the module folder (where Maven runs tests) or from the repository root. */
    private static Path folder() {
        Path fromModule = Paths.get("src/main/java/io/macrodb/jdbc");
        return Files.isDirectory(fromModule) ? fromModule : Paths.get(DelegateGenerator.SOURCE_FOLDER);
    }

    @Test
    void committedFilesAreTheGeneratorsOutput() throws IOException {
        Path folder = folder();
        assertTrue(Files.isDirectory(folder), "no source folder " + folder.toAbsolutePath());
        if (Boolean.getBoolean("macrodb.regenerate")) {
            for (Path p : DelegateGenerator.write(folder)) System.out.println("DelegateGenerator wrote " + p);
        }
        List<String> stale = new ArrayList<>();
        String firstDifference = null;
        for (Map.Entry<String, String> f : DelegateGenerator.generateAll().entrySet()) {
            Path file = folder.resolve(f.getKey());
            String committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
            if (f.getValue().equals(committed)) continue;
            stale.add(f.getKey());
            if (firstDifference == null) firstDifference = f.getKey() + ": " + firstDifference(f.getValue(), committed);
        }
        if (!stale.isEmpty()) {
            fail(String.join(", ", stale) + " differ from what DelegateGenerator writes (they must not be edited by hand; "
                    + "change DelegateGenerator instead). First difference: " + firstDifference
                    + "\nTo regenerate them, run from the repository root:\n  " + DelegateGenerator.REGENERATE_COMMAND);
        }
    }

    /** Deterministic: generating twice gives the same text. */
    @Test
    void generatingTwiceGivesTheSameText() {
        assertEquals(DelegateGenerator.generateAll(), DelegateGenerator.generateAll());
    }

    private static String firstDifference(String generated, String committed) {
        if (committed == null) return "the file is missing";
        String[] g = generated.split("\n", -1);
        String[] c = committed.split("\n", -1);
        for (int i = 0; i < Math.max(g.length, c.length); i++) {
            String gl = i < g.length ? g[i] : "<end of file>";
            String cl = i < c.length ? c[i] : "<end of file>";
            if (!gl.equals(cl)) return "line " + (i + 1) + ": generated [" + gl + "], committed [" + cl + "]";
        }
        return "line endings";
    }
}
