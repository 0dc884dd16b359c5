package io.macrodb.replica;

import io.macrodb.log.Change;
import io.macrodb.log.StatementChange;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commit order: versions are handed out before the engine's commit and published strictly in
 * version order, whatever order the engine commits finish in; a failed engine commit leaves no gap.
 */
class CommitOrderTest {

    /** What the publisher saw, in the order it saw it. */
    private static final class Recorder implements CommitOrder.Publisher {
        final List<Long> versions = Collections.synchronizedList(new ArrayList<>());
        final List<List<Change>> records = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong published = new AtomicLong();

        @Override public void publish(long version, List<Change> changes, byte[] payload) {
            versions.add(version);
            records.add(changes);
            published.set(version);
        }
    }

    private static List<Change> change(String sql) {
        return List.of(new StatementChange(sql, new Object[0], false, null));
    }

    @Test void ticketsFinishedOutOfOrderArePublishedInVersionOrderAndAFailedOneLeavesNoGap() throws Exception {
        Recorder rec = new Recorder();
        CommitOrder order = new CommitOrder(10, rec, new byte[0]);
        CommitOrder.Ticket t1 = order.take(change("a"), null, () -> { });
        CommitOrder.Ticket t2 = order.take(change("b"), null, () -> { });
        CommitOrder.Ticket t3 = order.take(change("c"), null, () -> { });
        assertEquals(List.of(11L, 12L, 13L), List.of(t1.version(), t2.version(), t3.version()));
        assertEquals(13, order.lastTicket());

        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> third = pool.submit(() -> { order.finish(t3, true); return null; });
            Future<?> second = pool.submit(() -> { order.finish(t2, true); return null; });
            // t3 and t2 have committed in their engine, t1 has not: nothing may be published, and their
            // committers may not return (a client told "committed" could not then read its write).
            Thread.sleep(200);
            assertTrue(rec.versions.isEmpty(), "published before v11 finished: " + rec.versions);
            assertFalse(third.isDone());
            assertFalse(second.isDone());
            order.finish(t1, false); // the engine's commit of v11 failed
            third.get(5, TimeUnit.SECONDS);
            second.get(5, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(11L, 12L, 13L), rec.versions);
        assertEquals(List.of(), rec.records.get(0), "a failed commit's version is published empty");
        assertEquals(change("b").toString(), rec.records.get(1).toString());
        assertEquals(0, order.inFlight());
    }

    /**
     * A commit that failed in an engine that is gone may have committed there (H2's SHUTDOWN fails a COMMIT it let
     * finish), and the tickets after it may hold rows it wrote: those open when it is abandoned are published empty and
     * their committers learn it, whether their engine commit is done (v13) or still running (v14); one before it (v11)
     * is not touched.
     */
    @Test void anAbandonedCommitTakesTheOpenTicketsAfterItWithItAndLeavesTheOnesBefore() throws Exception {
        Recorder rec = new Recorder();
        CommitOrder order = new CommitOrder(10, rec, new byte[0]);
        CommitOrder.Ticket t11 = order.take(change("a"), null, () -> { });
        CommitOrder.Ticket t12 = order.take(change("b"), null, () -> { });
        CommitOrder.Ticket t13 = order.take(change("c"), null, () -> { });
        CommitOrder.Ticket t14 = order.take(change("d"), null, () -> { });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Boolean> thirteen = pool.submit(() -> order.finish(t13, true));
            Future<?> twelve = pool.submit(() -> { order.abandon(t12); return null; });
            Thread.sleep(100);
            assertTrue(rec.versions.isEmpty(), "published before v11 finished: " + rec.versions);
            assertTrue(order.finish(t11, true), "v11 came before the abandoned commit");
            twelve.get(5, TimeUnit.SECONDS);
            assertFalse(thirteen.get(5, TimeUnit.SECONDS), "v13 was open when v12 was abandoned");
            assertFalse(order.finish(t14, true), "so was v14, whose engine commit ended after it");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(11L, 12L, 13L, 14L), rec.versions);
        assertEquals(change("a").toString(), rec.records.get(0).toString());
        assertEquals(List.of(List.of(), List.of(), List.of()), rec.records.subList(1, 4));
        assertEquals(2, order.droppedTickets());
        CommitOrder.Ticket t15 = order.take(change("e"), null, () -> { });
        assertTrue(order.finish(t15, true), "a ticket taken afterwards (on a successor) is not affected");
        assertEquals(change("e").toString(), rec.records.get(4).toString());
    }

    @Test void manyCommittersFinishingInRandomOrderPublishEveryVersionOnceAndInOrder() throws Exception {
        long seed = System.nanoTime();
        System.out.println("CommitOrderTest seed=" + seed);
        Random random = new Random(seed);
        Recorder rec = new Recorder();
        CommitOrder order = new CommitOrder(0, rec, new byte[0]);
        int threads = 8;
        int perThread = 300;
        long[][] delays = new long[threads][perThread];
        for (long[] d : delays) for (int i = 0; i < d.length; i++) d[i] = random.nextInt(4) == 0 ? random.nextInt(200_000) : 0;
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        AtomicLong violations = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            long[] d = delays[t];
            all.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        CommitOrder.Ticket ticket = order.take(List.of(), null, () -> { });
                        long until = System.nanoTime() + d[i]; // the engine's commit
                        while (System.nanoTime() < until) Thread.onSpinWait();
                        order.finish(ticket, i % 7 != 3);
                        // returned: this version and every earlier one are published
                        if (rec.published.get() < ticket.version()) violations.incrementAndGet();
                    }
                } catch (InterruptedException | IOException e) {
                    throw new RuntimeException(e);
                }
            }, Executors.newSingleThreadExecutor()));
        }
        start.countDown();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertEquals(0, violations.get(), "a committer returned before its version was published (seed " + seed + ")");
        List<Long> expected = new ArrayList<>();
        for (long v = 1; v <= threads * perThread; v++) expected.add(v);
        assertEquals(expected, rec.versions, "seed " + seed);
    }

    @Test void aRefusedTicketTakesNoVersion() throws Exception {
        Recorder rec = new Recorder();
        CommitOrder order = new CommitOrder(5, rec, new byte[0]);
        assertThrows(java.sql.SQLException.class, () -> order.take(List.of(), null, () -> {
            throw new java.sql.SQLException("primary gone", "40001");
        }));
        assertEquals(5, order.lastTicket());
        assertEquals(6, order.sequenceNow(change("ddl"), null));
        assertEquals(List.of(6L), rec.versions);
    }

    @Test void holdIdleWaitsForOpenTicketsAndKeepsNewOnesOut() throws Exception {
        Recorder rec = new Recorder();
        CommitOrder order = new CommitOrder(0, rec, new byte[0]);
        CommitOrder.Ticket open = order.take(List.of(), null, () -> { });
        assertFalse(order.holdIdle(50), "held while a commit was in flight");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> held = pool.submit(() -> {
                boolean ok = order.holdIdle(5_000);
                if (ok) {
                    long seen = rec.published.get();
                    order.release();
                    return seen == 1;
                }
                return false;
            });
            Thread.sleep(100);
            assertFalse(held.isDone());
            order.finish(open, true);
            assertTrue(held.get(5, TimeUnit.SECONDS), "the hold began only after v1 was published");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test void aDurableLogFailureReachesItsCommitterAndTheVersionIsStillPublished() {
        List<Long> seen = new ArrayList<>();
        CommitOrder order = new CommitOrder(0, (v, changes, payload) -> {
            seen.add(v);
            if (v == 2) throw new IOException("disk full");
        }, new byte[0]);
        assertThrows(IOException.class, () -> {
            order.sequenceNow(List.of(), null);
            order.sequenceNow(List.of(), null);
        });
        assertEquals(List.of(1L, 2L), seen);
        assertEquals(0, order.inFlight());
    }
}
