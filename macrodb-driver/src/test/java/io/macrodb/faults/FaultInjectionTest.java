package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.BankWorkload;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults injected into secondaries while a bank workload runs: an engine shut down under the
 * applier's feet ({@code SHUTDOWN IMMEDIATELY}), an applier thread interrupted, a secondary that
 * stops making progress. Each time the replica must leave the rotation, be rebuilt online, and the
 * invariants of the core tests must hold throughout: no read sees a wrong total (readers retry on
 * 40001 as clients must), no transfer is lost, every replica converges. The workload
 * ({@link BankWorkload}) must have committed transfers and run reads, 100 of them on secondaries, and
 * runs on (50 transfers, 50 reads) before each fault and after the last rebuild. Each round waits for
 * its own fault: the replica at the victim's index must leave the rotation or be replaced (a new URL),
 * and the rebuilt one must be a new replica, so a round cannot pass on an earlier round's "rebuilt".
 * {@code -Dmacrodb.faultRounds=N} runs a longer soak.
 */
@Tag("slow") // left out of the fast test command (README); CI runs it
class FaultInjectionTest {
    private static final int ACCOUNTS = 30;

    @FunctionalInterface
    interface Fault {
        void inject(MacroConnection admin, int secondary) throws Exception;
    }

    /** {@code SHUTDOWN IMMEDIATELY}; Derby's in-memory database is dropped ({@link io.macrodb.testing.Failovers#shutDown}). */
    private static void shutdownEngine(MacroConnection admin, int secondary) {
        io.macrodb.testing.Failovers.shutDown(admin.replicaStatus().get(secondary).url());
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
    @ValueSource(strings = {"h2 shutdown", "hsqldb shutdown", "derby shutdown", "h2 interrupt", "hsqldb interrupt", "sqlite interrupt",
            "derby interrupt", "h2 stall", "sqlite stall", "derby stall"})
    void aFailedSecondaryLeavesTheRotationIsRebuiltAndNothingIsLost(String scenario) throws Exception {
        String engine = scenario.split(" ")[0];
        String kind = scenario.split(" ")[1];
        org.junit.jupiter.api.Assumptions.assumeTrue(io.macrodb.testing.TestEngines.ENGINES.contains(engine),
                () -> engine + " is not among -Dmacrodb.testEngines");
        // derby shutdown: a dropped Derby secondary's interrupt can reach a reader in its last call there, which then
        // succeeds; it used to reach the reader's next call, on the primary, and a healthy primary was failed over
        // (CI at 09118c8). Transaction.afterCall drops it, and an interrupted read-only transaction no longer fails its
        // replica over (DerbyEngineTest.aSecondaryDroppedUnderACallThatSucceedsLeavesNoInterrupt and
        // anInterruptedReadOnlyTransactionLeavesEveryReplicaInTheRotation).
        Fault fault = switch (kind) {
            case "shutdown" -> FaultInjectionTest::shutdownEngine;
            case "interrupt" -> FaultInjectionTest::interruptApplier;
            default -> (admin, secondary) -> {
                // a reader holding a row lock on the secondary: the applier waits, makes no progress
                String url = admin.replicaStatus().get(secondary).url();
                Connection blocker = DriverManager.getConnection(url, "sa", "");
                if (url.startsWith("jdbc:sqlite:")) {
                    // SQLite locks the database, not rows: a transaction that holds the write lock
                    try (Statement s = blocker.createStatement()) {
                        s.execute("BEGIN IMMEDIATE");
                    }
                    BLOCKERS.add(blocker);
                    return;
                }
                blocker.setAutoCommit(false);
                if (url.startsWith("jdbc:derby:")) {
                    // Derby's FOR UPDATE cursor lets a row go once it moves past it (READ COMMITTED): a table lock holds
                    try (Statement s = blocker.createStatement()) {
                        s.execute("LOCK TABLE account IN EXCLUSIVE MODE");
                    }
                    BLOCKERS.add(blocker);
                    return;
                }
                for (int attempt = 1; ; attempt++) {
                    // with parallel apply, several apply sessions hold row locks while the blocker takes
                    // its own: the engine may pick the blocker as a deadlock's victim; it tries again
                    try (Statement s = blocker.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM account FOR UPDATE")) {
                        while (rs.next()) {
                            rs.getLong(1);
                        }
                        break;
                    } catch (SQLException e) {
                        blocker.rollback();
                        if (!"40001".equals(e.getSQLState()) || attempt >= 20) throw e;
                    }
                }
                BLOCKERS.add(blocker);
            };
        };
        int rounds = Integer.getInteger("macrodb.faultRounds", 2);
        // Derby compiles each statement shape the first time it runs it, which took more than 500 ms on a loaded 2-core
        // machine: the stall detector took a new Derby secondary's first records for a stall. And a Derby secondary
        // applies with one session and fell behind two writers, so that too few reads (0 to 82 of thousands) found one
        // fresh enough: over Derby one writer runs.
        boolean derby = engine.equals("derby");
        String url = TestDb.url(engine, "replicas=3&lockTimeout=3000&stallTimeout=" + (derby ? 4000 : 500));
        try (Connection adminConn = TestDb.open(url);
             BankWorkload bank = BankWorkload.of("faults " + scenario, url)) {
            MacroConnection admin = TestDb.macro(adminConn);
            bank.accounts(ACCOUNTS, 1_000)
                    .writers(derby ? 1 : 2, bank.plainTransfers(true, 5))
                    .readers(2, bank.declaredReaders(false))
                    .retriedReadsAllowed() // a reader on a secondary that fails gets 40001 and retries, as clients must
                    .readsOnSecondaries(100);
            bank.createAccounts(adminConn);
            bank.start();
            for (int round = 0; round < rounds; round++) {
                int victim = 1 + round % 2;
                int thisRound = round;
                bank.awaitProgress(50, 50); // the load runs before each fault
                // The replica now at this index, before the fault: a rebuilt one is a new engine under a new URL, so an
                // earlier round's "rebuilt" reason does not pass for this round's detection or rebuild.
                ReplicaStatus before = admin.replicaStatus().get(victim);
                assertEquals(ReplicaState.ACTIVE, before.state(), () -> "round " + thisRound + " starts with every replica active: " + admin.replicaStatus());
                fault.inject(admin, victim);
                assertTrue(waitFor(() -> {
                    ReplicaStatus now = admin.replicaStatus().get(victim);
                    return now.state() != ReplicaState.ACTIVE || !now.url().equals(before.url());
                }, 10_000), () -> "the fault was not detected: " + admin.replicaStatus());
                closeBlockers();
                assertTrue(waitFor(() -> {
                    ReplicaStatus now = admin.replicaStatus().get(victim);
                    return now.state() == ReplicaState.ACTIVE && !now.url().equals(before.url())
                            && now.stateReason().startsWith("rebuilt") && !now.stateReason().equals(before.stateReason());
                }, 20_000), () -> "the secondary was not rebuilt after this round's fault (before it: " + before + "): "
                        + admin.replicaStatus());
                System.out.println("faults " + scenario + " round " + round + ": " + admin.replicaStatus().get(victim).stateReason());
            }
            bank.awaitProgress(50, 50); // the load goes on with every replica back
            bank.awaitReadsOnSecondaries(); // and until enough reads found a secondary (once in CI, 93 of 100 had)
            BankWorkload.Result result = bank.stop(); // asserts: no wrong total, transfers committed, reads ran (100 on secondaries)
            System.out.println("faults " + scenario + ": " + result.reads() + " reads, " + result.retriedReads() + " retried reads");
            for (ReplicaStatus st : admin.replicaStatus()) assertEquals(ReplicaState.ACTIVE, st.state(), st.toString());
            TestDb.assertConverged(adminConn);
            bank.assertTotal(adminConn);
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
