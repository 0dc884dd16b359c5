package io.macrodb.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the summary tables say about repetitions. */
class ReportTest {
    private static final int SPREAD = Report.POINT_HEADER.indexOf("spread");

    @Test
    void aSingleRepetitionSaysItHasNoSpread() {
        BenchResults once = Fixtures.results(1);
        assertTrue(once.points().stream().allMatch(p -> Double.isNaN(p.spreadPct())), "no fake 0% spread in the CSV/JSON");
        for (List<String> row : Report.pointRows(once)) assertEquals(Report.ONE_REPETITION, row.get(SPREAD));
        assertEquals(List.of("1 repetition: no spread (every point ran once; --repetitions 3 or more shows how much the numbers"
                + " move from run to run)."), Report.notes(once));
    }

    @Test
    void catchUpIsShownForMacroDbAndItsFailuresNoted() {
        int col = Report.POINT_HEADER.indexOf("catch-up ms");
        BenchResults thrice = Fixtures.results(3); // macrodb-2 caught up in 2.5, 5.0, 7.5 ms
        for (List<String> row : Report.pointRows(thrice)) {
            assertEquals(row.get(3).equals("macrodb-2") ? "5.0/7.5" : "-", row.get(col), row.toString());
        }
        java.util.List<RunResult> runs = new java.util.ArrayList<>(thrice.runs());
        runs.replaceAll(r -> r.config().equals("macrodb-2") && r.clients() == 2 && r.repetition() == 3
                ? r.withCatchUp(120_000, false) : r);
        BenchResults late = BenchResults.of(runs, thrice.checks());
        assertEquals("5.0/120000.0 NOT 1x", Report.pointRows(late).get(3).get(col));
        assertEquals(List.of("secondaries of h2 micro 80-20 macrodb-2 c=2 did not catch up within 120 s after 1 of 3 repetitions."),
                Report.notes(late));
    }

    @Test
    void severalRepetitionsShowTheirSpreadAndNoNote() {
        BenchResults thrice = Fixtures.results(3);
        assertEquals(List.of(), Report.notes(thrice));
        for (List<String> row : Report.pointRows(thrice)) assertTrue(row.get(SPREAD).endsWith("%"), row.toString());
        PointSummary p = thrice.points().get(0);
        assertEquals(100 * (p.tpsMax() - p.tpsMin()) / p.tpsMedian(), p.spreadPct(), 1e-9);
    }
}
