package io.macrodb.engine;

import io.macrodb.log.Propagation;
import io.macrodb.log.TableShape;
import io.macrodb.sql.Dialect;
import io.macrodb.sql.SqlState;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * SQLite through xerial's sqlite-jdbc. Every replica is a SQLite database of its own: never a
 * shared cache, which SQLite discourages.
 *
 * <p>Databases "in memory" (the secondaries, and an in-memory primary) are files in WAL mode with
 * {@code synchronous=OFF}, in a directory of this process on a memory file system ({@code /dev/shm}
 * where there is one, else {@code java.io.tmpdir}), removed when MacroDB is done with them and at
 * the JVM's exit. Not SQLite's {@code :memory:}: it gives each connection a database of its own,
 * and MacroDB runs several sessions per replica. Not its {@code memdb} VFS either: it has no WAL,
 * and in its rollback journal any writer holds off every new reader and any reader a writer's
 * commit, so that a secondary could not apply the log while it serves reads. In WAL mode readers
 * never wait for the writer, nor the writer for readers.
 *
 * <p>URLs: {@code jdbc:macrodb:sqlite::memory:} (one in-memory database for every MacroDB
 * connection with that URL while one is open), {@code jdbc:macrodb:sqlite:mem:NAME} (a named one),
 * {@code jdbc:macrodb:sqlite:/path/file.db} or {@code sqlite:file:/path/file.db} (a file). SQLite's
 * own settings ({@code journal_mode}, {@code foreign_keys}...) are connection properties.
 *
 * <p>Capture: SQLite's triggers are SQL, so each table gets three triggers that pass the row to
 * the Java function {@link SqliteCapture}. The rows a REPLACE removes to make room for a new one fire
 * no delete trigger unless {@code recursive_triggers} is on, which would also change what the
 * application's own triggers do (SQLite's default is off, and MacroDB leaves it as the application
 * set it): two BEFORE INSERT and BEFORE UPDATE triggers per table report instead every row the new
 * row collides with on the rowid or a unique index ({@link SqliteReplaceProbes}), and the commit
 * settles from the table whether it is gone.
 *
 * <p>Locking: one writer at a time per database; in an in-memory database (no WAL) a reader's
 * open transaction also holds off a writer's commit. Waits are bounded by {@code busy_timeout}
 * ({@code lockTimeout}) and end in {@code SQLITE_BUSY}, which MacroDB reports as 40001.
 */
public final class SqliteEngine implements Engine {
    static final String TRIGGER_PREFIX = "macrodb_capture:";
    /**
     * The capture function's event for a row whose primary key holds NULL (SQLite lets a rowid table's
     * key that is not the rowid hold NULL): refused, see {@link SqliteCapture}.
     */
    static final String NULL_KEY_EVENT = "N";
    private static final String[][] EVENTS = {{"I", "INSERT"}, {"U", "UPDATE"}, {"D", "DELETE"}};
    /** The only schema MacroDB replicates: ATTACHed databases are per connection and refused. */
    public static final String SCHEMA = "main";

    @Override public String name() { return "sqlite"; }

    @Override public Dialect dialect() { return Dialect.SQLITE; }

    /** SQLite's transactions are serializable (the driver offers read-uncommitted besides, for shared caches only). */
    @Override public int defaultIsolation() { return Connection.TRANSACTION_SERIALIZABLE; }

    /** SQLite's driver closes result sets at commit and offers nothing else. */
    @Override public int defaultHoldability() { return java.sql.ResultSet.CLOSE_CURSORS_AT_COMMIT; }

    @Override public String primaryUrl(EngineUrl url) {
        String d = url.database();
        if (d.equalsIgnoreCase(":memory:")) return inMemory("primary-memory");
        if (d.regionMatches(true, 0, "mem:", 0, 4)) return inMemory("primary-mem-" + fileSafe(d.substring(4)));
        return "jdbc:sqlite:" + d;
    }

    @Override public String secondaryUrl(EngineUrl primary, String uniqueName, int index) {
        return inMemory(fileSafe(uniqueName) + "-r" + index);
    }

    /** A name made of letters, digits, '-' and '_' only, still telling different names apart. */
    private static String fileSafe(String name) {
        StringBuilder sb = new StringBuilder();
        for (char ch : name.toCharArray()) {
            if (Character.isLetterOrDigit(ch) && ch < 128 || ch == '-' || ch == '_') sb.append(ch);
            else sb.append('~').append(Integer.toHexString(ch));
        }
        return sb.toString();
    }

    /** The URL of the in-memory database {@code name} (see the class comment); {@code synchronous=OFF}: nothing to sync to. */
    private static String inMemory(String name) {
        return "jdbc:sqlite:" + MemoryDirectory.get().resolve(name + ".db") + "?synchronous=OFF";
    }

    /** Removes an in-memory database's files: the database, its WAL and its shared-memory index. */
    @Override public void discard(String jdbcUrl) {
        MemoryDirectory.delete(jdbcUrl);
    }

    @Override public void checkSupported(EngineUrl url, Propagation propagation, boolean durable) throws SQLException {
        if (!url.settings().isEmpty()) {
            throw refused("SQLite takes no ;KEY=VALUE settings in its URL (" + url.settings().keySet() + "); give them as"
                    + " connection properties, e.g. foreign_keys=true or journal_mode=WAL");
        }
        if (propagation != Propagation.ROW) {
            throw refused("propagation=statement is not offered on SQLite: its functions that read the clock or draw random"
                    + " values are not rewritten for replay; use propagation=row (the default)");
        }
        String d = url.database().toLowerCase(Locale.ROOT);
        if (d.startsWith("file:") && d.contains("mode=memory") || d.contains("cache=shared")) {
            throw refused("write an in-memory SQLite database as sqlite::memory: or sqlite:mem:NAME; MacroDB gives each"
                    + " replica a database of its own and never uses SQLite's shared cache");
        }
    }

    private static SQLException refused(String message) {
        return new SQLFeatureNotSupportedException("MacroDB: " + message, SqlState.FEATURE_NOT_OFFERED.getState());
    }

    /** An in-memory primary goes to WAL mode; a file keeps the journal mode the application gave it. */
    @Override public void configurePrimary(Connection c, Propagation propagation, EngineUrl url) throws SQLException {
        if (url.inMemory()) wal(c);
    }

    @Override public void configureSecondary(Connection c, Propagation propagation) throws SQLException {
        wal(c);
    }

    private static void wal(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA journal_mode = WAL")) {
            if (!rs.next() || !"wal".equalsIgnoreCase(rs.getString(1))) {
                throw new SQLException("MacroDB: SQLite did not put " + c.getMetaData().getURL() + " in WAL mode",
                        SqlState.INTERNAL_ERROR.getState());
            }
        }
    }

    @Override public void configureSession(Connection c, long lockTimeoutMillis) throws SQLException {
        configureSession(c, lockTimeoutMillis, true);
    }

    /**
     * Registers the capture function and bounds lock waits; {@code recursive_triggers} stays as the
     * application's connection properties set it (see the class comment); a secondary's session checks no foreign keys (rows arrive table by table, and a
     * cascade arrives as the rows it changed). All of these are per connection in SQLite; a primary's
     * session checks foreign keys as the application's {@code foreign_keys} property says.
     */
    @Override public void configureSession(Connection c, long lockTimeoutMillis, boolean primary) throws SQLException {
        SqliteCapture.register(c);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout = " + Math.max(1, Math.min(Integer.MAX_VALUE, lockTimeoutMillis)));
            if (!primary) s.execute("PRAGMA foreign_keys = OFF");
        }
    }

    static String triggerName(String event, String table) {
        return TRIGGER_PREFIX + event + ":" + table;
    }

    @Override public void installCapture(Connection c, TableShape t) throws SQLException {
        java.util.Set<String> existing = new java.util.HashSet<>(captureTriggers(c).keySet());
        List<String> all = new ArrayList<>(Catalog.columns(c, t.schema(), t.table()).values().stream().map(Catalog.Column::name).toList());
        List<String> nullableKey = SqliteCatalog.nullableKeyColumns(c, t.table());
        try (Statement s = c.createStatement()) {
            if (!nullableKey.isEmpty()) {
                // BEFORE the row is written: a statement that would leave, move or remove a NULL key changes nothing
                for (String[] ev : EVENTS) {
                    String name = triggerName(NULL_KEY_EVENT + ev[0], t.table());
                    if (existing.contains(name)) continue;
                    List<String> tests = new ArrayList<>();
                    for (String col : nullableKey) {
                        if (!ev[0].equals("I")) tests.add("OLD." + TableShape.quote(col) + " IS NULL");
                        if (!ev[0].equals("D")) tests.add("NEW." + TableShape.quote(col) + " IS NULL");
                    }
                    s.execute("CREATE TRIGGER " + TableShape.quote(t.schema()) + "." + TableShape.quote(name) + " BEFORE " + ev[1]
                            + " ON " + TableShape.quote(t.table()) + " WHEN " + String.join(" OR ", tests) + " BEGIN SELECT "
                            + SqliteCapture.NAME + "(" + literal(t.schema()) + ", " + literal(t.table()) + ", '" + NULL_KEY_EVENT + "', "
                            + literal(String.join(", ", nullableKey)) + "); END");
                }
            }
            // a table without a key passes each row's rowid first too, which the removals below are settled by; a
            // shape that replicates the rowid (SqliteCatalog.replicatedRowid) gets it after the columns of each row
            String rowid = t.hasKey() ? null : SqliteReplaceProbes.rowidName(all);
            if (!t.hasKey() && rowid == null) {
                throw new SQLException("MacroDB: table " + t + " has no primary key, and columns named rowid, _rowid_ and oid"
                        + " hide its rowid, by which MacroDB tells its rows apart within a statement; declare a primary key"
                        + " or rename one of those columns", SqlState.STATEMENT_NOT_REPLICABLE.getState());
            }
            java.util.Set<String> oldKey = new java.util.HashSet<>();
            for (int i = 0; i < t.keyCount(); i++) oldKey.add(t.columns().get(t.keyIndex(i)));
            for (String[] ev : EVENTS) {
                String name = triggerName(ev[0], t.table());
                if (existing.contains(name)) continue;
                StringBuilder args = new StringBuilder();
                args.append(literal(t.schema())).append(", ").append(literal(t.table())).append(", '").append(rowid == null ? "" : "K")
                        .append(ev[0]).append('\'');
                if (rowid != null && !ev[0].equals("I")) args.append(", OLD.").append(rowid);
                if (rowid != null && !ev[0].equals("D")) args.append(", NEW.").append(rowid);
                if (!ev[0].equals("I")) {
                    // of the old row a table with a key needs its key only (TransactionChanges#onRow): the other
                    // columns go as NULL, one JNI call each in the capture function instead of two and a copy
                    for (String col : all) {
                        args.append(", ").append(rowid != null || oldKey.contains(col) ? "OLD." + TableShape.quote(col) : "NULL");
                    }
                    if (t.rowidColumn() != null) args.append(", OLD.").append(t.rowidColumn());
                }
                if (!ev[0].equals("D")) {
                    for (String col : all) args.append(", NEW.").append(TableShape.quote(col));
                    if (t.rowidColumn() != null) args.append(", NEW.").append(t.rowidColumn());
                }
                s.execute("CREATE TRIGGER " + TableShape.quote(t.schema()) + "." + TableShape.quote(name) + " AFTER " + ev[1]
                        + " ON " + TableShape.quote(t.table()) + " BEGIN SELECT " + SqliteCapture.NAME + "(" + args + "); END");
            }
            for (String event : new String[] {"INSERT", "UPDATE"}) {
                String name = triggerName(SqliteCapture.REMOVABLE + event.charAt(0), t.table());
                if (existing.contains(name)) continue;
                String ddl = SqliteReplaceProbes.trigger(c, t, all, event.equals("UPDATE"), TableShape.quote(t.schema()) + "."
                        + TableShape.quote(name));
                if (ddl != null) s.execute(ddl);
            }
        }
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /**
     * A capture trigger passes a table's name and every column: after any schema change (a rename,
     * a new column) they are made afresh.
     */
    @Override public List<TableShape> refreshCapture(Connection c) throws SQLException {
        return recreateCapture(c);
    }

    /** SQLite refuses to drop a column that a trigger reads: the capture triggers go first (in the DDL's transaction). */
    @Override public void beforeSchemaChange(Connection c) throws SQLException {
        removeCapture(c);
    }

    /** MacroDB's capture triggers of the main database: name to table. */
    private static Map<String, String> captureTriggers(Connection c) throws SQLException {
        Map<String, String> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name, tbl_name FROM main.sqlite_schema WHERE type = 'trigger'"
                + " AND substr(name, 1, " + TRIGGER_PREFIX.length() + ") = ?")) {
            ps.setString(1, TRIGGER_PREFIX);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.put(rs.getString(1), rs.getString(2));
            }
        }
        return out;
    }

    @Override public Map<String, String> applicationTriggerDdl(Connection c) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT name, sql FROM main.sqlite_schema WHERE type = 'trigger' ORDER BY name")) {
            while (rs.next()) {
                if (!rs.getString(1).startsWith(TRIGGER_PREFIX)) out.put(rs.getString(1), rs.getString(2));
            }
        }
        return out;
    }

    @Override public void dropUserTriggers(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        for (String name : applicationTriggerDdl(c).keySet()) drops.add("DROP TRIGGER IF EXISTS main." + TableShape.quote(name));
        execute(c, drops);
    }

    @Override public void removeCapture(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        for (String name : captureTriggers(c).keySet()) drops.add("DROP TRIGGER IF EXISTS main." + TableShape.quote(name));
        execute(c, drops);
    }

    private static void execute(Connection c, List<String> statements) throws SQLException {
        if (statements.isEmpty()) return;
        try (Statement s = c.createStatement()) {
            for (String sql : statements) s.execute(sql);
        }
    }

    /**
     * A copy of the whole database file through SQLite's online backup, which the driver offers as
     * {@code backup to FILE}: schema, rows, triggers and {@code sqlite_sequence} alike.
     *
     * <p>The copy of a database in WAL mode is marked WAL too, and SQLite opens such a file with a
     * {@code -wal} and a {@code -shm} beside it, which the read-only open of {@code restore from}
     * leaves there: every secondary built, and every recovery from a snapshot, left two files
     * behind. The copy is put back to a rollback journal (its rows unchanged), which reading leaves
     * no trace of.
     */
    @Override public void exportScript(Connection c, Path file) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("backup to " + fileName(file));
        }
        try (Connection copy = new org.sqlite.JDBC().connect("jdbc:sqlite:" + file.toAbsolutePath(), new java.util.Properties());
             Statement s = copy.createStatement()) {
            s.execute("PRAGMA journal_mode = DELETE");
        }
    }

    /** Replaces the empty database of {@code c} with the copy {@link #exportScript} wrote. */
    @Override public void importScript(Connection c, Path file) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("restore from " + fileName(file));
        }
    }

    private static String fileName(Path file) throws SQLException {
        String f = file.toAbsolutePath().toString();
        if (f.indexOf('"') >= 0 || f.indexOf('\'') >= 0) {
            throw new SQLException("MacroDB: SQLite cannot back up to a path with quotes: " + f + "; set java.io.tmpdir to"
                    + " a plain directory", SqlState.IO_ERROR.getState());
        }
        return "\"" + f + "\"";
    }

    @Override public String timeZoneReset() { return null; }

    /**
     * SQLite says whether a transaction is open only through {@code sqlite3_get_autocommit}, which xerial's driver
     * does not expose: a {@code BEGIN} answers it, failing inside a transaction and, outside one, opening the
     * transaction the session must be in (MacroDB's sessions run with JDBC autocommit off).
     */
    /** {@code INSERT OR FAIL} and {@code ON CONFLICT FAIL} keep the rows written before the failing one. */
    @Override public boolean failedStatementsMayKeepRows() { return true; }

    /** DDL is transactional: a rollback undoes a {@code CREATE} or an {@code ALTER} with the rows around it. */
    @Override public boolean schemaChangesAreTransactional() { return true; }

    /** SQLite's own error, as its driver reports it (SQLITE_ERROR, no SQLState). */
    @Override public SQLException noTransactionToEnd(boolean commit) {
        return new org.sqlite.SQLiteException("[SQLITE_ERROR] SQL error or missing database (cannot " + (commit ? "commit" : "rollback")
                + " - no transaction is active)", org.sqlite.SQLiteErrorCode.SQLITE_ERROR);
    }

    @Override public boolean failureEndedTransaction(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN");
            return true;
        } catch (SQLException inATransaction) {
            return false; // "cannot start a transaction within a transaction"
        }
    }

    /** Nothing to shut down: SQLite closes a database with its last connection ({@link #discard} removes the files). */
    @Override public void shutdownDatabase(Connection c) {
    }

    /**
     * The counters of {@code AUTOINCREMENT} tables ({@code sqlite_sequence}), as the next value each
     * hands out, keyed {@code "main"."table"}: SQLite has no sequences of its own.
     * <p>An {@code AUTOINCREMENT} table that has no counter yet (no row was ever inserted into it on this replica) is at 1:
     * a secondary gets its counter only from the rows it applies, and rows inserted and deleted again in one record, or
     * in one group of records, arrive as nothing, so a promoted secondary had no counter for the table, its position
     * was not restarted ({@code Recovery.restartGenerators} restarts the positions a replica has), and it handed out
     * the values the failed primary had handed out again
     * ({@code IdentityAfterPromotionTest.anAutoincrementGoesOnPastRowsDeletedAfterAPromotion}).
     */
    @Override public Map<String, Long> sequencePositions(Connection c) throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        if (!hasSequenceTable(c)) return out; // SQLite makes it with the first AUTOINCREMENT table
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name, seq FROM main.sqlite_sequence"
                + " UNION ALL SELECT name, 0 FROM main.sqlite_schema WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'"
                + " AND name NOT IN (SELECT name FROM main.sqlite_sequence)")) {
            while (rs.next()) out.put(TableShape.quote(SCHEMA) + "." + TableShape.quote(rs.getString(1)), rs.getLong(2) + 1);
        }
        return out;
    }

    private static boolean hasSequenceTable(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = 'sqlite_sequence'")) {
            return rs.next();
        }
    }

    @Override public void restartSequence(Connection c, String sequence, long next) throws SQLException {
        String prefix = TableShape.quote(SCHEMA) + ".";
        if (!sequence.startsWith(prefix)) return;
        String q = sequence.substring(prefix.length());
        String table = q.substring(1, q.length() - 1).replace("\"\"", "\"");
        try (PreparedStatement ps = c.prepareStatement("UPDATE main.sqlite_sequence SET seq = ? WHERE name = ? AND seq < ?")) {
            ps.setLong(1, next - 1);
            ps.setString(2, table);
            ps.setLong(3, next - 1);
            if (ps.executeUpdate() == 0) {
                try (PreparedStatement ins = c.prepareStatement("INSERT INTO main.sqlite_sequence(name, seq) SELECT ?, ?"
                        + " WHERE NOT EXISTS (SELECT 1 FROM main.sqlite_sequence WHERE name = ?)")) {
                    ins.setString(1, table);
                    ins.setLong(2, next - 1);
                    ins.setString(3, table);
                    ins.executeUpdate();
                }
            }
        }
    }

    /** A rowid picks the largest one in the table plus one: a row that arrived as an image counts already. */
    @Override public void alignIdentities(Connection c, java.util.Map<String, Long> positions) {
    }

    /**
     * SQLite's {@code =} finds the integer 1 equal to the real 1.0, and compares text under the column's
     * collation ('A' = 'a' in a NOCASE column): a row of a table without a key is found by the value and
     * its storage class, byte for byte. The parameter is numbered ({@code ?N}) to be read twice.
     */
    @Override public String sameValueSql(String column, int parameter) {
        return "(" + column + " = ?" + parameter + " COLLATE BINARY AND typeof(" + column + ") = typeof(?" + parameter + "))";
    }

    /** A table without a key has a rowid (WITHOUT ROWID needs a primary key): one row of the matching ones, by it. */
    @Override public String deleteOneRowSql(String table, String condition) {
        return "DELETE FROM " + table + " WHERE rowid IN (SELECT rowid FROM " + table + " WHERE " + condition + " LIMIT 1)";
    }

    /** What {@link #setReferentialIntegrity} found on each connection it turned checks off on. */
    private static final java.util.Map<Connection, Boolean> CHECKED_BEFORE = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /**
     * Foreign-key enforcement is per connection in SQLite (and a pragma cannot change it inside a
     * transaction): off, then back to what the connection had before (the application's
     * {@code foreign_keys} property on a primary's session), or on where nothing was turned off.
     */
    @Override public void setReferentialIntegrity(Connection c, boolean on) throws SQLException {
        boolean auto = c.getAutoCommit();
        if (!auto) c.commit();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            boolean value = on;
            if (!on) {
                try (ResultSet rs = s.executeQuery("PRAGMA foreign_keys")) {
                    CHECKED_BEFORE.put(c, rs.next() && rs.getInt(1) == 1);
                }
            } else {
                Boolean before = CHECKED_BEFORE.remove(c);
                if (before != null) value = before;
            }
            s.execute("PRAGMA foreign_keys = " + (value ? "ON" : "OFF"));
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /**
     * SQLite's driver reports no SQLState: its result codes become the standard's, the failure
     * itself the cause. Constraint violations are {@code SQLIntegrityConstraintViolationException}s.
     */
    @Override public SQLException withSqlState(SQLException e) {
        if (e.getSQLState() != null) return e;
        int code = e instanceof org.sqlite.SQLiteException se ? se.getResultCode().code : e.getErrorCode(); // the extended code
        String state = switch (code) {
            case 787 -> "23503";            // SQLITE_CONSTRAINT_FOREIGNKEY
            case 1299 -> "23502";           // SQLITE_CONSTRAINT_NOTNULL
            case 1555, 2067, 2579 -> "23505"; // PRIMARYKEY, UNIQUE, ROWID
            case 275 -> "23514";            // SQLITE_CONSTRAINT_CHECK
            default -> switch (code & 0xff) {
                case 19 -> "23000";         // SQLITE_CONSTRAINT, any other kind
                case 5, 6 -> "40001";       // SQLITE_BUSY, SQLITE_LOCKED
                case 8 -> "25006";          // SQLITE_READONLY
                case 9 -> "57014";          // SQLITE_INTERRUPT
                case 18 -> "22001";         // SQLITE_TOOBIG
                case 20 -> "22000";         // SQLITE_MISMATCH
                default -> null;
            };
        };
        if (state == null) return e;
        SQLException out = state.startsWith("23") ? new java.sql.SQLIntegrityConstraintViolationException(e.getMessage(), state, code, e)
                : new SQLException(e.getMessage(), state, code, e);
        out.setStackTrace(e.getStackTrace());
        return out;
    }

    /** {@code SQLITE_BUSY} (5) and {@code SQLITE_LOCKED} (6), with their extended codes. */
    @Override public boolean isRetryable(SQLException e) {
        int primary = e.getErrorCode() & 0xff;
        return primary == 5 || primary == 6 || "40001".equals(e.getSQLState());
    }

    /**
     * A closed connection, or a database SQLite can no longer read: {@code SQLITE_IOERR} (10),
     * {@code SQLITE_CORRUPT} (11), {@code SQLITE_CANTOPEN} (14), {@code SQLITE_NOTADB} (26), with their
     * extended codes. A replica in that state leaves the rotation (a primary fails over).
     */
    /**
     * SQLite creates a missing database file on open unless the open flags leave CREATE out: {@code
     * open_mode=2} (SQLITE_OPEN_READWRITE alone) makes a session of a replica whose file is gone fail
     * with SQLITE_CANTOPEN (a gone engine) instead of opening a new, empty database there.
     */
    @Override public String existingOnlyUrl(String url) {
        String base = url.replaceAll("([?&])open_mode=[^&]*&?", "$1");
        if (base.endsWith("?") || base.endsWith("&")) base = base.substring(0, base.length() - 1);
        return base + (base.contains("?") ? "&" : "?") + "open_mode=2";
    }

    /**
     * A read of the schema: {@code VALUES (1)} touches no file, and it went on answering for a primary whose database
     * file and WAL were overwritten, so that a failed primary nobody wrote to was never failed over. A read transaction
     * checks the WAL index and reads what changed, and fails with {@code SQLITE_NOTADB} or {@code SQLITE_CORRUPT} then
     * ({@code PrimaryFailoverTest.thePromotedPrimaryKeepsTheApplicationsTriggers} over SQLite).
     */
    @Override public String probeSql() { return "SELECT COUNT(*) FROM main.sqlite_schema"; }

    @Override public boolean isEngineGone(SQLException e) {
        String m = e.getMessage();
        int primary = (e instanceof org.sqlite.SQLiteException se ? se.getResultCode().code : e.getErrorCode()) & 0xff;
        boolean sqlite = e instanceof org.sqlite.SQLiteException;
        return Engine.super.isEngineGone(e) || m != null && (m.contains("database connection closed") || m.contains("connection closed"))
                || sqlite && (primary == 10 || primary == 11 || primary == 14 || primary == 26);
    }

    /**
     * SQLite lets one connection write at a time; two deferred transactions that both read and then
     * both write wait for each other's locks until the busy timeout. MacroDB gives writers turns.
     */
    @Override public boolean oneWriterAtATime() { return true; }

    /** One: SQLite runs one writer at a time per database, whatever the number of sessions. */
    @Override public int applySessionsProfile() { return 1; }

    /** SQLite cannot commit while a statement of the transaction is still stepping ({@code RETURNING}). */
    @Override public boolean commitsBesideOpenResults() { return false; }

    /** One: a second apply session would only wait for the first one's write lock. */
    @Override public int maxApplySessions() { return 1; }
}
