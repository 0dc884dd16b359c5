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
 * DESIGN.md §8 consistency, bank workload: transfers move money between accounts in update
 * transactions, so the total never changes; concurrent readers sum every balance on secondaries,
 * both in declared read-only transactions (several statements that must see one state) and as
 * autocommit SELECTs the classifier routes. Any read that saw half a transfer, or a secondary that
 * applied a group of records partly, reports a wrong total.
 */
class BankTest {
    private static final int ACCOUNTS = 50;
    private static final long INITIAL = 1_000;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "hsqldb,row", "h2,statement", "hsqldb,statement"})
    void totalNeverChangesOnAnyRead(String engine, String propagation) throws Exception {
        long seed = TestDb.seed("bank " + engine + " " + propagation);
        String url = TestDb.url(engine, "replicas=3&propagation=" + propagation);
        try (Connection admin = TestDb.open(url)) {
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
            }
            try (PreparedStatement ps = admin.prepareStatement("INSERT INTO account VALUES (?, ?)")) {
                for (int i = 0; i < ACCOUNTS; i++) {
                    ps.setInt(1, i);
                    ps.setLong(2, INITIAL);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            long expected = ACCOUNTS * INITIAL;
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong transfers = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            AtomicLong readsOnSecondaries = new AtomicLong();
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(5);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                Random rnd = new Random(seed + w);
                futures.add(pool.submit(() -> {
                    try (Connection c = TestDb.open(url)) {
                        c.setAutoCommit(false);
                        while (!stop.get()) {
                            int from = rnd.nextInt(ACCOUNTS);
                            int to = rnd.nextInt(ACCOUNTS);
                            long amount = 1 + rnd.nextInt(100);
                            TestDb.inTransaction(c, tx -> {
                                try (PreparedStatement ps = tx.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
                                    ps.setLong(1, -amount);
                                    ps.setInt(2, from);
                                    ps.executeUpdate();
                                    ps.setLong(1, amount);
                                    ps.setInt(2, to);
                                    ps.executeUpdate();
                                }
                            });
                            transfers.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (int r = 0; r < 3; r++) {
                boolean declared = r != 2;
                futures.add(pool.submit(() -> {
                    try (Connection c = TestDb.open(url)) {
                        MacroConnection mc = TestDb.macro(c);
                        if (declared) {
                            c.setReadOnly(true);
                            c.setAutoCommit(false);
                        }
                        while (!stop.get()) {
                            long total;
                            boolean secondary;
                            if (declared) {
                                // two statements in one read-only transaction: each must see the same state
                                long sum = 0;
                                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT balance FROM account")) {
                                    while (rs.next()) sum += rs.getLong(1);
                                }
                                long agg;
                                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                                    rs.next();
                                    agg = rs.getLong(1);
                                }
                                secondary = !mc.currentReplica().isPrimary();
                                c.commit();
                                if (agg != sum) violations.add("two reads of one transaction disagree: " + sum + " vs " + agg);
                                total = sum;
                            } else {
                                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                                    rs.next();
                                    total = rs.getLong(1);
                                    secondary = !s.toString().contains("primary");
                                }
                            }
                            reads.incrementAndGet();
                            if (secondary) readsOnSecondaries.incrementAndGet();
                            if (total != expected) violations.add("total " + total + " != " + expected);
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(2_000);
            stop.set(true);
            pool.shutdown();
            for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
            System.out.println("bank " + engine + " " + propagation + ": " + transfers + " transfers, " + reads + " reads ("
                    + readsOnSecondaries + " on secondaries), violations: " + violations.size());
            assertTrue(violations.isEmpty(), () -> "wrong totals seen: " + new ArrayList<>(violations).subList(0, Math.min(5, violations.size())));
            assertTrue(transfers.get() > 10, "writers made progress");
            assertTrue(readsOnSecondaries.get() > 10, "reads must run on secondaries for this test to mean anything");
            TestDb.assertConverged(admin);
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                rs.next();
                assertEquals(expected, rs.getLong(1));
            }
        }
    }
}
