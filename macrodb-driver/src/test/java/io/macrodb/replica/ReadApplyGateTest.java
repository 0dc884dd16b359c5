package io.macrodb.replica;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The turns of {@link ReadApplyGate}: readers together, the applier alone and first once it waits. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ReadApplyGateTest {
    private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(100);

    @Test
    void readersShareTheirTurnAndTheApplierWaitsForThemAll() throws Exception {
        ReadApplyGate gate = new ReadApplyGate();
        assertTrue(gate.enterRead(SHORT));
        assertTrue(gate.enterRead(SHORT), "a second reader beside the first");
        AtomicBoolean applying = new AtomicBoolean();
        Thread applier = new Thread(() -> {
            try {
                gate.enterApply();
                applying.set(true);
                gate.exitApply();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        applier.start();
        awaitApplierWaiting(gate);
        gate.exitRead();
        Thread.sleep(50);
        assertFalse(applying.get(), "the applier went in beside a reader");
        gate.exitRead();
        applier.join(5_000);
        assertTrue(applying.get(), "the applier went in once the readers had left");
    }

    @Test
    void aWaitingApplierGoesBeforeNewReaders() throws Exception {
        ReadApplyGate gate = new ReadApplyGate();
        assertTrue(gate.enterRead(SHORT));
        CountDownLatch release = new CountDownLatch(1);
        Thread applier = new Thread(() -> {
            try {
                gate.enterApply();
                release.await();
                gate.exitApply();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        applier.start();
        awaitApplierWaiting(gate);
        assertFalse(gate.enterRead(SHORT), "a new reader went in before the waiting applier");
        gate.exitRead(); // the applier goes in
        assertFalse(gate.enterRead(SHORT), "a reader went in beside the applier");
        release.countDown();
        assertTrue(gate.enterRead(TimeUnit.SECONDS.toNanos(5)), "readers go in again once the applier has left");
        assertEquals(1, gate.readers());
        gate.exitRead();
        applier.join(5_000);
    }

    @Test
    void anInterruptedApplierLetsTheReadersBehindItIn() throws Exception {
        ReadApplyGate gate = new ReadApplyGate();
        assertTrue(gate.enterRead(SHORT));
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread applier = new Thread(() -> {
            try {
                gate.enterApply();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        applier.start();
        awaitApplierWaiting(gate);
        CountDownLatch entered = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try {
                if (gate.enterRead(TimeUnit.SECONDS.toNanos(10))) entered.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        reader.start();
        Thread.sleep(50);
        assertEquals(1, entered.getCount(), "the reader waits behind the applier");
        applier.interrupt(); // the replica is stopping
        applier.join(5_000);
        assertTrue(interrupted.get());
        assertTrue(entered.await(5, TimeUnit.SECONDS), "the reader went in once the applier had given up");
        reader.join(5_000);
    }

    private static void awaitApplierWaiting(ReadApplyGate gate) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!gate.applierWaiting()) {
            assertTrue(System.nanoTime() < deadline, "the applier never waited");
            Thread.sleep(5);
        }
    }
}
