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

    /**
     * Per thread, how many times a context was entered: each statement MacroDB runs enters one, so a trigger's call can
     * tell which statement it belongs to ({@link #entered}).
     */
    private static final ThreadLocal<long[]> ENTERED = ThreadLocal.withInitial(() -> new long[1]);

    /** Makes {@code ctx} current and returns the previous context, to be restored with {@link #restore}. */
    public static CaptureContext enter(CaptureContext ctx) {
        ENTERED.get()[0]++;
        CaptureContext prev = CURRENT.get();
        CURRENT.set(ctx);
        return prev;
    }

    /**
     * How many times this thread has entered a context: a number that changes from one statement to the next, so that
     * what an engine's triggers put together over one statement's calls ({@link DerbyCapture}) is not carried into the
     * next one when the statement failed before its triggers were done.
     */
    static long entered() {
        return ENTERED.get()[0];
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
     * One changed row of a table without a primary key, with the engine's own identity of the row
     * within this database (SQLite's rowid; {@code null} on the side that has no row): a row
     * {@link #onRemovable} reported is then known again. Without a use for it, a plain {@link #onRow}.
     */
    public void onRow(String schema, String table, Object[] oldRow, Object[] newRow, Long oldRowid, Long newRowid) throws SQLException {
        onRow(schema, table, oldRow, newRow);
    }

    /**
     * A row the statement now running may remove without any trigger seeing it: SQLite's REPLACE
     * conflict resolution deletes the rows a new row collides with and, with {@code recursive_triggers}
     * off (its default), fires no delete trigger for them. Reported (every column, and for a table
     * without a key its rowid) before the new row is written, for every row it collides with on a
     * unique index; whether the row is gone is settled from the table itself at commit. Nothing to do
     * where no changes are recorded.
     */
    public void onRemovable(String schema, String table, Object[] row, Long rowid) throws SQLException {
    }

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
        try {
            context(schema, table).onRow(schema, table, oldRow, newRow);
        } catch (SQLException e) {
            REFUSAL.set(e);
            throw e;
        }
    }

    /** {@link #fire} for a table without a key whose rows the engine knows by a rowid. */
    static void fire(String schema, String table, Object[] oldRow, Object[] newRow, Long oldRowid, Long newRowid) throws SQLException {
        try {
            context(schema, table).onRow(schema, table, oldRow, newRow, oldRowid, newRowid);
        } catch (SQLException e) {
            REFUSAL.set(e);
            throw e;
        }
    }

    /** Called by triggers: a row the statement may remove unseen ({@link #onRemovable}). */
    static void fireRemovable(String schema, String table, Object[] row, Long rowid) throws SQLException {
        try {
            context(schema, table).onRemovable(schema, table, row, rowid);
        } catch (SQLException e) {
            REFUSAL.set(e);
            throw e;
        }
    }

    private static CaptureContext context(String schema, String table) throws SQLException {
        CaptureContext ctx = CURRENT.get();
        if (ctx == null) {
            throw new SQLException("MacroDB: " + schema + "." + table + " was changed outside MacroDB; every write to a"
                    + " replicated database must go through its jdbc:macrodb: URL", SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
        }
        return ctx;
    }
}
