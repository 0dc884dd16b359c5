package io.macrodb.differential;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a database's tables row by row, every value as a java.time / engine-native object
 * ({@code getObject(i, LocalDate.class)} etc., never java.sql.Date/Timestamp, whose Julian calendar and
 * JVM time zone would hide or invent differences), rendered to a canonical string. Rows are sorted,
 * so two databases compare as multisets of rows per table (tables without a key may hold duplicates).
 */
final class Rows {
    private Rows() {}

    record Column(String name, String type) {}

    record Table(String name, List<Column> columns) {
        String header() {
            return columns.stream().map(c -> c.name() + " " + c.type()).reduce((a, b) -> a + ", " + b).orElse("");
        }
    }

    /** The tables of schema PUBLIC with every column, invisible ones included, as the reference engine has them. */
    static List<Table> tables(Connection c) throws SQLException {
        if (sqlite(c)) return sqliteTables(c);
        Map<String, List<Column>> byTable = new TreeMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS c"
                     + " JOIN INFORMATION_SCHEMA.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME"
                     + " WHERE c.TABLE_SCHEMA = 'PUBLIC' AND t.TABLE_TYPE = 'BASE TABLE'"
                     + " ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION")) {
            while (rs.next()) {
                byTable.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new Column(rs.getString(2), rs.getString(3)));
            }
        }
        List<Table> out = new ArrayList<>();
        byTable.forEach((name, cols) -> out.add(new Table(name, List.copyOf(cols))));
        return out;
    }

    static boolean sqlite(Connection c) {
        return c.getClass().getName().startsWith("org.sqlite.");
    }

    /**
     * SQLite's tables (not its own {@code sqlite_%}: {@code sqlite_sequence} differs on secondaries by
     * design, and what it holds shows in the keys the next inserts get) with every stored column,
     * generated ones included, by declared type; and the rowid of a table that has one (not {@code
     * WITHOUT ROWID}), which SQLite visits rows in and which decides what an {@code UPDATE OR REPLACE}
     * removes: it must be the plain database's on every replica ({@code -Dmacrodb.differential.without=ROWID}
     * leaves it out).
     */
    private static List<Table> sqliteTables(Connection c) throws SQLException {
        List<Table> out = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
                     + " ORDER BY name")) {
            while (rs.next()) names.add(rs.getString(1));
        }
        for (String name : names) {
            List<Column> cols = new ArrayList<>();
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT name, type FROM pragma_table_xinfo(?, 'main') WHERE hidden <> 1 ORDER BY cid")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) cols.add(new Column(rs.getString(1), rs.getString(2)));
                }
            }
            if (!Scenario.without("ROWID") && hasRowid(c, name) && cols.stream().noneMatch(col -> col.name().equalsIgnoreCase("rowid"))) {
                cols.add(new Column("rowid", "(the rowid)"));
            }
            out.add(new Table(name, List.copyOf(cols)));
        }
        return out;
    }

    private static boolean hasRowid(Connection c, String table) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT wr FROM pragma_table_list(?) WHERE schema = 'main'")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 0;
            }
        }
    }

    /**
     * A SQLite table's rows, each value as its storage class says (SQLite keeps a value's class, not
     * the column's declared type): integer, real (Java's shortest exact form), text, blob, null, so
     * that 1 and 1.0 and '1' are three different values.
     */
    private static List<String> sqliteRows(Connection c, Table t) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < t.columns().size(); i++) {
            String q = quote(t.columns().get(i).name());
            sql.append(i > 0 ? ", " : "").append("typeof(").append(q).append("), ").append(q);
        }
        sql.append(" FROM main.").append(quote(t.name()));
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.toString())) {
            while (rs.next()) {
                StringBuilder row = new StringBuilder("(");
                for (int i = 0; i < t.columns().size(); i++) {
                    if (i > 0) row.append(", ");
                    int at = 2 * i + 2;
                    row.append(switch (rs.getString(at - 1)) {
                        case "integer" -> Long.toString(rs.getLong(at));
                        case "real" -> "real " + rs.getDouble(at);
                        case "text" -> "'" + rs.getString(at).replace("'", "''") + "'";
                        case "blob" -> "X'" + hex(rs.getBytes(at) == null ? new byte[0] : rs.getBytes(at)) + "'";
                        default -> "NULL";
                    });
                }
                rows.add(row.append(')').toString());
            }
        }
        return rows;
    }

    /** Every table's rows, sorted; a table that cannot be read maps to one line saying why. */
    static Map<String, List<String>> read(Connection c, List<Table> tables) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (sqlite(c)) {
            for (Table t : tables) {
                List<String> rows;
                try {
                    rows = sqliteRows(c, t);
                } catch (SQLException e) {
                    rows = new ArrayList<>(List.of("<cannot read " + t.name() + ": " + e.getErrorCode() + " " + firstLine(e.getMessage()) + ">"));
                }
                rows.sort(null);
                out.put(t.name(), rows);
            }
            return out;
        }
        for (Table t : tables) {
            StringBuilder sql = new StringBuilder("SELECT ");
            for (int i = 0; i < t.columns().size(); i++) {
                Column col = t.columns().get(i);
                if (i > 0) sql.append(", ");
                sql.append(quote(col.name()));
                if (zoned(col.type())) {
                    // the offset as stored, in case a driver hands the value back in the session's offset
                    sql.append(", EXTRACT(TIMEZONE_HOUR FROM ").append(quote(col.name())).append(") * 60 + EXTRACT(TIMEZONE_MINUTE FROM ")
                            .append(quote(col.name())).append(")");
                }
            }
            sql.append(" FROM PUBLIC.").append(quote(t.name()));
            List<String> rows = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.toString())) {
                while (rs.next()) {
                    StringBuilder row = new StringBuilder("(");
                    int idx = 1;
                    for (int i = 0; i < t.columns().size(); i++) {
                        Column col = t.columns().get(i);
                        if (i > 0) row.append(", ");
                        row.append(value(rs, idx++, col.type()));
                        if (zoned(col.type())) {
                            Object off = rs.getObject(idx++);
                            if (off != null) row.append(" [offset ").append(off).append(" min]");
                        }
                    }
                    rows.add(row.append(')').toString());
                }
            } catch (SQLException e) {
                rows.add("<cannot read " + t.name() + ": " + e.getSQLState() + " " + firstLine(e.getMessage()) + ">");
            }
            rows.sort(null);
            out.put(t.name(), rows);
        }
        return out;
    }

    private static boolean zoned(String type) {
        return type.toUpperCase(Locale.ROOT).contains("WITH TIME ZONE");
    }

    private static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    static String value(ResultSet rs, int i, String type) throws SQLException {
        String t = type.toUpperCase(Locale.ROOT);
        Object v;
        if (t.startsWith("TIMESTAMP") && t.contains("TIME ZONE")) v = rs.getObject(i, OffsetDateTime.class);
        else if (t.startsWith("TIMESTAMP")) v = rs.getObject(i, LocalDateTime.class);
        else if (t.startsWith("TIME") && t.contains("TIME ZONE")) v = rs.getObject(i, OffsetTime.class);
        else if (t.startsWith("TIME")) v = rs.getObject(i, LocalTime.class);
        else if (t.equals("DATE")) v = rs.getObject(i, LocalDate.class);
        else if (t.startsWith("NUMERIC") || t.startsWith("DECIMAL")) v = rs.getObject(i, BigDecimal.class);
        else if (t.startsWith("DOUBLE") || t.equals("FLOAT") || t.equals("REAL")) v = rs.getObject(i, Double.class);
        else if (t.equals("INTEGER") || t.equals("SMALLINT") || t.equals("TINYINT")) v = rs.getObject(i, Integer.class);
        else if (t.equals("BIGINT")) v = rs.getObject(i, Long.class);
        else if (t.equals("BOOLEAN")) v = rs.getObject(i, Boolean.class);
        else if (t.contains("BINARY")) v = rs.getObject(i, byte[].class);
        else if (t.startsWith("CHAR")) v = rs.getObject(i, String.class);
        else v = rs.getObject(i);
        if (v == null) return "NULL";
        if (v instanceof byte[] b) return "X'" + hex(b) + "'";
        if (v instanceof String s) return "'" + s.replace("'", "''") + "'";
        if (v instanceof BigDecimal d) return d.toPlainString();
        return v.toString();
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02X", x & 0xff));
        return sb.toString();
    }

    static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
