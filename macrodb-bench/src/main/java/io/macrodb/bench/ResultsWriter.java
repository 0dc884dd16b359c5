package io.macrodb.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes a benchmark's results into a folder: {@code results.json} (environment, plan, every run,
 * points, peaks, checks), {@code runs.csv} (every repetition), {@code points.csv} (medians and
 * ratios at equal client counts), {@code peaks.csv} (peak-to-peak ratios), {@code summary.md}
 * (the tables) and one PNG per engine, workload and mix: throughput against clients, one line per
 * configuration, as in the papers' figures.
 */
public final class ResultsWriter {
    private ResultsWriter() {}

    /** Draws the charts of some results into a folder: XChart's PNGs ({@link #XCHART}), or a test's stand-in. */
    @FunctionalInterface
    public interface ChartWriter {
        /** @return the chart files written */
        List<Path> write(Path dir, BenchResults r) throws IOException;
    }

    /** The PNG charts, drawn with XChart (AWT, headless). */
    public static final ChartWriter XCHART = ResultsWriter::charts;

    /**
     * What was written: the chart files, or, when the charts could not be drawn, why
     * ({@code chartFailure}, e.g. "java.lang.InternalError: Fontconfig head is null"; null when they were).
     */
    public record Written(List<Path> charts, String chartFailure) {
        public boolean chartsFailed() { return chartFailure != null; }
    }

    /** Writes everything with XChart's charts; see {@link #write(Path, BenchResults, Environment, Map, ChartWriter)}. */
    public static Written write(Path dir, BenchResults r, Environment env, Map<String, Object> plan) throws IOException {
        return write(dir, r, env, plan, XCHART);
    }

    /**
     * Writes results.json, the CSV files and summary.md, then the charts. The charts come last and
     * cannot lose the run: a machine without fonts or fontconfig makes AWT fail with errors rather
     * than exceptions (see {@link #drawCharts}); the results are then complete but for the charts,
     * which {@code macrodb bench report} can draw from results.json on another machine.
     *
     * @throws IOException when results.json, a CSV file or summary.md cannot be written
     */
    public static Written write(Path dir, BenchResults r, Environment env, Map<String, Object> plan, ChartWriter charts)
            throws IOException {
        writeData(dir, r, env, plan, null);
        return drawCharts(dir, r, charts);
    }

    /**
     * Writes what a run that has not finished knows so far: results.json marked {@code "partial"}
     * (with {@code partial}'s entries: why, how many runs of how many), the CSV files and summary.md,
     * no charts (slow, and {@code macrodb bench report} draws them from results.json). Each file is
     * replaced whole (see {@link #replace}): a run killed while this writes leaves the previous
     * version of the file, never half of one. {@link ResultsReader} reads the partial results.json
     * like a finished one.
     *
     * @param partial what to say about the run's state, e.g. {@code runsDone}, {@code runsPlanned}, {@code reason}
     */
    public static void writePartial(Path dir, BenchResults r, Environment env, Map<String, Object> plan, Map<String, Object> partial)
            throws IOException {
        writeData(dir, r, env, plan, partial);
    }

    /** results.json (with a "partial" entry unless {@code partial} is null), the CSV files and summary.md, each replaced whole. */
    private static void writeData(Path dir, BenchResults r, Environment env, Map<String, Object> plan, Map<String, Object> partial)
            throws IOException {
        Files.createDirectories(dir);
        Map<String, Object> json = new LinkedHashMap<>();
        if (partial != null) json.put("partial", partial);
        json.put("environment", env);
        json.put("plan", plan);
        json.put("checks", r.checks());
        json.put("peaks", r.peaks());
        json.put("points", r.points());
        json.put("runs", r.runs());
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        replace(dir.resolve("results.json"), f -> mapper.writeValue(f.toFile(), json));
        csv(dir.resolve("runs.csv"), r.runs().stream().map(ResultsWriter::flat).toList());
        csv(dir.resolve("points.csv"), r.points().stream().map(ResultsWriter::flat).toList());
        csv(dir.resolve("peaks.csv"), r.peaks().stream().map(ResultsWriter::flat).toList());
        writeSummaryMarkdown(dir, r);
    }

    /** Writes a file's new content. */
    @FunctionalInterface
    interface FileWrite {
        void to(Path file) throws IOException;
    }

    /**
     * Replaces {@code file} whole: writes a temporary file beside it, then moves it over the file
     * (atomically where the file system can), so that a reader, or a process killed meanwhile,
     * sees the old content or the new, never part of it.
     */
    static void replace(Path file, FileWrite write) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        try {
            write.to(tmp);
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** summary.md: the tables, the notes, the legend and the checks, in Markdown. */
    public static void writeSummaryMarkdown(Path dir, BenchResults r) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("## Peak-to-peak\n\n").append(Report.markdown(Report.PEAK_HEADER, Report.peakRows(r)));
        md.append("\n## Every point (ratios at equal client counts)\n\n").append(Report.markdown(Report.POINT_HEADER, Report.pointRows(r)));
        for (String note : Report.notes(r)) md.append("\n**").append(note).append("**\n");
        md.append("\n").append(String.join("\n", Report.LEGEND)).append("\n\n## Checks\n\n");
        for (BenchResults.Check c : r.checks()) md.append("- ").append(c.passed() ? "passed" : "**FAILED**").append(": ").append(c.what())
                .append(c.passed() ? "" : " (" + c.detail() + ")").append('\n');
        replace(dir.resolve("summary.md"), f -> Files.writeString(f, md.toString()));
    }

    /**
     * Draws the charts, reporting a failure instead of throwing it. Besides exceptions (I/O, the
     * NullPointerException of "Fontconfig head is null", HeadlessException), AWT's font and
     * graphics set-up fails with errors: UnsatisfiedLinkError (no libfreetype/libfontmanager),
     * NoClassDefFoundError and ExceptionInInitializerError (a font or graphics class that failed to
     * initialise), InternalError and AWTError. Those are caught here, around chart drawing only;
     * VirtualMachineErrors other than InternalError (out of memory, stack overflow) are not.
     */
    public static Written drawCharts(Path dir, BenchResults r, ChartWriter charts) {
        try {
            return new Written(List.copyOf(charts.write(dir, r)), null);
        } catch (Exception | LinkageError | InternalError | java.awt.AWTError e) {
            return new Written(List.of(), e.toString());
        }
    }

    /** A record as one CSV row: maps become "key=value;key=value", lists "a;b". */
    private static Map<String, Object> flat(Record rec) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (var c : rec.getClass().getRecordComponents()) {
            try {
                Object v = c.getAccessor().invoke(rec);
                if (v instanceof Map<?, ?> m) v = m.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(";"));
                else if (v instanceof List<?> l) v = l.stream().map(String::valueOf).collect(Collectors.joining(";"));
                else if (v instanceof Double d && (d.isNaN() || d.isInfinite())) v = "";
                row.put(c.getName(), v);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return row;
    }

    private static void csv(Path file, List<Map<String, Object>> rows) throws IOException {
        if (rows.isEmpty()) {
            replace(file, f -> Files.writeString(f, ""));
            return;
        }
        CsvSchema.Builder b = CsvSchema.builder().setUseHeader(true);
        rows.get(0).keySet().forEach(b::addColumn);
        CsvSchema schema = b.build();
        replace(file, f -> new CsvMapper().writer(schema).writeValue(f.toFile(), rows));
    }

    private static final Color[] PALETTE = {new Color(0, 0, 0), new Color(0x1f, 0x77, 0xb4), new Color(0xff, 0x7f, 0x0e),
            new Color(0x2c, 0xa0, 0x2c), new Color(0xd6, 0x27, 0x28), new Color(0x94, 0x67, 0xbd), new Color(0x8c, 0x56, 0x4b),
            new Color(0xe3, 0x77, 0xc2), new Color(0x7f, 0x7f, 0x7f)};

    private static final org.knowm.xchart.style.markers.Marker[] MARKERS = {SeriesMarkers.SQUARE, SeriesMarkers.CIRCLE,
            SeriesMarkers.DIAMOND, SeriesMarkers.TRIANGLE_UP, SeriesMarkers.TRIANGLE_DOWN, SeriesMarkers.CROSS, SeriesMarkers.PLUS};

    private static List<Path> charts(Path dir, BenchResults r) throws IOException {
        // PNGs need no display: without this, a DISPLAY that cannot be reached fails the charts
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
        Map<List<String>, List<PointSummary>> byMix = r.points().stream().collect(Collectors.groupingBy(
                p -> List.of(p.engine(), p.workload(), p.mix()), LinkedHashMap::new, Collectors.toList()));
        List<Path> out = new ArrayList<>();
        for (var e : byMix.entrySet()) {
            String engine = e.getKey().get(0), workload = e.getKey().get(1), mix = e.getKey().get(2);
            XYChart chart = new XYChartBuilder().width(720).height(480)
                    .title(workload.toUpperCase() + " " + mix + " on " + engine.toUpperCase())
                    .xAxisTitle("clients").yAxisTitle("throughput (tx/s)").build();
            Styler s = chart.getStyler();
            chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
            chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
            chart.getStyler().setChartBackgroundColor(Color.WHITE);
            chart.getStyler().setPlotBackgroundColor(Color.WHITE);
            chart.getStyler().setPlotGridLinesColor(new Color(0xdd, 0xdd, 0xdd));
            chart.getStyler().setXAxisDecimalPattern("#");
            chart.getStyler().setYAxisMin(0.0);
            s.setChartTitleFont(s.getChartTitleFont().deriveFont(14f));
            Map<String, List<PointSummary>> byConfig = e.getValue().stream().collect(Collectors.groupingBy(PointSummary::config,
                    LinkedHashMap::new, Collectors.toList()));
            int i = 0;
            for (var c : byConfig.entrySet()) {
                double[] x = c.getValue().stream().mapToDouble(PointSummary::clients).toArray();
                double[] y = c.getValue().stream().mapToDouble(PointSummary::tpsMedian).toArray();
                XYSeries series = chart.addSeries(c.getKey(), x, y);
                series.setLineColor(PALETTE[i % PALETTE.length]);
                series.setMarkerColor(PALETTE[i % PALETTE.length]);
                series.setMarker(MARKERS[i % MARKERS.length]);
                if (c.getKey().startsWith("independent")) {
                    series.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
                }
                i++;
            }
            Path file = dir.resolve(engine + "-" + workload + "-" + mix.replaceAll("[^A-Za-z0-9.-]+", "_") + ".png");
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            out.add(file);
        }
        return out;
    }
}
