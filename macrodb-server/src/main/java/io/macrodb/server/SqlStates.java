package io.macrodb.server;

import java.sql.SQLException;
import java.util.Map;

/**
 * Translates the engines' SQLSTATEs into PostgreSQL's where they differ, so that clients that branch on a
 * SQLSTATE (42P01 undefined table, 23505 unique violation, 40001 serialization failure ...) see PostgreSQL's codes.
 * States already in PostgreSQL's table pass through unchanged.
 */
final class SqlStates {
    private static final Map<String, String> H2_TO_PG = Map.ofEntries(
            Map.entry("42S02", "42P01"),   // table or view not found
            Map.entry("42S01", "42P07"),   // table already exists
            Map.entry("42S22", "42703"),   // column not found
            Map.entry("42S21", "42701"),   // duplicate column
            Map.entry("42S12", "42704"),   // index not found
            Map.entry("42S11", "42P07"),   // index already exists
            Map.entry("42000", "42601"),   // syntax error
            Map.entry("42001", "42601"),   // syntax error, expected ...
            Map.entry("90079", "3F000"),   // schema not found
            Map.entry("HY008", "57014"),   // query cancelled
            Map.entry("90051", "57014"),
            Map.entry("HYT00", "55P03"),   // lock timeout
            Map.entry("90022", "42883"),   // function not found
            Map.entry("90004", "22023"),
            Map.entry("22018", "22P02"),   // invalid character value for cast
            Map.entry("90003", "22P02"),
            Map.entry("22007", "22007"),
            Map.entry("25006", "25006"));

    private SqlStates() { }

    private static final java.util.regex.Pattern HSQLDB_NOT_FOUND = java.util.regex.Pattern.compile("user lacks privilege or object not found: (\\S+)");

    static String toPostgres(SQLException e) {
        return toPostgres(e, null);
    }

    /**
     * The PostgreSQL SQLSTATE for an engine's error in statement {@code sql} (may be null). HSQLDB reports a missing
     * table and a missing column alike (42501, "user lacks privilege or object not found: X"): X named where a
     * table goes in the statement (after FROM, JOIN, INTO, UPDATE, TABLE) is 42P01, otherwise 42703.
     */
    static String toPostgres(SQLException e, String sql) {
        String s = e.getSQLState();
        if ("42501".equals(s) && e.getMessage() != null) {
            java.util.regex.Matcher m = HSQLDB_NOT_FOUND.matcher(e.getMessage());
            if (m.find()) {
                String name = m.group(1).strip();
                int nl = name.indexOf('\n');
                if (nl >= 0) name = name.substring(0, nl).strip();
                name = name.substring(name.lastIndexOf('.') + 1);
                if (sql == null) return "42P01";
                boolean table = java.util.regex.Pattern.compile("(?is)\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+(\"?\\w+\"?\\s*\\.\\s*)?\"?"
                        + java.util.regex.Pattern.quote(name) + "\"?(\\W|$)").matcher(sql).find();
                return table ? "42P01" : "42703";
            }
        }
        if (s == null || s.length() != 5) return "XX000";
        if (e.getErrorCode() == 57014 || "57014".equals(s)) return "57014";
        String mapped = H2_TO_PG.get(s);
        if (mapped != null) return mapped;
        if (s.startsWith("9") || s.startsWith("HY") || s.startsWith("S1")) return "XX000";
        return s;
    }
}
