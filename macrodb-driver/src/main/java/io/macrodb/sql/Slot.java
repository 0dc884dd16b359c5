package io.macrodb.sql;

/** What to bind to one '?' of a rewritten statement. */
public sealed interface Slot permits Slot.Param, Slot.Evaluate {
    /** @param originalIndex 1-based index of the caller's original parameter */
    record Param(int originalIndex) implements Slot {}

    /**
     * @param expression SQL expression text to evaluate once on the primary (by running
     *                   "SELECT expression" / "VALUES(expression)" in the same transaction)
     */
    record Evaluate(String expression) implements Slot {}
}
