package io.macrodb.engine;

import io.macrodb.log.Propagation;

import io.macrodb.log.TableShape;
import io.macrodb.sql.SqlState;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * What MacroDB must know about one SQL engine: how to name and configure its replicas, how to
 * capture the rows an update transaction changed, how to copy a replica, and its dialect. One
 * instance per engine, stateless and thread-safe.
 */
public interface Engine {

    /** Short name used in URLs and messages: {@code h2}, {@code hsqldb}. */
    String name();

    /** The dialect the SQL classifier parses for this engine. */
    io.macrodb.sql.Dialect dialect();

    /**
     * Builds the JDBC URL of secondary {@code index} (1-based) for a replica set whose primary is
     * {@code primary}. Secondaries are private in-memory databases named after {@code uniqueName}.
     */
    String secondaryUrl(EngineUrl primary, String uniqueName, int index);

    /** Settings for the primary database, run once on its first session; {@code url} is the application's. */
    void configurePrimary(Connection c, Propagation propagation, EngineUrl url) throws SQLException;

    /** Settings for a secondary database, run once before anything is applied to it. */
    void configureSecondary(Connection c, Propagation propagation) throws SQLException;

    /** Per-session settings: bounded lock waits. */
    void configureSession(Connection c, long lockTimeoutMillis) throws SQLException;

    /** Installs the change-capture triggers on {@code table} unless they are there already. */
    void installCapture(Connection c, TableShape table) throws SQLException;

    /**
     * Makes every user table's capture triggers current after a schema change (new tables get
     * them; engines whose triggers remember a table's name re-create them).
     *
     * @return the shapes of all user tables
     */
    default List<TableShape> refreshCapture(Connection c) throws SQLException {
        List<TableShape> tables = tables(c);
        for (TableShape t : tables) installCapture(c, t);
        return tables;
    }

    /**
     * Drops the application's own triggers from a secondary in row propagation: their effects on
     * the primary arrive as captured rows, and firing them again while applying would apply those
     * effects twice.
     */
    void dropUserTriggers(Connection c) throws SQLException;

    /** Removes the capture triggers of every table (persistent primaries, on clean shutdown). */
    void removeCapture(Connection c) throws SQLException;

    /** Writes every schema object and row of the database to a script file (a snapshot). */
    void exportScript(Connection c, java.nio.file.Path file) throws SQLException;

    /** Runs a script written by {@link #exportScript} into an empty database. */
    void importScript(Connection c, java.nio.file.Path file) throws SQLException;

    /** Copies every schema object and row of {@code from} into the empty database of {@code to}. */
    default void copy(Connection from, Connection to) throws SQLException {
        java.nio.file.Path dir = null;
        try {
            dir = java.nio.file.Files.createTempDirectory("macrodb-copy");
            java.nio.file.Path file = dir.resolve("copy.sql"); // not created: some engines refuse to overwrite
            try {
                exportScript(from, file);
                importScript(to, file);
            } finally {
                java.nio.file.Files.deleteIfExists(file);
            }
        } catch (java.io.IOException e) {
            throw new SQLException("MacroDB: cannot use a temporary file to copy the database: " + e.getMessage(), SqlState.IO_ERROR.getState(), e);
        } finally {
            if (dir != null) {
                try {
                    java.nio.file.Files.deleteIfExists(dir);
                } catch (java.io.IOException ignored) {
                    // a temporary directory left behind is harmless
                }
            }
        }
    }

    /**
     * The next value of every user sequence, by quoted qualified name (engine-internal sequences of
     * identity columns excluded: {@link #alignIdentities} covers those).
     */
    Map<String, Long> sequencePositions(Connection c) throws SQLException;

    /** Makes {@code sequence} return at least {@code next} from now on. */
    default void restartSequence(Connection c, String sequence, long next) throws SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("ALTER SEQUENCE " + sequence + " RESTART WITH " + next);
        }
    }

    /**
     * Restarts every identity column past the largest value in its table. Rows that reached a
     * database as images (a secondary, a recovery) carry identity values the engine did not
     * generate, and H2 does not advance its identity counters for them.
     */
    default void alignIdentities(Connection c) throws SQLException {
        for (io.macrodb.log.TableShape t : tables(c)) {
            if (t.identityColumn() == null) continue;
            String col = io.macrodb.log.TableShape.quote(t.identityColumn());
            long max;
            try (java.sql.Statement s = c.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT MAX(" + col + ") FROM " + t.qualifiedName())) {
                rs.next();
                max = rs.getLong(1);
                if (rs.wasNull()) continue;
            }
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + t.qualifiedName() + " ALTER COLUMN " + col + " RESTART WITH " + (max + 1));
            }
        }
    }

    /** Turns foreign-key checks (and cascades) on or off for the whole database. */
    void setReferentialIntegrity(Connection c, boolean on) throws SQLException;

    /**
     * Whether lock waits can only be bounded by cancelling the waiting statement (the engine has no
     * lock timeout of its own). MacroDB then cancels an update statement that runs longer than
     * {@code lockTimeout}.
     */
    default boolean boundsLockWaitsByCancel() { return false; }

    /**
     * How many transactions one instance of this engine should run at once (0: no limit): the
     * starting point of per-replica admission ({@code admission=auto}).
     */
    default int admissionProfile() { return 0; }

    /**
     * Most sessions a secondary of this engine should apply the log with by default (0: as many as
     * the processors allow). An engine whose concurrent write transactions cost more than they gain
     * says 1; the {@code applyThreads} option still chooses any number.
     */
    default int applySessionsProfile() { return 0; }

    /** Whether an exception means the engine itself is gone (closed, shut down, connection broken). */
    default boolean isEngineGone(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("08");
    }

    /** Whether an exception means a lock wait timed out or a deadlock was broken (retryable). */
    boolean isRetryable(SQLException e);

    /** User tables, with their replicated shape, in a stable order. */
    default List<TableShape> tables(Connection c) throws SQLException {
        return Catalog.readTables(c);
    }
}
