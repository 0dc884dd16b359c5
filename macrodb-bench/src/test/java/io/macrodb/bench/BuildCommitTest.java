package io.macrodb.bench;

import io.macrodb.jdbc.MacroDriver;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The commits recorded in results.json are those the builds recorded, read through the classpath. */
class BuildCommitTest {

    @Test
    void aRecordedCommitIsReadFromTheClassesPackage() {
        BuildCommit b = BuildCommit.of(io.macrodb.bench.buildinfo.recorded.Anchor.class);
        assertEquals("0123456789abcdef0123456789abcdef01234567", b.commit());
        assertTrue(Files.isDirectory(Path.of(b.classes())), "loaded from target/test-classes: " + b.classes());
    }

    @Test
    void noneOrAnUnfilteredOneIsUnknown() {
        assertEquals(BuildCommit.UNKNOWN, BuildCommit.of(io.macrodb.bench.buildinfo.unfiltered.Anchor.class).commit());
        assertEquals(BuildCommit.UNKNOWN, BuildCommit.of(Test.class).commit(), "a jar without build-commit.properties");
        assertEquals(BuildCommit.UNKNOWN, BuildCommit.of(String.class).commit());
        assertEquals(BuildCommit.UNKNOWN, BuildCommit.of(String.class).classes(), "the JDK's classes have no code source");
    }

    /** This module's build wrote the commit of the checkout it was built in (a worktree's own, not its main checkout's). */
    @Test
    void theBenchmarkBuildRecordedThisCheckoutsCommit() throws Exception {
        String head = gitHead();
        BuildCommit bench = BuildCommit.of(Environment.class);
        assertEquals(head == null ? BuildCommit.UNKNOWN : head, bench.commit(), "build-commit.properties in target/classes");
        Environment env = Environment.capture("test");
        assertEquals(bench, env.benchBuild());
        assertEquals(MacroDriver.VERSION, env.driverVersion());
        assertNotEquals(null, env.driverBuild().commit(), "the driver's commit, or unknown where its build records none");
        assertTrue(env.driverBuild().classes().contains("macrodb-driver"), env.driverBuild().classes());
    }

    /** HEAD of the checkout this module is in (surefire runs in the module's folder), or null without git. */
    private static String gitHead() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && out.matches("[0-9a-f]{40}") ? out : null;
        } catch (Exception e) {
            return null;
        }
    }
}
