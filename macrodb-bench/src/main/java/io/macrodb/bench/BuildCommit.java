package io.macrodb.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Properties;

/**
 * The git commit a module's classes were built from, as its build recorded it: a
 * {@code build-commit.properties} next to the classes of its package ({@code commit=<sha>}),
 * written by the build (buildnumber-maven-plugin and resource filtering; see macrodb-bench's
 * pom.xml). Read through the classpath, so that it works from the module's jar, from the shaded
 * CLI jar (which keeps every module's resources, not their manifests) and from target/classes.
 *
 * <p>{@code commit} is "unknown" when the build recorded none (built without git or outside a
 * repository, the file not filtered, or a module whose build does not write it); {@code classes}
 * is where the classes were loaded from (a jar or a folder), or "unknown".
 */
public record BuildCommit(String commit, String classes) {
    public static final String UNKNOWN = "unknown";
    static final String FILE = "build-commit.properties";

    /** The commit recorded for the module of {@code anchor}, from its package's build-commit.properties. */
    public static BuildCommit of(Class<?> anchor) {
        return new BuildCommit(readCommit(anchor), classesOf(anchor));
    }

    private static String readCommit(Class<?> anchor) {
        try (InputStream in = anchor.getResourceAsStream(FILE)) {
            if (in == null) return UNKNOWN;
            Properties p = new Properties();
            p.load(in);
            String c = p.getProperty("commit", "").trim();
            return c.matches("[0-9a-f]{7,64}") ? c : UNKNOWN; // "${macrodb.commit}" where nothing filtered it, "unknown"
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    private static String classesOf(Class<?> c) {
        try {
            CodeSource cs = c.getProtectionDomain().getCodeSource();
            URL url = cs == null ? null : cs.getLocation();
            return url == null ? UNKNOWN : "file".equals(url.getProtocol()) ? Path.of(url.toURI()).toString() : url.toString();
        } catch (Exception e) {
            return UNKNOWN;
        }
    }
}
