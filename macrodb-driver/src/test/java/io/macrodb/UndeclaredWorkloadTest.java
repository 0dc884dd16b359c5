package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core's bank and real-time-order checks with clients that never call setReadOnly. Transfers
 * read both balances (on a secondary, undeclared) and then write the values they computed from them,
 * guarded the way a correct client must guard a read-then-write on these engines (plain H2 loses
 * updates to blind writes even at SERIALIZABLE): each write names the balance it read, and a write
 * that finds another balance makes the client retry. The total must never change, and readers must
 * see every acknowledged transfer. Readers sum the balances in undeclared transactions on secondaries and check what
 * a strict read must see.
 */
class UndeclaredWorkloadTest {
    private static final int ACCOUNTS = 20;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "hsqldb,row", "h2,statement", "hsqldb,statement"})
    void readThenWriteTransfersLoseNothingAndUndeclaredReadersSeeFreshTotals(String engine, String propagation) throws Exception {
        long seed = TestDb.seed("undeclared bank " + engine + " " + propagation);
        String url = TestDb.url(engine, "replicas=3&propagation=" + propagation);
        try (Connection admin = TestDb.open(url)) {
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
                s.execute("CREATE TABLE transfers (id INT PRIMARY KEY, n BIGINT NOT NULL)");
                for (int i = 0; i < ACCOUNTS; i++) s.execute("INSERT INTO account VALUES (" + i + ", 1000)");
                for (int w = 0; w < 2; w++) s.execute("INSERT INTO transfers VALUES (" + w + ", 0)");
            }
            long expected = ACCOUNTS * 1000L;
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong[] acknowledged = {new AtomicLong(), new AtomicLong()};
            AtomicLong conflicts = new AtomicLong();
            AtomicLong readsOnSecondaries = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                Random rnd = new Random(seed + w);
                futures.add(pool.submit(() -> {
                    try (Connection c = TestDb.open(url)) {
                        c.setAutoCommit(false);
                        PreparedStatement read = c.prepareStatement("SELECT balance FROM account WHERE id = ?");
                        PreparedStatement write = c.prepareStatement("UPDATE account SET balance = ? WHERE id = ? AND balance = ?");
                        PreparedStatement count = c.prepareStatement("UPDATE transfers SET n = n + 1 WHERE id = ?");
                        long done = 0;
                        while (!stop.get()) {
                            int from = rnd.nextInt(ACCOUNTS);
                            int to = (from + 1 + rnd.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
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
                                acknowledged[writer].set(++done);
                            } catch (SQLException e) {
                                c.rollback();
                                if (!"40001".equals(e.getSQLState())) throw e;
                                conflicts.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (int r = 0; r < 2; r++) {
                futures.add(pool.submit(() -> {
                    try (Connection c = TestDb.open(url)) {
                        c.setAutoCommit(false);
                        MacroConnection mc = TestDb.macro(c);
                        while (!stop.get()) {
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
                            if (!mc.currentReplica().isPrimary()) readsOnSecondaries.incrementAndGet();
                            c.commit();
                            reads.incrementAndGet();
                            if (total != expected) violations.add("total " + total);
                            if (n0 < before0 || n1 < before1) {
                                violations.add("missed acknowledged transfers: saw " + n0 + "/" + n1 + ", acknowledged " + before0 + "/" + before1);
                            }
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(2_500);
            stop.set(true);
            pool.shutdown();
            for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
            System.out.println("undeclared " + engine + " " + propagation + ": transfers " + acknowledged[0] + "+" + acknowledged[1]
                    + ", conflicts " + conflicts + ", reads " + reads + " (" + readsOnSecondaries + " on secondaries), "
                    + TestDb.macro(admin).routingStats());
            assertTrue(violations.isEmpty(), () -> new ArrayList<>(violations).subList(0, Math.min(5, violations.size())).toString());
            assertTrue(acknowledged[0].get() + acknowledged[1].get() > 20, "writers made progress");
            assertTrue(readsOnSecondaries.get() > 20, "undeclared readers must run on secondaries for this test to mean anything");
            TestDb.assertConverged(admin);
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                rs.next();
                assertEquals(expected, rs.getLong(1), "no transfer was lost");
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
