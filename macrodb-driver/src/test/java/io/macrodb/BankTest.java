package io.macrodb;

import io.macrodb.testing.BankWorkload;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;

/**
 * DESIGN.md §8 consistency, bank workload: transfers move money between accounts in update
 * transactions, so the total never changes; concurrent readers sum every balance on secondaries,
 * both in declared read-only transactions (several statements that must see one state) and as
 * autocommit SELECTs the classifier routes. Any read that saw half a transfer, or a secondary that
 * applied a group of records partly, reports a wrong total. Runs until 300 transfers committed and
 * 1,000 reads ran on secondaries ({@link BankWorkload}).
 */
class BankTest {

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.macrodb.testing.TestEngines#withPropagation")
    void totalNeverChangesOnAnyRead(String engine, String propagation) throws Exception {
        // Derby locks on read, so a read that runs on the primary takes part in Derby's own lock waits and deadlocks
        // (40001), as on plain Derby. The reads here wait for a secondary instead (readWait): there, readers and the
        // applier take turns, so no read may fail or see part of a transfer. A read does not wait for a secondary
        // whose measured apply rate says it cannot catch up within readWait, and Derby applies slowly: on a loaded
        // machine its secondaries fell more than 5 s of apply work behind and 846 of 1,875 reads went to the
        // primary at once, 17 of them into Derby's deadlocks (a fresh-clone CI run). The lag bound (maxLag in
        // milliseconds of apply work) holds the writers back so that the secondaries stay within reach.
        String url = TestDb.url(engine, "replicas=3&propagation=" + propagation
                + (engine.equals("derby") ? "&readWait=5000&maxLag=1000ms" : ""));
        try (Connection admin = TestDb.open(url);
             BankWorkload bank = BankWorkload.of("bank " + engine + " " + propagation, url)) {
            bank.accounts(50, 1_000)
                    .writers(2, bank.plainTransfers(false, 100))
                    .readers(2, bank.declaredReaders(true)) // two statements in one read-only transaction: one state
                    .readers(1, bank.autocommitReaders())
                    .transfers(300).reads(1_000).readsOnSecondaries(1_000);
            bank.createAccounts(admin);
            bank.run();
            TestDb.assertConverged(admin);
            bank.assertTotal(admin);
        }
    }
}
