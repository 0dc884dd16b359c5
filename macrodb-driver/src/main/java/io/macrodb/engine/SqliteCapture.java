package io.macrodb.engine;

import io.macrodb.sql.SqlState;

import java.sql.SQLException;

/**
 * The SQL function {@code macrodb_capture(schema, table, event, values...)} that MacroDB's capture
 * triggers call on a SQLite replica. SQLite's triggers are SQL only, but xerial's driver lets Java
 * define SQL functions, and SQLite runs a trigger, and so the function, in the thread that runs the
 * writing statement: so the row reaches {@link CaptureContext} exactly as an H2 or HSQLDB trigger's
 * does.
 *
 * <p>Event {@code I} passes the new row, {@code D} the old one, {@code U} the old row then the new
 * one, each with every column of the table in order, and then, where the table's shape replicates its
 * rowid ({@link io.macrodb.log.TableShape#rowidColumn()}: a rowid table whose key is not the rowid), the
 * row's rowid as one more column. In a table without a primary key the events are
 * {@code KI}, {@code KD} and {@code KU}, the row's rowid (old, then new) before the columns. {@code R}
 * ({@code KR} with the rowid first) passes a row that the statement's REPLACE may remove unseen. A SQLite value has a storage class, not the
 * column's declared type; it is captured as that class (INTEGER as {@code Integer} where it fits,
 * else {@code Long}, as the driver's {@code getObject} reads it back; REAL as {@code Double}; TEXT as
 * {@code String}; BLOB as {@code byte[]}, an empty one too), and binding it on a secondary stores the
 * same class again: the column's affinity already converted it on the primary.
 *
 * <p>The function exists only on the connections MacroDB opened (it is registered per connection):
 * a write through any other connection to a replicated file fails with "no such function".
 */
public final class SqliteCapture extends org.sqlite.Function {
    /** The function's name in SQL. */
    public static final String NAME = "macrodb_capture";
    /**
     * The event of a row a new row collides with on a unique index (see {@link SqliteEngine#installCapture}):
     * every column of it; {@code KR}, in a table without a key, its rowid first.
     */
    static final String REMOVABLE = "R";

    private static final int SQLITE_INTEGER = 1;
    private static final int SQLITE_FLOAT = 2;
    private static final int SQLITE_TEXT = 3;
    private static final int SQLITE_BLOB = 4;

    /** Makes the function known to one SQLite connection. */
    static void register(java.sql.Connection c) throws SQLException {
        org.sqlite.Function.create(c, NAME, new SqliteCapture());
    }

    @Override protected void xFunc() throws SQLException {
        int n = args();
        String schema = value_text(0);
        String table = value_text(1);
        String event = value_text(2);
        if (event.equals(SqliteEngine.NULL_KEY_EVENT)) {
            refuseNullKey(schema, table, value_text(3));
            result();
            return;
        }
        switch (event) {
            case REMOVABLE -> {
                CaptureContext.fireRemovable(schema, table, row(3, n - 3), null);
                result();
                return;
            }
            case "KR" -> {
                CaptureContext.fireRemovable(schema, table, row(4, n - 4), value_long(3));
                result();
                return;
            }
            case "KI" -> {
                CaptureContext.fire(schema, table, null, row(4, n - 4), null, value_long(3));
                result();
                return;
            }
            case "KD" -> {
                CaptureContext.fire(schema, table, row(4, n - 4), null, value_long(3), null);
                result();
                return;
            }
            case "KU" -> {
                int columns = (n - 5) / 2;
                CaptureContext.fire(schema, table, row(5, columns), row(5 + columns, columns), value_long(3), value_long(4));
                result();
                return;
            }
            default -> {
            }
        }
        int columns = event.equals("U") ? (n - 3) / 2 : n - 3;
        Object[] first = row(3, columns);
        Object[] oldRow = null;
        Object[] newRow = null;
        switch (event) {
            case "I" -> newRow = first;
            case "D" -> oldRow = first;
            default -> {
                oldRow = first;
                newRow = row(3 + columns, columns);
            }
        }
        CaptureContext.fire(schema, table, oldRow, newRow);
        result();
    }

    /**
     * A row whose primary key holds NULL (SQLite allows it in a rowid table's key that is not the rowid)
     * is refused before it is written: a secondary finds a row by its key, and {@code = NULL} finds
     * none. Applying the log never meets one, since none is ever captured.
     */
    private static void refuseNullKey(String schema, String table, String columns) throws SQLException {
        if (CaptureContext.current() == CaptureContext.APPLYING) return;
        SQLException e = new SQLException("MacroDB: a row of " + schema + "." + table + " with NULL in its primary key (" + columns
                + ") cannot be replicated: SQLite allows NULL in the key of a table with a rowid, but a secondary finds a row by"
                + " its key and NULL matches no row; declare the key columns NOT NULL", SqlState.STATEMENT_NOT_REPLICABLE.getState());
        CaptureContext.refuse(e);
        throw e;
    }

    private Object[] row(int from, int columns) throws SQLException {
        Object[] row = new Object[columns];
        for (int i = 0; i < columns; i++) row[i] = value(from + i);
        return row;
    }

    private Object value(int arg) throws SQLException {
        switch (value_type(arg)) {
            case SQLITE_INTEGER: {
                long v = value_long(arg);
                return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? (Object) (int) v : (Object) v;
            }
            case SQLITE_FLOAT:
                return value_double(arg);
            case SQLITE_TEXT:
                return value_text(arg);
            case SQLITE_BLOB: {
                byte[] b = value_blob(arg);
                return b == null ? new byte[0] : b; // SQLite hands a zero-length blob over as no pointer at all
            }
            default:
                return null;
        }
    }
}
