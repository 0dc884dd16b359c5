package io.macrodb.jdbc;

import io.macrodb.replica.Replica;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-statement routing log of one connection ({@code routingLog=true}): for each statement,
 * the replica it ran on and why, through {@link System.Logger} {@value #NAME} at {@code DEBUG} (so
 * {@code java.util.logging} at {@code FINE}, or whatever {@link System.LoggerFinder} the application
 * installs). A connection without the option has no RoutingLog at all: its statements pay one null
 * check.
 *
 * <p>A line reads {@code conn 3: secondary 2, began a read-only transaction (fresh; required v41,
 * waited 0 us): SELECT ...}, {@code conn 3: primary, in its update transaction: UPDATE ...}.
 */
final class RoutingLog {
    static final String NAME = "io.macrodb.routing";
    private static final System.Logger LOG = System.getLogger(NAME);
    private static final AtomicLong IDS = new AtomicLong();

    /** Numbers the connections that log, so that one connection's lines can be followed. */
    private final long id = IDS.incrementAndGet();

    /**
     * @param began    how the transaction this statement began started (null: it ran in the open one)
     * @param required the version the read-only transaction needed of a secondary (meaningful when
     *                 {@code began} is a read route)
     */
    void statement(Replica r, boolean update, Route began, long required, long waitNanos, String sql) {
        if (!LOG.isLoggable(Level.DEBUG)) return;
        StringBuilder b = new StringBuilder(160).append("conn ").append(id).append(": ").append(where(r)).append(", ");
        if (began == null) {
            b.append(update ? "in its update transaction" : "in its read transaction");
        } else if (began == Route.MOVED_TO_PRIMARY) {
            b.append("moved its transaction to the primary at its first write (reads re-checked)");
        } else if (update) {
            b.append("began an update transaction (").append(began.reason()).append(')');
        } else {
            b.append("began a read-only transaction (").append(began.reason());
            if (required > 0) b.append("; required v").append(required);
            b.append(", waited ").append(waitNanos / 1_000).append(" us)");
        }
        LOG.log(Level.DEBUG, b.append(": ").append(SqlStates.abbreviate(sql)).toString());
    }

    void schemaChange(Replica r, String sql) {
        if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "conn " + id + ": " + where(r) + ", schema change (" + Route.PRIMARY_SCHEMA_CHANGE.reason()
                    + "): " + SqlStates.abbreviate(sql));
        }
    }

    private static String where(Replica r) {
        return r.isPrimary() ? "primary (replica " + r.index() + ")" : "secondary " + r.index();
    }
}
