package io.macrodb.jmh;

import io.macrodb.log.Change;
import io.macrodb.log.RowChanges;
import io.macrodb.log.TableShape;

import java.util.ArrayList;
import java.util.List;

/** Change lists shaped like what a real commit ships. */
final class Fixtures {
    private Fixtures() {}

    static final TableShape ACCT = new TableShape("PUBLIC", "ACCT", List.of("ID", "BAL", "NOTE"),
            new int[] {0}, new int[] {0}, 3, false, null, List.of(), null, null);

    /**
     * What {@code TransactionChanges.build} returns for a single-row UPDATE: a mutable list holding
     * one {@link RowChanges} with one final image.
     */
    static List<Change> oneRowUpdate() {
        List<Object[]> updates = new ArrayList<>();
        updates.add(new Object[] {1, 100L, "note"});
        List<Change> out = new ArrayList<>();
        out.add(new RowChanges(ACCT, new ArrayList<>(), updates, new ArrayList<>()));
        return out;
    }
}
