package io.macrodb.engine;

import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Reads the replicated shape of user tables through standard metadata. */
public final class Catalog {
    private static final Set<String> SYSTEM_SCHEMAS = Set.of("INFORMATION_SCHEMA", "SYSTEM_LOBS", "SYSTEM",
            // Derby's, and the schema of MacroDB's own capture procedures on Derby
            "SYS", "SYSIBM", "SYSCAT", "SYSCS_DIAG", "SYSCS_UTIL", "SYSFUN", "SYSPROC", "SYSSTAT", "NULLID", "SQLJ", "MACRODB");

    private Catalog() {}

    public static boolean isSystemSchema(String schema) {
        // H2 with DATABASE_TO_LOWER=TRUE (how the PostgreSQL-protocol server opens it) names its own schemas in
        // lower case, and its PostgreSQL mode has a PG_CATALOG of its own: system schemas too
        return schema == null || SYSTEM_SCHEMAS.contains(schema) || schema.equals("information_schema")
                || schema.equalsIgnoreCase("pg_catalog");
    }

    /** All user base tables, ordered by schema then name. */
    public static List<TableShape> readTables(Connection c) throws SQLException {
        if (SqliteCatalog.is(c)) {
            List<TableShape> out = new ArrayList<>();
            for (String t : SqliteCatalog.tableNames(c)) out.add(readTable(c, SqliteEngine.SCHEMA, t));
            return out;
        }
        if (PostgresCatalog.is(c)) {
            List<TableShape> out = new ArrayList<>();
            for (String[] t : PostgresCatalog.tableNames(c)) out.add(readTable(c, t[0], t[1]));
            return out;
        }
        DatabaseMetaData md = c.getMetaData();
        Map<String, String[]> names = new TreeMap<>();
        try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE", "BASE TABLE"})) {
            while (rs.next()) {
                String schema = rs.getString("TABLE_SCHEM");
                String table = rs.getString("TABLE_NAME");
                if (isSystemSchema(schema)) continue;
                names.put(schema + "\u0000" + table, new String[] {schema, table});
            }
        }
        List<TableShape> out = new ArrayList<>(names.size());
        for (String[] n : names.values()) out.add(readTable(c, n[0], n[1]));
        return out;
    }

    /** The shape of one table, or null if it does not exist. */
    public static TableShape readTable(Connection c, String schema, String table) throws SQLException {
        TreeMap<Integer, Column> byOrdinal = columns(c, schema, table);
        if (byOrdinal.isEmpty()) return null;
        List<String> replicated = new ArrayList<>();
        List<Integer> ordinals = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        List<String> all = new ArrayList<>();
        List<Column> stored = new ArrayList<>(byOrdinal.values());
        String identity = null;
        List<String> volatileDefaults = new ArrayList<>();
        for (Column col : stored) {
            all.add(col.name);
            if (col.identity) identity = col.name;
            else if (io.macrodb.sql.NonDeterminism.firstCall(col.defaultExpr) != null) volatileDefaults.add(col.name);
            if (!col.generated) {
                replicated.add(col.name);
                ordinals.add(all.size() - 1);
                types.add(col.type);
            }
        }
        boolean sqlite = SqliteCatalog.is(c);
        boolean postgres = PostgresCatalog.is(c);
        volatileDefaults.addAll(sqlite ? SqliteCatalog.autoincrementColumns(c, table) : sequenceColumns(c, schema, table));
        TreeMap<Short, String> keySeq = new TreeMap<>();
        if (sqlite) {
            keySeq = SqliteCatalog.primaryKey(c, table);
        } else if (postgres) {
            keySeq = PostgresCatalog.primaryKey(c, schema, table);
        } else {
            try (ResultSet rs = c.getMetaData().getPrimaryKeys(null, schema, table)) {
                while (rs.next()) keySeq.put(rs.getShort("KEY_SEQ"), rs.getString("COLUMN_NAME"));
            }
        }
        int[] keyIndexes = new int[keySeq.size()];
        int[] keyOrdinals = new int[keySeq.size()];
        int k = 0;
        for (String col : keySeq.values()) {
            keyIndexes[k] = replicated.indexOf(col);
            keyOrdinals[k] = all.indexOf(col);
            if (keyIndexes[k] < 0) {
                // A generated key column is recomputed on every replica from the replicated ones,
                // but deletes must still name it; keep it in the replicated set in that case.
                replicated.add(col);
                ordinals.add(keyOrdinals[k]);
                types.add(stored.get(keyOrdinals[k]).type);
                keyIndexes[k] = replicated.size() - 1;
            }
            k++;
        }
        // SQLite's hidden rowid, where it is not the key itself: replicated as a last column (SqliteCatalog.replicatedRowid)
        String rowid = sqlite ? SqliteCatalog.replicatedRowid(c, table, all) : null;
        int ordinalCount = all.size();
        if (rowid != null) {
            replicated.add(rowid);
            ordinals.add(ordinalCount++);
            types.add(java.sql.Types.OTHER);
        }
        return new TableShape(schema, table, replicated, keyIndexes, keyOrdinals, ordinalCount,
                postgres ? PostgresCatalog.hasAlwaysIdentity(c, schema, table) : !sqlite && hasAlwaysIdentity(c, schema, table), identity, volatileDefaults,
                ordinals.stream().mapToInt(Integer::intValue).toArray(), types.stream().mapToInt(Integer::intValue).toArray(), rowid != null);
    }

    /**
     * HSQLDB's columns {@code GENERATED BY DEFAULT AS SEQUENCE s}: they draw from a user sequence,
     * whose position a commit must record (a promoted or recovered primary restarts it past every
     * value handed out), though metadata shows them as plain identity columns without a default.
     */
    private static List<String> sequenceColumns(Connection c, String schema, String table) throws SQLException {
        if (!io.macrodb.engine.Values.isHsqldb(c)) return List.of();
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.SYSTEM_COLUMN_SEQUENCE_USAGE"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** One stored column of a table, as {@link #columns} reads it. */
    public record Column(String name, int type, boolean generated, boolean identity, String defaultExpr) {}

    /**
     * Every column of a table by 1-based ordinal position: the visible ones from standard metadata,
     * and on H2 the {@code INVISIBLE} ones too, which {@code DatabaseMetaData.getColumns} leaves out
     * although they are stored, copied by scripts and handed to triggers like any other column.
     */
    public static TreeMap<Integer, Column> columns(Connection c, String schema, String table) throws SQLException {
        if (SqliteCatalog.is(c)) return SqliteCatalog.columns(c, table);
        if (PostgresCatalog.is(c)) return PostgresCatalog.columns(c, schema, table);
        DatabaseMetaData md = c.getMetaData();
        TreeMap<Integer, Column> byOrdinal = new TreeMap<>();
        try (ResultSet rs = md.getColumns(null, escape(md, schema), escape(md, table), "%")) {
            while (rs.next()) {
                byOrdinal.put(rs.getInt("ORDINAL_POSITION"), new Column(rs.getString("COLUMN_NAME"), rs.getInt("DATA_TYPE"),
                        "YES".equalsIgnoreCase(rs.getString("IS_GENERATEDCOLUMN")),
                        "YES".equalsIgnoreCase(rs.getString("IS_AUTOINCREMENT")), rs.getString("COLUMN_DEF")));
            }
        }
        if (!byOrdinal.isEmpty() && "H2".equals(md.getDatabaseProductName())) {
            // getColumns numbers the visible columns only: take every column's true position from
            // INFORMATION_SCHEMA, and the invisible columns themselves
            java.util.Map<String, Column> visible = new java.util.HashMap<>();
            for (Column col : byOrdinal.values()) visible.put(col.name, col);
            TreeMap<Integer, Column> all = new TreeMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, IS_GENERATED,"
                    + " IS_IDENTITY, COLUMN_DEFAULT, IS_VISIBLE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ?"
                    + " AND TABLE_NAME = ?")) {
                ps.setString(1, schema);
                ps.setString(2, table);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Column col = visible.get(rs.getString(1));
                        if (col == null || !rs.getBoolean(7)) {
                            col = new Column(rs.getString(1), jdbcType(rs.getString(3)), "ALWAYS".equalsIgnoreCase(rs.getString(4)),
                                    "YES".equalsIgnoreCase(rs.getString(5)), rs.getString(6));
                        }
                        all.put(rs.getInt(2), col);
                    }
                }
            }
            byOrdinal = all;
        }
        return byOrdinal;
    }

    /** The JDBC type of an SQL-standard data type name, as far as replication tells types apart. */
    private static int jdbcType(String name) {
        return switch (name == null ? "" : name) {
            case "DATE" -> java.sql.Types.DATE;
            case "TIME" -> java.sql.Types.TIME;
            case "TIME WITH TIME ZONE" -> java.sql.Types.TIME_WITH_TIMEZONE;
            case "TIMESTAMP" -> java.sql.Types.TIMESTAMP;
            case "TIMESTAMP WITH TIME ZONE" -> java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
            case "BINARY LARGE OBJECT" -> java.sql.Types.BLOB;
            case "CHARACTER LARGE OBJECT" -> java.sql.Types.CLOB;
            default -> java.sql.Types.OTHER;
        };
    }

    private static boolean hasAlwaysIdentity(Connection c, String schema, String table) {
        String sql = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND IS_IDENTITY = 'YES' AND IDENTITY_GENERATION = 'ALWAYS'";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) > 0;
            }
        } catch (SQLException e) {
            return false; // engine without these standard columns: plain INSERT is the best we can do
        }
    }

    private static String escape(DatabaseMetaData md, String name) throws SQLException {
        String esc = md.getSearchStringEscape();
        if (esc == null || esc.isEmpty()) return name;
        StringBuilder sb = new StringBuilder();
        for (char ch : name.toCharArray()) {
            if (ch == '_' || ch == '%' || esc.indexOf(ch) >= 0) sb.append(esc);
            sb.append(ch);
        }
        return sb.toString();
    }

    /** Whether a user schema has a trigger other than MacroDB's capture triggers (the application's own). */
    public static boolean hasApplicationTriggers(Connection c) throws SQLException {
        if (DerbyEngine.isDerby(c)) return DerbyEngine.hasApplicationTriggers(c);
        if (SqliteCatalog.is(c)) return SqliteCatalog.hasApplicationTriggers(c);
        if (PostgresCatalog.is(c)) return PostgresCatalog.hasApplicationTriggers(c);
        try (java.sql.Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT DISTINCT TRIGGER_SCHEMA FROM INFORMATION_SCHEMA.TRIGGERS"
                     + " WHERE TRIGGER_NAME NOT LIKE 'MACRODB_CAPTURE%'")) {
            while (rs.next()) {
                if (!isSystemSchema(rs.getString(1))) return true;
            }
        }
        return false;
    }

    /** Drops every trigger in user schemas whose name is not LIKE {@code keepPattern}. */
    static void dropTriggersExcept(Connection c, String keepPattern) throws SQLException {
        List<String> drops = new ArrayList<>();
        for (String[] t : triggersExcept(c, keepPattern)) drops.add("DROP TRIGGER " + TableShape.quote(t[0]) + "." + TableShape.quote(t[1]));
        try (java.sql.Statement s = c.createStatement()) {
            for (String d : drops) s.execute(d);
        }
    }

    /** The names of the triggers of the user schemas ({@code INFORMATION_SCHEMA.TRIGGERS}) not named like {@code keepPattern}. */
    static java.util.Set<String> triggerNamesExcept(Connection c, String keepPattern) throws SQLException {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (String[] t : triggersExcept(c, keepPattern)) out.add(t[1]);
        return out;
    }

    /**
     * The statements that create the application's triggers (those of the user schemas not named like
     * {@code keepPattern}), by trigger name, from the engine's script of its schema: {@code scriptSql} gives one statement
     * a row, as H2's {@code SCRIPT NODATA} and HSQLDB's {@code SCRIPT} do. The script says what the catalog holds now: a
     * trigger on a table renamed since names the table's new name, where the statement it was made with names the old
     * one, and a promotion that made it again failed on it and left it out.
     */
    static Map<String, String> triggerStatementsFromScript(Connection c, String scriptSql, String keepPattern) throws SQLException {
        Set<String> application = new HashSet<>();
        for (String[] t : triggersExcept(c, keepPattern)) application.add(t[0] + '\u0000' + t[1]);
        Map<String, String> out = new TreeMap<>();
        if (application.isEmpty()) return out;
        try (java.sql.Statement s = c.createStatement(); ResultSet rs = s.executeQuery(scriptSql)) {
            while (rs.next()) {
                String sql = rs.getString(1);
                java.util.regex.Matcher m = sql == null ? null : SCRIPTED_TRIGGER.matcher(sql);
                if (m == null || !m.lookingAt()) continue;
                String schema = unquote(m.group(1));
                String name = unquote(m.group(2));
                if (!application.contains(schema + '\u0000' + name)) continue;
                String statement = sql.strip();
                while (statement.endsWith(";")) statement = statement.substring(0, statement.length() - 1).strip();
                out.put(name, statement);
            }
        }
        return out;
    }

    private static final String SCRIPT_NAME = "(\"(?:[^\"]|\"\")*\"|[^\\s.\"]+)";

    /** A script's {@code CREATE [FORCE] TRIGGER schema.name}: group 1 the schema, 2 the name, as the script writes them. */
    private static final java.util.regex.Pattern SCRIPTED_TRIGGER = java.util.regex.Pattern.compile(
            "\\s*CREATE\\s+(?:FORCE\\s+)?TRIGGER\\s+" + SCRIPT_NAME + "\\." + SCRIPT_NAME + "\\s",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    private static String unquote(String name) {
        return name.startsWith("\"") ? name.substring(1, name.length() - 1).replace("\"\"", "\"") : name;
    }

    /** Schema and name of each trigger of the user schemas not named like {@code keepPattern}. */
    private static List<String[]> triggersExcept(Connection c, String keepPattern) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT TRIGGER_SCHEMA, TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS"
                + " WHERE TRIGGER_NAME NOT LIKE ?")) {
            ps.setString(1, keepPattern);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!isSystemSchema(rs.getString(1))) out.add(new String[] {rs.getString(1), rs.getString(2)});
                }
            }
        }
        return out;
    }

    /** Next values of user sequences from INFORMATION_SCHEMA.SEQUENCES ({@code nextColumn} differs per engine). */
    static java.util.Map<String, Long> sequencePositions(Connection c, String nextColumn) throws SQLException {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        try (java.sql.Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT SEQUENCE_SCHEMA, SEQUENCE_NAME, " + nextColumn
                     + " FROM INFORMATION_SCHEMA.SEQUENCES")) {
            while (rs.next()) {
                String schema = rs.getString(1);
                String name = rs.getString(2);
                if (isSystemSchema(schema) || name.startsWith("SYSTEM_SEQUENCE")) continue;
                out.put(TableShape.quote(schema) + "." + TableShape.quote(name), rs.getLong(3));
            }
        }
        return out;
    }

    /** Schemas that hold user objects. */
    public static Set<String> userSchemas(Connection c) throws SQLException {
        if (SqliteCatalog.is(c)) return Set.of(SqliteEngine.SCHEMA);
        Set<String> out = new HashSet<>();
        try (ResultSet rs = c.getMetaData().getSchemas()) {
            while (rs.next()) {
                String s = rs.getString("TABLE_SCHEM");
                if (!isSystemSchema(s)) out.add(s);
            }
        }
        return out;
    }
}
