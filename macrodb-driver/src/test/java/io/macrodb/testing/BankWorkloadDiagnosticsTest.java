package io.macrodb.testing;

import io.macrodb.engine.CaptureContext;
import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A wrong total says where it was read and what each replica holds: a secondary whose account 0 was changed
 * behind MacroDB's back makes the declared readers report "total 19997", the replica they read on, and every
 * replica's version, total and balances, so that a report of a violation (PrimaryFailoverTest over H2 once saw
 * 50,106 of them) shows which accounts are off and on which replicas.
 */
class BankWorkloadDiagnosticsTest {

    @Test
    void aWrongTotalNamesTheReplicaAndTheAccounts() throws Exception {
        String url = TestDb.url("h2", "replicas=2");
        try (Connection admin = TestDb.open(url);
             BankWorkload bank = BankWorkload.of("bank diagnostics", url)) {
            MacroConnection mc = TestDb.macro(admin);
            bank.accounts(20, 1_000);
            bank.createAccounts(admin);
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            String secondary = mc.replicaStatus().get(1).url();
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING); // as an applier writes, unseen by capture
            try (Connection c = DriverManager.getConnection(secondary + ";IFEXISTS=TRUE", "sa", ""); Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE account SET balance = 997 WHERE id = 0");
            } finally {
                CaptureContext.restore(prev);
            }
            bank.writers(1, i -> rnd -> {
                Thread.sleep(1); // no transfer touches account 0 and heals the secondary
                return true;
            }).readers(1, bank.declaredReaders(false)).transfers(5).reads(20);
            AssertionError e = assertThrows(AssertionError.class, bank::run);
            String m = e.getMessage();
            assertTrue(m.contains("total 19997 != 20000 (on a secondary): read on secondary 1"), m);
            assertTrue(m.contains("its balances now: 0=997 1=1000"), m);
            assertTrue(m.contains("primary 0 v") && m.contains("total 20000: 0=1000 1=1000"), m);
            assertTrue(m.contains("secondary 1 v") && m.contains("total 19997: 0=997 1=1000"), m);
        }
    }
}
