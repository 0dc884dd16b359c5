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
    void severalRepetitionsShowTheirSpreadAndNoNote() {
        BenchResults thrice = Fixtures.results(3);
        assertEquals(List.of(), Report.notes(thrice));
        for (List<String> row : Report.pointRows(thrice)) assertTrue(row.get(SPREAD).endsWith("%"), row.toString());
        PointSummary p = thrice.points().get(0);
        assertEquals(100 * (p.tpsMax() - p.tpsMin()) / p.tpsMedian(), p.spreadPct(), 1e-9);
    }
}
