package io.macrodb.engine;

import io.macrodb.sql.SqlState;

import java.sql.SQLException;

/**
 * What the thread running a statement is doing, as MacroDB's capture triggers see it. Triggers fire
 * synchronously in the thread that executes the statement (H2 always; HSQLDB with {@code QUEUE 0}),
 * so a thread-local is how a trigger finds the transaction it belongs to.
 *
 * <p>A trigger that fires with no context means something wrote to a replica behind MacroDB's back
 * (another connection to the primary's URL, an engine function); it fails the statement rather than
 * letting the replicas diverge silently.
 */
public abstract class CaptureContext {
    private static final ThreadLocal<CaptureContext> CURRENT = new ThreadLocal<>();
    /** The last refusal raised by a trigger in this thread, kept because engines may rewrap it. */
    private static final ThreadLocal<SQLException> REFUSAL = new ThreadLocal<>();

    /** Applying the log on a secondary: the rows are already accounted for, ignore them. */
    public static final CaptureContext APPLYING = new CaptureContext() {
        @Override public void onRow(String schema, String table, Object[] oldRow, Object[] newRow) {
        }
    };

    /** A read-only transaction on a secondary: any write is refused. */
    public static final CaptureContext READ_ONLY = new CaptureContext() {
        @Override public void onRow(String schema, String table, Object[] oldRow, Object[] newRow) throws SQLException {
            throw new SQLException("MacroDB: a read-only transaction tried to change " + schema + "." + table
                    + "; run the write with setReadOnly(false) so that it goes to the primary", SqlState.READ_ONLY_SQL_TRANSACTION.getState());
        }
    };

    public static CaptureContext current() { return CURRENT.get(); }

    /** Makes {@code ctx} current and returns the previous context, to be restored with {@link #restore}. */
    public static CaptureContext enter(CaptureContext ctx) {
        CaptureContext prev = CURRENT.get();
        CURRENT.set(ctx);
        return prev;
    }

    public static void restore(CaptureContext prev) {
        // set(null) rather than remove(): the thread's entry stays, so the next statement's enter()
        // finds it instead of creating it again (and sweeping the thread's table) every time
        CURRENT.set(prev);
    }

    /**
     * One changed row. {@code oldRow} is null for an insert, {@code newRow} null for a delete; both
     * hold every column of the table in ordinal order.
     */
    public abstract void onRow(String schema, String table, Object[] oldRow, Object[] newRow) throws SQLException;

    /**
     * The refusal a capture trigger raised in this thread since the last call, or null. The engine
     * reports a trigger's exception in its own words (HSQLDB: "General error"); this is the exception
     * with MacroDB's SQLState and message that the application should see instead.
     */
    public static SQLException takeRefusal() {
        SQLException e = REFUSAL.get();
        if (e != null) REFUSAL.remove();
        return e;
    }

    /** Records a refusal that a trigger raises itself (not through {@link #fire}), for {@link #takeRefusal}. */
    static void refuse(SQLException e) {
        REFUSAL.set(e);
    }

    /** Called by triggers: routes the row to the current context or fails the statement. */
    static void fire(String schema, String table, Object[] oldRow, Object[] newRow) throws SQLException {
        CaptureContext ctx = CURRENT.get();
        try {
            if (ctx == null) {
                throw new SQLException("MacroDB: " + schema + "." + table + " was changed outside MacroDB; every write to a"
                        + " replicated database must go through its jdbc:macrodb: URL", SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
            }
            ctx.onRow(schema, table, oldRow, newRow);
        } catch (SQLException e) {
            REFUSAL.set(e);
            throw e;
        }
    }
}
