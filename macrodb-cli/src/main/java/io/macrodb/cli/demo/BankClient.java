package io.macrodb.cli.demo;

import io.macrodb.jdbc.MacroConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.SplittableRandom;

/**
 * One client of the demo: on its own connection, until a deadline, it runs either a transfer (an
 * update transaction) or an audit (a read-only transaction declared with
 * {@link Connection#setReadOnly}), chosen at random with the configured read share. Every audit
 * checks the two facts described in {@link Bank}.
 *
 * <p>A transaction rolled back with a SQLState of class 40 (transaction rollback; MacroDB reports
 * lock timeouts, deadlocks and conflicts as 40001) is run again as it was. Any other error stops
 * the client and is recorded in the {@link Tally}.
 */
final class BankClient {
    private final int teller;
    private final int tellers;
    private final Bank bank;
    private final Connection connection;
    /** The same connection seen as MacroDB's, to ask which replica a transaction ran on; null on a plain engine. */
    private final MacroConnection macro;
    private final PreparedStatement audit;
    private final PreparedStatement tellerCounts;
    private final PreparedStatement deposit;
    private final PreparedStatement tellerIncrement;
    private final SplittableRandom random;
    private final int readSharePercent;
    private final Tally tally;
    private long deadlineNanos;

    /**
     * Prepares the client's statements, so that the timed run does not include them.
     *

     * @param teller  this client's row in {@code tellers}
     * @param tellers rows in {@code tellers}: one per client, ids 0..tellers-1
     */
    BankClient(int teller, int tellers, Bank bank, Connection connection, SplittableRandom random, int readSharePercent,
               Tally tally) throws SQLException {
        this.teller = teller;
        this.tellers = tellers;
        this.bank = bank;
        this.connection = connection;
        this.macro = connection.isWrapperFor(MacroConnection.class) ? connection.unwrap(MacroConnection.class) : null;
        this.random = random;
        this.readSharePercent = readSharePercent;
        this.tally = tally;
        connection.setAutoCommit(false);
        // Prepared once and used in every transaction, on whichever replica it runs.
        this.audit = connection.prepareStatement(Bank.AUDIT_SQL);
        this.tellerCounts = connection.prepareStatement(Bank.TELLERS_SQL);
        this.deposit = connection.prepareStatement(Bank.DEPOSIT_SQL);
        this.tellerIncrement = connection.prepareStatement(Bank.TELLER_INCREMENT_SQL);
        tellerIncrement.setInt(1, teller);
    }

    /** Runs transactions until {@code System.nanoTime()} passes the deadline; errors go to the tally. */
    void runUntil(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
        try {
            while (System.nanoTime() < deadlineNanos) {
                if (random.nextInt(100) < readSharePercent) {
                    audit();
                } else {
                    transfer();
                }
            }
        } catch (SQLException e) {
            tally.clientFailed(e);
        }
    }

    /** In one read-only transaction: the count and total of all accounts, and every client's transfer count. */
    private void audit() throws SQLException {
        connection.setReadOnly(true);
        while (true) {
            // Taken before the transaction begins: every transfer counted here has committed by then.
            long[] committedBefore = new long[tellers];
            for (int i = 0; i < tellers; i++) committedBefore[i] = tally.transfersCommittedBy(i);
            try {
                long count;
                long total;
                long[] seen = new long[tellers];
                try (ResultSet rs = audit.executeQuery()) {
                    rs.next();
                    count = rs.getLong(1);
                    total = rs.getLong(2);
                }
                try (ResultSet rs = tellerCounts.executeQuery()) {
                    while (rs.next()) seen[rs.getInt(1)] = rs.getLong(2);
                }
                int replica = macro == null ? -1 : macro.currentReplica().index();
                connection.commit();
                tally.auditCommitted(replica);
                check(count, total, committedBefore, seen, replica);
                return;
            } catch (SQLException e) {
                if (!retry(e)) return;
                tally.auditRetried();
            }
        }
    }

    private void check(long count, long total, long[] committedBefore, long[] seen, int replica) {
        String where = replica < 0 ? "" : " on replica " + replica;
        if (count != bank.accounts() || total != bank.expectedTotal()) {
            tally.wrongTotal("a read-only transaction" + where + " saw " + count + " accounts totalling " + total
                    + "; expected " + bank.accounts() + " totalling " + bank.expectedTotal());
        }
        for (int i = 0; i < tellers; i++) {
            if (seen[i] < committedBefore[i]) {
                tally.staleRead("a read-only transaction" + where + " saw " + seen[i] + " transfers of client " + i
                        + ", which had committed " + committedBefore[i] + " before the transaction began");
                return;
            }
        }
    }

    /** Moves a random amount between two random accounts in one update transaction. */
    private void transfer() throws SQLException {
        int from = 1 + random.nextInt(bank.accounts());
        int to = 1 + random.nextInt(bank.accounts() - 1);
        if (to >= from) to++;
        long amount = 1 + random.nextInt(100);
        connection.setReadOnly(false);
        while (true) {
            try {
                // Rows are locked in id order, so two transfers never wait for each other in a cycle.
                if (from < to) {
                    deposit(from, -amount);
                    deposit(to, amount);
                } else {
                    deposit(to, amount);
                    deposit(from, -amount);
                }
                expectOneRow(tellerIncrement.executeUpdate(), "teller " + teller);
                connection.commit();
                tally.transferCommitted(teller);
                return;
            } catch (SQLException e) {
                if (!retry(e)) return;
                tally.transferRetried();
            }
        }
    }

    private void deposit(int account, long amount) throws SQLException {
        deposit.setLong(1, amount);
        deposit.setInt(2, account);
        expectOneRow(deposit.executeUpdate(), "account " + account);
    }

    private static void expectOneRow(int rows, String what) throws SQLException {
        if (rows != 1) throw new SQLException("updating " + what + " reported " + rows + " rows changed; expected 1");
    }

    /**
     * Rolls the failed transaction back and decides what to do next.
     *
     * @return true to run the transaction again; false to drop it because time is up
     * @throws SQLException {@code e} itself when it is not a retryable rollback
     */
    private boolean retry(SQLException e) throws SQLException {
        connection.rollback();
        String state = e.getSQLState();
        if (state == null || !state.startsWith("40")) throw e;
        return System.nanoTime() < deadlineNanos;
    }
}
