package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.BankWorkload;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The core's bank and real-time-order checks with clients that never call setReadOnly. Transfers
 * read both balances (on a secondary, undeclared) and then write the values they computed from them,
 * guarded the way a correct client must guard a read-then-write on these engines (plain H2 loses
 * updates to blind writes even at SERIALIZABLE): each write names the balance it read, and a write
 * that finds another balance makes the client retry. The total must never change, and readers must
 * see every acknowledged transfer. Readers sum the balances in undeclared transactions on secondaries and check what
 * a strict read must see. Runs ({@link BankWorkload}) until 200 transfers committed and 1,000 undeclared reads ran on
 * secondaries.
 */
class UndeclaredWorkloadTest {
    private static final int ACCOUNTS = 20;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "hsqldb,row", "h2,statement", "hsqldb,statement"})
    void readThenWriteTransfersLoseNothingAndUndeclaredReadersSeeFreshTotals(String engine, String propagation) throws Exception {
        String url = TestDb.url(engine, "replicas=3&propagation=" + propagation);
        try (Connection admin = TestDb.open(url);
             BankWorkload bank = BankWorkload.of("undeclared bank " + engine + " " + propagation, url)) {
            bank.accounts(ACCOUNTS, 1_000);
            bank.createAccounts(admin);
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE transfers (id INT PRIMARY KEY, n BIGINT NOT NULL)");
                for (int w = 0; w < 2; w++) s.execute("INSERT INTO transfers VALUES (" + w + ", 0)");
            }
            AtomicLong[] acknowledged = {new AtomicLong(), new AtomicLong()};
            bank.writers(2, writer -> {
                Connection c = TestDb.open(url);
                c.setAutoCommit(false);
                PreparedStatement read = c.prepareStatement("SELECT balance FROM account WHERE id = ?");
                PreparedStatement write = c.prepareStatement("UPDATE account SET balance = ? WHERE id = ? AND balance = ?");
                PreparedStatement count = c.prepareStatement("UPDATE transfers SET n = n + 1 WHERE id = ?");
                long[] done = {0};
                return new BankWorkload.Writer() {
                    @Override
                    public boolean transfer(Random rnd) throws Exception {
                        int[] pair = bank.pickPair(rnd);
                        int from = pair[0];
                        int to = pair[1];
                        long amount = 1 + rnd.nextInt(50);
                        try {
                            long a = balanceOf(read, from);
                            long b = balanceOf(read, to);
                            write.setLong(1, a - amount);
                            write.setInt(2, from);
                            write.setLong(3, a);
                            int n1 = write.executeUpdate();
                            write.setLong(1, b + amount);
                            write.setInt(2, to);
                            write.setLong(3, b);
                            int n2 = write.executeUpdate();
                            if (n1 != 1 || n2 != 1) throw new SQLException("a balance changed since it was read", "40001");
                            count.setInt(1, writer);
                            count.executeUpdate();
                            c.commit();
                            acknowledged[writer].set(++done[0]);
                            return true;
                        } catch (SQLException e) {
                            c.rollback();
                            if (!"40001".equals(e.getSQLState())) throw e;
                            return false; // a conflict: retry
                        }
                    }

                    @Override
                    public void close() throws SQLException {
                        c.close();
                    }
                };
            });
            bank.readers(2, reader -> {
                Connection c = TestDb.open(url);
                c.setAutoCommit(false); // never setReadOnly: undeclared transactions
                MacroConnection mc = TestDb.macro(c);
                return new BankWorkload.Reader() {
                    @Override
                    public BankWorkload.Read read() throws Exception {
                        long before0 = acknowledged[0].get();
                        long before1 = acknowledged[1].get();
                        long total;
                        long n0;
                        long n1;
                        try (Statement s = c.createStatement()) {
                            try (ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                                rs.next();
                                total = rs.getLong(1);
                            }
                            try (ResultSet rs = s.executeQuery("SELECT n FROM transfers ORDER BY id")) {
                                rs.next();
                                n0 = rs.getLong(1);
                                rs.next();
                                n1 = rs.getLong(1);
                            }
                        }
                        boolean secondary = !mc.currentReplica().isPrimary();
                        c.commit();
                        if (n0 < before0 || n1 < before1) {
                            bank.violation("missed acknowledged transfers: saw " + n0 + "/" + n1 + ", acknowledged " + before0 + "/" + before1);
                        }
                        return new BankWorkload.Read(total, secondary);
                    }

                    @Override
                    public void close() throws SQLException {
                        c.close();
                    }
                };
            });
            // asserts: no wrong total, no missed acknowledged transfer, 200 transfers, 1,000 undeclared reads on secondaries
            bank.transfers(200).reads(1_000).readsOnSecondaries(1_000);
            BankWorkload.Result result = bank.run();
            System.out.println("undeclared " + engine + " " + propagation + ": transfers " + acknowledged[0] + "+" + acknowledged[1]
                    + ", conflicts " + result.retriedTransfers() + ", " + TestDb.macro(admin).routingStats());
            assertEquals(result.transfers(), acknowledged[0].get() + acknowledged[1].get(), "every committed transfer was acknowledged");
            TestDb.assertConverged(admin);
            bank.assertTotal(admin);
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(n) FROM transfers")) {
                rs.next();
                assertEquals(result.transfers(), rs.getLong(1), "every acknowledged transfer was counted once");
            }
        }
    }

    private static long balanceOf(PreparedStatement read, int id) throws SQLException {
        read.setInt(1, id);
        try (ResultSet rs = read.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
