package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.route.ReadWaits;
import io.macrodb.testing.BankWorkload;
import io.macrodb.testing.CounterTable;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static io.macrodb.testing.CounterTable.increment;
import static io.macrodb.testing.CounterTable.readOnly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code primaryReads=idle} (the default; the driver's tests otherwise run with {@code fallback}, see the root POM): a
 * read-only transaction that no secondary can take at once runs on the primary at once while the primary runs fewer
 * transactions than its share of the processors, and waits for a secondary as before while the primary is busy.
 * Either way it sees every commit made before it began. (With a paused secondary, on H2, HSQLDB and SQLite:
 * {@code ReadWaitsTest.aFreshSecondaryServesAtOnceAndAPausedOneSendsReadsToThePrimaryWithoutWaiting}.)
 */
class IdlePrimaryReadsTest {

    private static void setup(Connection c) throws SQLException {
        CounterTable.create(c, 40);
    }

    /** The primary's share of the processors, as {@code ReplicaSet.primaryIdle} computes it. */
    private static int share(int replicas) {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / replicas);
    }

    /**
     * Derby's reads take locks, so a read on the primary would take part in the writers' lock waits and deadlocks: an
     * idle Derby primary takes no read that a secondary could take after a wait (here, with the secondary paused, the
     * read goes to the primary only because no secondary can catch up, as with {@code fallback}).
     */
    @Test
    void derbysPrimaryTakesNoReadForBeingIdle() throws Exception {
        String url = TestDb.url("derby", "replicas=2&primaryReads=idle&readWait=30000");
        try (Connection writer = TestDb.open(url); Connection reader = TestDb.open(url)) {
            setup(writer);
            MacroConnection mr = TestDb.macro(reader);
            assertTrue(mr.admin().awaitCaughtUp(10_000));
            mr.admin().pauseApplying(1, true);
            try {
                increment(writer, 1);
                ReadWaits.Stats before = mr.readWaits();
                assertEquals(1, readOnly(reader, 1));
                reader.commit();
                ReadWaits.Stats d = mr.readWaits().minus(before);
                assertEquals(new ReadWaits.Stats(0, 0, 0, 0, 1, 0, 0), d, d::toString);
            } finally {
                mr.admin().pauseApplying(1, false);
            }
        }
    }

    /**
     * The secondary's applier is held up by a lock on its engine, and its measured apply rate says it will catch up:
     * with an idle primary the read runs there at once; with the primary running its share of update transactions
     * it waits for the secondary, as with {@code primaryReads=fallback}; and {@code fallback} waits even for an idle
     * primary.
     */
    @ParameterizedTest
    @ValueSource(strings = {"idle", "busy", "fallback"})
    void aReadWaitsForTheSecondaryOnlyWhileThePrimaryIsBusy(String primary) throws Exception {
        int replicas = 2;
        String url = TestDb.url("h2", "replicas=" + replicas + "&readWait=5000&stallTimeout=60000&lockTimeout=10000"
                + "&primaryReads=" + (primary.equals("fallback") ? "fallback" : "idle"));
        List<Connection> busy = new ArrayList<>();
        try (Connection writer = TestDb.open(url); Connection reader = TestDb.open(url)) {
            setup(writer);
            MacroConnection mr = TestDb.macro(reader);
            try (Connection blocker = CounterTable.holdUpSecondary(writer, mr, 2, 1)) {
                increment(writer, 1); // the secondary cannot apply it while the blocker holds the row
                if (primary.equals("busy")) {
                    for (int i = 0; i < share(replicas); i++) { // open update transactions, on rows of their own
                        Connection c = TestDb.open(url);
                        busy.add(c);
                        c.setAutoCommit(false);
                        increment(c, 10 + i);
                    }
                }
                AtomicReference<Throwable> releaseFailure = new AtomicReference<>();
                Thread release = CounterTable.releaseAfter(blocker, 300, releaseFailure);
                ReadWaits.Stats before = mr.readWaits();
                release.start();
                assertEquals(1, readOnly(reader, 1), "the read sees the commit before it wherever it runs");
                boolean onPrimary = mr.currentReplica().isPrimary();
                reader.commit();
                release.join();
                assertNull(releaseFailure.get());
                ReadWaits.Stats d = mr.readWaits().minus(before);
                if (primary.equals("idle")) {
                    assertTrue(onPrimary, d::toString);
                    assertEquals(new ReadWaits.Stats(0, 0, 0, 0, 0, 0, 1), d, d::toString);
                    assertEquals(0, mr.lastReadWaitNanos());
                } else {
                    assertFalse(onPrimary, d::toString);
                    assertEquals(1, d.waitedThenSecondary(), d::toString);
                    assertEquals(0, d.primaryIdle(), d::toString);
                    assertTrue(mr.lastReadWaitNanos() > 0);
                }
            } finally {
                for (Connection c : busy) {
                    c.rollback();
                    c.close();
                }
            }
        }
    }

    /**
     * The bank's total never changes on any read with reads free to take an idle primary: each sees one state, on a
     * secondary or on the primary, and every commit made before it began (2 writers, 3 readers; on 2 cores the
     * primary is often idle, so both kinds of read happen).
     */
    @Test
    void theBanksTotalHoldsWithReadsOnAnIdlePrimary() throws Exception {
        String url = TestDb.url("h2", "replicas=3&primaryReads=idle");
        try (Connection admin = TestDb.open(url);
             BankWorkload bank = BankWorkload.of("bank h2 primaryReads=idle", url)) {
            bank.accounts(50, 1_000)
                    .writers(2, bank.plainTransfers(false, 100))
                    .readers(2, bank.declaredReaders(true))
                    .readers(1, bank.autocommitReaders())
                    .transfers(300).reads(1_000);
            bank.createAccounts(admin);
            bank.run();
            TestDb.assertConverged(admin);
            bank.assertTotal(admin);
        }
    }
}
