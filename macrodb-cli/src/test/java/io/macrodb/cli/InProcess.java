package io.macrodb.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the {@code macrodb} command in this JVM, its output and errors into the given writers. */
final class InProcess {
    private InProcess() {}

    /** @return the command's exit status */
    static int macrodb(StringWriter out, StringWriter err, String... args) {
        CommandLine cl = MacroDbCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }
}
