package io.macrodb.sql;

import java.util.List;

/**
 * Result of {@link StatementRewriter#rewrite(String)}.
 *
 * @param sql    rewritten text (identical to the input when nothing changed)
 * @param slots  one entry per '?' in the rewritten sql, in order
 * @param insert shape of the INSERT, non-null only for INSERT statements
 */
public record Rewrite(String sql, List<Slot> slots, InsertShape insert) {
    public Rewrite {
        slots = List.copyOf(slots);
    }

    /** True when the rewritten statement contains at least one value to evaluate on the primary. */
    public boolean hasEvaluations() {
        return slots.stream().anyMatch(s -> s instanceof Slot.Evaluate);
    }
}
