package io.macrodb.cli.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The demo's database and the two facts every read-only transaction checks in it.
 *
 * <ul>
 *   <li>{@code accounts}: a balance per account. Transfers move money between accounts and never
 *       change the total, so every read that sees a consistent state sees the same count and total.
 *       This catches a read that sees part of a transaction.</li>
 *   <li>{@code tellers}: one row per client, counting the transfers that client committed. A read
 *       that sees every update committed before it began (MacroDB's strict consistency) sees at
 *       least the count each client had when its commit returned. This catches a read served by a
 *       secondary that is behind, which the total alone cannot: every old state has the same total.</li>
 * </ul>
 */
final class Bank {
    static final long INITIAL_BALANCE = 1000;

    static final String AUDIT_SQL = "SELECT COUNT(*), SUM(balance) FROM accounts";
    static final String DEPOSIT_SQL = "UPDATE accounts SET balance = balance + ? WHERE id = ?";
    static final String TELLERS_SQL = "SELECT id, transfers FROM tellers";
    static final String TELLER_INCREMENT_SQL = "UPDATE tellers SET transfers = transfers + 1 WHERE id = ?";

    private final int accounts;

    Bank(int accounts) {
        this.accounts = accounts;
    }

    /** Number of accounts, with ids 1..accounts. */
    int accounts() {
        return accounts;
    }

    /** The total balance that every read must see. */
    long expectedTotal() {
        return accounts * INITIAL_BALANCE;
    }

    /**
     * Creates and fills the tables, with tellers 0..tellers-1, and commits; leaves the connection in
     * manual-commit mode.
     */
    void create(Connection c, int tellers) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
            s.execute("CREATE TABLE tellers (id INT PRIMARY KEY, transfers BIGINT NOT NULL)");
        }
        c.commit();
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO accounts (id, balance) VALUES (?, ?)")) {
            for (int id = 1; id <= accounts; id++) {
                insert.setInt(1, id);
                insert.setLong(2, INITIAL_BALANCE);
                insert.addBatch();
            }
            insert.executeBatch();
        }
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO tellers (id, transfers) VALUES (?, 0)")) {
            for (int id = 0; id < tellers; id++) {
                insert.setInt(1, id);
                insert.addBatch();
            }
            insert.executeBatch();
        }
        c.commit();
    }
}
