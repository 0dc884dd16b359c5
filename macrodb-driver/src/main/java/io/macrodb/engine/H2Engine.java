package io.macrodb.engine;

import io.macrodb.log.Propagation;
import io.macrodb.log.TableShape;
import io.macrodb.sql.Dialect;

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

/** H2 2.x. Row capture through one Java trigger per table; secondaries are private in-memory databases. */
public final class H2Engine implements Engine {
    static final String TRIGGER_PREFIX = "MACRODB_CAPTURE_";
    /** URL settings that belong to the primary's storage or connection, not to a secondary in memory. */
    private static final Set<String> PRIMARY_ONLY = Set.of("ACCESS_MODE_DATA", "AUTO_SERVER", "AUTO_SERVER_PORT",
            "AUTO_RECONNECT", "FILE_LOCK", "DB_CLOSE_ON_EXIT", "CIPHER", "IFEXISTS", "RECOVER",
            "PAGE_SIZE", "CACHE_SIZE", "WRITE_DELAY", "DB_CLOSE_DELAY", "TRACE_LEVEL_FILE", "USER", "PASSWORD");

    @Override public String name() { return "h2"; }

    @Override public Dialect dialect() { return Dialect.H2; }

    @Override public String secondaryUrl(EngineUrl primary, String uniqueName, int index) {
        Map<String, String> settings = new LinkedHashMap<>();
        primary.settings().forEach((k, v) -> {
            if (!PRIMARY_ONLY.contains(k.toUpperCase(Locale.ROOT))) settings.put(k, v);
        });
        settings.put("DB_CLOSE_DELAY", "-1");
        return "jdbc:h2:mem:" + uniqueName + "_r" + index + EngineUrl.settingsSuffix(settings);
    }

    /**
     * H2's {@code DB_CLOSE_DELAY}, for in-memory and file databases alike: absent or 0 closes the
     * database with its last connection, -1 keeps it until {@code SHUTDOWN} or the JVM exits, N keeps
     * it N seconds. (A value H2 would refuse counts as 0: H2 reports it when the primary opens.)
     */
    @Override public long closeDelayMillis(EngineUrl url, java.util.Properties properties) {
        String v = url.setting("DB_CLOSE_DELAY");
        if (v == null && properties != null) {
            for (String k : properties.stringPropertyNames()) {
                if (k.equalsIgnoreCase("DB_CLOSE_DELAY")) v = properties.getProperty(k);
            }
        }
        if (v == null) return 0;
        try {
            long seconds = Long.parseLong(v.trim());
            return seconds < 0 ? -1 : Math.multiplyExact(seconds, 1000L);
        } catch (NumberFormatException | ArithmeticException e) {
            return 0;
        }
    }

    @Override public void configurePrimary(Connection c, Propagation propagation, EngineUrl url) {
        // H2's MVStore is row-locking MVCC; row capture is correct under any isolation, and statement
        // mode serialises update transactions in MacroDB itself, so nothing to change here.
    }

    @Override public void configureSecondary(Connection c, Propagation propagation) throws SQLException {
        if (propagation == Propagation.ROW) {
            // Rows arrive as final images of every table a transaction touched, parents and children
            // alike; checking or cascading foreign keys again would double-apply cascades.
            try (Statement s = c.createStatement()) {
                s.execute("SET REFERENTIAL_INTEGRITY FALSE");
            }
        }
    }

    @Override public void configureSession(Connection c, long lockTimeoutMillis) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCK_TIMEOUT " + Math.max(1, lockTimeoutMillis));
        }
    }

    @Override public void installCapture(Connection c, TableShape t) throws SQLException {
        String name = TRIGGER_PREFIX + t.table();
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TRIGGER IF NOT EXISTS " + TableShape.quote(t.schema()) + "." + TableShape.quote(name)
                    + " AFTER INSERT, UPDATE, DELETE ON " + t.qualifiedName()
                    + " FOR EACH ROW CALL \"" + H2CaptureTrigger.class.getName() + "\"");
        }
    }

    /**
     * H2 gives a trigger its table's name once, at creation, and ALTER TABLE rebuilds a table under a
     * temporary name whose triggers keep that name; so after a schema change every capture trigger is
     * created afresh.
     */
    @Override public List<TableShape> refreshCapture(Connection c) throws SQLException {
        return recreateCapture(c);
    }

    @Override public void dropUserTriggers(Connection c) throws SQLException {
        Catalog.dropTriggersExcept(c, TRIGGER_PREFIX + "%");
    }

    @Override public java.util.Set<String> applicationTriggerNames(Connection c) throws SQLException {
        return Catalog.triggerNamesExcept(c, TRIGGER_PREFIX + "%");
    }

    /**
     * The application's triggers as the catalog holds them, from H2's {@code SCRIPT NODATA}. {@code SCRIPT} takes an administrator: for a
     * user who is not one, null, and a promotion makes each trigger from the statement that made it.
     */
    @Override public java.util.Map<String, String> applicationTriggerDdl(Connection c) throws SQLException {
        try {
            return Catalog.triggerStatementsFromScript(c, "SCRIPT NODATA NOPASSWORDS NOSETTINGS", TRIGGER_PREFIX + "%");
        } catch (SQLException notAllowed) {
            return null;
        }
    }

    @Override public void removeCapture(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT DISTINCT TRIGGER_SCHEMA, TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME LIKE ?")) {
            ps.setString(1, TRIGGER_PREFIX + "%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    drops.add("DROP TRIGGER IF EXISTS " + TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2)));
                }
            }
        }
        try (Statement s = c.createStatement()) {
            for (String d : drops) s.execute(d);
        }
    }

    @Override public void exportScript(Connection c, Path file) throws SQLException {
        // COLUMNS: inserts name their columns; without the list an INVISIBLE column's value makes
        // the script's own INSERT fail when it is run (the list it then fills has only the visible ones)
        try (PreparedStatement ps = c.prepareStatement("SCRIPT COLUMNS TO ?")) {
            ps.setString(1, file.toString());
            ps.execute();
        }
    }

    @Override public void importScript(Connection c, Path file) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("RUNSCRIPT FROM ?")) {
            ps.setString(1, file.toString());
            ps.execute();
        }
    }

    @Override public java.util.Map<String, Long> sequencePositions(Connection c) throws SQLException {
        return Catalog.sequencePositions(c, "BASE_VALUE");
    }

    /**
     * Every identity column's next value (what a promotion restarts them at), read like {@link
     * #identityPositions(Connection, java.util.Collection)}: from the engine's sequence objects, or, where the session
     * is not embedded, from {@code INFORMATION_SCHEMA.COLUMNS.IDENTITY_BASE}, a query whose cost grows with the rows.
     */
    @Override public java.util.Map<String, Long> identityPositions(Connection c) throws SQLException {
        org.h2.engine.SessionLocal session = embeddedSession(c);
        if (session != null) {
            try {
                java.util.Map<String, Long> out = new java.util.TreeMap<>();
                for (org.h2.table.Table t : session.getDatabase().getAllTablesAndViews()) {
                    String schema = t.getSchema().getName();
                    if ("INFORMATION_SCHEMA".equals(schema)) continue;
                    Long next = identityBase(t);
                    if (next != null) out.put(Engine.identityKey(TableShape.quote(schema) + "." + TableShape.quote(t.getName())), next);
                }
                return out;
            } catch (LinkageError e) {
                // an H2 whose internals differ: the catalog answers
            } catch (RuntimeException e) {
                throw unreadable(session, e);
            }
        }
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        try (Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT TABLE_SCHEMA, TABLE_NAME, IDENTITY_BASE FROM INFORMATION_SCHEMA.COLUMNS"
                     + " WHERE IS_IDENTITY = 'YES' AND TABLE_SCHEMA <> 'INFORMATION_SCHEMA'")) {
            while (rs.next()) {
                long next = rs.getLong(3);
                if (rs.wasNull()) continue;
                out.put(Engine.identityKey(TableShape.quote(rs.getString(1)) + "." + TableShape.quote(rs.getString(2))), next);
            }
        }
        return out;
    }

    /** The base value of a table's identity column's sequence (what {@code IDENTITY_BASE} shows), or null if it has none. */
    private static Long identityBase(org.h2.table.Table table) {
        for (org.h2.table.Column col : table.getColumns()) {
            if (col.isIdentity() && col.getSequence() != null) return col.getSequence().getBaseValue();
        }
        return null;
    }

    /**
     * The positions of the tables a commit inserted into, read from the embedded engine's own sequence objects (the
     * value {@code INFORMATION_SCHEMA.COLUMNS.IDENTITY_BASE} shows), through the session an embedded
     * {@code JdbcConnection} holds. Every commit that inserted into a table with an identity column (TPC-C's Payment,
     * through its history table) reads them while it holds its row locks: the query of every column of every table
     * it replaced cost about 0.3 ms at TPC-C scale 0.1 and grows with the tables' rows (6-10 ms with 20,000 rows in
     * each of nine tables); the same query filtered by table still cost about 0.1 ms. Where the session is not
     * embedded, or this H2 has other internals, the filtered query answers.
     */
    @Override public java.util.Map<String, Long> identityPositions(Connection c, java.util.Collection<TableShape> tables) throws SQLException {
        if (tables.isEmpty()) return java.util.Map.of();
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        org.h2.engine.SessionLocal session = embeddedSession(c);
        if (session != null) {
            try {
                org.h2.engine.Database database = session.getDatabase();
                for (TableShape t : tables) {
                    org.h2.schema.Schema schema = database.findSchema(t.schema());
                    org.h2.table.Table table = schema == null ? null : schema.findTableOrView(session, t.table());
                    Long next = table == null ? null : identityBase(table);
                    if (next != null) out.put(Engine.identityKey(t.qualifiedName()), next);
                }
                return out;
            } catch (LinkageError e) {
                out.clear(); // an H2 whose internals differ: the catalog answers
            } catch (RuntimeException e) {
                throw unreadable(session, e);
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT IDENTITY_BASE FROM INFORMATION_SCHEMA.COLUMNS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND IS_IDENTITY = 'YES'")) {
            for (TableShape t : tables) {
                ps.setString(1, t.schema());
                ps.setString(2, t.table());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) continue;
                    long next = rs.getLong(1);
                    if (!rs.wasNull()) out.put(Engine.identityKey(t.qualifiedName()), next);
                }
            }
        }
        return out;
    }

    /**
     * The engine's objects failed to answer: its database was closed under the read (a connection exception, so that
     * the commit treats the engine as gone, as the catalog query's 90098 would be), or something else went wrong.
     */
    private static SQLException unreadable(org.h2.engine.SessionLocal session, RuntimeException e) {
        if (session.isClosed() || session.getDatabase().isClosing()) {
            return new java.sql.SQLNonTransientConnectionException("MacroDB: the H2 database was closed while its identity"
                    + " positions were read", "08003", e);
        }
        return new SQLException("MacroDB: cannot read H2's identity positions: " + e, io.macrodb.sql.SqlState.INTERNAL_ERROR.getState(), e);
    }

    /** The engine session of an embedded H2 connection, or null (a server connection, or other internals). */
    private static org.h2.engine.SessionLocal embeddedSession(Connection c) {
        try {
            if (!c.isWrapperFor(org.h2.jdbc.JdbcConnection.class)) return null;
            return c.unwrap(org.h2.jdbc.JdbcConnection.class).getSession() instanceof org.h2.engine.SessionLocal local ? local : null;
        } catch (SQLException | LinkageError e) {
            return null;
        }
    }

    @Override public void setReferentialIntegrity(Connection c, boolean on) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET REFERENTIAL_INTEGRITY " + on);
        }
    }

    @Override public String existingOnlyUrl(String url) { return EngineUrl.withSetting(url, "IFEXISTS", "TRUE"); }

    /**
     * H2 2.x (measured: 2.2.224, 2.3.232, 2.4.240, 2.5.252) can, under concurrent transactions that
     * deadlock, let one transaction remove or overwrite another's uncommitted row, and the victim
     * then commits without an error: {@code benchmarks/h2-isolation/} reproduces it on plain H2 with
     * no MacroDB. Its deadlock detector marks the youngest transaction of a wait chain as rolling
     * back from another thread, also when that transaction has stopped waiting. So every commit's
     * trigger images are checked against the rows read back.
     */
    @Override public boolean checksCaptureImages() { return true; }

    /** H2 2.x plans {@code (k1, k2) IN ((?, ?), ...)} as a lookup in the key's index ({@code ReadBackTest} checks the plan). */
    @Override public boolean rowValueListsUseKeyIndex() { return true; }


    @Override public boolean isEngineGone(SQLException e) {
        int code = e.getErrorCode();
        if (code == 90146) return true; // DATABASE_NOT_FOUND_WITH_IF_EXISTS_1: a replica shut down, reopened with IFEXISTS
        // 90098 DATABASE_IS_CLOSED, 90121 DATABASE_CALLED_AT_SHUTDOWN, 90067 CONNECTION_BROKEN_1,
        // 90135 DATABASE_IS_IN_EXCLUSIVE_MODE (what SHUTDOWN leaves while it runs), and a general error
        // (50000) of MVStore's transaction states (error 103, ERROR_TRANSACTION_ILLEGAL_STATE: "Transaction
        // N has status ROLLING_BACK, not OPEN", "illegally transitioned"): the deadlock race above broke
        // them, and the engine's isolation fails after it, so such a primary is replaced
        return code == 90098 || code == 90121 || code == 90067 || code == 90135
                || code == 50000 && e.getMessage() != null && e.getMessage().contains(TRANSACTION_STATE_ERROR)
                || Engine.super.isEngineGone(e);
    }

    /** How MVStore's ERROR_TRANSACTION_ILLEGAL_STATE (103) ends its message: "... [2.5.252/103]". */
    private static final String TRANSACTION_STATE_ERROR = "/103]";

    /**
     * Any other general error (50000): the sessions of a database that is shutting down fail with
     * them, and so does a statement whose user aggregate or table function throws. A probe tells.
     */
    @Override public boolean mayBeEngineGone(SQLException e) {
        return e.getErrorCode() == 50000;
    }

    @Override public boolean undoesFailedStatementsToASavepoint() { return true; }

    @Override public boolean isRetryable(SQLException e) {
        int code = e.getErrorCode();
        // 50200 LOCK_TIMEOUT_1, 40001 DEADLOCK_1, 90131 CONCURRENT_UPDATE_1
        return code == 50200 || code == 40001 || code == 90131 || "40001".equals(e.getSQLState()) || "HYT00".equals(e.getSQLState());
    }
}
