package io.macrodb.cli;

import io.macrodb.cli.demo.EmbeddedEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs {@code macrodb demo} in-process, briefly and small, and checks that it passes its own checks. */
class DemoCommandTest {

    /** What one in-process run of the command printed and returned. */
    private record Run(int exitCode, String out, String err) {
        @Override public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private static Run macrodb(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = MacroDbCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        return new Run(rc, out.toString(), err.toString());
    }

    @ParameterizedTest
    @EnumSource(EmbeddedEngine.class)
    void demoKeepsTheInvariantAndEndsWithEqualReplicas(EmbeddedEngine engine) {
        Run run = macrodb("demo", "--engine", engine.toString(), "--seconds", "1", "--replicas", "3",
                "--clients", "2", "--accounts", "50");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("Checksums: equal on all 3 replicas."), run::toString);
        assertTrue(run.out().contains("Invariant: all "), run::toString);
        assertTrue(run.out().contains("Freshness: all "), run::toString);
        assertTrue(run.out().contains("Result: all checks passed."), run::toString);
        assertTrue(run.out().contains("Routing decisions (MacroAdmin.routingCounts()"), run::toString);
        assertTrue(run.out().matches("(?s).*\\n  primary +update +[0-9,]+ .*"), run::toString);
        assertTrue(run.out().contains("  JMX         io.macrodb:type=ReplicaSet,name=\"jdbc:macrodb:"), run::toString);
        assertTrue(!run.out().contains("NOT registered"), run::toString);
    }

    @Test
    void anOptionOutOfRangeIsAUsageErrorThatNamesIt() {
        Run run = macrodb("demo", "--read-share", "101");
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().contains("--read-share must be between 0 and 100, was 101"), run::toString);
    }
}
