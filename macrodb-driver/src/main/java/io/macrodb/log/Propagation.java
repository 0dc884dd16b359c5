package io.macrodb.log;

/** How an update transaction is shipped to the secondaries (DESIGN.md §3). */
public enum Propagation {
    /** Net row changes captured by triggers on the primary; correct for any isolation. The default. */
    ROW,
    /** The transaction's write statements, made deterministic on the primary, replayed in commit order. */
    STATEMENT
}
