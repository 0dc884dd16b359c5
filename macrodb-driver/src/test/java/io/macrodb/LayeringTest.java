package io.macrodb;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's layering (DESIGN.md §10, {@code docs/internals.md} §1), read from the bottom up:
 * nothing points back up. Each package may use only the packages below it:
 *
 * <pre>
 * log, sql      the ground floor: nothing of MacroDB's
 * durable       log                              (persists the log, beside it)
 * engine        log, sql                         (what each engine can do, its capture triggers)
 * replica       log, sql, engine, durable        (replicas, appliers, the commit order)
 * capture       log, sql, engine, replica        (what a transaction changed, as a record)
 * route         log, sql, engine, replica        (where a transaction runs)
 * jdbc          everything                       (the face)
 * </pre>
 *
 * The "never" rules this enforces: no package uses {@code jdbc}; {@code log} and {@code sql} use
 * nothing; {@code engine} never uses {@code capture}, {@code replica} or {@code durable}; {@code
 * replica} never uses {@code capture} or {@code route}. Every use counts: imports and names written
 * out in the code (comments and string literals are not code).
 */
class LayeringTest {
    private static final Path SOURCES = Path.of("src/main/java/io/macrodb");

    private static final Map<String, Set<String>> MAY_USE = Map.of(
            "log", Set.of(),
            "sql", Set.of(),
            "durable", Set.of("log"),
            "engine", Set.of("log", "sql"),
            "replica", Set.of("log", "sql", "engine", "durable"),
            "capture", Set.of("log", "sql", "engine", "replica"),
            "route", Set.of("log", "sql", "engine", "replica"),
            "jdbc", Set.of("log", "sql", "durable", "engine", "replica", "capture", "route"));

    private static final Pattern USE = Pattern.compile("\\bio\\.macrodb\\.([a-z]+)\\.");

    @Test void everyPackageUsesOnlyThePackagesBelowIt() throws IOException {
        assertTrue(Files.isDirectory(SOURCES), "run from the macrodb-driver module: " + SOURCES.toAbsolutePath());
        List<String> violations = new ArrayList<>();
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String pkg = SOURCES.relativize(f).getName(0).toString();
                packages.add(pkg);
                Set<String> allowed = MAY_USE.get(pkg);
                if (allowed == null) {
                    violations.add(f + ": package " + pkg + " has no place in the layering (add it to LayeringTest and DESIGN)");
                    continue;
                }
                String code = code(Files.readString(f, StandardCharsets.UTF_8));
                Matcher m = USE.matcher(code);
                Set<String> seen = new TreeSet<>();
                while (m.find()) {
                    String used = m.group(1);
                    if (!used.equals(pkg) && !allowed.contains(used) && seen.add(used)) {
                        violations.add(SOURCES.relativize(f) + " uses io.macrodb." + used + " (" + pkg + " may use " + allowed + ")");
                    }
                }
            }
        }
        assertEquals(MAY_USE.keySet(), packages, "every package of the driver is in the layering, and only those");
        assertEquals(List.of(), violations, "uses that point up the layering");
    }

    /** The self-check: the scanner sees uses in code and ignores them in comments and strings. */
    @Test void theScannerReadsCodeNotCommentsOrStrings() {
        String src = "import io.macrodb.jdbc.X; /* io.macrodb.route.Y */ // io.macrodb.capture.Z\n"
                + "String s = \"io.macrodb.durable.W\"; char c = '\"'; io.macrodb.engine.V v;";
        Matcher m = USE.matcher(code(src));
        List<String> found = new ArrayList<>();
        while (m.find()) found.add(m.group(1));
        assertEquals(List.of("jdbc", "engine"), found);
    }

    /** {@code source} with comments and string and character literals blanked out. */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') i++;
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (c == '"' || c == '\'') {
                if (c == '"' && source.startsWith("\"\"\"", i)) {
                    int end = source.indexOf("\"\"\"", i + 3);
                    i = end < 0 ? n : end + 3;
                } else {
                    i++;
                    while (i < n && source.charAt(i) != c) i += source.charAt(i) == '\\' ? 2 : 1;
                    i++;
                }
                out.append("\"\"");
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
