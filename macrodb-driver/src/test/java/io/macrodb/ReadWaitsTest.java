package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.jdbc.Route;
import io.macrodb.route.ReadWaits;
import io.macrodb.testing.CounterTable;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.macrodb.testing.CounterTable.increment;
import static io.macrodb.testing.CounterTable.readOnly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read-routing counters ({@link MacroConnection#readWaits()}) and the per-connection wait
 * ({@link MacroConnection#lastReadWaitNanos()}): each routing outcome is produced on purpose and
 * counted where it belongs, and under load the counters agree with what every transaction saw.
 */
class ReadWaitsTest {

    private static void setup(Connection c) throws SQLException {
        CounterTable.create(c, 10);
    }

    @Test
    void withOneReplicaEveryReadRunsOnThePrimaryForWantOfASecondary() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=1"))) {
            setup(c);
            MacroConnection mc = TestDb.macro(c);
            ReadWaits.Stats before = mc.readWaits();
            for (int i = 0; i < 5; i++) {
                readOnly(c, i);
                c.commit();
            }
            ReadWaits.Stats d = mc.readWaits().minus(before);
            assertEquals(new ReadWaits.Stats(0, 0, 0, 0, 0, 5), d, d::toString);
            assertEquals(0, mc.lastReadWaitNanos());
        }
    }

    /**
     * With {@code primaryReads=fallback} the read goes to the primary because no secondary can catch up in time; with
     * {@code idle} (the default) because the primary is idle, which it asks first (counted as its own route).
     */
    @ParameterizedTest(name = "{0} primaryReads={1}")
    @CsvSource({"h2,fallback", "hsqldb,fallback", "sqlite,fallback", "h2,idle", "hsqldb,idle", "sqlite,idle"})
    void aFreshSecondaryServesAtOnceAndAPausedOneSendsReadsToThePrimaryWithoutWaiting(String engine, String primaryReads)
            throws Exception {
        // readWait is long: a read that waited for the paused secondary would take 30 s, and this test time out
        String url = TestDb.url(engine, "replicas=2&readWait=30000&primaryReads=" + primaryReads);
        try (Connection writer = TestDb.open(url); Connection reader = TestDb.open(url)) {
            setup(writer);
            MacroConnection mr = TestDb.macro(reader);
            assertTrue(mr.admin().awaitCaughtUp(5_000));
            ReadWaits.Stats start = mr.readWaits();
            assertEquals(0, readOnly(reader, 1));
            assertFalse(mr.currentReplica().isPrimary());
            reader.commit();
            assertEquals(new ReadWaits.Stats(1, 0, 0, 0, 0, 0), mr.readWaits().minus(start));

            mr.admin().pauseApplying(1, true);
            try {
                increment(writer, 1); // committed: the primary runs nothing now
                ReadWaits.Stats paused = mr.readWaits();
                long idleBefore = mr.admin().routingCounts().count(Route.PRIMARY_IDLE);
                long t0 = System.nanoTime();
                assertEquals(1, readOnly(reader, 1), "a strict read after the commit sees it");
                assertTrue(mr.currentReplica().isPrimary());
                reader.commit();
                assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10), "it did not wait for the paused secondary");
                boolean idle = primaryReads.equals("idle");
                ReadWaits.Stats d = mr.readWaits().minus(paused);
                assertEquals(idle ? new ReadWaits.Stats(0, 0, 0, 0, 0, 0, 1) : new ReadWaits.Stats(0, 0, 0, 0, 1, 0), d, d::toString);
                assertEquals(idleBefore + (idle ? 1 : 0), mr.admin().routingCounts().count(Route.PRIMARY_IDLE));
                assertEquals(0, mr.lastReadWaitNanos());
            } finally {
                mr.admin().pauseApplying(1, false);
            }
        }
    }

    /**
     * A reader on the secondary's engine holds a row lock, so the applier, which is running and has
     * a good apply rate, waits: a strict read waits for it. Released within readWait, the read runs
     * on the secondary after the wait; held longer, it runs on the primary after waiting readWait.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aReadWaitsForASecondaryThatIsCatchingUp(boolean releasedInTime) throws Exception {
        long readWaitMs = releasedInTime ? 5_000 : 300;
        String url = TestDb.url("h2", "replicas=2&readWait=" + readWaitMs + "&stallTimeout=60000&lockTimeout=10000");
        try (Connection writer = TestDb.open(url); Connection reader = TestDb.open(url)) {
            setup(writer);
            MacroConnection mr = TestDb.macro(reader);
            try (Connection blocker = CounterTable.holdUpSecondary(writer, mr, 2, 1)) {
                increment(writer, 1);
                AtomicReference<Throwable> releaseFailure = new AtomicReference<>();
                Thread release = CounterTable.releaseAfter(blocker, releasedInTime ? 200 : 1_500, releaseFailure);
                ReadWaits.Stats before = mr.readWaits();
                release.start();
                assertEquals(1, readOnly(reader, 1), "a strict read after the commit sees it, wherever it runs");
                boolean onPrimary = mr.currentReplica().isPrimary();
                long waited = mr.lastReadWaitNanos();
                reader.commit();
                release.join();
                assertNull(releaseFailure.get());
                ReadWaits.Stats d = mr.readWaits().minus(before);
                assertEquals(1, d.reads(), d::toString);
                assertEquals(waited, d.waitNanos(), "the connection's wait is the one counted");
                if (releasedInTime) {
                    assertFalse(onPrimary, "the secondary caught up within readWait");
                    assertEquals(1, d.waitedThenSecondary(), d::toString);
                    assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(100), "it waited for the lock holder: " + waited + " ns");
                } else {
                    assertTrue(onPrimary, "readWait ran out first");
                    assertEquals(1, d.waitedThenPrimary(), d::toString);
                    assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(readWaitMs), "it waited the whole readWait: " + waited + " ns");
                }
            }
            reader.setReadOnly(false);
            increment(reader, 3);
            reader.commit();
            assertEquals(0, mr.lastReadWaitNanos(), "an update transaction is not routed and did not wait");
            TestDb.assertConverged(writer);
        }
    }

    /** Under a steady stream of commits, the shared counters add up to what each read-only transaction saw. */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb", "sqlite"})
    void underLoadTheCountersAgreeWithEveryTransaction(String engine) throws Exception {
        long seed = TestDb.seed("read waits under load " + engine);
        String url = TestDb.url(engine, "replicas=3&readWait=50");
        try (Connection writer = TestDb.open(url); Connection reader = TestDb.open(url)) {
            setup(writer);
            MacroConnection mr = TestDb.macro(reader);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            Thread w = new Thread(() -> {
                Random rnd = new Random(seed);
                try {
                    while (!stop.get()) increment(writer, rnd.nextInt(10));
                } catch (Throwable e) {
                    writerFailure.set(e);
                }
            });
            ReadWaits.Stats before = mr.readWaits();
            w.start();
            int reads = 400, onSecondaries = 0, waited = 0;
            long waitNanos = 0;
            Random rnd = new Random(seed + 1);
            try {
                for (int i = 0; i < reads; i++) {
                    readOnly(reader, rnd.nextInt(10));
                    if (!mr.currentReplica().isPrimary()) onSecondaries++;
                    if (mr.lastReadWaitNanos() > 0) waited++;
                    waitNanos += mr.lastReadWaitNanos();
                    reader.commit();
                }
            } finally {
                stop.set(true);
                w.join();
            }
            assertNull(writerFailure.get());
            ReadWaits.Stats d = mr.readWaits().minus(before);
            assertEquals(reads, d.reads(), d::toString);
            assertEquals(onSecondaries, d.onSecondaries(), d::toString);
            assertEquals(waited, d.waited(), d::toString);
            assertEquals(waitNanos, d.waitNanos(), d::toString);
            assertEquals(0, d.primaryNoSecondary(), d::toString);
            System.out.println("read waits under load (" + engine + ", seed " + seed + "): " + d);
            TestDb.assertConverged(writer);
        }
    }
}
