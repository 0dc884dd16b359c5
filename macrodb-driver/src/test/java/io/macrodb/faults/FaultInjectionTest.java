package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
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
 * Faults injected into secondaries while a bank workload runs: an engine shut down under the
 * applier's feet ({@code SHUTDOWN IMMEDIATELY}), an applier thread interrupted, a secondary that
 * stops making progress. Each time the replica must leave the rotation, be rebuilt online, and the
 * invariants of the core tests must hold throughout: no read sees a wrong total (readers retry on
 * 40001 as clients must), no transfer is lost, every replica converges.
 * {@code -Dmacrodb.faultRounds=N} runs a longer soak.
 */
class FaultInjectionTest {
    private static final int ACCOUNTS = 30;

    @FunctionalInterface
    interface Fault {
        void inject(MacroConnection admin, int secondary) throws Exception;
    }

    private static void shutdownEngine(MacroConnection admin, int secondary) throws SQLException {
        String url = admin.replicaStatus().get(secondary).url();
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN IMMEDIATELY");
        } catch (SQLException expected) {
            // the engine closes the connection that shut it down
        }
    }

    /**
     * Interrupts the secondary's applier thread until the interrupt is noticed: an engine may
     * swallow an interrupt that reaches the thread inside its own code, which is harmless.
     */
    private static void interruptApplier(MacroConnection admin, int secondary) throws InterruptedException {
        String suffix = "-r" + secondary;
        String before = admin.replicaStatus().get(secondary).stateReason();
        for (int i = 0; i < 300 && admin.replicaStatus().get(secondary).stateReason().equals(before); i++) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("macrodb-applier-") && t.getName().endsWith(suffix) && t.isAlive()) t.interrupt();
            }
            Thread.sleep(10);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2 shutdown", "hsqldb shutdown", "h2 interrupt", "hsqldb interrupt", "h2 stall"})
    void aFailedSecondaryLeavesTheRotationIsRebuiltAndNothingIsLost(String scenario) throws Exception {
        String engine = scenario.split(" ")[0];
        String kind = scenario.split(" ")[1];
        Fault fault = switch (kind) {
            case "shutdown" -> FaultInjectionTest::shutdownEngine;
            case "interrupt" -> FaultInjectionTest::interruptApplier;
            default -> (admin, secondary) -> {
                // a reader holding a row lock on the secondary: the applier waits, makes no progress
                String url = admin.replicaStatus().get(secondary).url();
                Connection blocker = DriverManager.getConnection(url, "sa", "");
                blocker.setAutoCommit(false);
                try (Statement s = blocker.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM account FOR UPDATE")) {
                    while (rs.next()) {
                        rs.getLong(1);
                    }
                }
                BLOCKERS.add(blocker);
            };
        };
        long seed = TestDb.seed("faults " + scenario);
        int rounds = Integer.getInteger("macrodb.faultRounds", 2);
        String url = TestDb.url(engine, "replicas=3&stallTimeout=500&lockTimeout=3000");
        try (Connection adminConn = TestDb.open(url)) {
            MacroConnection admin = TestDb.macro(adminConn);
            try (Statement s = adminConn.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
                for (int i = 0; i < ACCOUNTS; i++) s.execute("INSERT INTO account VALUES (" + i + ", 1000)");
            }
            long expected = ACCOUNTS * 1000L;
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            AtomicLong retried = new AtomicLong();
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                Random rnd = new Random(seed + w);
                futures.add(pool.submit(() -> {
                    try (Connection c = TestDb.open(url);
                         PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
                        c.setAutoCommit(false);
                        while (!stop.get()) {
                            int a = rnd.nextInt(ACCOUNTS);
                            int b = (a + 1 + rnd.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                            TestDb.inTransaction(c, tx -> {
                                ps.setLong(1, -5);
                                ps.setInt(2, Math.min(a, b));
                                ps.executeUpdate();
                                ps.setLong(1, 5);
                                ps.setInt(2, Math.max(a, b));
                                ps.executeUpdate();
                            });
                        }
                    }
                    return null;
                }));
            }
            for (int r = 0; r < 2; r++) {
                futures.add(pool.submit(() -> {
                    try (Connection c = TestDb.open(url)) {
                        c.setReadOnly(true);
                        c.setAutoCommit(false);
                        while (!stop.get()) {
                            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                                rs.next();
                                long total = rs.getLong(1);
                                c.commit();
                                reads.incrementAndGet();
                                if (total != expected) violations.add("total " + total);
                            } catch (SQLException e) {
                                c.rollback();
                                if (!"40001".equals(e.getSQLState())) throw e;
                                retried.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (int round = 0; round < rounds; round++) {
                int victim = 1 + round % 2;
                Thread.sleep(300);
                fault.inject(admin, victim);
                assertTrue(waitFor(() -> admin.replicaStatus().get(victim).state() != ReplicaState.ACTIVE
                        || admin.replicaStatus().get(victim).stateReason().startsWith("rebuilt"), 10_000),
                        () -> "the fault was not detected: " + admin.replicaStatus());
                closeBlockers();
                assertTrue(waitFor(() -> admin.replicaStatus().get(victim).state() == ReplicaState.ACTIVE
                        && admin.replicaStatus().get(victim).stateReason().startsWith("rebuilt"), 20_000),
                        () -> "the secondary was not rebuilt: " + admin.replicaStatus());
                System.out.println("faults " + scenario + " round " + round + ": " + admin.replicaStatus().get(victim).stateReason());
            }
            Thread.sleep(300);
            stop.set(true);
            pool.shutdown();
            for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
            System.out.println("faults " + scenario + ": " + reads + " reads, " + retried + " retried reads");
            assertTrue(violations.isEmpty(), violations::toString);
            for (ReplicaStatus st : admin.replicaStatus()) assertEquals(ReplicaState.ACTIVE, st.state(), st.toString());
            TestDb.assertConverged(adminConn);
            try (Statement s = adminConn.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                rs.next();
                assertEquals(expected, rs.getLong(1));
            }
        } finally {
            closeBlockers();
        }
    }

    private static final ConcurrentLinkedQueue<Connection> BLOCKERS = new ConcurrentLinkedQueue<>();

    private static void closeBlockers() {
        Connection c;
        while ((c = BLOCKERS.poll()) != null) {
            try {
                c.rollback();
                c.close();
            } catch (SQLException ignored) {
                // its database may be gone already
            }
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static boolean waitFor(Condition c, long millis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            if (c.holds()) return true;
            Thread.sleep(20);
        }
        return c.holds();
    }
}
