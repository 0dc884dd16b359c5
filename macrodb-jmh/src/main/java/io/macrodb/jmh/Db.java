package io.macrodb.jmh;

import io.macrodb.jdbc.MacroConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/** A fresh in-memory database per trial: plain H2, or MacroDB over H2 with N replicas. */
final class Db implements AutoCloseable {
    static final int ROWS = 64;

    final String url;
    private final Connection holder;

    /** @param target {@code h2}, {@code macrodb1}, {@code macrodb2}, ... */
    Db(String target) throws SQLException {
        String name = "bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        if (target.equals("h2")) {
            url = "jdbc:h2:mem:" + name;
        } else if (target.startsWith("macrodb")) {
            url = "jdbc:macrodb:h2:mem:" + name + "?replicas=" + Integer.parseInt(target.substring("macrodb".length()));
        } else {
            throw new IllegalArgumentException("target: h2 or macrodbN, not " + target);
        }
        // The holder keeps the in-memory database (and the replica set) alive for the whole trial.
        holder = connect();
        try (Statement s = holder.createStatement()) {
            s.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal BIGINT NOT NULL, note VARCHAR(64))");
        }
        try (PreparedStatement ps = holder.prepareStatement("INSERT INTO acct VALUES (?, ?, ?)")) {
            for (int i = 0; i < ROWS; i++) {
                ps.setInt(1, i);
                ps.setLong(2, 1_000);
                ps.setString(3, "row " + i);
                ps.executeUpdate();
            }
        }
        awaitCaughtUp();
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    /** Waits until every secondary applied everything committed so far (no-op on plain H2). */
    void awaitCaughtUp() throws SQLException {
        if (holder.isWrapperFor(MacroConnection.class)
                && !holder.unwrap(MacroConnection.class).admin().awaitCaughtUp(30_000)) {
            throw new IllegalStateException("secondaries did not catch up within 30 s");
        }
    }

    @Override public void close() throws SQLException {
        holder.close();
    }
}
