package io.macrodb.differential;

import io.macrodb.jdbc.Internals;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.Replica;
import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/** One side of the comparison: a plain engine, or MacroDB over the same engine. */
abstract class Target implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    /** What a step did: an update count, or a failure with its SQLState (and the engine's error code: SQLite's result code). */
    record Outcome(boolean ok, long updateCount, String sqlState, int errorCode, String message) {
        static Outcome ok(long count) { return new Outcome(true, count, null, 0, null); }
        static Outcome failed(SQLException e) {
            // SQLite's driver reports the primary result code as the error code, its extended one (what MacroDB reports) apart
            int code = e instanceof org.sqlite.SQLiteException se ? se.getResultCode().code : e.getErrorCode();
            return new Outcome(false, -1, e.getSQLState(), code, Rows.firstLine(e.getMessage()));
        }
        /** Not an SQL failure: the driver threw (e.g. macrodb.verifyTriggerImages found a wrong capture image). */
        static Outcome threw(RuntimeException e) { return new Outcome(false, -1, "<" + e.getClass().getSimpleName() + ">", 0, Rows.firstLine(e.getMessage())); }
        /** MacroDB refused it: 0AM01, cannot be replicated safely, or 0AM00, a feature it does not offer. */
        boolean refused() { return !ok && ("0AM01".equals(sqlState) || "0AM00".equals(sqlState)); }
        @Override public String toString() {
            return ok ? "ok (" + updateCount + ")" : "FAILED " + sqlState + (errorCode != 0 ? " (code " + errorCode + ")" : "") + " " + message;
        }
    }

    protected Connection connection;

    static String uniqueName(String prefix) {
        return prefix + COUNTER.incrementAndGet() + "_" + Long.toHexString(System.nanoTime());
    }

    Connection connection() { return connection; }

    Outcome run(Step step) {
        try {
            switch (step.kind()) {
                case BEGIN -> connection.setAutoCommit(false);
                case COMMIT -> {
                    connection.commit();
                    connection.setAutoCommit(true);
                }
                case ROLLBACK -> {
                    connection.rollback();
                    connection.setAutoCommit(true);
                }
                case SQL -> {
                    if (step.params().isEmpty()) {
                        try (Statement s = connection.createStatement()) {
                            boolean rs = s.execute(step.sql());
                            return Outcome.ok(rs ? -1 : s.getLargeUpdateCount());
                        }
                    }
                    try (PreparedStatement ps = connection.prepareStatement(step.sql())) {
                        for (int i = 0; i < step.params().size(); i++) ps.setObject(i + 1, step.params().get(i));
                        boolean rs = ps.execute();
                        return Outcome.ok(rs ? -1 : ps.getLargeUpdateCount());
                    }
                }
                case REOPEN -> throw new IllegalStateException("REOPEN is the runner's");
            }
            return Outcome.ok(0);
        } catch (SQLException e) {
            return Outcome.failed(e);
        } catch (RuntimeException e) {
            return Outcome.threw(e);
        }
    }

    /** Closes every connection and opens the database again (session settings are lost, as after a restart). */
    abstract void reopen() throws SQLException;

    /** Label of each copy of the database (a replica, or the plain engine) to its tables' sorted rows. */
    abstract Map<String, Map<String, List<String>>> contents(List<Rows.Table> tables) throws SQLException;

    @Override public abstract void close() throws SQLException;

    /**
     * The plain engine the results are compared against. SQLite's is one database file in a
     * directory of its own, as a user has it (rollback journal, the driver's defaults), with
     * foreign-key checks on (a connection property, as MacroDB's side has it too).
     */
    static final class Plain extends Target {
        private final String url;
        private final Path dir;

        Plain(String engine) throws SQLException {
            dir = engine.equals("sqlite") ? tempDir("macrodb-diff-plain") : null;
            url = switch (engine) {
                case "h2" -> "jdbc:h2:mem:" + uniqueName("plain") + ";DB_CLOSE_DELAY=-1";
                case "sqlite" -> "jdbc:sqlite:" + dir.resolve("plain.db");
                default -> "jdbc:hsqldb:mem:" + uniqueName("plain") + ";hsqldb.tx=mvcc";
            };
            connection = connect(url);
        }

        @Override void reopen() throws SQLException {
            Connection old = connection;
            connection = connect(url); // a new session; the database lives on
            old.close();
        }

        @Override Map<String, Map<String, List<String>>> contents(List<Rows.Table> tables) {
            return Map.of("plain engine", Rows.read(connection, tables));
        }

        @Override public void close() throws SQLException {
            if (dir != null) {
                try {
                    connection.close();
                } finally {
                    deleteTree(dir);
                }
                return;
            }
            try (Statement s = connection.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException ignored) {
                // gone already
            }
            connection.close();
        }
    }

    /** A connection as the tests' clients open one: "sa" on H2 and HSQLDB; foreign_keys=true on SQLite (its per-connection setting). */
    static Connection connect(String url) throws SQLException {
        if (!url.startsWith("jdbc:sqlite:") && !url.startsWith("jdbc:macrodb:sqlite:")) return DriverManager.getConnection(url, "sa", "");
        java.util.Properties p = new java.util.Properties();
        p.setProperty("foreign_keys", "true");
        return DriverManager.getConnection(url, p);
    }

    static Path tempDir(String prefix) throws SQLException {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new SQLException(e);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }

    /** MacroDB: every replica is read on its own, through its engine URL. */
    static final class Macro extends Target {
        private final DiffConfig config;
        private final String url;
        private final Path logDir;
        /** The directory of a SQLite file primary ({@link DiffConfig#file()}). */
        private final Path fileDir;
        private String primaryUrl;

        Macro(DiffConfig config) throws SQLException {
            this.config = config;
            logDir = config.durability() ? tempDir("macrodb-diff") : null;
            fileDir = config.file() ? tempDir("macrodb-diff-file") : null;
            String database = fileDir != null ? fileDir.resolve("db.db").toString() : "mem:" + uniqueName("diff");
            // rebuild=manual: a secondary that failed to apply a record stays failed, and the comparison at the
            // end shows it; rebuilt from the primary a moment later it would hide the divergence
            url = "jdbc:macrodb:" + config.engine() + ":" + database + "?replicas=" + config.replicas()
                    + "&propagation=" + config.propagation() + "&lockTimeout=5000&rebuild=manual"
                    + (logDir == null ? "" : "&durability=log:" + logDir);
            open();
        }

        String url() { return url; }

        private void open() throws SQLException {
            connection = connect(url);
            primaryUrl = Internals.replicaSet(macro()).primary().url();
        }

        MacroConnection macro() throws SQLException {
            return connection.unwrap(MacroConnection.class);
        }

        @Override void reopen() throws SQLException {
            if (logDir == null && fileDir == null) {
                throw new IllegalStateException("reopen needs durability=log or a file: an in-memory database is gone once closed");
            }
            connection.close();
            open();
        }

        @Override Map<String, Map<String, List<String>>> contents(List<Rows.Table> tables) throws SQLException {
            ReplicaSet rs = Internals.replicaSet(macro());
            Map<String, Map<String, List<String>>> out = new LinkedHashMap<>();
            if (!rs.awaitCaughtUp(30_000)) {
                out.put("replica set", Map.of("*", List.of("<secondaries did not catch up in 30 s: " + rs.status() + ">")));
            }
            for (ReplicaStatus st : rs.status()) {
                if (st.state() != ReplicaState.ACTIVE) {
                    out.put((st.role().equals("primary") ? "primary" : "secondary " + st.index()) + " state",
                            Map.of("*", List.of("<" + st.state() + ": " + st.stateReason() + ">")));
                }
            }
            out.put("primary", read(rs.primary(), tables));
            for (Replica r : rs.secondaries()) out.put("secondary " + r.index(), read(r, tables));
            return out;
        }

        private static Map<String, List<String>> read(Replica r, List<Rows.Table> tables) {
            try (Connection c = DriverManager.getConnection(r.url(), "sa", "")) {
                return Rows.read(c, tables);
            } catch (SQLException e) {
                return Map.of("*", List.of("<cannot connect to " + r + ": " + e.getMessage() + ">"));
            }
        }

        @Override public void close() throws SQLException {
            try {
                connection.close();
            } finally {
                if (config.engine().equals("hsqldb") && logDir == null && primaryUrl != null) {
                    // an HSQLDB in-memory primary outlives the replica set, as plain HSQLDB does
                    try (Connection c = DriverManager.getConnection(primaryUrl, "sa", ""); Statement s = c.createStatement()) {
                        s.execute("SHUTDOWN");
                    } catch (SQLException ignored) {
                        // gone already
                    }
                }
                if (logDir != null) deleteTree(logDir);
                if (fileDir != null) deleteTree(fileDir);
            }
        }
    }
}
