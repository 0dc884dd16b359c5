package io.macrodb.engine;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The Java procedures MacroDB's Derby capture triggers call. A Derby procedure takes a fixed list of
 * typed parameters, so one procedure cannot take a whole row of any table; instead every column has
 * a trigger of its own per event ({@link DerbyEngine#installCapture}), which calls the procedure of
 * the column's type ({@code fireInt}, {@code fireString}...) with the column's ordinal, the table's
 * column count and the column's old and new values. This class puts the rows back together and
 * hands each complete row to {@link CaptureContext#fire}. A table whose key columns all pass as one
 * type has one trigger per event instead, which passes the whole key in one call ({@link #keys}).
 *
 * <p>Embedded Derby runs triggers and their procedures in the thread that executes the statement,
 * which is where MacroDB's capture context is. It fires the triggers of one statement after the
 * statement changed its rows, in creation order, each over the changed rows in the same order; so
 * the n-th call of column k belongs to the n-th row of the statement. Rows are assembled per column
 * counter, which is right whether Derby runs trigger by trigger or row by row, and per statement
 * ({@link CaptureContext#entered}): what a statement that failed halfway through its triggers left is dropped.
 *
 * <p>Values are handed over as a result set would give them: SMALLINT as Integer, dates and times as
 * java.time values. LOB and other columns that a trigger cannot pass travel as {@link #NOT_PASSED},
 * and MacroDB reads such a row back by its key at commit.
 */
public final class DerbyCapture {
    /** Stands for a column value the trigger could not pass: not a plain value, so the row is read back. */
    public static final Object NOT_PASSED = new Object() {
        @Override public String toString() { return "<not passed by the Derby trigger>"; }
    };

    /** The rows of one table and event being assembled in this thread, for one statement. */
    private static final class Assembly {
        final int columns;
        /** The statement it belongs to ({@link CaptureContext#entered}). */
        final long statement = CaptureContext.entered();
        final java.util.ArrayList<Object[]> olds = new java.util.ArrayList<>();
        final java.util.ArrayList<Object[]> news = new java.util.ArrayList<>();
        final java.util.ArrayList<int[]> filled = new java.util.ArrayList<>();
        final int[] next;
        int fired;

        Assembly(int columns) {
            this.columns = columns;
            this.next = new int[columns];
        }

        boolean started() {
            for (int i = 1; i < columns; i++) if (next[i] > 0) return true;
            return false;
        }
    }

    private static final ThreadLocal<Map<String, Assembly>> ASSEMBLIES = ThreadLocal.withInitial(HashMap::new);

    private DerbyCapture() {}

    static void column(String schema, String table, String event, int ordinal, int count, Object oldValue, Object newValue)
            throws SQLException {
        Object[] oldRow;
        Object[] newRow;
        if (count == 1) {
            oldRow = event.equals("I") ? null : new Object[] {oldValue};
            newRow = event.equals("D") ? null : new Object[] {newValue};
            fire(schema, table, oldRow, newRow);
            return;
        }
        Map<String, Assembly> all = ASSEMBLIES.get();
        String key = schema + '\u0000' + table + '\u0000' + event;
        Assembly a = all.get(key);
        if (a == null || a.columns != count || a.statement != CaptureContext.entered() || ordinal == 1 && a.started()) {
            // a new statement, or what a failed one left half assembled: a statement that failed while Derby fired its
            // triggers (its database dropped under it, an interrupt, a timeout) leaves rows of which only the first
            // columns' calls came, and the next statement's calls completed them with its own columns, shipping keys
            // of the failed statement's rows in place of its own (only "a.started()" caught it, and only once a later
            // column had come too)
            a = new Assembly(count);
            all.put(key, a);
        }
        int k = ordinal - 1;
        int row = a.next[k]++;
        if (row == a.olds.size()) {
            if (k != 0) {
                all.remove(key);
                throw new SQLException("MacroDB: Derby fired the capture trigger of column " + ordinal + " of " + schema + "." + table
                        + " before column 1's; reconnect so that MacroDB installs its triggers again", io.macrodb.sql.SqlState.INTERNAL_ERROR.getState());
            }
            a.olds.add(event.equals("I") ? null : new Object[count]);
            a.news.add(event.equals("D") ? null : new Object[count]);
            a.filled.add(new int[1]);
        }
        if (a.olds.get(row) != null) a.olds.get(row)[k] = oldValue;
        if (a.news.get(row) != null) a.news.get(row)[k] = newValue;
        if (++a.filled.get(row)[0] == count) {
            oldRow = a.olds.get(row);
            newRow = a.news.get(row);
            a.olds.set(row, null);
            a.news.set(row, null);
            a.fired++;
            if (a.fired == a.filled.size() && a.next[count - 1] == a.fired) all.remove(key);
            try {
                fire(schema, table, oldRow, newRow);
            } catch (SQLException e) {
                all.remove(key);
                throw e;
            }
        }
    }

    private static void fire(String schema, String table, Object[] oldRow, Object[] newRow) throws SQLException {
        CaptureContext.fire(schema, table, oldRow, newRow);
    }

    // One procedure per parameter type; Derby resolves each by its Java signature.

    public static void fireInt(String s, String t, String e, int k, int n, Integer o, Integer v) throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireBigint(String s, String t, String e, int k, int n, Long o, Long v) throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireDecimal(String s, String t, String e, int k, int n, java.math.BigDecimal o, java.math.BigDecimal v)
            throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireReal(String s, String t, String e, int k, int n, Float o, Float v) throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireDouble(String s, String t, String e, int k, int n, Double o, Double v) throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireBoolean(String s, String t, String e, int k, int n, Boolean o, Boolean v) throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireString(String s, String t, String e, int k, int n, String o, String v) throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireBytes(String s, String t, String e, int k, int n, byte[] o, byte[] v) throws SQLException {
        column(s, t, e, k, n, o, v);
    }

    public static void fireDate(String s, String t, String e, int k, int n, java.sql.Date o, java.sql.Date v) throws SQLException {
        column(s, t, e, k, n, o == null ? null : o.toLocalDate(), v == null ? null : v.toLocalDate());
    }

    public static void fireTime(String s, String t, String e, int k, int n, java.sql.Time o, java.sql.Time v) throws SQLException {
        column(s, t, e, k, n, o == null ? null : o.toLocalTime(), v == null ? null : v.toLocalTime());
    }

    public static void fireTimestamp(String s, String t, String e, int k, int n, java.sql.Timestamp o, java.sql.Timestamp v)
            throws SQLException {
        column(s, t, e, k, n, o == null ? null : o.toLocalDateTime(), v == null ? null : v.toLocalDateTime());
    }

    /**
     * An UPDATE or DELETE of a row of a table without a primary key: refused (SQLState 0AM01) except
     * while a secondary applies. Row propagation knows such a row by its values, and a Derby
     * secondary cannot delete one of several equal rows: Derby's DELETE takes no row limit.
     */
    public static void refuseKeyless(String s, String t) throws SQLException {
        CaptureContext ctx = CaptureContext.current();
        if (ctx == CaptureContext.APPLYING) return;
        if (ctx == null || ctx == CaptureContext.READ_ONLY) {
            CaptureContext.fire(s, t, null, null); // the context's own refusal (outside MacroDB, read-only)
            return;
        }
        SQLException e = new SQLException("MacroDB: table " + s + "." + t + " has no primary key, and on Derby row propagation"
                + " cannot update or delete its rows (a secondary could not remove one of several equal rows: Derby's DELETE"
                + " takes no row limit). Add a primary key: ALTER TABLE \"" + s + "\".\"" + t + "\" ADD PRIMARY KEY (...)",
                io.macrodb.sql.SqlState.STATEMENT_NOT_REPLICABLE.getState());
        CaptureContext.refuse(e);
        throw e;
    }

    /** Key ordinals by the list a key trigger passes ({@code "1,2"}), parsed once. */
    private static final java.util.concurrent.ConcurrentMap<String, int[]> KEY_ORDINALS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A changed row of a table whose key columns all pass as one type, in one call: {@code k} lists the key's
     * ordinals, and {@code v} holds the old key (updates, deletes) and then the new one (inserts, updates). The
     * other columns are {@link #NOT_PASSED}: MacroDB reads such a row back by its key at commit. One call a row,
     * where a trigger per key column and per run of other columns made three to five (each about 7 us on Derby).
     */
    static void keys(String schema, String table, String event, int count, String k, Object[] v) throws SQLException {
        int[] ordinals = KEY_ORDINALS.computeIfAbsent(k, DerbyCapture::ordinals);
        int m = ordinals.length;
        boolean hasOld = !event.equals("I");
        boolean hasNew = !event.equals("D");
        if (v.length != m * ((hasOld ? 1 : 0) + (hasNew ? 1 : 0))) {
            throw new SQLException("MacroDB: Derby passed " + v.length + " key values for " + m + " key columns of " + schema + "." + table
                    + "; reconnect so that MacroDB installs its triggers again", io.macrodb.sql.SqlState.INTERNAL_ERROR.getState());
        }
        Object[] oldRow = hasOld ? keyRow(count, ordinals, v, 0) : null;
        Object[] newRow = hasNew ? keyRow(count, ordinals, v, hasOld ? m : 0) : null;
        fire(schema, table, oldRow, newRow);
    }

    private static int[] ordinals(String list) {
        String[] parts = list.split(",");
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) out[i] = Integer.parseInt(parts[i]);
        return out;
    }

    private static Object[] keyRow(int count, int[] ordinals, Object[] v, int from) {
        Object[] row = new Object[count];
        java.util.Arrays.fill(row, NOT_PASSED);
        for (int i = 0; i < ordinals.length; i++) row[ordinals[i] - 1] = v[from + i];
        return row;
    }

    public static void keysInt(String s, String t, String e, int n, String k, Integer... v) throws SQLException {
        keys(s, t, e, n, k, v);
    }

    public static void keysBigint(String s, String t, String e, int n, String k, Long... v) throws SQLException {
        keys(s, t, e, n, k, v);
    }

    public static void keysString(String s, String t, String e, int n, String k, String... v) throws SQLException {
        keys(s, t, e, n, k, v);
    }

    /** A column the trigger does not pass (LOBs, XML, user-defined types): the row is read back at commit. */
    public static void fireNone(String s, String t, String e, int k, int n) throws SQLException {
        column(s, t, e, k, n, NOT_PASSED, NOT_PASSED);
    }

    /** Columns {@code k..l} not passed, in one call (the non-key columns of a table with a key: read back at commit). */
    public static void fireRange(String s, String t, String e, int k, int n, int l) throws SQLException {
        for (int i = k; i <= l; i++) column(s, t, e, i, n, NOT_PASSED, NOT_PASSED);
    }
}
