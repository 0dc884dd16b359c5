package io.macrodb.cli.bench;

import io.macrodb.bench.BenchResults;
import io.macrodb.bench.Report;
import io.macrodb.cli.TextTable;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * The summary {@code macrodb bench} prints and writes to summary.txt, from results alone, so that
 * {@code macrodb bench report} prints and writes the same from a results.json.
 */
final class BenchSummary {
    private BenchSummary() {}

    /** The tables, notes, legend and checks, as printed. */
    static String text(BenchResults res) {
        StringWriter text = new StringWriter();
        PrintWriter tw = new PrintWriter(text);
        tw.println("Peak to peak (each configuration at its best client count):");
        table(Report.PEAK_HEADER, Report.peakRows(res)).print(tw, "  ");
        tw.println();
        tw.println("Every point (ratios at equal client counts):");
        table(Report.POINT_HEADER, Report.pointRows(res)).print(tw, "  ");
        Report.notes(res).forEach(n -> tw.println("  " + n));
        tw.println();
        Report.LEGEND.forEach(l -> tw.println("  " + l));
        tw.println();
        for (BenchResults.Check c : res.checks()) {
            if (!c.passed()) tw.println("CHECK FAILED: " + c.what() + ": " + c.detail());
        }
        tw.println(res.passed() ? "All " + res.checks().size() + " checks passed." : "Some checks FAILED.");
        tw.flush();
        return text.toString();
    }

    /** summary.txt: the command, then the text. */
    static String summaryTxt(String command, String text) {
        return command + "\n\n" + text;
    }

    /** The warning printed when the charts could not be drawn: what failed, and how to draw them elsewhere. */
    static String chartWarning(Path dir, String failure) {
        return "WARNING: the charts could not be drawn (" + failure + "); every other file was written."
                + " Draw them where fonts work (fontconfig installed, or another machine): macrodb bench report " + dir;
    }

    private static TextTable table(List<String> header, List<List<String>> rows) {
        TextTable t = new TextTable(header.toArray(String[]::new));
        for (List<String> r : rows) t.row(r.toArray());
        return t;
    }
}
