package io.macrodb.jdbc;

import java.sql.Blob;
import java.sql.Clob;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * One read of an optimistic transaction (one that never said it was read-only and started on a
 * secondary): its SQL and parameters, and every row the application has been shown, so that if the
 * transaction turns out to write, the read can be run again on the primary and compared. If the
 * primary returns what the application saw, the transaction continues there as if it had run there
 * from the start; otherwise it fails with 40001 and nothing has changed.
 */
final class TrackedRead {
    private final String sql;
    private final Bindings bindings;
    private final List<Object[]> rows = new ArrayList<>();
    private final int holdability;
    private final long maxRows;
    private final int maxFieldSize;
    private int columns = -1;
    private boolean exhausted;
    private boolean tooLarge;
    private MacroResultSet open;

    TrackedRead(String sql, Bindings bindings, int holdability, long maxRows, int maxFieldSize) {
        this.sql = sql;
        this.bindings = bindings;
        this.holdability = holdability;
        this.maxRows = maxRows;
        this.maxFieldSize = maxFieldSize;
    }

    /** Gives the re-run the options that shaped what the application saw. */
    void applyOptions(java.sql.Statement s) throws SQLException {
        // setMaxRows where it fits: drivers need not implement the large form (pgjdbc does not)
        if (maxRows > Integer.MAX_VALUE) s.setLargeMaxRows(maxRows);
        else s.setMaxRows((int) maxRows);
        s.setMaxFieldSize(maxFieldSize);
    }

    String sql() { return sql; }
    Bindings bindings() { return bindings; }
    int holdability() { return holdability; }
    boolean tooLarge() { return tooLarge; }
    int rowCount() { return rows.size(); }

    void attach(MacroResultSet rs) { this.open = rs; }

    /** The still-open result set the application reads this query through, or null. */
    MacroResultSet openResult() {
        return open != null && !open.isClosedQuietly() ? open : null;
    }

    /**
     * Called by the result set after each {@code next()}: remembers the new current row, or that
     * the result is exhausted.
     *
     * @param transaction the undeclared transaction the read belongs to: once it has remembered as
     *                    many rows as it may, the read is too large to check again
     */
    void advanced(ResultSet rs, boolean hasRow, Transaction.Undeclared transaction) throws SQLException {
        if (!hasRow) {
            exhausted = true;
            return;
        }
        if (tooLarge) return;
        if (!transaction.rememberRow()) {
            tooLarge = true;
            rows.clear();
            return;
        }
        if (columns < 0) columns = rs.getMetaData().getColumnCount();
        Object[] row = new Object[columns];
        for (int i = 0; i < columns; i++) row[i] = comparable(rs.getObject(i + 1));
        rows.add(row);
    }

    /**
     * Reads {@code rs} (the same query on the primary) and tells whether it shows what the
     * application saw. A read the application consumed to its end matches the same rows in any
     * order (the engines may order unordered results differently per replica); a read consumed in
     * part must match row by row, and {@code rs} is then left on the same row as the application's.
     */
    boolean sameAs(ResultSet rs) throws SQLException {
        int n = rs.getMetaData().getColumnCount();
        List<Object[]> primary = new ArrayList<>(rows.size());
        if (exhausted) {
            while (rs.next()) {
                if (primary.size() > rows.size()) return false;
                primary.add(read(rs, n));
            }
            if (primary.size() != rows.size()) return false;
            List<String> a = sortedKeys(rows);
            List<String> b = sortedKeys(primary);
            return a.equals(b);
        }
        for (Object[] seen : rows) {
            if (!rs.next()) return false;
            if (!Arrays.deepEquals(seen, read(rs, n))) return false;
        }
        return true;
    }

    private static Object[] read(ResultSet rs, int n) throws SQLException {
        Object[] row = new Object[n];
        for (int i = 0; i < n; i++) row[i] = comparable(rs.getObject(i + 1));
        return row;
    }

    private static List<String> sortedKeys(List<Object[]> rows) {
        List<String> keys = new ArrayList<>(rows.size());
        for (Object[] r : rows) keys.add(Arrays.deepToString(r));
        keys.sort(Comparator.naturalOrder());
        return keys;
    }

    /** Values that compare by content: LOBs are read (without freeing the application's handle). */
    private static Object comparable(Object v) throws SQLException {
        if (v instanceof Blob b) return HexFormat.of().formatHex(b.getBytes(1, (int) b.length()));
        if (v instanceof Clob c) return c.getSubString(1, (int) c.length());
        if (v instanceof java.sql.Array a) return a.getArray();
        if (v instanceof byte[] bytes) return HexFormat.of().formatHex(bytes);
        return v;
    }
}
