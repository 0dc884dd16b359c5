package io.macrodb.server;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Answers psql's relation listing ({@code \dt}, {@code \dv}, {@code \ds} and {@code \d} without a name, with or
 * without a name pattern) from the engine's JDBC metadata, since neither engine has a PostgreSQL
 * {@code pg_catalog}. Recognises psql's query by its shape (a select from {@code pg_catalog.pg_class c} with a
 * {@code c.relkind IN (...)} filter and an {@code "Owner"} column) and nothing else; every other catalog query
 * goes to the engine, which answers what it can (H2 has part of pg_catalog) or reports an error. A stopgap until
 * a real pg_catalog emulation exists.
 */
final class Catalog {
    /** A result the session sends as RowDescription, DataRows and "SELECT n". */
    record Answer(List<String> columns, List<String[]> rows) { }

    private static final Pattern RELKINDS = Pattern.compile("c\\.relkind IN \\(([^)]*)\\)");
    private static final Pattern NAME = Pattern.compile("c\\.relname OPERATOR\\(pg_catalog\\.~\\) '\\^\\((.*?)\\)\\$'");
    private static final Pattern SCHEMA = Pattern.compile("n\\.nspname OPERATOR\\(pg_catalog\\.~\\) '\\^\\((.*?)\\)\\$'");
    private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "pg_catalog", "system_lobs", "info");

    private Catalog() { }

    /** psql's relation listing answered from metadata, or null when {@code sql} is not that query. */
    static Answer answer(String sql, Connection conn, String owner) throws SQLException {
        String s = sql.replaceAll("\\s+", " ");
        if (!s.contains("FROM pg_catalog.pg_class c") || !s.contains("as \"Owner\"")) return null;
        Matcher k = RELKINDS.matcher(s);
        if (!k.find()) return null;
        String kinds = k.group(1);
        Matcher nm = NAME.matcher(s);
        Matcher sm = SCHEMA.matcher(s);
        Pattern name;
        Pattern schema;
        try {
            name = nm.find() ? Pattern.compile(nm.group(1)) : null;
            schema = sm.find() ? Pattern.compile(sm.group(1)) : null;
        } catch (PatternSyntaxException e) {
            throw new SQLException("invalid regular expression: " + e.getDescription(), "2201B");
        }
        TreeMap<String, String[]> rows = new TreeMap<>();
        try (ResultSet rs = conn.getMetaData().getTables(null, null, "%", null)) {
            while (rs.next()) {
                String sch = rs.getString("TABLE_SCHEM");
                String rel = rs.getString("TABLE_NAME");
                String type = rs.getString("TABLE_TYPE");
                if (sch == null || rel == null || type == null) continue;
                String t = type.toUpperCase(Locale.ROOT);
                String kind = t.contains("VIEW") ? "view" : t.contains("SEQUENCE") ? "sequence"
                        : t.equals("TABLE") || t.equals("BASE TABLE") ? "table" : null;
                if (kind == null) continue;
                String code = kind.equals("table") ? "'r'" : kind.equals("view") ? "'v'" : "'S'";
                if (!kinds.contains(code)) continue;
                if (schema == null ? SYSTEM_SCHEMAS.contains(sch.toLowerCase(Locale.ROOT)) : !schema.matcher(sch).matches()) continue;
                if (name != null && !name.matcher(rel).matches()) continue;
                rows.put(sch + "\0" + rel, new String[] {sch, rel, kind, owner});
            }
        }
        return new Answer(List.of("Schema", "Name", "Type", "Owner"), new ArrayList<>(rows.values()));
    }
}
