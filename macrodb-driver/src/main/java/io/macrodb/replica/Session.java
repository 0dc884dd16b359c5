package io.macrodb.replica;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One physical engine connection on one replica, with the session settings applied to it so far.
 * MacroDB keeps per-session state in step lazily: a client connection's settings are applied to a
 * session when the session is first used for it ({@link #sync}), not on every replica eagerly.
 * A session is used by one client connection at a time.
 */
public final class Session implements io.macrodb.replica.StatementCache {
    private final Replica replica;
    private final Connection connection;
    private int isolation = -1;
    private String schema;
    private Boolean autoCommit;
    private int holdability = -1;
    /** Session-level SET statements run on this session, by setting; a session that has any is never pooled. */
    private final java.util.Map<String, String> sessionStatements = new java.util.HashMap<>();
    private boolean broken;
    /** Idle prepared statements by SQL and options: a hot statement is prepared once per session. */
    private final java.util.Map<String, java.util.ArrayDeque<java.sql.PreparedStatement>> prepared = new java.util.HashMap<>();
    private int preparedCount;
    private static final int MAX_PREPARED = 256;

    /** Whether the session was opened, and configured, as one of the primary's. */
    private final boolean openedAsPrimary;

    Session(Replica replica, Connection connection, boolean openedAsPrimary) {
        this.replica = replica;
        this.connection = connection;
        this.openedAsPrimary = openedAsPrimary;
    }

    /** Whether the session was opened, and configured, as one of the primary's (see {@code Engine.configureSession}). */
    boolean openedAsPrimary() { return openedAsPrimary; }

    public Replica replica() { return replica; }
    public Connection connection() { return connection; }
    public boolean isPrimary() { return replica.isPrimary(); }

    /**
     * Desired per-session settings of a client connection.
     *
     * @param sessionStatements the last session-level SET of each setting, in the order they were last set
     */
    public record Settings(int isolation, String schema, int holdability, java.util.Map<String, String> sessionStatements) {}

    /** Applies what differs between {@code wanted} and what this session has. */
    public void sync(Settings wanted, boolean physicalAutoCommit) throws SQLException {
        if (autoCommit == null || autoCommit != physicalAutoCommit) {
            connection.setAutoCommit(physicalAutoCommit);
            autoCommit = physicalAutoCommit;
        }
        if (wanted.isolation() != isolation && wanted.isolation() >= 0) {
            connection.setTransactionIsolation(wanted.isolation());
            isolation = wanted.isolation();
        }
        if (wanted.schema() != null && !Objects.equals(wanted.schema(), schema)) {
            replica.engine().setSessionSchema(connection, wanted.schema());
            schema = wanted.schema();
        }
        if (wanted.holdability() != holdability && wanted.holdability() > 0) {
            connection.setHoldability(wanted.holdability());
            holdability = wanted.holdability();
        }
        for (java.util.Map.Entry<String, String> e : wanted.sessionStatements().entrySet()) {
            if (!e.getValue().equals(sessionStatements.get(e.getKey()))) {
                try (java.sql.Statement s = connection.createStatement()) {
                    s.execute(e.getValue());
                }
                sessionStatements.put(e.getKey(), e.getValue());
            }
        }
    }

    /** Records that {@code sql}, which sets {@code setting}, already ran on this session. */
    public void noteSessionStatement(String setting, String sql) { sessionStatements.put(setting, sql); }

    /** Whether this session carries state of one client connection and so must not be pooled. */
    public boolean isDedicated() { return !sessionStatements.isEmpty(); }

    /** An idle prepared statement for {@code key}, or null. */
    public java.sql.PreparedStatement takePrepared(String key) {
        java.util.ArrayDeque<java.sql.PreparedStatement> q = prepared.get(key);
        if (q == null || q.isEmpty()) return null;
        preparedCount--;
        return q.pollFirst();
    }

    /** Keeps a prepared statement whose parameters are cleared and whose results are closed. */
    public void returnPrepared(String key, java.sql.PreparedStatement ps) throws SQLException {
        if (preparedCount >= MAX_PREPARED) {
            ps.close();
            return;
        }
        prepared.computeIfAbsent(key, k -> new java.util.ArrayDeque<>(2)).offerFirst(ps);
        preparedCount++;
    }

    @Override public java.sql.PreparedStatement prepare(String sql) throws SQLException {
        java.sql.PreparedStatement ps = takePrepared(sql);
        return ps != null ? ps : connection.prepareStatement(sql);
    }

    @Override public void release(String sql, java.sql.PreparedStatement ps) throws SQLException {
        ps.clearParameters();
        returnPrepared(sql, ps);
    }

    /** Closes every cached prepared statement (when the session closes). */
    private void clearPrepared() {
        for (java.util.ArrayDeque<java.sql.PreparedStatement> q : prepared.values()) {
            for (java.sql.PreparedStatement ps : q) {
                try {
                    ps.close();
                } catch (SQLException ignored) {
                    // closing
                }
            }
        }
        prepared.clear();
        preparedCount = 0;
    }

    public void markBroken() { broken = true; }

    /**
     * The application was handed this session's engine connection ({@code unwrap}): it may write through it without a
     * statement of MacroDB's (pgjdbc's {@code CopyManager}, say), so a commit cannot take "no statement entered the update
     * gate" for "nothing was written". For the session's life: the application may keep the connection.
     */
    public void markHandedOut() { handedOut = true; }

    public boolean isHandedOut() { return handedOut; }

    private volatile boolean handedOut;
    public boolean isBroken() { return broken; }

    void closeQuietly() {
        clearPrepared();
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closing a broken session can fail; nothing more to do
        }
    }

    @Override public String toString() { return "session on " + replica; }
}
