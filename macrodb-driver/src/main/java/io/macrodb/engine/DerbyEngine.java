package io.macrodb.engine;

import io.macrodb.log.Propagation;
import io.macrodb.log.TableShape;
import io.macrodb.sql.Dialect;
import io.macrodb.sql.SqlState;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Apache Derby 10.16, embedded. The primary is the application's database ({@code memory:shop} or a
 * directory); every secondary is a private in-memory Derby database ({@code memory:<name>_r<i>}).
 *
 * <p>Capture: a Derby procedure has a fixed list of typed parameters, so each column gets one AFTER
 * ... FOR EACH ROW trigger per event, calling the procedure of its type in schema {@code MACRODB}
 * ({@link DerbyCapture} puts the rows back together). LOB, LONG VARCHAR and XML columns are not
 * passed: their rows are read back by key at commit.
 *
 * <p>Copying: Derby has no SCRIPT statement. The script this engine writes is text: the DDL that
 * Derby's own {@code dblook} writes (one statement per line, MacroDB's capture objects left out),
 * then each table's rows, serialized, on comment lines. Identity columns are restarted past their
 * largest value after the rows are in.
 *
 * <p>What Derby cannot do and MacroDB therefore does differently: foreign keys cannot be switched
 * off, so a row-mode secondary has none (its rows arrive already checked on the primary, and
 * cascades arrive as captured rows); a {@code GENERATED ALWAYS} identity is made {@code BY DEFAULT}
 * on secondaries, because Derby has no {@code OVERRIDING SYSTEM VALUE}.
 */
public final class DerbyEngine implements Engine {
    /** The schema of MacroDB's capture procedures, created in every replica. */
    static final String CAPTURE_SCHEMA = "MACRODB";
    private static final String TRIGGER_PREFIX = "MACRODB_CAPTURE:";
    private static final Set<String> PRIMARY_ONLY = Set.of("CREATE", "CREATEFROM", "RESTOREFROM", "ROLLFORWARDRECOVERYFROM",
            "SHUTDOWN", "DROP", "UPGRADE", "BOOTPASSWORD", "NEWBOOTPASSWORD", "DATAENCRYPTION", "ENCRYPTIONKEY", "ENCRYPTIONALGORITHM",
            "LOGDEVICE", "DEREGISTER");
    private static final String ROW_PREFIX = "-- MACRODB ROW ";
    private static final String TABLE_PREFIX = "-- MACRODB TABLE ";
    private static final String NO_FOREIGN_KEYS = "macrodb.noForeignKeys";

    /** A capture procedure: its name suffix, SQL parameter type and Java method. */
    private record Proc(String name, String sqlType, String method) {}

    private static final Proc INT = new Proc("INT", "INTEGER", "fireInt");
    private static final Proc BIGINT = new Proc("BIGINT", "BIGINT", "fireBigint");
    private static final Proc REAL = new Proc("REAL", "REAL", "fireReal");
    private static final Proc DOUBLE = new Proc("DOUBLE", "DOUBLE", "fireDouble");
    private static final Proc BOOLEAN = new Proc("BOOLEAN", "BOOLEAN", "fireBoolean");
    private static final Proc STRING = new Proc("STRING", "VARCHAR(32672)", "fireString");
    private static final Proc BYTES = new Proc("BYTES", "VARCHAR(32672) FOR BIT DATA", "fireBytes");
    private static final Proc DATE = new Proc("DATE", "DATE", "fireDate");
    private static final Proc TIME = new Proc("TIME", "TIME", "fireTime");
    private static final Proc TIMESTAMP = new Proc("TIMESTAMP", "TIMESTAMP", "fireTimestamp");
    private static final Proc NONE = new Proc("NONE", null, "fireNone");
    private static final Proc KEYLESS = new Proc("KEYLESS", null, "refuseKeyless");
    /** Columns K..L not passed, in one call (the non-key columns of a table with a key: read back at commit). */
    private static final Proc RANGE = new Proc("RANGE", null, "fireRange");
    private static final List<Proc> FIXED = List.of(INT, BIGINT, REAL, DOUBLE, BOOLEAN, STRING, BYTES, DATE, TIME, TIMESTAMP, NONE, KEYLESS,
            RANGE);
    /**
     * A table's whole key in one call, for keys whose columns all pass as the same type: the procedure's last
     * parameter is a list of that type (a Derby varargs routine), and its Java method's name is the type's here.
     */
    private static final Map<Proc, String> KEYS = Map.of(INT, "keysInt", BIGINT, "keysBigint", STRING, "keysString");

    @Override public String name() { return "derby"; }

    @Override public Dialect dialect() { return Dialect.DERBY; }

    @Override public String secondaryUrl(EngineUrl primary, String uniqueName, int index) {
        Map<String, String> settings = new LinkedHashMap<>();
        primary.settings().forEach((k, v) -> {
            if (!PRIMARY_ONLY.contains(k.toUpperCase(Locale.ROOT))) settings.put(k, v);
        });
        settings.put("create", "true");
        return "jdbc:derby:memory:" + uniqueName + "_r" + index + EngineUrl.settingsSuffix(settings);
    }

    /**
     * Refused at connect with 0AM00: {@code propagation=statement} (Derby's clock, random and sequence functions are not
     * rewritten for replay).
     */
    @Override public void checkSupported(EngineUrl url, Propagation propagation, boolean durable) throws SQLException {
        if (propagation != Propagation.ROW) {
            throw new SQLException("MacroDB: propagation=statement is not offered on Derby: its functions that read the clock or"
                    + " draw random values are not rewritten for replay; use propagation=row (the default)",
                    SqlState.FEATURE_NOT_OFFERED.getState());
        }
    }

    @Override public void configurePrimary(Connection c, Propagation propagation, EngineUrl url) throws SQLException {
        if (url.database().startsWith("//")) {
            throw new SQLException("MacroDB: Derby's network server (jdbc:derby://...) cannot be replicated: MacroDB runs embedded"
                    + " engines only; use jdbc:macrodb:derby:memory:<name>;create=true or jdbc:macrodb:derby:<directory>;create=true",
                    SqlState.FEATURE_NOT_OFFERED.getState());
        }
        refuseTerritoryCollation(c, url);
        createProcedures(c);
    }

    /**
     * A database that compares strings by territory ({@code collation=TERRITORY_BASED} when it was created) is refused
     * with 0AM00 before MacroDB changes anything. Such a database gives its own schemas' strings, and the literals of
     * statements compiled in them, the territory's collation and keeps the system tables' at UCS_BASIC: MacroDB's catalog
     * queries, which compare the two, fail there, and a secondary MacroDB makes from a URL without the attribute would
     * compare strings otherwise. Before 2026-11-29 the open failed with 42ZA2 from a catalog query, after MacroDB had put
     * its procedures into the database (DerbyEngineTest).
     */
    private static void refuseTerritoryCollation(Connection c, EngineUrl url) throws SQLException {
        String collation = property(c, "derby.database.collation");
        if (collation == null || collation.equalsIgnoreCase("UCS_BASIC")) return;
        throw new SQLException("MacroDB: Derby database " + url.database() + " compares strings by territory"
                + " (derby.database.collation = " + collation + "); MacroDB replicates Derby databases with the default"
                + " collation, UCS_BASIC, only: its catalog queries compare the system tables' strings, which stay UCS_BASIC,"
                + " with its own, and the secondaries it makes would compare strings otherwise. Use a database created without"
                + " collation=TERRITORY_BASED (export the data into one), or use the engine alone. Nothing was changed",
                SqlState.FEATURE_NOT_OFFERED.getState());
    }

    @Override public void configureSecondary(Connection c, Propagation propagation) throws SQLException {
        createProcedures(c);
        if (propagation == Propagation.ROW) setProperty(c, NO_FOREIGN_KEYS, "true");
    }

    /** Creates MacroDB's capture procedures unless they are there. */
    private static void createProcedures(Connection c) throws SQLException {
        Set<String> existing = procedures(c);
        for (Proc p : FIXED) createProcedure(c, existing, p);
        for (Map.Entry<Proc, String> k : KEYS.entrySet()) {
            createOnce(c, existing, "CAPTURE_KEYS_" + k.getKey().name, "(S VARCHAR(128), T VARCHAR(128), E CHAR(1), N INTEGER,"
                    + " K VARCHAR(32672), V " + k.getKey().sqlType + " ...) LANGUAGE JAVA PARAMETER STYLE DERBY", k.getValue());
        }
    }

    private static Set<String> procedures(Connection c) throws SQLException {
        Set<String> existing = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT A.ALIAS FROM SYS.SYSALIASES A JOIN SYS.SYSSCHEMAS S"
                + " ON A.SCHEMAID = S.SCHEMAID WHERE S.SCHEMANAME = ?")) {
            ps.setString(1, CAPTURE_SCHEMA);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) existing.add(rs.getString(1));
            }
        }
        return existing;
    }

    private static void createProcedure(Connection c, Set<String> existing, Proc p) throws SQLException {
        String values = p == RANGE ? ", L INTEGER" : p.sqlType == null ? "" : ", O " + p.sqlType + ", V " + p.sqlType;
        String parameters = p == KEYLESS ? "(S VARCHAR(128), T VARCHAR(128))"
                : "(S VARCHAR(128), T VARCHAR(128), E CHAR(1), K INTEGER, N INTEGER" + values + ")";
        createOnce(c, existing, "CAPTURE_" + p.name, parameters + " LANGUAGE JAVA PARAMETER STYLE JAVA", p.method);
    }

    /** Creates procedure {@code name} of {@link DerbyCapture}'s {@code method} unless {@code existing} has it. */
    private static void createOnce(Connection c, Set<String> existing, String name, String signature, String method)
            throws SQLException {
        if (existing.contains(name)) return;
        try (Statement s = c.createStatement()) {
            s.execute("CREATE PROCEDURE " + CAPTURE_SCHEMA + "." + name + signature + " NO SQL EXTERNAL NAME '"
                    + DerbyCapture.class.getName() + "." + method + "'");
        } catch (SQLException e) {
            if (!"X0Y68".equals(e.getSQLState())) throw e; // another session created it first
        }
        existing.add(name);
    }

    /** The procedure that passes a column of this JDBC type (decimal procedures are per scale). */
    private static Proc procFor(Connection c, int type, int scale) throws SQLException {
        return switch (type) {
            case Types.SMALLINT, Types.INTEGER -> INT;
            case Types.BIGINT -> BIGINT;
            case Types.REAL -> REAL;
            case Types.DOUBLE, Types.FLOAT -> DOUBLE;
            case Types.BOOLEAN -> BOOLEAN;
            case Types.CHAR, Types.VARCHAR -> STRING;
            case Types.BINARY, Types.VARBINARY -> BYTES;
            case Types.DATE -> DATE;
            case Types.TIME -> TIME;
            case Types.TIMESTAMP -> TIMESTAMP;
            case Types.DECIMAL, Types.NUMERIC -> {
                Proc p = new Proc("DECIMAL_" + scale, "DECIMAL(31," + scale + ")", "fireDecimal");
                createProcedure(c, procedures(c), p);
                yield p;
            }
            default -> NONE; // LOBs, LONG VARCHAR, XML, user-defined types: read back by key
        };
    }

    private record Col(String name, int type, int scale) {}

    private static List<Col> columnsOf(Connection c, String schema, String table) throws SQLException {
        List<Col> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT C.COLUMNNAME, C.COLUMNNUMBER FROM SYS.SYSCOLUMNS C"
                + " JOIN SYS.SYSTABLES T ON C.REFERENCEID = T.TABLEID JOIN SYS.SYSSCHEMAS S ON T.SCHEMAID = S.SCHEMAID"
                + " WHERE S.SCHEMANAME = ? AND T.TABLENAME = ? ORDER BY C.COLUMNNUMBER")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(new Col(rs.getString(1), Types.OTHER, 0));
            }
        }
        DatabaseMetaData md = c.getMetaData();
        Map<String, int[]> types = new java.util.HashMap<>();
        // Derby's patterns have no escape character (getSearchStringEscape is empty): "EXTRA\\_0" matched no table, so
        // every column of a table with an underscore in its name was captured as one the trigger cannot pass. The
        // name is the pattern as it is, and rows of other tables it matches ("EXTRAX0") are left out.
        try (ResultSet rs = md.getColumns(null, schema, table, "%")) {
            while (rs.next()) {
                if (!table.equals(rs.getString("TABLE_NAME")) || !schema.equals(rs.getString("TABLE_SCHEM"))) continue;
                types.put(rs.getString("COLUMN_NAME"), new int[] {rs.getInt("DATA_TYPE"), rs.getInt("DECIMAL_DIGITS")});
            }
        }
        List<Col> typed = new ArrayList<>(out.size());
        for (Col col : out) {
            int[] t = types.getOrDefault(col.name, new int[] {Types.OTHER, 0});
            typed.add(new Col(col.name, t[0], t[1]));
        }
        return typed;
    }

    static String triggerName(String event, int ordinal, int count, TableShape t) {
        return triggerName(event, Integer.toString(ordinal), count, t);
    }

    /** A capture trigger's name: its event, the ordinals of its columns ({@code 3} or a range {@code 4-17}), the count. */
    static String triggerName(String event, String ordinal, int count, TableShape t) {
        String name = TRIGGER_PREFIX + event + ":" + ordinal + ":" + count + ":" + t.table();
        if (name.length() > 128) {
            name = TRIGGER_PREFIX + event + ":" + ordinal + ":" + count + ":#" + Integer.toHexString(t.table().hashCode())
                    + ":" + t.table().substring(0, 60);
        }
        return name;
    }

    /** MacroDB's capture triggers on each table of {@code schema}, by table name. */
    private static Map<String, Set<String>> captureTriggers(Connection c, String schema) throws SQLException {
        Map<String, Set<String>> out = new java.util.HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT T.TABLENAME, G.TRIGGERNAME FROM SYS.SYSTRIGGERS G"
                + " JOIN SYS.SYSTABLES T ON G.TABLEID = T.TABLEID JOIN SYS.SYSSCHEMAS S ON G.SCHEMAID = S.SCHEMAID"
                + " WHERE S.SCHEMANAME = ? AND G.TRIGGERNAME LIKE 'MACRODB_CAPTURE:%'")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2));
            }
        }
        return out;
    }

    /**
     * The capture triggers of a table: per event, one trigger per column a row needs passed, each calling the
     * procedure of its column's type ({@link DerbyCapture}). A table with a key has its rows read back at commit
     * ({@link #triggerImagesMayBeStale}), so only its key columns are passed; each run of other columns is one
     * trigger that passes none ({@code CAPTURE_RANGE}). A trigger per column cost about 20 us per changed row: an
     * update of a row of 17 columns took 525 us through MacroDB, 41 us on plain Derby. Where every key column passes
     * as the same type ({@link #KEYS}: INT and SMALLINT, BIGINT, CHAR and VARCHAR), one trigger per event passes the
     * whole key instead ({@code CAPTURE_KEYS_<type>}, a varargs procedure): one call a changed row where TPC-C's
     * tables made three to five, on the primary and again on every secondary as it applies (secondaries carry the
     * capture triggers too). A table without a key has its inserts passed whole (no key to read them back by) and its
     * updates and deletes refused.
     */
    @Override public void installCapture(Connection c, TableShape t) throws SQLException {
        List<Col> cols = columnsOf(c, t.schema(), t.table());
        int n = cols.size();
        if (n == 0) return;
        Set<String> existing = captureTriggers(c, t.schema()).getOrDefault(t.table(), Set.of());
        boolean keyless = !t.hasKey();
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < t.keyCount(); i++) keys.add(t.columns().get(t.keyIndex(i)));
        // the first ordinal of each trigger's columns, and the last (a range's), in column order
        List<int[]> segments = new ArrayList<>();
        for (int k = 1; k <= n; k++) {
            boolean passed = keyless || keys.contains(cols.get(k - 1).name);
            int[] last = segments.isEmpty() ? null : segments.get(segments.size() - 1);
            if (!passed && last != null && last[2] == 0 && last[1] == k - 1) last[1] = k; // extends the range
            else segments.add(new int[] {k, k, passed ? 1 : 0});
        }
        // a key whose columns all pass as one type: one trigger per event passes the whole key
        Proc keyProc = keyless ? null : keyProc(c, cols, keys);
        List<Integer> keyOrdinals = new ArrayList<>();
        for (int k = 1; k <= n; k++) if (keys.contains(cols.get(k - 1).name)) keyOrdinals.add(k);
        String keyList = keyOrdinals.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","));
        Set<String> expected = new HashSet<>();
        if (keyProc != null) {
            for (String ev : List.of("I", "U", "D")) expected.add(keyTriggerName(ev, keyList, n, t));
        } else for (String ev : List.of("I", "U", "D")) {
            // a table without a key: its inserts are captured; its updates and deletes are refused (a
            // secondary could not remove one of several equal rows: Derby's DELETE takes no row limit)
            if (keyless && !ev.equals("I")) expected.add(triggerName(ev, 0, n, t));
            else for (int[] seg : segments) expected.add(segmentTriggerName(ev, seg, n, t));
        }
        if (existing.equals(expected)) return;
        try (Statement s = c.createStatement()) {
            // the table changed shape (or has none yet, or its triggers are an older MacroDB's): all of them again, in column order
            for (String old : existing) s.execute("DROP TRIGGER " + TableShape.quote(t.schema()) + "." + TableShape.quote(old));
            String[][] events = {{"I", "INSERT", "REFERENCING NEW AS N"}, {"U", "UPDATE", "REFERENCING OLD AS O NEW AS N"},
                    {"D", "DELETE", "REFERENCING OLD AS O"}};
            String schemaLit = literal(t.schema());
            String tableLit = literal(t.table());
            for (String[] ev : events) {
                if (keyProc != null) {
                    StringBuilder call = new StringBuilder(CAPTURE_SCHEMA + ".CAPTURE_KEYS_" + keyProc.name + "(" + schemaLit + ", "
                            + tableLit + ", '" + ev[0] + "', " + n + ", '" + keyList + "'");
                    // an insert passes the new key, a delete the old one, an update both (old first): a key-moving update
                    // needs the old key to find the row on a secondary
                    if (!ev[0].equals("I")) for (int k : keyOrdinals) call.append(", O.").append(TableShape.quote(cols.get(k - 1).name));
                    if (!ev[0].equals("D")) for (int k : keyOrdinals) call.append(", N.").append(TableShape.quote(cols.get(k - 1).name));
                    call.append(')');
                    s.execute("CREATE TRIGGER " + TableShape.quote(t.schema()) + "." + TableShape.quote(keyTriggerName(ev[0], keyList, n, t))
                            + " AFTER " + ev[1] + " ON " + t.qualifiedName() + " " + ev[2] + " FOR EACH ROW CALL " + call);
                    continue;
                }
                if (keyless && !ev[0].equals("I")) {
                    s.execute("CREATE TRIGGER " + TableShape.quote(t.schema()) + "." + TableShape.quote(triggerName(ev[0], 0, n, t))
                            + " AFTER " + ev[1] + " ON " + t.qualifiedName() + " FOR EACH ROW CALL " + CAPTURE_SCHEMA
                            + ".CAPTURE_KEYLESS(" + schemaLit + ", " + tableLit + ")");
                    continue;
                }
                for (int[] seg : segments) {
                    int k = seg[0];
                    String name = segmentTriggerName(ev[0], seg, n, t);
                    StringBuilder call;
                    if (seg[2] == 0) {
                        call = new StringBuilder(CAPTURE_SCHEMA + ".CAPTURE_" + RANGE.name + "(" + schemaLit + ", " + tableLit
                                + ", '" + ev[0] + "', " + k + ", " + n + ", " + seg[1]);
                    } else {
                        Col col = cols.get(k - 1);
                        Proc p = procFor(c, col.type, col.scale);
                        call = new StringBuilder(CAPTURE_SCHEMA + ".CAPTURE_" + p.name + "(" + schemaLit + ", " + tableLit
                                + ", '" + ev[0] + "', " + k + ", " + n);
                        if (p.sqlType != null) {
                            String q = TableShape.quote(col.name);
                            String nul = "CAST(NULL AS " + p.sqlType + ")";
                            call.append(", ").append(ev[0].equals("I") ? nul : "O." + q);
                            call.append(", ").append(ev[0].equals("D") ? nul : "N." + q);
                        }
                    }
                    call.append(')');
                    s.execute("CREATE TRIGGER " + TableShape.quote(t.schema()) + "." + TableShape.quote(name)
                            + " AFTER " + ev[1] + " ON " + t.qualifiedName() + " " + ev[2] + " FOR EACH ROW CALL " + call);
                }
            }
        }
    }

    /** The procedure type that every key column passes as, if they share one that {@link #KEYS} has; else null. */
    private static Proc keyProc(Connection c, List<Col> cols, Set<String> keys) throws SQLException {
        Proc shared = null;
        for (Col col : cols) {
            if (!keys.contains(col.name)) continue;
            Proc p = procFor(c, col.type, col.scale);
            if (!KEYS.containsKey(p) || shared != null && shared != p) return null;
            shared = p;
        }
        return shared;
    }

    /** The trigger that passes a table's whole key for {@code event}: its key ordinals in the name ({@code k1,2}). */
    private static String keyTriggerName(String event, String keyList, int count, TableShape t) {
        String ordinals = keyList.length() <= 40 ? "k" + keyList : "k#" + Integer.toHexString(keyList.hashCode());
        return triggerName(event, ordinals, count, t);
    }

    /** A segment's trigger: {@code {first, last, passed}} (a range of columns not passed when {@code passed} is 0). */
    private static String segmentTriggerName(String event, int[] seg, int count, TableShape t) {
        return seg[2] == 0 ? triggerName(event, seg[0] + "-" + seg[1], count, t) : triggerName(event, seg[0], count, t);
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /**
     * Prepares a row-mode secondary (after its copy and after every schema change): drops the
     * application's triggers, and what Derby cannot switch off for rows that arrive as images:
     * foreign keys (the rows were checked on the primary, and its cascades arrive as rows of their
     * own, in an order the keys would refuse) and {@code GENERATED ALWAYS} on identity columns
     * (Derby has no {@code OVERRIDING SYSTEM VALUE}; the images carry the primary's values).
     */
    @Override public void dropUserTriggers(Connection c) throws SQLException {
        setReferentialIntegrity(c, false);
        identitiesByDefault(c);
        dropApplicationTriggers(c);
    }

    /**
     * {@link #dropUserTriggers} without its commits ({@link #setReferentialIntegrity} commits after setting a database
     * property), for the middle of an apply transaction: the foreign keys and the application's triggers dropped, identity
     * columns {@code BY DEFAULT}. The property is set already: the secondary was built so.
     */
    @Override public void afterSchemaChangeInApply(Connection c) throws SQLException {
        dropForeignKeys(c);
        identitiesByDefault(c);
        dropApplicationTriggers(c);
    }

    /** Identity columns {@code GENERATED ALWAYS} made {@code BY DEFAULT}: rows arrive with the primary's values. */
    private static void identitiesByDefault(Connection c) throws SQLException {
        List<String> identities = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT S.SCHEMANAME, T.TABLENAME, C.COLUMNNAME FROM SYS.SYSCOLUMNS C"
                     + " JOIN SYS.SYSTABLES T ON C.REFERENCEID = T.TABLEID JOIN SYS.SYSSCHEMAS S ON T.SCHEMAID = S.SCHEMAID"
                     + " WHERE C.AUTOINCREMENTINC IS NOT NULL AND C.COLUMNDEFAULT IS NULL AND T.TABLETYPE = 'T'")) {
            while (rs.next()) {
                identities.add("ALTER TABLE " + TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2))
                        + " ALTER COLUMN " + TableShape.quote(rs.getString(3)) + " SET GENERATED BY DEFAULT");
            }
        }
        try (Statement s = c.createStatement()) {
            for (String d : identities) s.execute(d);
        }
    }

    @Override public Set<String> applicationTriggerNames(Connection c) throws SQLException {
        Set<String> out = new HashSet<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT TRIGGERNAME FROM SYS.SYSTRIGGERS WHERE TRIGGERNAME NOT LIKE 'MACRODB_CAPTURE:%'")) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    /** The application's triggers dropped (MacroDB's capture triggers stay). */
    private static void dropApplicationTriggers(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT S.SCHEMANAME, G.TRIGGERNAME FROM SYS.SYSTRIGGERS G JOIN SYS.SYSSCHEMAS S"
                     + " ON G.SCHEMAID = S.SCHEMAID WHERE G.TRIGGERNAME NOT LIKE 'MACRODB_CAPTURE:%'")) {
            while (rs.next()) drops.add("DROP TRIGGER " + TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2)));
        }
        try (Statement s = c.createStatement()) {
            for (String d : drops) s.execute(d);
        }
    }

    @Override public void removeCapture(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT S.SCHEMANAME, G.TRIGGERNAME FROM SYS.SYSTRIGGERS G JOIN SYS.SYSSCHEMAS S"
                     + " ON G.SCHEMAID = S.SCHEMAID WHERE G.TRIGGERNAME LIKE 'MACRODB_CAPTURE:%'")) {
            while (rs.next()) drops.add("DROP TRIGGER " + TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2)));
        }
        try (Statement s = c.createStatement()) {
            for (String d : drops) s.execute(d);
        }
    }

    /**
     * Writes the database's DDL (by Derby's {@code dblook}, through a connection of its own to the same
     * database, so only committed objects) and then every table's rows. The caller holds writers
     * off while it runs.
     */
    @Override public void exportScript(Connection c, Path file) throws SQLException {
        String url = c.getMetaData().getURL();
        int semi = url.indexOf(';');
        if (semi > 0) url = url.substring(0, semi);
        Path ddl;
        try {
            ddl = Files.createTempFile("macrodb-dblook", ".sql");
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot create a temporary file: " + e.getMessage(), SqlState.IO_ERROR.getState(), e);
        }
        try {
            try {
                // dblook keeps its connection and settings in static fields: two at once (a promotion's new secondary
                // beside a snapshot) closed each other's connection ("No current connection")
                synchronized (DBLOOK) {
                    // dblook writes its messages to dblook.log in the working directory, an empty file when all went
                    // well: one it made and left empty is removed, so that an application's directory is left as it was
                    Path log = Path.of("dblook.log").toAbsolutePath();
                    boolean hadLog = Files.exists(log);
                    try {
                        new org.apache.derby.tools.dblook(new String[] {"-d", url, "-o", ddl.toString()});
                    } finally {
                        if (!hadLog) {
                            try {
                                if (Files.size(log) == 0) Files.delete(log);
                            } catch (IOException ignored) {
                                // not there, or not ours to remove
                            }
                        }
                    }
                }
            } catch (Exception e) {
                throw new SQLException("MacroDB: Derby's dblook could not write the DDL of " + url + ": " + e.getMessage(),
                        SqlState.IO_ERROR.getState(), e);
            }
            List<String> statements = dblookStatements(ddl);
            try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                for (String st : statements) {
                    w.write(st);
                    w.newLine();
                }
                for (TableShape t : tables(c)) writeRows(c, t, w);
            }
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot write the script " + file + ": " + e.getMessage(), SqlState.IO_ERROR.getState(), e);
        } finally {
            try {
                Files.deleteIfExists(ddl);
            } catch (IOException ignored) {
                // a temporary file left behind is harmless
            }
        }
    }

    /** Runs one {@code dblook} at a time in this JVM ({@link #exportScript}). */
    private static final Object DBLOOK = new Object();

    /** dblook's statements, one per line, without MacroDB's own capture objects and without comments. */
    private static List<String> dblookStatements(Path ddl) throws IOException, SQLException {
        List<String> out = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        try (BufferedReader r = Files.newBufferedReader(ddl, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("--") && sb.length() == 0) continue;
                if (line.startsWith("ERROR") || line.contains("-- **--> DEBUG")) {
                    throw new SQLException("MacroDB: Derby's dblook could not read the database: " + line, SqlState.IO_ERROR.getState());
                }
                sb.append(sb.length() == 0 ? "" : " ").append(line);
                if (line.endsWith(";")) {
                    String st = sb.substring(0, sb.length() - 1).trim();
                    sb.setLength(0);
                    if (st.contains("MACRODB_CAPTURE") || st.contains("\"" + CAPTURE_SCHEMA + "\"")) continue;
                    out.add(st);
                }
            }
        }
        return out;
    }

    private static void writeRows(Connection c, TableShape t, BufferedWriter w) throws SQLException, IOException {
        Base64.Encoder b64 = Base64.getEncoder();
        w.write(TABLE_PREFIX + b64.encodeToString(serialize(new Object[] {t.schema(), t.table(), t.columns().toArray(new String[0]),
                t.identityColumn()})));
        w.newLine();
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < t.columns().size(); i++) sql.append(i == 0 ? "" : ", ").append(TableShape.quote(t.columns().get(i)));
        sql.append(" FROM ").append(t.qualifiedName());
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.toString())) {
            int n = t.columns().size();
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) row[i] = read(rs, i + 1, t.columnType(i));
                w.write(ROW_PREFIX + b64.encodeToString(serialize(row)));
                w.newLine();
            }
        }
    }

    /** A value as MacroDB ships it from Derby: java.time for dates and times, LOBs as bytes and strings. */
    public static Object read(ResultSet rs, int i, int type) throws SQLException {
        switch (type) {
            case Types.DATE: {
                java.sql.Date d = rs.getDate(i);
                return d == null ? null : d.toLocalDate();
            }
            case Types.TIME: {
                java.sql.Time t = rs.getTime(i);
                return t == null ? null : t.toLocalTime();
            }
            case Types.TIMESTAMP: {
                java.sql.Timestamp t = rs.getTimestamp(i);
                return t == null ? null : t.toLocalDateTime();
            }
            default:
                return Values.detach(rs.getObject(i));
        }
    }

    private static byte[] serialize(Object o) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    private static Object deserialize(String b64) throws SQLException {
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(Base64.getDecoder().decode(b64)))) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new SQLException("MacroDB: a damaged row in a Derby script: " + e.getMessage(), SqlState.DATA_CORRUPTED.getState(), e);
        }
    }

    /**
     * Runs the statements of {@link #exportScript}, inserts the rows, restarts identities past them. On
     * a row-mode secondary foreign keys are left out, and always-generated identities become
     * generated by default (the applier writes the primary's identity values).
     */
    @Override public void importScript(Connection to, Path file) throws SQLException {
        boolean noForeignKeys = "true".equals(property(to, NO_FOREIGN_KEYS));
        createProcedures(to);
        boolean auto = to.getAutoCommit();
        to.setAutoCommit(false);
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8); Statement s = to.createStatement()) {
            PreparedStatement insert = null;
            int pending = 0;
            // The rows are the source's, with what its triggers did in them: triggers are created after the rows, or an
            // application's trigger would fire for every copied row (an audit table's rows twice: a duplicate key).
            List<String> triggers = new ArrayList<>();
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith(TABLE_PREFIX)) {
                    if (insert != null) {
                        if (pending > 0) insert.executeBatch();
                        insert.close();
                    }
                    pending = 0;
                    Object[] head = (Object[]) deserialize(line.substring(TABLE_PREFIX.length()));
                    String qualified = TableShape.quote((String) head[0]) + "." + TableShape.quote((String) head[1]);
                    String[] cols = (String[]) head[2];
                    if (head[3] != null) {
                        // an ALWAYS identity takes no values; the rows keep theirs
                        try {
                            s.execute("ALTER TABLE " + qualified + " ALTER COLUMN " + TableShape.quote((String) head[3]) + " SET GENERATED BY DEFAULT");
                        } catch (SQLException ignored) {
                            // already BY DEFAULT
                        }
                    }
                    StringBuilder sql = new StringBuilder("INSERT INTO " + qualified + " (");
                    for (int i = 0; i < cols.length; i++) sql.append(i == 0 ? "" : ", ").append(TableShape.quote(cols[i]));
                    sql.append(") VALUES (");
                    for (int i = 0; i < cols.length; i++) sql.append(i == 0 ? "?" : ", ?");
                    insert = to.prepareStatement(sql.append(')').toString());
                } else if (line.startsWith(ROW_PREFIX)) {
                    Object[] row = (Object[]) deserialize(line.substring(ROW_PREFIX.length()));
                    for (int i = 0; i < row.length; i++) bind(insert, i + 1, row[i]);
                    insert.addBatch();
                    if (++pending == 500) {
                        insert.executeBatch();
                        pending = 0;
                    }
                } else if (!line.isBlank()) {
                    if (noForeignKeys && line.contains(" FOREIGN KEY ")) continue;
                    if (line.startsWith("CREATE TRIGGER ")) {
                        triggers.add(line);
                        continue;
                    }
                    try {
                        s.execute(line);
                    } catch (SQLException e) {
                        // a schema the session's user already has (Derby's default schema, made by MacroDB)
                        if (!("X0Y68".equals(e.getSQLState()) && line.startsWith("CREATE SCHEMA"))) throw e;
                    }
                }
            }
            if (insert != null) {
                if (pending > 0) insert.executeBatch();
                insert.close();
            }
            for (String trigger : triggers) s.execute(trigger);
            to.commit();
            alignIdentities(to);
            to.commit();
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot read the script " + file + ": " + e.getMessage(), SqlState.IO_ERROR.getState(), e);
        } catch (SQLException e) {
            to.rollback();
            throw e;
        } finally {
            to.setAutoCommit(auto);
        }
    }

    /** Binds a shipped value: Derby's setObject takes no java.time values. */
    public static void bind(PreparedStatement ps, int i, Object v) throws SQLException {
        if (v instanceof java.time.LocalDate d) ps.setDate(i, java.sql.Date.valueOf(d));
        else if (v instanceof java.time.LocalTime t) ps.setTime(i, java.sql.Time.valueOf(t));
        else if (v instanceof java.time.LocalDateTime t) ps.setTimestamp(i, java.sql.Timestamp.valueOf(t));
        else ps.setObject(i, v);
    }

    private static String property(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("VALUES SYSCS_UTIL.SYSCS_GET_DATABASE_PROPERTY(?)")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static void setProperty(Connection c, String key, String value) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY(?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, value);
            ps.execute();
        }
        if (!c.getAutoCommit()) c.commit();
    }

    /**
     * Sequences by quoted name, each with the first value Derby has not handed out yet: {@code SYSSEQUENCES.CURRENTVALUE},
     * which Derby documents as the end of the range it preallocated (the next {@code NEXT VALUE FOR} returns it or a
     * value below it; a restart there skips the rest of the range, at most {@code derby.language.sequence.preallocator}
     * values, 100 by default). Read {@code WITH UR}, so that it takes no lock. This runs in committing transactions.
     *
     * <p>Not {@code SYSCS_UTIL.SYSCS_PEEK_AT_SEQUENCE}, the exact next value: Derby finds a sequence it has no UUID
     * cached for (a sequence created or re-created, as a restart does, that no statement has compiled against since)
     * by reading its row of {@code SYSSEQUENCES} at REPEATABLE READ in the caller's transaction, and that shared lock
     * then stays until the transaction ends. Meanwhile every other session's {@code NEXT VALUE FOR} that needs a new
     * range (its nested transaction does not wait for locks) fails at once with X0Y84, "Too much contention on
     * sequence" ({@code DerbyLockingTest.readingSequencePositionsLocksNoSequence}).
     */
    @Override public Map<String, Long> sequencePositions(Connection c) throws SQLException {
        Map<String, Long> out = new java.util.TreeMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT S.SCHEMANAME, Q.SEQUENCENAME, Q.CURRENTVALUE FROM SYS.SYSSEQUENCES Q"
                     + " JOIN SYS.SYSSCHEMAS S ON Q.SCHEMAID = S.SCHEMAID WHERE S.SCHEMANAME <> 'SYS' WITH UR")) {
            // a sequence that is used up (NO CYCLE, past its bound) has none: 0, as before
            while (rs.next()) out.put(TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2)), rs.getLong(3));
        }
        return out;
    }

    /**
     * Derby keeps an identity column's counter in a sequence of its own, in schema {@code SYS}, named {@code U} and the
     * table's id with {@code X} for each {@code -}. Its {@code CURRENTVALUE}, read {@code WITH UR} as for
     * {@link #sequencePositions}, is at or past the next value the identity hands out (the end of the range Derby
     * preallocated): a promoted secondary's identity goes on there, skipping at most the rest of that range, as Derby
     * itself does after a crash, and never hands out a value twice. Without it a promotion restarted each identity past
     * the largest value in its table, and gave a deleted row's value out again. A Derby that names these sequences
     * otherwise gives no positions, and identities restart past the largest value, as before.
     */
    @Override public Map<String, Long> identityPositions(Connection c) throws SQLException {
        Map<String, Long> bySequence = new java.util.HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT Q.SEQUENCENAME, Q.CURRENTVALUE FROM SYS.SYSSEQUENCES Q JOIN SYS.SYSSCHEMAS S"
                     + " ON Q.SCHEMAID = S.SCHEMAID WHERE S.SCHEMANAME = 'SYS' WITH UR")) {
            while (rs.next()) {
                long next = rs.getLong(2);
                if (!rs.wasNull()) bySequence.put(rs.getString(1), next); // none: used up
            }
        }
        if (bySequence.isEmpty()) return Map.of();
        Map<String, Long> out = new java.util.TreeMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT S.SCHEMANAME, T.TABLENAME, CAST(T.TABLEID AS VARCHAR(36)) FROM SYS.SYSTABLES T"
                     + " JOIN SYS.SYSSCHEMAS S ON T.SCHEMAID = S.SCHEMAID WHERE T.TABLETYPE = 'T' WITH UR")) {
            while (rs.next()) {
                Long next = bySequence.get("U" + rs.getString(3).replace('-', 'X'));
                if (next != null) out.put(Engine.identityKey(TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2))), next);
            }
        }
        return out;
    }

    /**
     * Derby has no {@code ALTER SEQUENCE ... RESTART}: the sequence is dropped and created again, with its type,
     * increment, bounds and cycling as they were, starting at {@code next} (a promoted secondary's or a recovered
     * primary's sequences must go on past every value the old primary handed out). A sequence something depends on (a
     * trigger that draws from it) cannot be dropped: that is refused with 0AM00 and a message that says so.
     */
    @Override public void restartSequence(Connection c, String sequence, long next) throws SQLException {
        String type = null;
        long increment = 0;
        long min = 0;
        long max = 0;
        boolean cycle = false;
        // found by the name sequencePositions gives it, so that nothing splits a quoted name back into its parts
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT S.SCHEMANAME, Q.SEQUENCENAME, CAST(Q.SEQUENCEDATATYPE AS VARCHAR(128)),"
                     + " Q.INCREMENT, Q.MINIMUMVALUE, Q.MAXIMUMVALUE, Q.CYCLEOPTION FROM SYS.SYSSEQUENCES Q JOIN SYS.SYSSCHEMAS S"
                     + " ON Q.SCHEMAID = S.SCHEMAID WHERE S.SCHEMANAME <> 'SYS' WITH UR")) {
            while (rs.next() && type == null) {
                if (!sequence.equals(TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2)))) continue;
                type = rs.getString(3).replace(" NOT NULL", "").trim();
                increment = rs.getLong(4);
                min = rs.getLong(5);
                max = rs.getLong(6);
                cycle = "Y".equals(rs.getString(7));
            }
        }
        if (type == null) {
            throw new SQLException("MacroDB: sequence " + sequence + " does not exist on this Derby replica", SqlState.INTERNAL_ERROR.getState());
        }
        try (Statement s = c.createStatement()) {
            s.execute("DROP SEQUENCE " + sequence + " RESTRICT");
            s.execute("CREATE SEQUENCE " + sequence + " AS " + type + " START WITH " + next + " INCREMENT BY " + increment
                    + " MINVALUE " + min + " MAXVALUE " + max + (cycle ? " CYCLE" : " NO CYCLE"));
        } catch (SQLException e) {
            throw new SQLException("MacroDB: Derby cannot restart sequence " + sequence + " at " + next + " (it has no ALTER"
                    + " SEQUENCE, and dropping it to create it again failed: " + e.getMessage() + "); on Derby, draw keys"
                    + " from an identity column, or from a sequence nothing else depends on", SqlState.FEATURE_NOT_OFFERED.getState(), e);
        }
    }

    /**
     * Derby cannot switch foreign keys off. Off: the database's foreign keys are dropped and it is
     * marked so that scripts imported later leave theirs out (rows arriving as images were checked on
     * the primary). On: only clears the mark; dropped keys are not restored.
     */
    @Override public void setReferentialIntegrity(Connection c, boolean on) throws SQLException {
        if (on) {
            setProperty(c, NO_FOREIGN_KEYS, null);
            return;
        }
        setProperty(c, NO_FOREIGN_KEYS, "true");
        dropForeignKeys(c);
        if (!c.getAutoCommit()) c.commit();
    }

    /** Every foreign key dropped, inside the caller's transaction. */
    private static void dropForeignKeys(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT S.SCHEMANAME, T.TABLENAME, K.CONSTRAINTNAME FROM SYS.SYSCONSTRAINTS K"
                     + " JOIN SYS.SYSTABLES T ON K.TABLEID = T.TABLEID JOIN SYS.SYSSCHEMAS S ON K.SCHEMAID = S.SCHEMAID WHERE K.TYPE = 'F'")) {
            while (rs.next()) {
                drops.add("ALTER TABLE " + TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2))
                        + " DROP CONSTRAINT " + TableShape.quote(rs.getString(3)));
            }
        }
        try (Statement s = c.createStatement()) {
            for (String d : drops) s.execute(d);
        }
    }

    /**
     * Derby's lock timeout is a database property in seconds ({@code derby.locks.waitTimeout}), shared
     * by every session: it is set to the lock timeout, rounded up, at least 1 s, and deadlocks are
     * looked for as soon as a session waits for a lock.
     */
    @Override public void configureSession(Connection c, long lockTimeoutMillis) throws SQLException {
        ensureCurrentSchema(c);
        if (lockTimeoutMillis <= 0) return;
        String secs = Long.toString(Math.max(1, (lockTimeoutMillis + 999) / 1000));
        if (!secs.equals(property(c, "derby.locks.waitTimeout"))) {
            setProperty(c, "derby.locks.waitTimeout", secs);
            // deadlocks looked for as soon as a lock is waited for (0; Derby's default is 20 s), so that they end as
            // 40001 at once, as on H2 and HSQLDB: two transfers that lock two rows in opposite orders otherwise both
            // waited (half the lock timeout, then 1 s), and the randomized convergence test ran past its two minutes
            setProperty(c, "derby.locks.deadlockTimeout", "0");
        }
    }

    /**
     * An in-memory Derby database lives until it is dropped ({@code ;drop=true}) or the JVM exits: -1.
     * A directory database's replica set closes with its last connection, removing the capture
     * triggers, so that the directory is a plain Derby database for any other program.
     */
    @Override public long closeDelayMillis(EngineUrl url, java.util.Properties properties) {
        return url.inMemory() ? -1 : 0;
    }

    /** {@code create=false}: a dropped database's later session fails with XJ004 (not found) instead of making it anew. */
    @Override public String existingOnlyUrl(String url) { return EngineUrl.withSetting(url, "create", "false"); }

    /**
     * {@code WITH UR}: a committing writer reads its own rows back without locks. Derby's optimizer scans a small
     * table for {@code key IN (...)}, and at {@code READ COMMITTED} that scan waited for every row another writer
     * held, so two committing writers waited for each other until the deadlock timeout (the bank test made 145
     * transfers in 120 s). The rows read are the transaction's own, locked by it, so no one else's uncommitted change
     * can be among them.
     */
    @Override public String ownRowsReadSuffix() { return " WITH UR"; }

    /** DDL is transactional: a rollback undoes a {@code CREATE} or an {@code ALTER} with the rows around it. */
    @Override public boolean schemaChangesAreTransactional() { return true; }

    /** Derby locks rows for readers too: a secondary's readers and its applier take turns. */
    @Override public boolean readsTakeLocks() { return true; }

    /**
     * One apply session: parallel apply lanes lock rows against each other, and Derby, breaking such a deadlock, can
     * fail to build its report and close the lane's session (the applier then retried on a closed connection and the
     * secondary left the rotation: DurabilityTest with applyThreads=4 in a fresh-clone CI run).
     */
    @Override public int maxApplySessions() { return 1; }

    /**
     * Seen in the randomized convergence test: {@code UPDATE items SET r = RANDOM() WHERE grp = 6} waited for a
     * writer that set {@code val} to 2061 and committed; the row then held 2061, and the trigger's old and new values
     * said 1061. Shipping those images made the secondaries diverge.
     */
    @Override public boolean triggerImagesMayBeStale() { return true; }

    /** Dropping or shutting down a database interrupts the threads inside it (Derby's ContextService). */
    @Override public boolean interruptsThreadsWhenStopped() { return true; }

    /**
     * Also drops the interrupt Derby keeps for this thread to set again later ({@code InterruptStatus}): an interrupt it
     * notices while the session's connection context is already gone (a dropped database's session being closed) is
     * kept in a thread-local, and the next Derby call on this thread that handles an error with no connection context
     * (a new session to a gone database, as a probe opens) sets the thread's flag again. The thread then met it in a
     * healthy replica: Derby closed that session with 08000 ("Connection closed by unknown interrupt") seconds after the
     * drop, in the monitor thread copying the promoted primary 3 s after it had cleared the flag (and probably in a
     * reader, whose 08000 reached the application: PrimaryFailoverTest under load). Draining it outside any Derby call
     * sets the flag if one was kept; it is cleared with the rest.
     *
     * <p>First it waits for the stop to have sent its interrupts ({@link #awaitStopInterruptsSent}). The thread sees
     * the stop's mark at its next step and fails; it could get here, and clear its flag, before its interrupt was sent,
     * which then reached the application (a retry's sleep cut short after a {@code 40001}: caught with an agent that
     * logged every {@code Thread.interrupt}, 2 of 46 loop runs of {@code FailoverConvergenceTest} over Derby, where it
     * slowed each interrupt down).
     */
    @Override public void clearStopInterrupt() {
        awaitStopInterruptsSent();
        try {
            org.apache.derby.iapi.util.InterruptStatus.restoreIntrFlagIfSeen();
        } catch (RuntimeException | LinkageError e) {
            // a Derby without it (or not on this class path): there is only the flag
        }
        Thread.interrupted();
    }

    /**
     * Waits until a stop that is interrupting the threads inside its database has sent its last interrupt. Derby's stop
     * goes through every session's context manager holding the {@code ContextService}'s monitor, and for each one with
     * a thread inside it marks the manager shut down and only then interrupts the thread
     * ({@code ContextService.notifyAllActiveThreads}). Once the monitor is taken here, a stop that had found this
     * thread inside a session has marked it and sent its interrupt; one that had not will not find it, as the thread
     * has left Derby. It costs a monitor per call, which Derby itself takes only to open or close a session.
     */
    private static void awaitStopInterruptsSent() {
        try {
            Object contexts = org.apache.derby.iapi.services.context.ContextService.getFactory();
            synchronized (contexts) {
                // nothing: a stop's loop over the sessions (notifyAllActiveThreads) holds this monitor until its last interrupt
            }
        } catch (RuntimeException | LinkageError e) {
            // Derby's engine is shut down (ShutdownException), or its internals are not reachable: there is no loop to wait for
        }
    }

    /**
     * Derby's stop marks the context manager of each session inside the stopped database shut down before it interrupts
     * the session's thread ({@code ContextService.notifyAllActiveThreads}), and the session's next step inside Derby
     * fails on the mark ({@code ContextManager.checkInterrupt}, a {@code ShutdownException}). Asking the session's
     * context manager for a context takes that step without running anything; so does a session Derby closed since,
     * whose manager keeps its mark (one closed because the application interrupted its thread has none). Where the
     * session is a wrapper that refuses to unwrap once closed, a closed session is taken for one whose database went.
     * It first waits for a stop that is sending its interrupts ({@link #awaitStopInterruptsSent}): one that found this
     * thread in the call's last steps marks the session before this asks.
     */
    @Override public boolean stoppedUnder(Connection session) {
        awaitStopInterruptsSent();
        try {
            // the session itself where it is Derby's (as MacroDB opens them): unwrap refuses a closed one, whose mark stays
            org.apache.derby.impl.jdbc.EmbedConnection c = session instanceof org.apache.derby.impl.jdbc.EmbedConnection own ? own
                    : session.unwrap(org.apache.derby.impl.jdbc.EmbedConnection.class);
            c.getContextManager().getContext(org.apache.derby.iapi.sql.conn.LanguageConnectionContext.CONTEXT_ID);
            return false;
        } catch (SQLException e) {
            try {
                return session.isClosed();
            } catch (SQLException closed) {
                return true;
            }
        } catch (RuntimeException e) {
            // by name, not a catch clause of its class: verifying this class would load it, and MacroDB runs on H2
            // alone too (PackagingIT)
            return e.getClass().getName().equals("org.apache.derby.shared.common.error.ShutdownException");
        } catch (LinkageError e) {
            return false; // not Derby's embedded session, or its internals are not reachable: no answer
        }
    }

    /**
     * Derby's connection errors (08xxx), a database that is gone or shut down (XJ004, XJ015, 08006, 40XD0/1). A session
     * Derby closed after an error of session severity (08003 on its next use) is taken for a gone engine too: asking
     * a new session instead, as for H2's 50000, made a promoted secondary's identity inserts fail inside Derby
     * (DerbyEngineTest.anIdentityKeepsCountingAfterFailover, 4 of 5 runs); the transaction that met such an error
     * drops its session instead (Transaction.rollbackQuietly), so that the next one opens a new one.
     */
    @Override public boolean isEngineGone(SQLException e) {
        String state = e.getSQLState();
        // 08000 "Connection closed by unknown interrupt": the application interrupted its thread; Derby closed
        // that one session, the database is there
        return state != null && (state.startsWith("08") && !state.equals("08000") || state.equals("XJ004") || state.equals("XJ015")
                || state.equals("40XD0") || state.equals("40XD1"))
                // a session in the middle of a statement when its database was dropped: XJ001 "Java exception:
                // ': org.apache.derby.shared.common.error.ShutdownException'", or 38000 when it was drawing an identity value
                || stoppedUnderAStatement(e);
    }

    /**
     * XJ001, a Java exception inside Derby (not the deadlock report {@link #isRetryable} takes), and Derby's store
     * errors (XS...: "Container 1,185 not found", XSCB1; "Page ... could not be read from disk"): a statement that
     * was inside a database being dropped fails with these too (a NullPointerException on a page the drop took away),
     * so a new session asks the database whether it is still there. So does 08000, a session Derby closed because its
     * thread was interrupted: by the application, or by Derby's drop of the database (a reader on a dropped secondary
     * got it before the applier had found the secondary gone, and the application saw 08000 where 40001 was due).
     */
    @Override public boolean mayBeEngineGone(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.equals("XJ001") || state.startsWith("XS")) && !isRetryable(e)
                || "38000".equals(state) && connectionLostBelow(e)
                // an interrupt closed the session: the application's (the database answers a new session), or the one
                // Derby sends the threads inside a database it drops, which a reader can meet before the applier does
                || "08000".equals(state);
    }

    /**
     * 38000 ("The exception ... was thrown while evaluating an expression") around a lost connection: a capture trigger
     * (a Java procedure on {@code jdbc:default:connection}) running while its database shut down gets "No current
     * connection." (08003), and Derby reports the statement so (seen in a fresh-clone CI run of PrimaryFailoverTest).
     */
    private static boolean connectionLostBelow(Throwable e) {
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = e.getCause(); t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof SQLException se && se.getSQLState() != null && se.getSQLState().startsWith("08")
                    && !se.getSQLState().equals("08000")) return true;
        }
        return false;
    }

    private static boolean stoppedUnderAStatement(Throwable e) {
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            if (t.getClass().getName().equals("org.apache.derby.shared.common.error.ShutdownException")) return true;
            if (t instanceof SQLException se && "XJ001".equals(se.getSQLState()) && se.getMessage() != null
                    && se.getMessage().contains("ShutdownException")) return true;
        }
        return false;
    }

    @Override public boolean undoesFailedStatementsToASavepoint() { return true; }

    /**
     * 40001 (deadlock), 40XL1 (lock timeout), 40XL2 (lock timeout with the lock table dumped), and a deadlock whose
     * report Derby fails to build: a trigger's stored statement recompiled after a schema change waits for the data
     * dictionary, Derby finds it in a deadlock, and its {@code Deadlock.buildException} then throws a
     * ClassCastException (Integer to Long), which reaches the application as XJ001 "Java exception". Seen in the
     * randomized convergence test with DDL beside the writers; the deadlock was broken all the same. And X0Y84, "Too
     * much contention on sequence": NEXT VALUE FOR that needs a new range updates the sequence's catalog row in a
     * nested transaction that does not wait for locks (it waits, in the writer's own transaction, only for a lock that
     * transaction holds itself); when another transaction holds that row it fails at once with X0Y84, and again on
     * every try while that transaction stays open. Seen in PrimaryFailoverTest's writers (a sequence, an identity and
     * two account rows each), before any failover; MacroDB's own reading of the sequence positions at commit was one
     * such holder ({@link #sequencePositions}).
     */
    @Override public boolean isRetryable(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40XL1".equals(state) || "40XL2".equals(state) || "X0Y84".equals(state)
                || "XJ001".equals(state) && deadlockReportFailed(e);
    }

    private static boolean deadlockReportFailed(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassCastException) {
                for (StackTraceElement f : t.getStackTrace()) {
                    if (f.getClassName().equals("org.apache.derby.impl.services.locks.Deadlock")) return true;
                }
            }
            if (t.getCause() == t) break;
        }
        return false;
    }

    /**
     * Creates the session's default schema (the user's name) if it does not exist yet: Derby creates
     * it only with the first table in it, but refuses to SET SCHEMA to it before, and MacroDB sets
     * every replica's session to the schema the application's session is in. (An application that
     * then runs CREATE SCHEMA with its user's name gets X0Y68, as it does on plain Derby for APP.)
     */
    private static void ensureCurrentSchema(Connection c) throws SQLException {
        String schema = c.getSchema();
        if (schema == null) return;
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM SYS.SYSSCHEMAS WHERE SCHEMANAME = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) return;
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + TableShape.quote(schema));
        } catch (SQLException e) {
            if (!"X0Y68".equals(e.getSQLState())) throw e; // another session created it first
        }
        if (!c.getAutoCommit()) c.commit();
    }

    /** Derby has no session time zone. */
    @Override public String timeZoneReset() { return null; }

    /**
     * Derby has no SHUTDOWN statement: a database is closed by connecting with {@code ;shutdown=true},
     * and an in-memory one removed with {@code ;drop=true}; both answer with SQLState 08006.
     */
    @Override public void shutdownDatabase(Connection c) throws SQLException {
        String url = c.getMetaData().getURL();
        int semi = url.indexOf(';');
        if (semi > 0) url = url.substring(0, semi);
        boolean memory = url.startsWith("jdbc:derby:memory:");
        try {
            java.sql.DriverManager.getConnection(url + (memory ? ";drop=true" : ";shutdown=true")).close();
        } catch (SQLException e) {
            if (!"08006".equals(e.getSQLState()) && !"XJ004".equals(e.getSQLState())) throw e;
        }
    }

    /** Whether {@code c} is an embedded Derby session (Derby has no INFORMATION_SCHEMA). */
    static boolean isDerby(Connection c) {
        return c.getClass().getName().startsWith("org.apache.derby.");
    }

    /** Whether the database has a trigger other than MacroDB's capture triggers. */
    static boolean hasApplicationTriggers(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM SYS.SYSTRIGGERS WHERE TRIGGERNAME NOT LIKE 'MACRODB_CAPTURE:%'")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }

    /** User tables: the catalog's reading, without MacroDB's own schema. */
    @Override public List<TableShape> tables(Connection c) throws SQLException {
        List<TableShape> out = new ArrayList<>();
        for (TableShape t : Catalog.readTables(c)) if (!t.schema().equals(CAPTURE_SCHEMA)) out.add(t);
        return out;
    }
}
