package io.macrodb.bench;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The first row of a query, read and closed at once (an open result set would keep a replica's session held). */
public final class Row {
    private final Object[] values;

    private Row(Object[] values) { this.values = values; }

    /** Runs {@code ps} and returns its first row, or null if it returned none. */
    public static Row first(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) return null;
            int n = rs.getMetaData().getColumnCount();
            Object[] v = new Object[n];
            for (int i = 0; i < n; i++) v[i] = rs.getObject(i + 1);
            return new Row(v);
        }
    }

    /** Like {@link #first} for a row the data guarantees; a missing one is a bug in the workload or the database. */
    public static Row one(PreparedStatement ps, String what) throws SQLException {
        Row r = first(ps);
        if (r == null) throw new IllegalStateException("missing " + what + ": a row the data generator guarantees is not there");
        return r;
    }

    public Object get(int i) { return values[i - 1]; }
    public int getInt(int i) { return ((Number) values[i - 1]).intValue(); }
    public long getLong(int i) { return ((Number) values[i - 1]).longValue(); }
    public String getString(int i) { return values[i - 1] == null ? null : values[i - 1].toString(); }

    public BigDecimal getBigDecimal(int i) {
        Object v = values[i - 1];
        if (v == null) return null;
        return v instanceof BigDecimal b ? b : new BigDecimal(v.toString());
    }
}
