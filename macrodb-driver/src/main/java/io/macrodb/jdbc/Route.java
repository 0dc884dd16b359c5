package io.macrodb.jdbc;

import java.util.Locale;

/**
 * Where a transaction began, and why: the routing decisions {@link MacroAdmin#routingCounts()}
 * counts (one per transaction, plus {@link #MOVED_TO_PRIMARY} when an undeclared transaction moves
 * at its first write). {@link #target()} and {@link #reason()} are the tags a metrics registry uses.
 */
public enum Route {
    /** A read-only transaction on a secondary that was fresh enough at once. */
    SECONDARY_FRESH("fresh"),
    /** A read-only transaction on a secondary after waiting (at most {@code readWait}) for it to catch up. */
    SECONDARY_AFTER_WAIT("waited"),
    /** A read-only transaction on the primary after waiting the whole {@code readWait} for a secondary in vain. */
    PRIMARY_WAIT_TIMED_OUT("wait_timed_out"),
    /** A read-only transaction on the primary at once: no secondary could catch up within {@code readWait} (or it is 0). */
    PRIMARY_NO_WAIT("no_wait"),
    /**
     * A read-only transaction on the primary at once: no secondary was fresh enough, and the primary ran fewer
     * transactions than its share of the processors ({@code primaryReads=idle}).
     */
    PRIMARY_IDLE("primary_idle"),
    /** A read-only transaction on the primary: no secondary in the rotation ({@code replicas=1}, or all failed). */
    PRIMARY_NO_SECONDARY("no_secondary"),
    /** An update transaction: its first statement may write. */
    PRIMARY_UPDATE("update"),
    /** A transaction that never called {@code setReadOnly} and began with a read, with {@code optimisticReads=false}. */
    PRIMARY_OPTIMISTIC_OFF("optimistic_off"),
    /** Such a transaction whose first statement's shape routing has learned to start on the primary. */
    PRIMARY_LEARNED("learned"),
    /** Such a transaction whose first result cannot be remembered for a re-check (scrollable, updatable, generated keys). */
    PRIMARY_UNTRACKABLE("untrackable"),
    /**
     * A transaction that began with a read of the engine's catalog ({@code INFORMATION_SCHEMA}...), which only the
     * primary has exactly: the application's triggers, sequence positions, generated names.
     */
    PRIMARY_CATALOG("catalog"),
    /** A schema change (DDL and session statements that replicate), always on the primary. */
    PRIMARY_SCHEMA_CHANGE("schema_change"),
    /** An undeclared transaction that started on a secondary and moved to the primary at its first write. */
    MOVED_TO_PRIMARY("moved");

    private final String reason;

    Route(String reason) { this.reason = reason; }

    /** {@code "secondary"} or {@code "primary"}: where the transaction ran (a moved one ends on the primary). */
    public String target() { return onSecondary() ? "secondary" : "primary"; }

    /** A short lower-case name of the reason, e.g. {@code "fresh"}, {@code "update"}. */
    public String reason() { return reason; }

    public boolean onSecondary() { return this == SECONDARY_FRESH || this == SECONDARY_AFTER_WAIT; }

    @Override public String toString() { return name().toLowerCase(Locale.ROOT); }
}
