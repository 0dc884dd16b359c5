package io.macrodb.engine;

import io.macrodb.log.Propagation;

import io.macrodb.log.TableShape;
import io.macrodb.sql.Dialect;
import io.macrodb.sql.SqlState;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * HSQLDB 2.7. The primary and secondaries run in MVCC transaction control: in the default LOCKS mode
 * three sessions doing read-then-update at SERIALIZABLE were seen to deadlock and wait forever,
 * while MVCC detects the conflict and rolls one back (SQLState 40001), which MacroDB reports as
 * retryable. HSQLDB names one event per trigger, so each table gets three capture triggers.
 */
public final class HsqldbEngine implements Engine {
    private static final String[][] EVENTS = {{"I", "INSERT"}, {"U", "UPDATE"}, {"D", "DELETE"}};
    private static final Set<String> PRIMARY_ONLY = Set.of("IFEXISTS", "CREATE", "SHUTDOWN", "READONLY", "HSQLDB.TX",
            "FILES_READONLY", "USER", "PASSWORD", "CRYPT_KEY", "CRYPT_TYPE", "CRYPT_PROVIDER");
    /** Script lines that restate what every new database has already (users, the PUBLIC schema). */
    private static final List<String> COPY_TOLERATED = List.of("CREATE USER", "ALTER USER", "GRANT", "CREATE SCHEMA PUBLIC",
            "SET ", "CREATE ROLE");

    @Override public String name() { return "hsqldb"; }

    @Override public Dialect dialect() { return Dialect.HSQLDB; }

    @Override public String secondaryUrl(EngineUrl primary, String uniqueName, int index) {
        Map<String, String> settings = new LinkedHashMap<>();
        primary.settings().forEach((k, v) -> {
            if (!PRIMARY_ONLY.contains(k.toUpperCase(Locale.ROOT))) settings.put(k, v);
        });
        return "jdbc:hsqldb:mem:" + uniqueName + "_r" + index + EngineUrl.settingsSuffix(settings);
    }

    /**
     * MVCC unless the application chose a transaction model in its URL ({@code ;hsqldb.tx=locks}):
     * two-phase locking runs short update transactions faster on few cores, but its deadlocks are
     * broken only when MacroDB cancels a statement after {@code lockTimeout}.
     */
    @Override public void configurePrimary(Connection c, Propagation propagation, EngineUrl url) throws SQLException {
        if (url.setting("hsqldb.tx") == null) mvcc(c);
    }

    @Override public void configureSecondary(Connection c, Propagation propagation) throws SQLException {
        mvcc(c);
        if (propagation == Propagation.ROW) {
            try (Statement s = c.createStatement()) {
                s.execute("SET DATABASE REFERENTIAL INTEGRITY FALSE");
            }
        }
    }

    private static void mvcc(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET DATABASE TRANSACTION CONTROL MVCC");
            s.execute("SET DATABASE TRANSACTION ROLLBACK ON CONFLICT TRUE");
        }
    }

    @Override public void configureSession(Connection c, long lockTimeoutMillis) {
        // HSQLDB has no lock timeout: MVCC detects deadlocks, and a wait for a lock held by an idle
        // transaction is ended by cancelling the statement (see boundsLockWaitsByCancel).
    }

    /** HSQLDB's JDBC rollback(Savepoint) ends the Savepoint object; its SQL ROLLBACK TO SAVEPOINT keeps the savepoint. */
    @Override public boolean rollbackToSavepointEndsIt() { return true; }

    /** A writer waiting for a row lock in MVCC mode waits until the holder ends, however long; Statement.cancel() ends the wait. */
    @Override public boolean boundsLockWaitsByCancel() { return true; }

    /**
     * One: in MVCC mode HSQLDB ran TPC-C 80-20 at 6,691 tx/s with one client and 405-719 tx/s with
     * 4-32 clients on 16 cores (results-16core-2026-11-22); eight independent engines collapsed the
     * same way at 4 clients each. Admission then adapts from there.
     */
    @Override public int admissionProfile() { return 1; }

    /**
     * An HSQLDB memory database lives until {@code SHUTDOWN} (or the JVM's end), unless the URL or the
     * connection properties say {@code shutdown=true}, which shuts it down with its last connection.
     * A file database's replica set closes with its last connection (0), whatever HSQLDB does with
     * the file: closing removes MacroDB's capture triggers, so that the file is a plain HSQLDB
     * database again for any other program ({@code closeDelay} keeps it longer).
     */
    @Override public long closeDelayMillis(EngineUrl url, java.util.Properties properties) {
        if (!url.inMemory()) return 0;
        String v = url.setting("shutdown");
        if (v == null && properties != null) {
            for (String k : properties.stringPropertyNames()) {
                if (k.equalsIgnoreCase("shutdown")) v = properties.getProperty(k);
            }
        }
        return v != null && v.trim().equalsIgnoreCase("true") ? 0 : -1;
    }

    /**
     * One: applying a TPC-C 8-92 backlog with 2 or 4 sessions cost HSQLDB 1.5-4x the CPU per record
     * of one session (110-363 us against 58-123 us, 2-core VM, benchmarks/results/
     * 2026-11-24-2core-dependent-apply), the same penalty for concurrent write transactions that
     * {@link #admissionProfile} describes.
     */
    @Override public int applySessionsProfile() { return 1; }

    static String triggerName(String event, TableShape t) {
        return "MACRODB_CAPTURE:" + event + ":" + t.schema().length() + ":" + t.schema() + t.table();
    }

    @Override public void installCapture(Connection c, TableShape t) throws SQLException {
        Set<String> existing = new java.util.HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME LIKE 'MACRODB_CAPTURE:%'")) {
            ps.setString(1, t.schema());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) existing.add(rs.getString(1));
            }
        }
        try (Statement s = c.createStatement()) {
            for (String[] ev : EVENTS) {
                String name = triggerName(ev[0], t);
                if (existing.contains(name)) continue;
                // QUEUE 0: fire synchronously in the writing session's thread, where MacroDB's capture context is.
                s.execute("CREATE TRIGGER " + TableShape.quote(t.schema()) + "." + TableShape.quote(name)
                        + " AFTER " + ev[1] + " ON " + t.qualifiedName()
                        + " FOR EACH ROW QUEUE 0 CALL \"" + HsqldbCaptureTrigger.class.getName() + "\"");
            }
        }
    }

    @Override public void dropUserTriggers(Connection c) throws SQLException {
        Catalog.dropTriggersExcept(c, "MACRODB_CAPTURE:%");
    }

    @Override public java.util.Set<String> applicationTriggerNames(Connection c) throws SQLException {
        return Catalog.triggerNamesExcept(c, "MACRODB_CAPTURE:%");
    }

    /**
     * The application's triggers as the catalog holds them, from HSQLDB's {@code SCRIPT} (without a file: the schema's statements, no rows). {@code SCRIPT} takes an administrator: for a
     * user who is not one, null, and a promotion makes each trigger from the statement that made it.
     */
    @Override public java.util.Map<String, String> applicationTriggerDdl(Connection c) throws SQLException {
        try {
            return Catalog.triggerStatementsFromScript(c, "SCRIPT", "MACRODB_CAPTURE:%");
        } catch (SQLException notAllowed) {
            return null;
        }
    }

    @Override public void removeCapture(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT DISTINCT TRIGGER_SCHEMA, TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS"
                     + " WHERE TRIGGER_NAME LIKE 'MACRODB_CAPTURE:%'")) {
            while (rs.next()) drops.add("DROP TRIGGER " + TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2)));
        }
        try (Statement s = c.createStatement()) {
            for (String d : drops) s.execute(d);
        }
    }

    /**
     * Constraints whose names HSQLDB generated ({@code SYS_PK_n}, {@code SYS_CT_n}, {@code SYS_FK_n}, from a counter
     * of each database's own, which every object it creates moves on; its script leaves them out, so a copy generates
     * them afresh), keyed by what each constrains: its kind, table, columns, check clause (a NOT NULL is a check), and
     * for a foreign key what it references and its rules. Two constraints of one key (the same check twice) are left
     * out: nothing tells them apart.
     */
    @Override public Map<String, String> generatedNames(Connection c) throws SQLException {
        record Constraint(String name, String schema, String table, String type, List<String> columns, String check, String refSchema,
                          String refName, String rules) {}
        Map<String, Constraint> byName = new java.util.LinkedHashMap<>(); // schema.name -> constraint
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT TC.CONSTRAINT_SCHEMA, TC.CONSTRAINT_NAME,"
                + " TC.TABLE_NAME, TC.CONSTRAINT_TYPE, K.COLUMN_NAME, CH.CHECK_CLAUSE, RC.UNIQUE_CONSTRAINT_SCHEMA,"
                + " RC.UNIQUE_CONSTRAINT_NAME, RC.UPDATE_RULE, RC.DELETE_RULE FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS TC"
                + " LEFT JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE K ON K.CONSTRAINT_SCHEMA = TC.CONSTRAINT_SCHEMA"
                + " AND K.CONSTRAINT_NAME = TC.CONSTRAINT_NAME LEFT JOIN INFORMATION_SCHEMA.CHECK_CONSTRAINTS CH"
                + " ON CH.CONSTRAINT_SCHEMA = TC.CONSTRAINT_SCHEMA AND CH.CONSTRAINT_NAME = TC.CONSTRAINT_NAME"
                + " LEFT JOIN INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS RC ON RC.CONSTRAINT_SCHEMA = TC.CONSTRAINT_SCHEMA"
                + " AND RC.CONSTRAINT_NAME = TC.CONSTRAINT_NAME WHERE TC.TABLE_SCHEMA NOT IN ('INFORMATION_SCHEMA', 'SYSTEM_LOBS')"
                + " ORDER BY TC.CONSTRAINT_SCHEMA, TC.CONSTRAINT_NAME, K.ORDINAL_POSITION")) {
            while (rs.next()) {
                String key = rs.getString(1) + '.' + rs.getString(2);
                Constraint k = byName.get(key);
                if (k == null) {
                    k = new Constraint(rs.getString(2), rs.getString(1), rs.getString(3), rs.getString(4), new ArrayList<>(),
                            rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9) + ' ' + rs.getString(10));
                    byName.put(key, k);
                }
                if (rs.getString(5) != null) k.columns().add(rs.getString(5));
            }
        }
        Map<String, String> out = new java.util.HashMap<>();
        Set<String> twice = new java.util.HashSet<>();
        for (Constraint k : byName.values()) {
            if (!k.name().startsWith("SYS_")) continue;
            // schema first: alignGeneratedNames reads it back
            StringBuilder what = new StringBuilder(k.schema()).append('\u0000').append(k.table()).append('\u0000').append(k.type())
                    .append('\u0000').append(k.columns());
            if (k.check() != null) what.append("\u0000CHECK ").append(k.check());
            Constraint ref = k.refName() == null ? null : byName.get(k.refSchema() + '.' + k.refName());
            if (ref != null) {
                what.append("\u0000REFERENCES ").append(ref.schema()).append('.').append(ref.table()).append(' ').append(ref.columns())
                        .append(' ').append(k.rules());
            }
            if (out.put(what.toString(), k.name()) != null) twice.add(what.toString());
        }
        out.keySet().removeAll(twice);
        return out;
    }

    /**
     * Renames constraints so that their generated names are {@code primary}'s: first to names of MacroDB's own, then to
     * the primary's, so that two that swap names do not collide on the way.
     */
    @Override public void alignGeneratedNames(Connection c, Map<String, String> primary) throws SQLException {
        Map<String, String> local = generatedNames(c);
        List<String[]> renames = new ArrayList<>(); // schema, local name, primary's name
        for (Map.Entry<String, String> e : primary.entrySet()) {
            String mine = local.get(e.getKey());
            if (mine == null || mine.equals(e.getValue())) continue;
            renames.add(new String[] {e.getKey().substring(0, e.getKey().indexOf('\u0000')), mine, e.getValue()});
        }
        if (renames.isEmpty()) return;
        try (Statement s = c.createStatement()) {
            for (int i = 0; i < renames.size(); i++) {
                String[] r = renames.get(i);
                s.execute("ALTER CONSTRAINT " + TableShape.quote(r[0]) + "." + TableShape.quote(r[1]) + " RENAME TO "
                        + TableShape.quote("MACRODB_RENAMING_" + i));
            }
            for (int i = 0; i < renames.size(); i++) {
                String[] r = renames.get(i);
                s.execute("ALTER CONSTRAINT " + TableShape.quote(r[0]) + "." + TableShape.quote("MACRODB_RENAMING_" + i) + " RENAME TO "
                        + TableShape.quote(r[2]));
            }
        }
    }

    /** A script line MacroDB adds: {@code BIND_LINE <values> <statement with ? markers>}, run by {@link #importScript}. */
    static final String BIND_LINE = "--MACRODB-BIND ";

    /** A script line MacroDB adds: {@code NAMES_LINE <what, name, what, name...>}, {@link #generatedNames} of the copied database. */
    static final String NAMES_LINE = "--MACRODB-NAMES ";

    /**
     * HSQLDB's {@code SCRIPT}, then a {@link #BIND_LINE} for each row whose WITH TIME ZONE value has
     * an offset with seconds: HSQLDB stores the offset to the second (a value bound through JDBC
     * before 1893 in Europe/Berlin takes local mean time, +00:53:28), but its script, like every text
     * form it writes and reads, states hours and minutes only: the script's value has the local time
     * and the offset cut to the minute, so neither the instant nor the offset as stored. The bound
     * line puts the stored value back.
     */
    @Override public void exportScript(Connection c, Path file) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SCRIPT '" + file.toString().replace("'", "''") + "'");
        }
        List<String> lines = offsetSecondsLines(c);
        // the script leaves generated constraint names out: the copy takes this database's
        Map<String, String> names = generatedNames(c);
        if (!names.isEmpty()) {
            List<Object> flat = new ArrayList<>();
            new java.util.TreeMap<>(names).forEach((what, name) -> {
                flat.add(what);
                flat.add(name);
            });
            lines.add(NAMES_LINE + io.macrodb.log.ValueCodec.encodeValues(flat.toArray()));
        }
        if (lines.isEmpty()) return;
        try {
            Files.write(file, lines, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot write the script " + file + ": " + e.getMessage(), SqlState.IO_ERROR.getState(), e);
        }
    }

    /**
     * Column types a row of a table without a key is not matched by: large objects and arrays
     * cannot be compared, an approximate number (NaN) may not equal itself, and the zoned values
     * are what the script got wrong. Rows that differ only there take one row's zoned values.
     */
    private static final Set<Integer> NOT_MATCHED = Set.of(java.sql.Types.BLOB, java.sql.Types.CLOB, java.sql.Types.NCLOB,
            java.sql.Types.ARRAY, java.sql.Types.JAVA_OBJECT, java.sql.Types.OTHER, java.sql.Types.DOUBLE, java.sql.Types.FLOAT,
            java.sql.Types.REAL, java.sql.Types.TIMESTAMP_WITH_TIMEZONE, java.sql.Types.TIME_WITH_TIMEZONE);

    /**
     * The {@link #BIND_LINE}s that restore WITH TIME ZONE offsets with seconds, table by table: the tables that have
     * such columns are found in INFORMATION_SCHEMA, and their keys, replicated columns and types come from their
     * {@link TableShape} (generated columns are recomputed by the engine, so never set).
     */
    private static List<String> offsetSecondsLines(Connection c) throws SQLException {
        List<String[]> zonedTables = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT DISTINCT C.TABLE_SCHEMA, C.TABLE_NAME"
                + " FROM INFORMATION_SCHEMA.COLUMNS C JOIN INFORMATION_SCHEMA.TABLES T ON T.TABLE_SCHEMA = C.TABLE_SCHEMA"
                + " AND T.TABLE_NAME = C.TABLE_NAME WHERE T.TABLE_TYPE = 'BASE TABLE' AND C.DATA_TYPE LIKE '%WITH TIME ZONE'"
                + " AND C.TABLE_SCHEMA NOT IN ('INFORMATION_SCHEMA', 'SYSTEM_LOBS') ORDER BY C.TABLE_SCHEMA, C.TABLE_NAME")) {
            while (rs.next()) zonedTables.add(new String[] {rs.getString(1), rs.getString(2)});
        }
        List<String> out = new ArrayList<>();
        for (String[] name : zonedTables) {
            TableShape t = Catalog.readTable(c, name[0], name[1]);
            if (t == null) continue;
            List<String> cols = new ArrayList<>();
            List<String> match = new ArrayList<>(); // the row is found by its key, or else by every column a comparison can take
            for (int i = 0; i < t.columns().size(); i++) {
                int type = t.columnType(i);
                if (type == java.sql.Types.TIMESTAMP_WITH_TIMEZONE || type == java.sql.Types.TIME_WITH_TIMEZONE) cols.add(t.columns().get(i));
                if (!t.hasKey() && !NOT_MATCHED.contains(type)) match.add(t.columns().get(i));
            }
            for (int i = 0; i < t.keyCount(); i++) match.add(t.columns().get(t.keyIndex(i)));
            if (cols.isEmpty()) continue;
            StringBuilder set = new StringBuilder("UPDATE ").append(t.qualifiedName()).append(" SET ");
            for (int i = 0; i < cols.size(); i++) set.append(i == 0 ? "" : ", ").append(TableShape.quote(cols.get(i))).append(" = ?");
            StringBuilder select = new StringBuilder("SELECT ");
            List<String> all = new ArrayList<>(cols);
            all.addAll(match);
            for (int i = 0; i < all.size(); i++) select.append(i == 0 ? "" : ", ").append(TableShape.quote(all.get(i)));
            select.append(" FROM ").append(t.qualifiedName());
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(select.toString())) {
                java.sql.ResultSetMetaData meta = rs.getMetaData();
                while (rs.next()) {
                    Object[] values = new Object[all.size()];
                    boolean seconds = false;
                    for (int i = 0; i < values.length; i++) {
                        values[i] = Values.read(rs, i + 1, meta.getColumnType(i + 1), true);
                        if (i < cols.size()) seconds |= offsetSeconds(values[i]) % 60 != 0;
                    }
                    if (!seconds) continue;
                    // a column that is null is matched by IS NULL, and its value is not bound
                    StringBuilder update = new StringBuilder(set).append(" WHERE ");
                    List<Object> bound = new ArrayList<>(List.of(values).subList(0, cols.size()));
                    for (int i = 0; i < match.size(); i++) {
                        Object v = values[cols.size() + i];
                        update.append(i == 0 ? "" : " AND ").append(TableShape.quote(match.get(i))).append(v == null ? " IS NULL" : " = ?");
                        if (v != null) bound.add(v);
                    }
                    out.add(BIND_LINE + io.macrodb.log.ValueCodec.encodeValues(bound.toArray()) + " " + update);
                }
            }
        }
        return out;
    }

    private static int offsetSeconds(Object v) {
        if (v instanceof java.time.OffsetDateTime t) return t.getOffset().getTotalSeconds();
        if (v instanceof java.time.OffsetTime t) return t.getOffset().getTotalSeconds();
        return 0;
    }

    /**
     * Runs the script line by line (HSQLDB writes one statement per line), skipping its LOB store.
     * HSQLDB's script is its own format, which its loader reads, not plain SQL: string values carry
     * every character outside printable ASCII (and a backslash before a 'u') as a {@code \\uXXXX}
     * escape, decoded here; and rows list every column, generated ones too, which an INSERT may not
     * name ({@link #insertWithGenerated}).
     */
    @Override public void importScript(Connection to, Path file) throws SQLException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot read the script " + file + ": " + e.getMessage(), SqlState.IO_ERROR.getState(), e);
        }
        boolean auto = to.getAutoCommit();
        to.setAutoCommit(false);
        try (Statement s = to.createStatement()) {
            boolean lobSchema = false;
            String schema = "PUBLIC";
            Map<String, String> rewritten = new java.util.HashMap<>();
            // the application's triggers are created once the rows are in: HSQLDB's script creates them
            // before its rows, and rows copied must not fire them (a trigger's own rows are copied too)
            List<String> triggers = new ArrayList<>();
            Map<String, String> names = null;
            for (String raw : lines) {
                if (raw.isBlank()) continue;
                if (raw.startsWith(BIND_LINE)) {
                    runBound(to, raw, file);
                    continue;
                }
                if (raw.startsWith(NAMES_LINE)) {
                    names = namesOf(raw, file);
                    continue;
                }
                String line = unescape(raw);
                if (line.startsWith("CREATE TRIGGER ")) {
                    triggers.add(line);
                    continue;
                }
                if (line.startsWith("SET SCHEMA ")) {
                    // HSQLDB's own LOB store (SYSTEM_LOBS) is written by the engine, not by the script
                    lobSchema = line.startsWith("SET SCHEMA SYSTEM_LOBS");
                    schema = line.substring("SET SCHEMA ".length()).trim();
                }
                if (lobSchema) continue;
                try {
                    s.execute(line);
                } catch (SQLException e) {
                    if ("42543".equals(e.getSQLState()) && line.startsWith("INSERT INTO ")) {
                        s.execute(insertWithGenerated(to, schema, line, rewritten));
                    } else if (COPY_TOLERATED.stream().noneMatch(line::startsWith)) {
                        throw e;
                    }
                }
            }
            for (String t : triggers) s.execute(t);
            if (names != null) alignGeneratedNames(to, names);
            to.commit();
        } finally {
            to.setAutoCommit(auto);
        }
    }

    /** The names a {@link #NAMES_LINE} carries. */
    private static Map<String, String> namesOf(String line, Path file) throws SQLException {
        Object[] flat;
        try {
            flat = io.macrodb.log.ValueCodec.decodeValues(line.substring(NAMES_LINE.length()).trim());
        } catch (IOException e) {
            throw new SQLException("MacroDB: the script " + file + " has a damaged line (" + e.getMessage() + "): "
                    + line.substring(0, Math.min(line.length(), 200)), SqlState.DATA_CORRUPTED.getState(), e);
        }
        Map<String, String> names = new java.util.HashMap<>();
        for (int i = 0; i + 1 < flat.length; i += 2) names.put((String) flat[i], (String) flat[i + 1]);
        return names;
    }

    /** Runs a {@link #BIND_LINE}: its statement, with its values bound; it must change one row at least. */
    private static void runBound(Connection to, String line, Path file) throws SQLException {
        int space = line.indexOf(' ', BIND_LINE.length());
        Object[] values;
        try {
            if (space < 0) throw new IOException("no statement");
            values = io.macrodb.log.ValueCodec.decodeValues(line.substring(BIND_LINE.length(), space));
        } catch (IOException e) {
            throw new SQLException("MacroDB: the script " + file + " has a damaged line (" + e.getMessage() + "): "
                    + line.substring(0, Math.min(line.length(), 200)), SqlState.DATA_CORRUPTED.getState(), e);
        }
        try (PreparedStatement ps = to.prepareStatement(line.substring(space + 1))) {
            for (int i = 0; i < values.length; i++) Values.bind(ps, i + 1, values[i]);
            if (ps.executeUpdate() == 0) {
                throw new SQLException("MacroDB: the script " + file + " restores an offset of a row it does not hold: "
                        + line.substring(space + 1), SqlState.DATA_CORRUPTED.getState());
            }
        }
    }

    /** Decodes HSQLDB's {@code \\uXXXX} script escapes. */
    static String unescape(String line) {
        int at = line.indexOf("\\u");
        if (at < 0) return line;
        StringBuilder sb = new StringBuilder(line.length());
        int from = 0;
        while (at >= 0 && at + 6 <= line.length()) {
            String hex = line.substring(at + 2, at + 6);
            if (!hex.chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
                at = line.indexOf("\\u", at + 1);
                continue;
            }
            sb.append(line, from, at).append((char) Integer.parseInt(hex, 16));
            from = at + 6;
            at = line.indexOf("\\u", from);
        }
        return sb.append(line, from, line.length()).toString();
    }

    /**
     * A script row {@code INSERT INTO T VALUES(...)} of a table with generated columns, as an INSERT
     * HSQLDB accepts: {@code DEFAULT} for each computed column (recomputed from the others), and
     * {@code OVERRIDING SYSTEM VALUE} so that an always-generated identity keeps its value.
     */
    private static String insertWithGenerated(Connection c, String schema, String line, Map<String, String> cache)
            throws SQLException {
        int values = line.indexOf(" VALUES(");
        if (values < 0 || !line.endsWith(")")) throw new SQLException("MacroDB: an unexpected script line: " + line, SqlState.DATA_CORRUPTED.getState());
        String table = line.substring("INSERT INTO ".length(), values).trim();
        String key = schema + "." + table;
        String prefix = cache.get(key);
        List<Boolean> computed = new ArrayList<>();
        boolean always = false;
        try (PreparedStatement ps = c.prepareStatement("SELECT IS_GENERATED, IS_IDENTITY, IDENTITY_GENERATION FROM"
                + " INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
            ps.setString(1, unquote(schema));
            ps.setString(2, unquote(table));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    boolean identity = "YES".equals(rs.getString(2));
                    computed.add("ALWAYS".equals(rs.getString(1)) && !identity);
                    always |= identity && "ALWAYS".equals(rs.getString(3));
                }
            }
        }
        if (prefix == null) {
            prefix = "INSERT INTO " + table + (always ? " OVERRIDING SYSTEM VALUE" : "") + " VALUES(";
            cache.put(key, prefix);
        }
        List<String> vals = splitValues(line.substring(values + " VALUES(".length(), line.length() - 1));
        if (vals.size() != computed.size()) {
            throw new SQLException("MacroDB: a script row of " + key + " has " + vals.size() + " values for " + computed.size()
                    + " columns: " + line, SqlState.DATA_CORRUPTED.getState());
        }
        StringBuilder sb = new StringBuilder(prefix);
        for (int i = 0; i < vals.size(); i++) sb.append(i == 0 ? "" : ",").append(computed.get(i) ? "DEFAULT" : vals.get(i));
        return sb.append(')').toString();
    }

    private static String unquote(String name) {
        return name.startsWith("\"") ? name.substring(1, name.length() - 1).replace("\"\"", "\"") : name;
    }

    /** Splits a VALUES list at its top-level commas (not inside quotes, parentheses or brackets). */
    static List<String> splitValues(String list) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int from = 0;
        for (int i = 0; i < list.length(); i++) {
            char ch = list.charAt(i);
            if (quoted) {
                if (ch == '\'') quoted = false; // a doubled quote closes and reopens
            } else if (ch == '\'') {
                quoted = true;
            } else if (ch == '(' || ch == '[') {
                depth++;
            } else if (ch == ')' || ch == ']') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                out.add(list.substring(from, i));
                from = i + 1;
            }
        }
        out.add(list.substring(from));
        return out;
    }

    @Override public java.util.Map<String, Long> sequencePositions(Connection c) throws SQLException {
        return Catalog.sequencePositions(c, "NEXT_VALUE");
    }

    /**
     * HSQLDB tells an identity column's next value nowhere in its catalog (only {@code SCRIPT}, which writes every row of a
     * memory table too), so it is read from the embedded engine's own table objects, through the session a
     * {@code JDBCConnection} holds: the identity's sequence, {@code peek()}ed, the value the next insert gets (moved on
     * by explicit values above it, as HSQLDB does, and not back by rollbacks). Without it a promotion restarted each
     * identity past the largest value in its table and handed out a deleted row's value again. A connection to an
     * HSQLDB server ({@code hsql://}) has no session in this process: no positions, and identities restart past the
     * largest value, as before.
     */
    @Override public java.util.Map<String, Long> identityPositions(Connection c) throws SQLException {
        org.hsqldb.Session session = c.isWrapperFor(org.hsqldb.jdbc.JDBCConnection.class)
                && c.unwrap(org.hsqldb.jdbc.JDBCConnection.class).getSession() instanceof org.hsqldb.Session embedded ? embedded : null;
        if (session == null) return java.util.Map.of();
        try {
            org.hsqldb.Database database = session.getDatabase();
            if (database == null || session.isClosed()) throw closed(null);
            java.util.Map<String, Long> out = new java.util.TreeMap<>();
            org.hsqldb.lib.HsqlArrayList<org.hsqldb.Table> tables = database.schemaManager.getAllTables(false);
            for (int i = 0; i < tables.size(); i++) {
                org.hsqldb.Table t = tables.get(i);
                if (!t.hasIdentityColumn() || t.isView() || t.isTemp()) continue;
                org.hsqldb.NumberSequence identity = t.getColumn(t.getIdentityColumnIndex()).getIdentitySequence();
                if (identity == null) continue;
                out.put(Engine.identityKey(TableShape.quote(t.getSchemaName().name) + "." + TableShape.quote(t.getName().name)), identity.peek());
            }
            return out;
        } catch (RuntimeException e) {
            // the database was shut down under the reading (its session answers with nothing where it had objects)
            if (session.getDatabase() == null || session.isClosed()) throw closed(e);
            throw new SQLException("MacroDB: cannot read HSQLDB's identity positions: " + e, SqlState.INTERNAL_ERROR.getState(), e);
        }
    }

    /** The database of an embedded session is gone ({@code SHUTDOWN}): the class-08 state HSQLDB gives such a session. */
    private static SQLException closed(RuntimeException cause) {
        return new java.sql.SQLNonTransientConnectionException("connection exception: closed (the database was shut down)", "08003", cause);
    }

    @Override public String deleteOneRowSql(String table, String condition) {
        return "DELETE FROM " + table + " WHERE " + condition + " LIMIT 1";
    }

    @Override public void setReferentialIntegrity(Connection c, boolean on) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET DATABASE REFERENTIAL INTEGRITY " + on);
        }
    }

    @Override public String existingOnlyUrl(String url) { return EngineUrl.withSetting(url, "ifexists", "true"); }

    /** Besides the 08 class: -465, "Database does not exists", a shut-down replica reopened with {@code ifexists=true}. */
    @Override public boolean isEngineGone(SQLException e) {
        return e.getErrorCode() == -465 || Engine.super.isEngineGone(e);
    }

    /**
     * -451, "Database lock acquisition failure: attempt to connect while db opening /closing" (a general error,
     * S1000): a session opened while the database shuts down gets it, as a reader starting on a secondary that is
     * being stopped did (seen in CI, {@code FaultInjectionTest} over HSQLDB). A probe tells whether the engine is gone.
     */
    @Override public boolean mayBeEngineGone(SQLException e) {
        return e.getErrorCode() == -451;
    }

    @Override public boolean undoesFailedStatementsToASavepoint() { return true; }

    @Override public boolean isRetryable(SQLException e) {
        return "40001".equals(e.getSQLState()) || e.getSQLState() != null && e.getSQLState().startsWith("40");
    }
}
