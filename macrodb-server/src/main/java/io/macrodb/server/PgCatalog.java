package io.macrodb.server;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The {@code pg_catalog} queries of psql and pgjdbc, answered from the engine's JDBC {@link DatabaseMetaData}, so
 * that they work the same over H2 and HSQLDB (neither has PostgreSQL's catalog). It is not a general
 * {@code pg_catalog}: each query is recognised by its shape (the tables it reads and the expressions it selects)
 * and answered by code. Recognised:
 * <ul>
 *   <li>psql: the relation lists ({@code \d}, {@code \dt}, {@code \dv}, {@code \ds}, {@code \di}, with patterns),
 *   {@code \d NAME} (the lookup, the table's kind, its columns with types, defaults and not-null, its indexes
 *   with the primary key and unique ones, its foreign keys and the foreign keys referencing it, a view's
 *   definition for {@code \d+}; policies, rules, triggers, statistics, publications and inheritance are answered
 *   as empty), {@code \dn}, {@code \l}, {@code \du}, {@code \dx} (no extensions), {@code \df} (the functions,
 *   procedures and aggregates users created, from INFORMATION_SCHEMA.ROUTINES and PARAMETERS) and {@code \dT} (the
 *   domains, from INFORMATION_SCHEMA.DOMAINS, and the types of JDBC's getUDTs);</li>
 *   <li>pgjdbc's {@code DatabaseMetaData}: {@code getTables}, {@code getColumns}, {@code getPrimaryKeys},
 *   {@code getIndexInfo}, {@code getImportedKeys}/{@code getExportedKeys}/{@code getCrossReference},
 *   {@code getSchemas}.</li>
 * </ul>
 * Every other query goes to the engine. Names the engine stores in upper case (HSQLDB folds unquoted names to upper
 * case) are shown in lower case, as PostgreSQL folds them, so that {@code \d orders} finds HSQLDB's ORDERS.
 * Relations get OIDs from 16384 up, stable for the server's lifetime ({@link Oids}).
 */
final class PgCatalog {
    /** A result column: its name and PostgreSQL type OID. */
    record Col(String name, int oid) { }

    /** A result the session sends as RowDescription, DataRows and "SELECT n"; values in PostgreSQL's text format. */
    record Answer(List<Col> columns, List<String[]> rows) { }

    /** What an answer may look at. */
    record Context(Connection conn, String user, String database, Oids oids, List<String> users) { }

    /** OIDs for the engine's relations and indexes, assigned on first sight and kept for the server's lifetime. */
    static final class Oids {
        private final Map<String, Integer> byKey = new ConcurrentHashMap<>();
        private final AtomicInteger next = new AtomicInteger(16384);

        int of(String kind, String schema, String name) {
            return byKey.computeIfAbsent(kind + "\0" + schema + "\0" + name, k -> next.getAndIncrement());
        }
    }

    private interface Handler { Answer run(String s, List<String> params, Context cx) throws SQLException; }

    static final int NAME = 19;
    static final int CHAR = 18;
    private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "pg_catalog", "system_lobs", "info");
    private static final Pattern RELKINDS = Pattern.compile("c\\.relkind IN \\(([^)]*)\\)");
    private static final Pattern OID_LITERAL = Pattern.compile("'(\\d+)'");
    private static final Pattern CONDITION = Pattern.compile("([\\w.]+) (=|LIKE) \\(?(\\$\\d+|E?'(?:[^']|'')*')");

    private PgCatalog() { }

    // ---- recognition --------------------------------------------------------------------------------------------

    /** The handler for a catalog query, or null when the engine should run {@code sql}. */
    private static Handler match(String sql) {
        if (!sql.contains("pg_catalog")) return null;
        String s = normalize(sql);
        // pgjdbc's DatabaseMetaData
        if (s.contains("AS \"TABLE_TYPE\"") && s.contains("FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c")) return PgCatalog::jdbcTables;
        if (s.contains("row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum")) return PgCatalog::jdbcColumns;
        if (s.contains("AS \"PK_NAME\"") && s.contains("con.contype = 'p'") && !s.contains("\"FK_NAME\"")) return PgCatalog::jdbcPrimaryKeys;
        if (s.contains("AS \"INDEX_QUALIFIER\"")) return PgCatalog::jdbcIndexInfo;
        if (s.contains("AS \"FK_NAME\"") && s.contains("pg_catalog.pg_constraint con")) return PgCatalog::jdbcKeys;
        if (s.contains("FROM pg_catalog.pg_settings WHERE name='max_index_keys'")) {
            return (q, p, cx) -> new Answer(List.of(new Col("setting", PgTypes.TEXT)), List.<String[]>of(new String[] {"32"}));
        }
        if (s.contains("nspname AS \"TABLE_SCHEM\"") && s.contains("FROM pg_catalog.pg_namespace")) return PgCatalog::jdbcSchemas;
        // psql
        if (s.startsWith("SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c")) return PgCatalog::psqlLookup;
        if (s.startsWith("SELECT c.relchecks, c.relkind, c.relhasindex")) return PgCatalog::psqlTableInfo;
        if (s.startsWith("SELECT pg_catalog.pg_get_viewdef('")) return PgCatalog::psqlViewDefinition;
        if (s.contains("FROM pg_catalog.pg_extension e")) return PgCatalog::empty; // an embedded engine has no extensions
        if (s.contains("FROM pg_catalog.pg_attribute a WHERE a.attrelid = '") && s.contains("format_type(a.atttypid, a.atttypmod)")) return PgCatalog::psqlAttributes;
        if (s.contains("FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i")) return PgCatalog::psqlIndexes;
        if (s.contains("FROM pg_catalog.pg_index i, pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_am a")) return PgCatalog::psqlIndexInfo;
        if (s.contains("FROM pg_catalog.pg_constraint r WHERE r.conrelid = '") && s.contains("r.contype = 'f'")) return PgCatalog::psqlForeignKeys;
        if (s.contains("confrelid IN (SELECT pg_catalog.pg_partition_ancestors(") || s.matches(".*WHERE c\\.confrelid = '\\d+' AND c\\.contype = 'f'.*")) return PgCatalog::psqlReferencedBy;
        if (s.contains("FROM pg_catalog.pg_proc p") && s.contains("as \"Result data type\"")) return PgCatalog::psqlFunctions;
        if (s.contains("FROM pg_catalog.pg_type t") && s.contains("pg_catalog.format_type(t.oid, NULL) AS \"Name\"")) return PgCatalog::psqlTypes;
        if (s.contains("FROM pg_catalog.pg_class c") && s.contains("as \"Owner\"") && RELKINDS.matcher(s).find()) return PgCatalog::psqlRelations;
        if (s.contains("FROM pg_catalog.pg_namespace n") && s.contains("AS \"Name\"")) return PgCatalog::psqlSchemas;
        if (s.contains("FROM pg_catalog.pg_database d") && s.contains("as \"Name\"")) return PgCatalog::psqlDatabases;
        if (s.contains("FROM pg_catalog.pg_roles r") && s.contains("r.rolname")) return PgCatalog::psqlRoles;
        for (String t : List.of("FROM pg_catalog.pg_constraint r WHERE r.conrelid = '", "FROM pg_catalog.pg_policy pol", "FROM pg_catalog.pg_statistic_ext",
                "FROM pg_catalog.pg_publication", "FROM pg_catalog.pg_trigger t", "FROM pg_catalog.pg_rewrite r",
                "FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i", "FROM pg_catalog.pg_inherits i")) {
            if (s.contains(t)) return PgCatalog::empty;
        }
        return null;
    }

    /** Whether {@code sql} is a catalog query this class answers (the engine is then not asked to prepare it). */
    static boolean recognizes(String sql) {
        return match(sql) != null;
    }

    /** The answer to a recognised catalog query ({@code params}: its $n values as text), or null if not recognised. */
    static Answer answer(String sql, List<String> params, Context cx) throws SQLException {
        Handler h = match(sql);
        return h == null ? null : h.run(normalize(sql), params, cx);
    }

    private static String normalize(String sql) {
        String s = sql.replaceAll("\\s+", " ").strip();
        while (s.endsWith(";")) s = s.substring(0, s.length() - 1).strip();
        return s;
    }

    // ---- the engine's metadata ----------------------------------------------------------------------------------

    /** A table, view, sequence or index: the engine's names and the names shown. */
    private static final class Rel {
        final String rawSchema;
        final String rawName;
        final String schema;
        final String name;
        final char kind;
        final int oid;
        final String remarks;

        Rel(String rawSchema, String rawName, String schema, String name, char kind, int oid, String remarks) {
            this.rawSchema = rawSchema;
            this.rawName = rawName;
            this.schema = schema;
            this.name = name;
            this.kind = kind;
            this.oid = oid;
            this.remarks = remarks;
        }
    }

    private record Column(String name, int oid, String type, int typmod, boolean notNull, String def, int num,
                          boolean identity, boolean generated, String remarks) { }

    private record Index(Rel rel, Rel table, boolean unique, boolean primary, List<String> columns, List<Boolean> descending) { }

    /** A function ('f'), procedure ('p') or aggregate ('a'); its result and arguments as psql's {@code \df} shows them. */
    private record Routine(String schema, String rawSchema, String name, char kind, String result, String args, String language,
                           String source, String remarks) { }

    /** One routine as INFORMATION_SCHEMA gives it, gathering its parameters' rows. */
    private record RoutineRow(String rawSchema, String name, char kind, String dataType, String language, String definition,
                              String remarks, List<String[]> params) { }

    /** A domain or a distinct or structured type, with the OID of the type it is based on. */
    private record UserType(String schema, String rawSchema, String name, int baseOid, String remarks) { }

    private record ForeignKey(String name, Rel table, List<String> columns, Rel refTable, List<String> refColumns,
                              int updateRule, int deleteRule, int deferrability, String pkName) { }

    /** The engine's metadata, read as a query needs it. */
    private static final class Meta {
        final Context cx;
        final DatabaseMetaData md;
        final boolean upper;
        List<Rel> rels;
        final Map<Rel, List<Index>> indexes = new HashMap<>();

        Meta(Context cx) throws SQLException {
            this.cx = cx;
            this.md = cx.conn().getMetaData();
            this.upper = md.storesUpperCaseIdentifiers();
        }

        /** A name as PostgreSQL would show it: an engine's upper-case fold shown lower case. */
        String show(String raw) {
            if (raw == null) return null;
            return upper && raw.equals(raw.toUpperCase(Locale.ROOT)) ? raw.toLowerCase(Locale.ROOT) : raw;
        }

        /** Tables, views and sequences outside the system schemas, by schema then name. */
        List<Rel> relations() throws SQLException {
            if (rels != null) return rels;
            TreeMap<String, Rel> m = new TreeMap<>();
            try (ResultSet rs = md.getTables(null, null, "%", null)) {
                while (rs.next()) {
                    String sch = rs.getString("TABLE_SCHEM");
                    String rel = rs.getString("TABLE_NAME");
                    String type = rs.getString("TABLE_TYPE");
                    if (sch == null || rel == null || type == null) continue;
                    String t = type.toUpperCase(Locale.ROOT);
                    char kind = t.contains("VIEW") ? 'v' : t.contains("SEQUENCE") ? 'S' : t.equals("TABLE") || t.equals("BASE TABLE") ? 'r' : 0;
                    if (kind == 0 || isSystem(show(sch))) continue;
                    m.put(show(sch) + "\0" + show(rel), new Rel(sch, rel, show(sch), show(rel), kind, cx.oids().of("r", sch, rel), rs.getString("REMARKS")));
                }
            }
            rels = new ArrayList<>(m.values());
            return rels;
        }

        Rel byOid(int oid) throws SQLException {
            for (Rel r : relations()) if (r.oid == oid) return r;
            Index i = indexByOid(oid); // reads every table's indexes: only when no relation has the OID
            return i == null ? null : i.rel;
        }

        Index indexByOid(int oid) throws SQLException {
            for (Rel r : relations()) if (r.kind == 'r') for (Index i : indexes(r)) if (i.rel.oid == oid) return i;
            return null;
        }

        List<Column> columns(Rel r) throws SQLException {
            List<Column> cols = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, r.rawSchema, r.rawName, "%")) {
                while (rs.next()) {
                    if (!r.rawSchema.equals(rs.getString("TABLE_SCHEM")) || !r.rawName.equals(rs.getString("TABLE_NAME"))) continue;
                    int jdbc = rs.getInt("DATA_TYPE");
                    String typeName = rs.getString("TYPE_NAME");
                    int size = rs.getInt("COLUMN_SIZE");
                    int scale = rs.getInt("DECIMAL_DIGITS");
                    int oid = PgTypes.oidOf(jdbc, typeName);
                    String def = rs.getString("COLUMN_DEF");
                    boolean generated = "YES".equals(optional(rs, "IS_GENERATEDCOLUMN"));
                    boolean identity = "YES".equals(optional(rs, "IS_AUTOINCREMENT")) && !generated;
                    if (identity && def != null && def.toUpperCase(Locale.ROOT).contains("NEXT VALUE")) def = null;
                    cols.add(new Column(show(rs.getString("COLUMN_NAME")), oid, formatType(oid, jdbc, typeName, size, scale),
                            typmod(oid, size, scale), rs.getInt("NULLABLE") == DatabaseMetaData.columnNoNulls, def,
                            rs.getInt("ORDINAL_POSITION"), identity, generated, rs.getString("REMARKS")));
                }
            }
            cols.sort(Comparator.comparingInt(Column::num));
            for (int i = 0; i < cols.size(); i++) {
                Column c = cols.get(i);
                if (c.generated && c.def == null) {
                    cols.set(i, new Column(c.name, c.oid, c.type, c.typmod, c.notNull, generationExpression(r, c.num), c.num, c.identity, true, c.remarks));
                }
            }
            return cols;
        }

        /** A generated column's expression from the standard INFORMATION_SCHEMA (JDBC's metadata has none); null if unknown. */
        private String generationExpression(Rel r, int ordinal) {
            try (java.sql.PreparedStatement ps = cx.conn().prepareStatement("SELECT GENERATION_EXPRESSION FROM INFORMATION_SCHEMA.COLUMNS"
                    + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND ORDINAL_POSITION = ?")) {
                ps.setString(1, r.rawSchema);
                ps.setString(2, r.rawName);
                ps.setInt(3, ordinal);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getString(1) : null;
                }
            } catch (SQLException e) {
                return null;
            }
        }

        List<String> primaryKey(Rel r) throws SQLException {
            TreeMap<Integer, String> cols = new TreeMap<>();
            try (ResultSet rs = md.getPrimaryKeys(null, r.rawSchema, r.rawName)) {
                while (rs.next()) cols.put(rs.getInt("KEY_SEQ"), show(rs.getString("COLUMN_NAME")));
            }
            return new ArrayList<>(cols.values());
        }

        String primaryKeyName(Rel r) throws SQLException {
            try (ResultSet rs = md.getPrimaryKeys(null, r.rawSchema, r.rawName)) {
                return rs.next() ? show(rs.getString("PK_NAME")) : null;
            }
        }

        /** The table's indexes, the primary key's first, then by name. */
        List<Index> indexes(Rel t) throws SQLException {
            List<Index> known = indexes.get(t);
            if (known != null) return known;
            Map<String, TreeMap<Integer, String[]>> byName = new LinkedHashMap<>();
            Map<String, Boolean> unique = new HashMap<>();
            if (t.kind == 'r') {
                try (ResultSet rs = md.getIndexInfo(null, t.rawSchema, t.rawName, false, true)) {
                    while (rs.next()) {
                        String name = rs.getString("INDEX_NAME");
                        if (name == null || rs.getShort("TYPE") == DatabaseMetaData.tableIndexStatistic) continue;
                        byName.computeIfAbsent(name, k -> new TreeMap<>()).put((int) rs.getShort("ORDINAL_POSITION"),
                                new String[] {show(rs.getString("COLUMN_NAME")), rs.getString("ASC_OR_DESC")});
                        unique.put(name, !rs.getBoolean("NON_UNIQUE"));
                    }
                }
            }
            List<String> pk = t.kind == 'r' ? primaryKey(t) : List.of();
            String primary = null;
            for (Map.Entry<String, TreeMap<Integer, String[]>> e : byName.entrySet()) {
                List<String> cols = e.getValue().values().stream().map(v -> v[0]).toList();
                if (unique.get(e.getKey()) && cols.equals(pk)) {
                    String u = e.getKey().toUpperCase(Locale.ROOT);
                    if (primary == null || (u.contains("PRIMARY") || u.contains("PK")) && !primary.toUpperCase(Locale.ROOT).contains("PRIMARY")) primary = e.getKey();
                }
            }
            List<Index> l = new ArrayList<>();
            for (Map.Entry<String, TreeMap<Integer, String[]>> e : byName.entrySet()) {
                String raw = e.getKey();
                Rel rel = new Rel(t.rawSchema, raw, t.schema, show(raw), 'i', cx.oids().of("i", t.rawSchema, raw), null);
                List<String> cols = e.getValue().values().stream().map(v -> v[0]).toList();
                List<Boolean> desc = e.getValue().values().stream().map(v -> "D".equals(v[1])).toList();
                l.add(new Index(rel, t, unique.get(raw), raw.equals(primary), cols, desc));
            }
            l.sort(Comparator.comparing((Index i) -> !i.primary).thenComparing(i -> i.rel.name));
            indexes.put(t, l);
            return l;
        }

        /** The foreign keys of a table ({@code imported}) or referencing it. */
        List<ForeignKey> foreignKeys(Rel t, boolean imported) throws SQLException {
            Map<String, List<String[]>> byName = new LinkedHashMap<>();
            try (ResultSet rs = imported ? md.getImportedKeys(null, t.rawSchema, t.rawName) : md.getExportedKeys(null, t.rawSchema, t.rawName)) {
                while (rs.next()) {
                    String key = rs.getString("FKTABLE_SCHEM") + "\0" + rs.getString("FKTABLE_NAME") + "\0" + rs.getString("FK_NAME");
                    byName.computeIfAbsent(key, k -> new ArrayList<>()).add(new String[] {
                        rs.getString("FK_NAME"), rs.getString("FKTABLE_SCHEM"), rs.getString("FKTABLE_NAME"), rs.getString("FKCOLUMN_NAME"),
                        rs.getString("PKTABLE_SCHEM"), rs.getString("PKTABLE_NAME"), rs.getString("PKCOLUMN_NAME"),
                        rs.getString("KEY_SEQ"), rs.getString("UPDATE_RULE"), rs.getString("DELETE_RULE"), rs.getString("DEFERRABILITY"),
                        rs.getString("PK_NAME")});
                }
            }
            List<ForeignKey> l = new ArrayList<>();
            for (List<String[]> parts : byName.values()) {
                parts.sort(Comparator.comparingInt(p -> Integer.parseInt(p[7])));
                String[] f = parts.get(0);
                Rel fk = rel(f[1], f[2]);
                Rel pk = rel(f[4], f[5]);
                if (fk == null || pk == null) continue;
                l.add(new ForeignKey(show(f[0]), fk, parts.stream().map(p -> show(p[3])).toList(), pk, parts.stream().map(p -> show(p[6])).toList(),
                        intOr(f[8], 3), intOr(f[9], 3), intOr(f[10], 7), show(f[11])));
            }
            l.sort(Comparator.comparing((ForeignKey k) -> k.name));
            return l;
        }

        private Rel rel(String rawSchema, String rawName) throws SQLException {
            for (Rel r : relations()) if (r.rawSchema.equals(rawSchema) && r.rawName.equals(rawName)) return r;
            return null;
        }

        /** Schemas, by name. */
        List<String[]> schemas() throws SQLException {
            TreeMap<String, String[]> m = new TreeMap<>();
            try (ResultSet rs = md.getSchemas()) {
                while (rs.next()) {
                    String raw = rs.getString("TABLE_SCHEM");
                    m.put(show(raw), new String[] {raw, show(raw)});
                }
            }
            return new ArrayList<>(m.values());
        }

        /** Whether a relation is on the search path (psql's pg_table_is_visible): in the session's schema. */
        boolean visible(Rel r) throws SQLException {
            return visible(r.rawSchema, r.schema);
        }

        /** Whether what a schema holds is on the search path: the session's schema, or public. */
        boolean visible(String rawSchema, String schema) throws SQLException {
            String current = cx.conn().getSchema();
            return current == null ? schema.equals("public") : rawSchema.equals(current) || schema.equals("public");
        }

        /**
         * The functions, procedures and aggregates users created (H2's CREATE ALIAS and CREATE AGGREGATE, HSQLDB's
         * CREATE FUNCTION and CREATE PROCEDURE), with their parameters, from the standard INFORMATION_SCHEMA.ROUTINES
         * and PARAMETERS (JDBC's metadata does not tell an aggregate from a function, nor give HSQLDB's result types).
         */
        List<Routine> routines() throws SQLException {
            // One statement, so one replica answers it: an engine names a routine's SPECIFIC_NAME itself (HSQLDB adds a
            // counter), so two replicas may name the same routine differently, and two statements in autocommit may be
            // routed to two replicas.
            Map<String, RoutineRow> rows = new LinkedHashMap<>();
            try (Statement st = cx.conn().createStatement(); ResultSet rs = st.executeQuery(
                    "SELECT R.*, P.ORDINAL_POSITION AS P_POSITION, P.PARAMETER_MODE AS P_MODE, P.PARAMETER_NAME AS P_NAME,"
                            + " P.DATA_TYPE AS P_TYPE FROM INFORMATION_SCHEMA.ROUTINES R LEFT JOIN INFORMATION_SCHEMA.PARAMETERS P"
                            + " ON P.SPECIFIC_SCHEMA = R.ROUTINE_SCHEMA AND P.SPECIFIC_NAME = R.SPECIFIC_NAME")) {
                while (rs.next()) {
                    String sch = rs.getString("ROUTINE_SCHEMA");
                    String name = rs.getString("ROUTINE_NAME");
                    if (sch == null || name == null || isSystem(show(sch))) continue;
                    RoutineRow row = rows.get(sch + "\0" + rs.getString("SPECIFIC_NAME"));
                    if (row == null) {
                        String type = String.valueOf(rs.getString("ROUTINE_TYPE")).toUpperCase(Locale.ROOT);
                        String body = optional(rs, "ROUTINE_BODY");
                        row = new RoutineRow(sch, name, type.equals("PROCEDURE") ? 'p' : type.equals("AGGREGATE") ? 'a' : 'f',
                                rs.getString("DATA_TYPE"), body != null && body.equalsIgnoreCase("SQL") ? "sql"
                                        : optional(rs, "EXTERNAL_LANGUAGE") == null ? null : optional(rs, "EXTERNAL_LANGUAGE").toLowerCase(Locale.ROOT),
                                optional(rs, "ROUTINE_DEFINITION"), optional(rs, "REMARKS"), new ArrayList<>());
                        rows.put(sch + "\0" + rs.getString("SPECIFIC_NAME"), row);
                    }
                    if (rs.getString("P_POSITION") != null) {
                        row.params().add(new String[] {rs.getString("P_POSITION"), rs.getString("P_MODE"), rs.getString("P_NAME"), rs.getString("P_TYPE")});
                    }
                }
            }
            List<Routine> l = new ArrayList<>();
            for (RoutineRow r : rows.values()) {
                List<String[]> ps = r.params();
                ps.sort(Comparator.comparingInt(p -> intOr(p[0], 0)));
                List<String> args = new ArrayList<>();
                for (String[] p : ps) {
                    String mode = p[1] == null ? "IN" : p[1].toUpperCase(Locale.ROOT);
                    // H2 names a Java method's parameters P1, P2 ...: PostgreSQL shows an unnamed parameter by its type
                    boolean named = p[2] != null && !p[2].isEmpty() && !p[2].equals("P" + p[0]);
                    args.add((mode.equals("IN") ? "" : mode + " ") + (named ? quoteIdent(show(p[2])) + " " : "") + standardType(p[3]));
                }
                // H2 gives its aggregates' result type as NULL: it asks the aggregate at each call
                String result = r.kind() == 'p' || r.dataType() == null || r.dataType().equalsIgnoreCase("NULL") ? null : standardType(r.dataType());
                l.add(new Routine(show(r.rawSchema()), r.rawSchema(), show(r.name()), r.kind(), result, String.join(", ", args), r.language(),
                        r.definition(), r.remarks()));
            }
            l.sort(Comparator.comparing(Routine::schema).thenComparing(Routine::name).thenComparing(Routine::args));
            return l;
        }

        /**
         * The types users created: domains (the standard INFORMATION_SCHEMA.DOMAINS; H2 and HSQLDB have CREATE
         * DOMAIN) and distinct or structured types (JDBC's getUDTs; HSQLDB's CREATE TYPE), by schema then name.
         */
        List<UserType> types() throws SQLException {
            TreeMap<String, UserType> m = new TreeMap<>();
            try (Statement st = cx.conn().createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM INFORMATION_SCHEMA.DOMAINS")) {
                while (rs.next()) {
                    String sch = rs.getString("DOMAIN_SCHEMA");
                    String name = rs.getString("DOMAIN_NAME");
                    if (sch == null || name == null || isSystem(show(sch))) continue;
                    m.put(show(sch) + "\0" + show(name), new UserType(show(sch), sch, show(name), standardOid(rs.getString("DATA_TYPE")), optional(rs, "REMARKS")));
                }
            }
            try (ResultSet rs = md.getUDTs(null, null, "%", null)) {
                while (rs.next()) {
                    String sch = rs.getString("TYPE_SCHEM");
                    String name = rs.getString("TYPE_NAME");
                    if (sch == null || name == null || isSystem(show(sch))) continue;
                    int base = rs.getInt("BASE_TYPE");
                    int oid = rs.wasNull() || rs.getInt("DATA_TYPE") == Types.STRUCT ? PgTypes.TEXT : PgTypes.oidOf(base, null);
                    m.putIfAbsent(show(sch) + "\0" + show(name), new UserType(show(sch), sch, show(name), oid, rs.getString("REMARKS")));
                }
            }
            return new ArrayList<>(m.values());
        }

        /** A relation's name as regclass prints it: qualified when not visible. */
        String regclass(Rel r) throws SQLException {
            return visible(r) ? quoteIdent(r.name) : quoteIdent(r.schema) + "." + quoteIdent(r.name);
        }
    }

    private static String optional(ResultSet rs, String column) {
        try {
            return rs.getString(column);
        } catch (SQLException e) {
            return null;
        }
    }

    private static int intOr(String s, int otherwise) {
        try {
            return s == null ? otherwise : Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    static boolean isSystem(String schema) {
        return SYSTEM_SCHEMAS.contains(schema.toLowerCase(Locale.ROOT)) || schema.startsWith("pg_");
    }

    /** format_type(): the type as PostgreSQL spells it in \d. */
    static String formatType(int oid, int jdbc, String typeName, int size, int scale) {
        switch (oid) {
            case PgTypes.BOOL: return "boolean";
            case PgTypes.INT2: return "smallint";
            case PgTypes.INT4: return "integer";
            case PgTypes.INT8: return "bigint";
            case PgTypes.FLOAT4: return "real";
            case PgTypes.FLOAT8: return "double precision";
            case PgTypes.NUMERIC: return size > 0 && size <= 1000 ? "numeric(" + size + "," + Math.max(0, scale) + ")" : "numeric";
            case PgTypes.BPCHAR: return size > 0 && size < 10_485_760 ? "character(" + size + ")" : "character";
            case PgTypes.VARCHAR: return size > 0 && size < 10_485_760 ? "character varying(" + size + ")" : "character varying";
            case PgTypes.TEXT:
                return jdbc == Types.CLOB || jdbc == Types.LONGVARCHAR || jdbc == Types.NCLOB || jdbc == Types.LONGNVARCHAR
                        || typeName == null ? "text" : typeName.toLowerCase(Locale.ROOT);
            case PgTypes.BYTEA: return "bytea";
            case PgTypes.DATE: return "date";
            case PgTypes.TIME: return "time without time zone";
            case PgTypes.TIMETZ: return "time with time zone";
            case PgTypes.TIMESTAMP: return "timestamp without time zone";
            case PgTypes.TIMESTAMPTZ: return "timestamp with time zone";
            case PgTypes.UUID_OID: return "uuid";
            case PgTypes.JSON: return "json";
            default: return typeName == null ? "text" : typeName.toLowerCase(Locale.ROOT);
        }
    }

    /** The JDBC type of a data type named as INFORMATION_SCHEMA names it (H2: integer, HSQLDB: INTEGER, CHARACTER VARYING). */
    static int standardJdbcType(String name) {
        String n = name == null ? "" : name.replaceAll("\\(.*", "").strip().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
        switch (n) {
            case "BOOLEAN": case "BIT": return Types.BOOLEAN;
            case "TINYINT": return Types.TINYINT;
            case "SMALLINT": return Types.SMALLINT;
            case "INTEGER": case "INT": return Types.INTEGER;
            case "BIGINT": return Types.BIGINT;
            case "REAL": return Types.REAL;
            case "FLOAT": case "DOUBLE": case "DOUBLE PRECISION": return Types.DOUBLE;
            case "NUMERIC": case "DECIMAL": case "DEC": case "DECFLOAT": return Types.NUMERIC;
            case "CHARACTER": case "CHAR": return Types.CHAR;
            case "CHARACTER VARYING": case "VARCHAR": case "VARCHAR_IGNORECASE": return Types.VARCHAR;
            case "CHARACTER LARGE OBJECT": case "CLOB": case "LONGVARCHAR": return Types.CLOB;
            case "BINARY": case "BINARY VARYING": case "VARBINARY": case "BINARY LARGE OBJECT": case "BLOB": case "LONGVARBINARY": return Types.VARBINARY;
            case "DATE": return Types.DATE;
            case "TIME": case "TIME WITHOUT TIME ZONE": return Types.TIME;
            case "TIME WITH TIME ZONE": return Types.TIME_WITH_TIMEZONE;
            case "TIMESTAMP": case "TIMESTAMP WITHOUT TIME ZONE": return Types.TIMESTAMP;
            case "TIMESTAMP WITH TIME ZONE": return Types.TIMESTAMP_WITH_TIMEZONE;
            default: return Types.OTHER;
        }
    }

    /** The PostgreSQL type OID of a data type named as INFORMATION_SCHEMA names it. */
    static int standardOid(String name) {
        return PgTypes.oidOf(standardJdbcType(name), name);
    }

    /** A data type named as INFORMATION_SCHEMA names it, as format_type(oid, NULL) spells it (no length or precision). */
    static String standardType(String name) {
        int jdbc = standardJdbcType(name);
        return formatType(PgTypes.oidOf(jdbc, name), jdbc, name, 0, 0);
    }

    /** atttypmod: the declared length or precision as PostgreSQL stores it, -1 when none. */
    static int typmod(int oid, int size, int scale) {
        switch (oid) {
            case PgTypes.VARCHAR: case PgTypes.BPCHAR: return size > 0 && size < 10_485_760 ? size + 4 : -1;
            case PgTypes.NUMERIC: return size > 0 && size <= 1000 ? (size << 16 | Math.max(0, scale)) + 4 : -1;
            default: return -1;
        }
    }

    static String quoteIdent(String s) {
        return s.matches("[a-z_][a-z0-9_$]*") ? s : "\"" + s.replace("\"", "\"\"") + "\"";
    }

    private static String cols(List<String> names) {
        return String.join(", ", names.stream().map(PgCatalog::quoteIdent).toList());
    }

    private static String tf(boolean b) { return b ? "t" : "f"; }

    // ---- select lists: psql's queries are answered item by item --------------------------------------------------

    /** The items of the top-level select list of {@code s} (which starts with SELECT). */
    static List<String> selectItems(String s) {
        int start = s.regionMatches(true, 0, "SELECT ", 0, 7) ? 7 : 0;
        List<String> items = new ArrayList<>();
        int depth = 0;
        int from = start;
        for (int i = start; i < s.length(); i++) {
            int skip = SqlText.skipQuoted(s, i);
            if (skip > i) { i = skip - 1; continue; }
            char c = s.charAt(i);
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (depth == 0 && c == ',') {
                items.add(s.substring(from, i).strip());
                from = i + 1;
            } else if (depth == 0 && s.regionMatches(true, i, " FROM ", 0, 6)) {
                items.add(s.substring(from, i).strip());
                return items;
            }
        }
        items.add(s.substring(from).strip());
        return items;
    }

    private static final Pattern ALIAS = Pattern.compile("(?is).*\\s+AS\\s+(\"[^\"]+\"|\\w+)$");

    /** The column name PostgreSQL gives a select item. */
    static String itemName(String item) {
        Matcher m = ALIAS.matcher(item);
        if (m.matches()) {
            String a = m.group(1);
            return a.startsWith("\"") ? a.substring(1, a.length() - 1) : a.toLowerCase(Locale.ROOT);
        }
        Matcher id = Pattern.compile("^(?:\\w+\\.)?(\\w+)$").matcher(item);
        if (id.matches()) return id.group(1).toLowerCase(Locale.ROOT);
        Matcher fn = Pattern.compile("^(?:pg_catalog\\.)?(\\w+)\\(.*").matcher(item);
        if (fn.matches()) return fn.group(1).toLowerCase(Locale.ROOT);
        return "?column?";
    }

    /** Rows of values, one per entity, each value from {@code value(item, entity)} for the query's select items. */
    private static <E> Answer byItems(String s, List<E> entities, BiFunction<String, E, String> value) {
        List<String> items = selectItems(s);
        List<Col> cols = new ArrayList<>();
        for (String it : items) cols.add(new Col(itemName(it), PgTypes.TEXT));
        List<String[]> rows = new ArrayList<>();
        for (E e : entities) {
            String[] r = new String[items.size()];
            for (int i = 0; i < r.length; i++) r[i] = value.apply(items.get(i), e);
            rows.add(r);
        }
        return new Answer(cols, rows);
    }

    private static Answer empty(String s, List<String> params, Context cx) {
        return byItems(s, List.of(), (i, e) -> null);
    }

    private static int oidIn(String s, String prefix) {
        int at = s.indexOf(prefix);
        if (at < 0) return -1;
        Matcher m = OID_LITERAL.matcher(s);
        if (!m.find(at)) return -1;
        try {
            return Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            return -1; // no relation has it
        }
    }

    /** A psql name pattern {@code <column> OPERATOR(pg_catalog.~) '^(...)$'} as a regex, or null when absent. */
    private static Pattern psqlPattern(String s, String column) throws SQLException {
        Matcher m = Pattern.compile(Pattern.quote(column) + " OPERATOR\\(pg_catalog\\.~\\) '\\^\\((.*?)\\)\\$'").matcher(s);
        if (!m.find()) return null;
        try {
            return Pattern.compile(m.group(1).replace("''", "'"));
        } catch (PatternSyntaxException e) {
            throw new SQLException("invalid regular expression: " + e.getDescription(), "2201B");
        }
    }

    // ---- psql -------------------------------------------------------------------------------------------------

    private static Answer psqlRelations(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Matcher k = RELKINDS.matcher(s);
        k.find();
        String kinds = k.group(1);
        Pattern name = psqlPattern(s, "c.relname");
        Pattern schema = psqlPattern(s, "n.nspname");
        List<Rel[]> found = new ArrayList<>();
        for (Rel r : meta.relations()) {
            if (schema == null ? !meta.visible(r) : !schema.matcher(r.schema).matches()) continue;
            if (kinds.contains("'" + r.kind + "'") && (name == null || name.matcher(r.name).matches())) found.add(new Rel[] {r, null});
            if (kinds.contains("'i'") && r.kind == 'r') {
                for (Index i : meta.indexes(r)) if (name == null || name.matcher(i.rel.name).matches()) found.add(new Rel[] {i.rel, r});
            }
        }
        found.sort(Comparator.comparing((Rel[] r) -> r[0].schema).thenComparing(r -> r[0].name));
        return byItems(s, found, (item, r) -> {
            String n = itemName(item);
            switch (n) {
                case "Schema": return r[0].schema;
                case "Name": return r[0].name;
                case "Type": return r[0].kind == 'r' ? "table" : r[0].kind == 'v' ? "view" : r[0].kind == 'S' ? "sequence" : "index";
                case "Owner": return cx.user();
                case "Table": return r[1] == null ? null : r[1].name;
                case "Persistence": return "permanent";
                case "Access method": return r[0].kind == 'r' ? "heap" : r[0].kind == 'i' ? "btree" : null;
                case "Size": return null; // the engines' JDBC metadata has no sizes
                default: return null;
            }
        });
    }

    private static Answer psqlLookup(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Pattern name = psqlPattern(s, "c.relname");
        Pattern schema = psqlPattern(s, "n.nspname");
        boolean visibleOnly = s.contains("pg_catalog.pg_table_is_visible(c.oid)");
        List<Rel> found = new ArrayList<>();
        for (Rel r : meta.relations()) {
            if (schema != null && !schema.matcher(r.schema).matches() || visibleOnly && !meta.visible(r)) continue;
            if (name == null || name.matcher(r.name).matches()) found.add(r);
            if (r.kind == 'r') for (Index i : meta.indexes(r)) if (name != null && name.matcher(i.rel.name).matches()) found.add(i.rel);
        }
        found.sort(Comparator.comparing((Rel r) -> r.schema).thenComparing(r -> r.name));
        List<String[]> rows = new ArrayList<>();
        for (Rel r : found) rows.add(new String[] {Integer.toString(r.oid), r.schema, r.name});
        return new Answer(List.of(new Col("oid", PgTypes.OID), new Col("nspname", NAME), new Col("relname", NAME)), rows);
    }

    private static Answer psqlTableInfo(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Rel r = meta.byOid(oidIn(s, "WHERE c.oid ="));
        List<Rel> found = r == null ? List.of() : List.of(r);
        boolean hasIndex = r != null && r.kind == 'r' && !meta.indexes(r).isEmpty();
        // psql looks for foreign keys only when relhastriggers is set (PostgreSQL enforces them with triggers)
        boolean hasKeys = r != null && r.kind == 'r' && (!meta.foreignKeys(r, true).isEmpty() || !meta.foreignKeys(r, false).isEmpty());
        return byItems(s, found, (item, rel) -> {
            switch (itemName(item)) {
                case "relchecks": return "0";
                case "relkind": return Character.toString(rel.kind);
                case "relhasindex": return tf(hasIndex);
                case "relhastriggers": return tf(hasKeys);
                case "relhasrules": case "relrowsecurity": case "relforcerowsecurity": case "relhasoids":
                case "relispartition":
                    return "f";
                case "reltablespace": return "0";
                case "relpersistence": return "p";
                case "relreplident": return "d";
                case "amname": return rel.kind == 'r' ? "heap" : rel.kind == 'i' ? "btree" : null;
                case "reloptions": return null;
                default: return item.equals("''") || item.startsWith("CASE WHEN c.reloftype") ? "" : null;
            }
        });
    }

    /** A view's definition (\\d+ VIEW), from the standard INFORMATION_SCHEMA.VIEWS. */
    private static Answer psqlViewDefinition(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Rel r = meta.byOid(oidIn(s, "pg_get_viewdef("));
        String def = null;
        if (r != null && r.kind == 'v') {
            try (java.sql.PreparedStatement ps = cx.conn().prepareStatement(
                    "SELECT VIEW_DEFINITION FROM INFORMATION_SCHEMA.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
                ps.setString(1, r.rawSchema);
                ps.setString(2, r.rawName);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) def = rs.getString(1);
                }
            }
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {def});
        return new Answer(List.of(new Col("pg_get_viewdef", PgTypes.TEXT)), rows);
    }

    private static Answer psqlAttributes(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Rel r = meta.byOid(oidIn(s, "WHERE a.attrelid ="));
        List<Column> cols = new ArrayList<>();
        if (r != null && r.kind != 'i') cols = meta.columns(r);
        else if (r != null) {
            // an index: its key columns, typed as the table's
            for (Rel t : meta.relations()) {
                if (t.kind != 'r') continue;
                for (Index i : meta.indexes(t)) {
                    if (i.rel.oid != r.oid) continue;
                    Map<String, Column> byName = new HashMap<>();
                    for (Column c : meta.columns(t)) byName.put(c.name, c);
                    int n = 0;
                    for (String c : i.columns) {
                        Column tc = byName.get(c);
                        if (tc != null) cols.add(new Column(c, tc.oid, tc.type, tc.typmod, false, null, ++n, false, false, null));
                    }
                }
            }
        }
        boolean index = r != null && r.kind == 'i';
        return byItems(s, cols, (item, c) -> {
            if (item.equals("a.attname")) return c.name;
            if (item.startsWith("pg_catalog.format_type(")) return c.type;
            if (item.contains("pg_catalog.pg_get_expr(d.adbin, d.adrelid")) return c.def;
            if (item.equals("a.attnotnull")) return tf(c.notNull);
            if (item.endsWith("AS attcollation")) return null;
            if (item.contains("a.attidentity")) return c.identity ? "d" : "";
            if (item.contains("a.attgenerated")) return c.generated ? "s" : "";
            if (item.endsWith("AS is_key")) return "yes";
            if (item.endsWith("AS indexdef")) return index ? quoteIdent(c.name) : null;
            if (item.contains("a.attstorage")) return c.oid == PgTypes.TEXT || c.oid == PgTypes.VARCHAR || c.oid == PgTypes.NUMERIC || c.oid == PgTypes.BPCHAR || c.oid == PgTypes.BYTEA ? "x" : "p";
            if (item.contains("attcompression")) return "";
            if (item.contains("col_description")) return c.remarks;
            return null;
        });
    }

    private static String indexDef(Index i) {
        List<String> parts = new ArrayList<>();
        for (int k = 0; k < i.columns.size(); k++) parts.add(quoteIdent(i.columns.get(k)) + (i.descending.get(k) ? " DESC" : ""));
        return "CREATE " + (i.unique ? "UNIQUE " : "") + "INDEX " + quoteIdent(i.rel.name) + " ON " + quoteIdent(i.table.schema) + "."
                + quoteIdent(i.table.name) + " USING btree (" + String.join(", ", parts) + ")";
    }

    private static Answer psqlIndexes(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Rel r = meta.byOid(oidIn(s, "WHERE c.oid ="));
        List<Index> idx = r == null || r.kind != 'r' ? List.of() : meta.indexes(r);
        return byItems(s, idx, (item, i) -> {
            String n = itemName(item);
            if (item.startsWith("pg_catalog.pg_get_indexdef(")) return indexDef(i);
            if (item.startsWith("pg_catalog.pg_get_constraintdef(")) return i.primary ? "PRIMARY KEY (" + cols(i.columns) + ")" : null;
            switch (n) {
                case "relname": return i.rel.name;
                case "indisprimary": return tf(i.primary);
                case "indisunique": return tf(i.unique);
                case "indisclustered": case "condeferrable": case "condeferred": case "indisreplident": return "f";
                case "indisvalid": return "t";
                case "contype": return i.primary ? "p" : null;
                case "reltablespace": return "0";
                default: return null;
            }
        });
    }

    private static Answer psqlIndexInfo(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Index found = meta.indexByOid(oidIn(s, "c.oid ="));
        return byItems(s, found == null ? List.<Index>of() : List.of(found), (item, i) -> {
            switch (itemName(item)) {
                case "indisunique": return tf(i.unique);
                case "indisprimary": return tf(i.primary);
                case "indisvalid": return "t";
                case "amname": return "btree";
                case "relname": return i.table.name;
                case "pg_get_expr": return null;
                default: return "f";
            }
        });
    }

    private static String rule(int r) {
        switch (r) {
            case DatabaseMetaData.importedKeyCascade: return "CASCADE";
            case DatabaseMetaData.importedKeySetNull: return "SET NULL";
            case DatabaseMetaData.importedKeySetDefault: return "SET DEFAULT";
            case DatabaseMetaData.importedKeyRestrict: return "RESTRICT";
            default: return null;
        }
    }

    private static String constraintDef(ForeignKey k, Meta meta) throws SQLException {
        StringBuilder b = new StringBuilder("FOREIGN KEY (").append(cols(k.columns)).append(") REFERENCES ")
                .append(meta.regclass(k.refTable)).append('(').append(cols(k.refColumns)).append(')');
        if (rule(k.updateRule) != null) b.append(" ON UPDATE ").append(rule(k.updateRule));
        if (rule(k.deleteRule) != null) b.append(" ON DELETE ").append(rule(k.deleteRule));
        if (k.deferrability == DatabaseMetaData.importedKeyInitiallyDeferred) b.append(" DEFERRABLE INITIALLY DEFERRED");
        else if (k.deferrability == DatabaseMetaData.importedKeyInitiallyImmediate) b.append(" DEFERRABLE");
        return b.toString();
    }

    private static Answer foreignKeys(String s, Context cx, String oidPrefix, boolean imported) throws SQLException {
        Meta meta = new Meta(cx);
        Rel r = meta.byOid(oidIn(s, oidPrefix));
        List<ForeignKey> keys = r == null || r.kind != 'r' ? List.of() : meta.foreignKeys(r, imported);
        Map<ForeignKey, String[]> text = new HashMap<>();
        for (ForeignKey k : keys) text.put(k, new String[] {constraintDef(k, meta), meta.regclass(k.table)});
        return byItems(s, keys, (item, k) -> {
            switch (itemName(item)) {
                case "sametable": return "t";
                case "conname": return k.name;
                case "condef": return text.get(k)[0];
                case "ontable": return text.get(k)[1];
                default: return null;
            }
        });
    }

    private static Answer psqlForeignKeys(String s, List<String> params, Context cx) throws SQLException {
        return foreignKeys(s, cx, "r.conrelid =", true);
    }

    private static Answer psqlReferencedBy(String s, List<String> params, Context cx) throws SQLException {
        return foreignKeys(s, cx, "confrelid", false);
    }

    private static Answer psqlSchemas(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Pattern name = psqlPattern(s, "n.nspname");
        boolean hideSystem = s.contains("n.nspname !~ '^pg_'");
        List<String[]> found = new ArrayList<>();
        for (String[] sch : meta.schemas()) {
            if (hideSystem && isSystem(sch[1]) || name != null && !name.matcher(sch[1]).matches()) continue;
            found.add(sch);
        }
        return byItems(s, found, (item, sch) -> {
            switch (itemName(item)) {
                case "Name": return sch[1];
                case "Owner": return cx.user();
                default: return null;
            }
        });
    }

    private static Answer psqlDatabases(String s, List<String> params, Context cx) throws SQLException {
        Pattern name = psqlPattern(s, "d.datname");
        List<String> dbs = name == null || name.matcher(cx.database()).matches() ? List.of(cx.database()) : List.of();
        return byItems(s, dbs, (item, d) -> {
            switch (itemName(item)) {
                case "Name": return d;
                case "Owner": return cx.user();
                case "Encoding": return "UTF8";
                case "Collate": case "Ctype": return "C";
                case "Locale Provider": return "libc";
                case "Tablespace": return "pg_default";
                default: return null;
            }
        });
    }

    private static Answer psqlRoles(String s, List<String> params, Context cx) throws SQLException {
        Pattern name = psqlPattern(s, "r.rolname");
        List<String> roles = new ArrayList<>();
        for (String u : cx.users()) if (name == null || name.matcher(u).matches()) roles.add(u);
        return byItems(s, roles, (item, u) -> {
            switch (itemName(item)) {
                case "rolname": return u;
                case "rolinherit": case "rolcanlogin": return "t";
                case "rolsuper": case "rolcreaterole": case "rolcreatedb": case "rolreplication": case "rolbypassrls": return "f";
                case "rolconnlimit": return "-1";
                case "memberof": return "{}";
                default: return null;
            }
        });
    }

    /**
     * psql's {@code \df} (and {@code \df+}, {@code \dfa}, {@code \dfn}, {@code \dfp}, {@code \dfw}, patterns): the
     * functions, procedures and aggregates users created; none is a window or trigger function.
     */
    private static Answer psqlFunctions(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Pattern name = psqlPattern(s, "p.proname");
        Pattern schema = psqlPattern(s, "n.nspname");
        // \dfa, \dfp ...: kinds asked for ("p.prokind = 'a'"), or kinds left out ("p.prokind <> 'a'", "!= 'a'")
        Set<Character> wanted = new java.util.HashSet<>();
        Set<Character> unwanted = new java.util.HashSet<>();
        Matcher k = Pattern.compile("p\\.prokind (=|<>|!=) '(.)'").matcher(s);
        while (k.find()) (k.group(1).equals("=") ? wanted : unwanted).add(k.group(2).charAt(0));
        boolean onlyTriggers = wanted.isEmpty() && s.contains("p.prorettype = 'pg_catalog.trigger'");
        List<Routine> found = new ArrayList<>();
        for (Routine r : meta.routines()) {
            if (schema == null ? !meta.visible(r.rawSchema(), r.schema()) : !schema.matcher(r.schema()).matches()) continue;
            if (name != null && !name.matcher(r.name()).matches()) continue;
            if (onlyTriggers || !wanted.isEmpty() && !wanted.contains(r.kind()) || unwanted.contains(r.kind())) continue;
            found.add(r);
        }
        return byItems(s, found, (item, r) -> {
            switch (itemName(item)) {
                case "Schema": return r.schema();
                case "Name": return r.name();
                case "Result data type": return r.result();
                case "Argument data types": return r.args();
                case "Type": return r.kind() == 'a' ? "agg" : r.kind() == 'p' ? "proc" : "func";
                case "Volatility": return "volatile";
                case "Parallel": return "unsafe";
                case "Owner": return cx.user();
                case "Security": return "invoker";
                case "Language": return r.language();
                case "Source code": return r.source();
                case "Description": return r.remarks();
                default: return null;
            }
        });
    }

    /** psql's {@code \dT} (and {@code \dT+}, patterns): the domains and types users created. */
    private static Answer psqlTypes(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Pattern name = psqlPattern(s, "t.typname");
        Pattern schema = psqlPattern(s, "n.nspname");
        List<UserType> found = new ArrayList<>();
        Map<UserType, String> shown = new HashMap<>();
        for (UserType t : meta.types()) {
            boolean visible = meta.visible(t.rawSchema(), t.schema());
            if (schema == null ? !visible : !schema.matcher(t.schema()).matches()) continue;
            String formatted = visible ? quoteIdent(t.name()) : quoteIdent(t.schema()) + "." + quoteIdent(t.name());
            if (name != null && !name.matcher(t.name()).matches() && !name.matcher(formatted).matches()) continue;
            found.add(t);
            shown.put(t, formatted);
        }
        return byItems(s, found, (item, t) -> {
            switch (itemName(item)) {
                case "Schema": return t.schema();
                case "Name": return shown.get(t);
                case "Internal name": return t.name();
                case "Size": return PgTypes.typeSize(t.baseOid()) < 0 ? "var" : Integer.toString(PgTypes.typeSize(t.baseOid()));
                case "Elements": return "";
                case "Owner": return cx.user();
                case "Description": return t.remarks();
                default: return null;
            }
        });
    }

    // ---- pgjdbc's DatabaseMetaData ----------------------------------------------------------------------------------

    /** The value compared with {@code lhs} by {@code op} in the query: a $n parameter or a literal; absent: null. */
    private static String condition(String s, String lhs, String op, List<String> params) {
        Matcher m = CONDITION.matcher(s);
        while (m.find()) {
            if (!m.group(1).equals(lhs) || !m.group(2).equals(op)) continue;
            String v = m.group(3);
            if (v.startsWith("$")) {
                int n = Integer.parseInt(v.substring(1));
                return params != null && n <= params.size() ? params.get(n - 1) : null;
            }
            if (v.startsWith("E")) v = v.substring(1);
            return v.substring(1, v.length() - 1).replace("''", "'");
        }
        return null;
    }

    /** A LIKE pattern (with pgjdbc's backslash escape) as a regex; null matches everything. */
    static Pattern like(String p) {
        if (p == null) return Pattern.compile(".*", Pattern.DOTALL);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '\\' && i + 1 < p.length()) b.append(Pattern.quote(Character.toString(p.charAt(++i))));
            else if (c == '%') b.append(".*");
            else if (c == '_') b.append('.');
            else b.append(Pattern.quote(Character.toString(c)));
        }
        return Pattern.compile(b.toString(), Pattern.DOTALL);
    }

    private static boolean eq(String want, String actual) {
        return want == null || want.equals(actual);
    }

    private static Answer jdbcTables(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Pattern schema = like(condition(s, "n.nspname", "LIKE", params));
        Pattern name = like(condition(s, "c.relname", "LIKE", params));
        int filter = s.indexOf("(false");
        String kinds = filter < 0 ? null : s.substring(filter);
        List<String[]> rows = new ArrayList<>();
        for (Rel r : meta.relations()) {
            if (!schema.matcher(r.schema).matches() || !name.matcher(r.name).matches()) continue;
            if (kinds != null && !kinds.contains("c.relkind = '" + r.kind + "'") && !Pattern.compile("c\\.relkind IN \\([^)]*'" + r.kind + "'").matcher(kinds).find()) continue;
            String type = r.kind == 'r' ? "TABLE" : r.kind == 'v' ? "VIEW" : "SEQUENCE";
            rows.add(new String[] {cx.database(), r.schema, r.name, type, r.remarks, "", "", "", "", ""});
        }
        rows.sort(Comparator.comparing((String[] r) -> r[3]).thenComparing(r -> r[1]).thenComparing(r -> r[2]));
        List<Col> cols = new ArrayList<>();
        for (String c : List.of("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS", "TYPE_CAT", "TYPE_SCHEM", "TYPE_NAME",
                "SELF_REFERENCING_COL_NAME", "REF_GENERATION")) cols.add(new Col(c, PgTypes.TEXT));
        return new Answer(cols, rows);
    }

    private static Answer jdbcColumns(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Pattern schema = like(condition(s, "n.nspname", "LIKE", params));
        Pattern name = like(condition(s, "c.relname", "LIKE", params));
        Pattern column = like(condition(s, "attname", "LIKE", params));
        List<String[]> rows = new ArrayList<>();
        for (Rel r : meta.relations()) {
            if (r.kind == 'S' || !schema.matcher(r.schema).matches() || !name.matcher(r.name).matches()) continue;
            for (Column c : meta.columns(r)) {
                if (!column.matcher(c.name).matches()) continue;
                rows.add(new String[] {cx.database(), r.schema, r.name, c.name, Integer.toString(c.oid), tf(c.notNull), Integer.toString(c.typmod),
                    Integer.toString(PgTypes.typeSize(c.oid)), "-1", Integer.toString(c.num), c.identity ? "d" : null, c.generated ? "s" : null,
                    c.def, c.remarks, "0", "b"});
            }
        }
        return new Answer(List.of(new Col("current_database", NAME), new Col("nspname", NAME), new Col("relname", NAME), new Col("attname", NAME),
                new Col("atttypid", PgTypes.OID), new Col("attnotnull", PgTypes.BOOL), new Col("atttypmod", PgTypes.INT4), new Col("attlen", PgTypes.INT2),
                new Col("typtypmod", PgTypes.INT4), new Col("attnum", PgTypes.INT8), new Col("attidentity", CHAR), new Col("attgenerated", CHAR),
                new Col("adsrc", PgTypes.TEXT), new Col("description", PgTypes.TEXT), new Col("typbasetype", PgTypes.OID), new Col("typtype", CHAR)), rows);
    }

    private static Answer jdbcPrimaryKeys(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        String schema = condition(s, "n.nspname", "=", params);
        String table = condition(s, "ct.relname", "=", params);
        List<String[]> rows = new ArrayList<>();
        for (Rel r : meta.relations()) {
            if (r.kind != 'r' || !eq(schema, r.schema) || !eq(table, r.name)) continue;
            List<String> pk = meta.primaryKey(r);
            String pkName = pk.isEmpty() ? null : meta.primaryKeyName(r);
            for (int i = 0; i < pk.size(); i++) rows.add(new String[] {cx.database(), r.schema, r.name, pk.get(i), Integer.toString(i + 1), pkName});
        }
        rows.sort(Comparator.comparing((String[] r) -> r[2]).thenComparing(r -> r[5] == null ? "" : r[5]).thenComparingInt(r -> Integer.parseInt(r[4])));
        return new Answer(List.of(new Col("TABLE_CAT", NAME), new Col("TABLE_SCHEM", NAME), new Col("TABLE_NAME", NAME), new Col("COLUMN_NAME", NAME),
                new Col("KEY_SEQ", PgTypes.INT4), new Col("PK_NAME", NAME)), rows);
    }

    private static Answer jdbcIndexInfo(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        String schema = condition(s, "n.nspname", "=", params);
        String table = condition(s, "ct.relname", "=", params);
        boolean uniqueOnly = s.contains("AND i.indisunique");
        List<String[]> rows = new ArrayList<>();
        for (Rel r : meta.relations()) {
            if (r.kind != 'r' || !eq(schema, r.schema) || !eq(table, r.name)) continue;
            for (Index i : meta.indexes(r)) {
                if (uniqueOnly && !i.unique) continue;
                for (int k = 0; k < i.columns.size(); k++) {
                    rows.add(new String[] {cx.database(), r.schema, r.name, tf(!i.unique), null, i.rel.name, "3", Integer.toString(k + 1),
                        i.columns.get(k), i.descending.get(k) ? "D" : "A", "0", "0", null, null});
                }
            }
        }
        rows.sort(Comparator.comparing((String[] r) -> r[3]).thenComparing(r -> r[5]).thenComparingInt(r -> Integer.parseInt(r[7])));
        return new Answer(List.of(new Col("TABLE_CAT", NAME), new Col("TABLE_SCHEM", NAME), new Col("TABLE_NAME", NAME), new Col("NON_UNIQUE", PgTypes.BOOL),
                new Col("INDEX_QUALIFIER", PgTypes.TEXT), new Col("INDEX_NAME", NAME), new Col("TYPE", PgTypes.INT4), new Col("ORDINAL_POSITION", PgTypes.INT4),
                new Col("COLUMN_NAME", PgTypes.TEXT), new Col("ASC_OR_DESC", PgTypes.TEXT), new Col("CARDINALITY", PgTypes.FLOAT4), new Col("PAGES", PgTypes.INT4),
                new Col("FILTER_CONDITION", PgTypes.TEXT), new Col("REMARKS", PgTypes.TEXT)), rows);
    }

    private static Answer jdbcKeys(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        String fkSchema = condition(s, "fkn.nspname", "=", params);
        String fkTable = condition(s, "fkc.relname", "=", params);
        String pkSchema = condition(s, "pkn.nspname", "=", params);
        String pkTable = condition(s, "pkc.relname", "=", params);
        boolean byPrimary = fkTable == null;
        List<String[]> rows = new ArrayList<>();
        for (Rel r : meta.relations()) {
            if (r.kind != 'r') continue;
            if (byPrimary ? !eq(pkSchema, r.schema) || !eq(pkTable, r.name) : !eq(fkSchema, r.schema) || !eq(fkTable, r.name)) continue;
            for (ForeignKey k : meta.foreignKeys(r, !byPrimary)) {
                if (!eq(pkSchema, k.refTable.schema) || !eq(pkTable, k.refTable.name) || !eq(fkSchema, k.table.schema) || !eq(fkTable, k.table.name)) continue;
                for (int i = 0; i < k.columns.size(); i++) {
                    rows.add(new String[] {cx.database(), k.refTable.schema, k.refTable.name, k.refColumns.get(i), cx.database(), k.table.schema, k.table.name,
                        k.columns.get(i), Integer.toString(i + 1), Integer.toString(k.updateRule), Integer.toString(k.deleteRule), k.name, k.pkName,
                        Integer.toString(k.deferrability)});
                }
            }
        }
        Comparator<String[]> order = byPrimary
                ? Comparator.comparing((String[] r) -> r[5]).thenComparing(r -> r[6]).thenComparing(r -> r[11])
                : Comparator.comparing((String[] r) -> r[1]).thenComparing(r -> r[2]).thenComparing(r -> r[11]);
        rows.sort(order.thenComparingInt(r -> Integer.parseInt(r[8])));
        List<Col> cols = new ArrayList<>();
        for (String c : List.of("PKTABLE_CAT", "PKTABLE_SCHEM", "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_CAT", "FKTABLE_SCHEM", "FKTABLE_NAME", "FKCOLUMN_NAME")) {
            cols.add(new Col(c, NAME));
        }
        cols.add(new Col("KEY_SEQ", PgTypes.INT4));
        cols.add(new Col("UPDATE_RULE", PgTypes.INT4));
        cols.add(new Col("DELETE_RULE", PgTypes.INT4));
        cols.add(new Col("FK_NAME", NAME));
        cols.add(new Col("PK_NAME", NAME));
        cols.add(new Col("DEFERRABILITY", PgTypes.INT4));
        return new Answer(cols, rows);
    }

    private static Answer jdbcSchemas(String s, List<String> params, Context cx) throws SQLException {
        Meta meta = new Meta(cx);
        Pattern schema = like(condition(s, "nspname", "LIKE", params));
        List<String[]> rows = new ArrayList<>();
        for (String[] sch : meta.schemas()) if (schema.matcher(sch[1]).matches()) rows.add(new String[] {sch[1], cx.database()});
        return new Answer(List.of(new Col("TABLE_SCHEM", NAME), new Col("TABLE_CATALOG", NAME)), rows);
    }
}
