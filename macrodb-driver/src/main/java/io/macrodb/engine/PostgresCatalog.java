package io.macrodb.engine;

import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@link Catalog} reads, on PostgreSQL: from {@code pg_catalog}, not from pgjdbc's metadata,
 * which reports {@code timestamptz} as {@link java.sql.Types#TIMESTAMP} (its values would then be read
 * as local date-times, losing the instant) and knows nothing of generated or identity columns' kinds.
 *
 * <p>User tables are the ordinary tables ({@code relkind 'r'}) of every schema but PostgreSQL's own
 * ({@code pg_catalog}, {@code information_schema}, {@code pg_toast}, temporary schemas) and MacroDB's
 * ({@code macrodb}, which holds the capture functions and a secondary's marker). Columns are numbered
 * 1..n in {@code attnum} order without dropped ones: the order of {@code SELECT *}.
 */
final class PostgresCatalog {
    /** The schemas that hold no user tables, as a SQL condition on {@code n.nspname}. */
    static final String USER_SCHEMA = "n.nspname NOT IN ('pg_catalog', 'information_schema', 'macrodb')"
            + " AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'";

    private PostgresCatalog() {}

    static boolean is(Connection c) {
        return c.getClass().getName().startsWith("org.postgresql.");
    }

    /** User tables as (schema, name), by schema then name. */
    static List<String[]> tableNames(Connection c) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                     + " WHERE c.relkind = 'r' AND " + USER_SCHEMA + " ORDER BY n.nspname COLLATE \"C\", c.relname COLLATE \"C\"")) {
            while (rs.next()) out.add(new String[] {rs.getString(1), rs.getString(2)});
        }
        return out;
    }

    /** Every stored column by 1-based position (dropped columns left out). */
    static TreeMap<Integer, Catalog.Column> columns(Connection c, String schema, String table) throws SQLException {
        TreeMap<Integer, Catalog.Column> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, t.typname, t.typcategory, a.attgenerated, a.attidentity,"
                + " pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_type t ON t.oid = a.atttypid"
                + " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                + " WHERE n.nspname = ? AND c.relname = ? AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                int i = 0;
                while (rs.next()) {
                    String generated = rs.getString(4);
                    String identity = rs.getString(5);
                    out.put(++i, new Catalog.Column(rs.getString(1), jdbcType(rs.getString(2), rs.getString(3)),
                            generated != null && !generated.isEmpty(), identity != null && !identity.isEmpty(), rs.getString(6)));
                }
            }
        }
        return out;
    }

    /**
     * The JDBC type MacroDB reads a column of PostgreSQL type {@code typname} as: the date and time types
     * by their own codes (read as java.time values, see {@link Values#read}), {@code bytea} as binary,
     * {@code bpchar} as CHAR (compared without trailing spaces); everything else OTHER, read by {@link #readOther}.
     */
    static int jdbcType(String typname, String category) {
        return switch (typname) {
            case "date" -> java.sql.Types.DATE;
            case "time" -> java.sql.Types.TIME;
            case "timetz" -> java.sql.Types.TIME_WITH_TIMEZONE;
            case "timestamp" -> java.sql.Types.TIMESTAMP;
            case "timestamptz" -> java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
            case "bytea" -> java.sql.Types.BINARY;
            case "bpchar" -> java.sql.Types.CHAR;
            default -> java.sql.Types.OTHER;
        };
    }

    /** The types pgjdbc's {@code getObject} reads as a Java value that binds back as the same type and value. */
    private static final Set<String> JAVA_VALUED = Set.of("int2", "int4", "int8", "float4", "float8", "numeric", "bool", "text",
            "varchar", "name", "uuid", "serial", "bigserial", "smallserial"); // pgjdbc names an integer column with a sequence so

    /**
     * A column of type OTHER ({@link #jdbcType}) of a pgjdbc result: numbers, text, booleans and UUIDs as their Java
     * values; every other type (arrays, enums, JSON, intervals, network addresses, money, geometry, the application's
     * own types) as pgjdbc's {@code PGobject}, its type's name and text form, which binds back as that type and is
     * read by the type's input function into the same value. ({@code getObject} gives some of them as values that do
     * not bind back: an enum's label as a {@code String}, typed {@code varchar}; money as a {@code Double}.)
     */
    /** A type name pgjdbc finds as it is, without quotes (read for every such value: compiled once). */
    private static final java.util.regex.Pattern BARE_NAME = java.util.regex.Pattern.compile("[a-z_][a-z0-9_$]*");

    static Object readOther(java.sql.ResultSet rs, int i) throws SQLException {
        String type = rs.getMetaData().getColumnTypeName(i);
        if (JAVA_VALUED.contains(type)) return Values.detach(rs.getObject(i));
        String text = rs.getString(i);
        if (text == null) return null;
        org.postgresql.util.PGobject o = new org.postgresql.util.PGobject();
        // pgjdbc names a type on the search path by its bare name, and looks a bare name up folded to lower case: a
        // type named "Odd" would bind as unknown type odd
        o.setType(type.indexOf('"') < 0 && !BARE_NAME.matcher(type).matches() ? TableShape.quote(type) : type);
        o.setValue(text);
        return o;
    }

    /** The primary key's columns by their position in the key. */
    static TreeMap<Short, String> primaryKey(Connection c, String schema, String table) throws SQLException {
        TreeMap<Short, String> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, k.ord FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace, unnest(i.indkey) WITH ORDINALITY k(attnum, ord), pg_attribute a"
                + " WHERE n.nspname = ? AND c.relname = ? AND i.indisprimary AND a.attrelid = c.oid AND a.attnum = k.attnum")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.put(rs.getShort(2), rs.getString(1));
            }
        }
        return out;
    }

    /** Whether a column of the table is {@code GENERATED ALWAYS AS IDENTITY} (inserts of images need OVERRIDING SYSTEM VALUE). */
    static boolean hasAlwaysIdentity(Connection c, String schema, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ? AND a.attidentity = 'a'"
                + " AND NOT a.attisdropped")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Whether a user table has a trigger that is not one of MacroDB's ({@link PostgresEngine#OWN_TRIGGER}). */
    static boolean hasApplicationTriggers(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1 FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid"
                     + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT g.tgisinternal AND NOT "
                     + PostgresEngine.OWN_TRIGGER + " AND " + USER_SCHEMA + " LIMIT 1")) {
            return rs.next();
        }
    }

    static String quoted(String schema, String table) {
        return TableShape.quote(schema) + "." + TableShape.quote(table);
    }
}
