package io.macrodb.cli.bench;

import io.macrodb.bench.Environment;
import io.macrodb.bench.ResultsReader;
import io.macrodb.bench.ResultsWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code macrodb bench report <dir>}: draws a finished run's tables and charts again from its
 * results.json, on any machine: where the run's machine could not draw the charts (no fonts), or
 * after the tables changed. Prints the tables as the run did and rewrites summary.txt, summary.md
 * and the PNG charts; results.json and the CSV files are left as they are.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Draws the tables and charts of a finished 'macrodb bench' run again from DIR/results.json, on any machine:"
                + " prints the tables and rewrites summary.txt, summary.md and the PNG charts in DIR (results.json and the CSV"
                + " files are not touched).",
        footer = {"", "Exit status: 0 tables and charts written, 1 they could not be (the charts need fonts: fontconfig), 2 no results in DIR."})
public final class BenchReportCommand implements Callable<Integer> {
    @Spec private CommandSpec spec;

    @Parameters(paramLabel = "DIR", description = "A results folder of 'macrodb bench' (its --out): the one with results.json.")
    private Path dir;

    @Override public Integer call() throws IOException {
        ResultsReader.Stored stored;
        try {
            stored = ResultsReader.read(dir);
        } catch (NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), "no results.json in " + dir + " (give the folder a 'macrodb bench' run wrote)");
        }
        PrintWriter o = spec.commandLine().getOut();
        Environment env = stored.environment();
        String command = env != null && env.command() != null ? env.command() : "macrodb bench (command not recorded)";
        String text = BenchSummary.text(stored.results());
        if (env != null) {
            o.println("Results of " + command);
            o.println("run " + env.date() + " on " + env.host() + " (" + env.cores() + " cores, " + env.cpuModel() + ")");
            if (env.driverBuild() != null && env.benchBuild() != null) {
                o.println(BenchCommand.builds(env.driverVersion(), env.driverBuild(), env.benchBuild()));
            }
            o.println();
        }
        o.print(text);
        Files.writeString(dir.resolve("summary.txt"), BenchSummary.summaryTxt(command, text));
        ResultsWriter.writeSummaryMarkdown(dir, stored.results());
        ResultsWriter.Written w = ResultsWriter.drawCharts(dir, stored.results(), ResultsWriter.XCHART);
        if (w.chartsFailed()) {
            o.println("Wrote " + dir.resolve("summary.txt") + " and summary.md.");
            o.flush();
            PrintWriter err = spec.commandLine().getErr();
            err.println("report: the charts could not be drawn here either (" + w.chartFailure() + ");"
                    + " install fontconfig and a font (e.g. fontconfig and fonts-dejavu-core), or run it on another machine.");
            err.flush();
            return 1;
        }
        o.println("Wrote " + dir.resolve("summary.txt") + ", summary.md and " + w.charts().size() + " chart"
                + (w.charts().size() == 1 ? "" : "s") + ".");
        o.flush();
        return 0;
    }
}
