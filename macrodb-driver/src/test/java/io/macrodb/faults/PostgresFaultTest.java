package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.BankWorkload;
import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL servers stopped mid-run ({@code pg_ctl -m immediate}: a crash) under the bank workload: no
 * read ever sees a wrong total, transfers go on, and the replicas converge again. Each test starts
 * servers of its own (the suites' shared ones must keep running).
 */
class PostgresFaultTest {

    private static boolean waitFor(BooleanSupplier condition, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (System.currentTimeMillis() < deadline) {
            if (condition.getAsBoolean()) return true;
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }

    @Test
    void aSecondaryServerStoppedMidRunLeavesTheRotationAndIsRebuiltWhenItIsBack() throws Exception {
        PgCluster.assumeAvailable();
        try (PgCluster pg = PgCluster.start(3)) {
            String url = pg.macroUrl(3, "capture=triggers&stallTimeout=500&lockTimeout=3000&rebuild=manual");
            try (Connection adminConn = TestDb.open(url); BankWorkload bank = BankWorkload.of("pg secondary stop", url)) {
                MacroConnection admin = TestDb.macro(adminConn);
                bank.accounts(20, 1_000)
                        .writers(2, bank.plainTransfers(true, 5))
                        .readers(2, bank.declaredReaders(false))
                        .retriedReadsAllowed() // a reader whose secondary dies gets 40001 and retries, as clients must
                        .readsOnSecondaries(100);
                bank.createAccounts(adminConn);
                bank.start();
                bank.awaitProgress(50, 50);
                pg.server(1).stop(true);
                assertTrue(waitFor(() -> admin.replicaStatus().get(1).state() == ReplicaState.FAILED, 15_000),
                        () -> "the stopped server was not detected: " + admin.replicaStatus());
                bank.awaitProgress(50, 50); // the load goes on over the primary and the other secondary
                assertEquals(ReplicaState.ACTIVE, admin.replicaStatus().get(2).state(), () -> admin.replicaStatus().toString());
                pg.server(1).start();
                String before = admin.replicaStatus().get(1).stateReason();
                admin.admin().rebuild(1); // the server is back: its database is replaced by a copy and caught up
                ReplicaStatus now = admin.replicaStatus().get(1);
                assertEquals(ReplicaState.ACTIVE, now.state(), now::toString);
                assertNotEquals(before, now.stateReason());
                bank.awaitProgress(50, 50);
                BankWorkload.Result result = bank.stop(); // asserts: no wrong total, transfers committed, reads ran
                System.out.println("pg secondary stop: " + result);
                for (ReplicaStatus st : admin.replicaStatus()) assertEquals(ReplicaState.ACTIVE, st.state(), st.toString());
                TestDb.assertConverged(adminConn);
                bank.assertTotal(adminConn);
            }
        }
    }

    @Test
    void thePrimaryServerStoppedMidRunFailsOverToASecondaryWithEveryAcknowledgedTransfer() throws Exception {
        PgCluster.assumeAvailable();
        try (PgCluster pg = PgCluster.start(3)) {
            String url = pg.macroUrl(3, "capture=triggers&stallTimeout=500&lockTimeout=3000&rebuild=manual");
            try (Connection adminConn = TestDb.open(url); BankWorkload bank = BankWorkload.of("pg primary stop", url)) {
                MacroConnection admin = TestDb.macro(adminConn);
                bank.accounts(20, 1_000)
                        .writers(2, bank.plainTransfers(true, 5))
                        .readers(2, bank.declaredReaders(false))
                        .retriedReadsAllowed()
                        .readsOnSecondaries(100);
                bank.createAccounts(adminConn);
                bank.start();
                bank.awaitProgress(50, 50);
                String oldPrimary = admin.replicaStatus().get(0).url();
                pg.server(0).stop(true);
                assertTrue(waitFor(() -> !admin.replicaStatus().get(0).url().equals(oldPrimary)
                        && admin.replicaStatus().get(0).state() == ReplicaState.ACTIVE, 20_000),
                        () -> "no secondary was promoted: " + admin.replicaStatus());
                String promoted = admin.replicaStatus().get(0).url();
                assertTrue(promoted.contains(":" + pg.server(1).port() + "/") || promoted.contains(":" + pg.server(2).port() + "/"), promoted);
                bank.awaitProgress(50, 50); // transfers commit on the promoted server
                // the other secondary stays in the rotation; the failed primary's server is not a secondary (it is down)
                assertEquals(2, admin.replicaStatus().size(), () -> admin.replicaStatus().toString());
                assertEquals(ReplicaState.ACTIVE, admin.replicaStatus().get(1).state(), () -> admin.replicaStatus().toString());
                BankWorkload.Result result = bank.stop();
                System.out.println("pg primary stop: " + result + " " + admin.replicaStatus());
                TestDb.assertConverged(adminConn);
                bank.assertTotal(adminConn);
            }
        }
    }
}
