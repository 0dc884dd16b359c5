package io.macrodb.replica;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an update transaction holds is handed back exactly once, however often and from wherever it ends. */
class UpdateTurnTest {

    @Test
    void theGateIsEnteredOnceAndLeftOnce() throws SQLException {
        UpdateGate gate = new UpdateGate();
        AtomicInteger permitsClosed = new AtomicInteger();
        Semaphore writer = new Semaphore(0); // as if the turn had taken the only writer permit
        AtomicInteger running = new AtomicInteger(1); // as the commit path counts it when the turn begins
        UpdateTurn turn = new UpdateTurn(gate, 1_000, permitsClosed::incrementAndGet, writer, running);
        assertFalse(turn.inGate());
        assertEquals(0, gate.active(), "entering the turn does not enter the gate");
        turn.enterGate();
        turn.enterGate();
        assertTrue(turn.inGate());
        assertEquals(1, gate.active());
        turn.close();
        turn.close();
        assertEquals(0, gate.active());
        assertEquals(1, permitsClosed.get());
        assertEquals(1, writer.availablePermits(), "the writer turn went back once");
        assertEquals(0, running.get(), "counted out of the running update transactions once");
        assertThrows(IllegalStateException.class, turn::enterGate);
    }

    @Test
    void aTurnThatNeverWroteLeavesNothingBehind() {
        UpdateGate gate = new UpdateGate();
        UpdateTurn turn = new UpdateTurn(gate, 1_000, () -> { }, null, new AtomicInteger(1));
        turn.close();
        assertEquals(0, gate.active());
    }

    /** A schema change waits for a turn inside the gate, and for none outside it. */
    @Test
    void aSchemaChangeWaitsOnlyForTurnsInsideTheGate() throws Exception {
        UpdateGate gate = new UpdateGate();
        UpdateTurn outside = new UpdateTurn(gate, 1_000, () -> { }, null, new AtomicInteger(1));
        gate.enterExclusive(1_000); // at once: the open turn has not written
        gate.exitExclusive();
        UpdateTurn inside = new UpdateTurn(gate, 1_000, () -> { }, null, new AtomicInteger(1));
        inside.enterGate();
        SQLException e = assertThrows(SQLException.class, () -> gate.enterExclusive(100));
        assertEquals("40001", e.getSQLState());
        CountDownLatch entered = new CountDownLatch(1);
        Thread change = new Thread(() -> {
            try {
                gate.enterExclusive(10_000);
                entered.countDown();
                gate.exitExclusive();
            } catch (SQLException ignored) {
                // the latch stays closed and the assertion below fails
            }
        });
        change.start();
        inside.close();
        assertTrue(entered.await(10, java.util.concurrent.TimeUnit.SECONDS), "the schema change ran once the writer left");
        change.join();
        outside.close();
        assertEquals(0, gate.active());
    }

    /**
     * A transaction's schema change holds the gate alone: it waits for the other writers, keeps new ones out until the
     * transaction ends, and hands the gate back once, however often it ends.
     */
    @Test
    void aTurnHoldsTheGateAloneFromItsSchemaChangeToItsEnd() throws Exception {
        UpdateGate gate = new UpdateGate();
        UpdateTurn other = new UpdateTurn(gate, 1_000, () -> { }, null, new AtomicInteger(1));
        other.enterGate();
        UpdateTurn changing = new UpdateTurn(gate, 150, () -> { }, null, new AtomicInteger(1));
        changing.enterGate();
        SQLException e = assertThrows(SQLException.class, changing::holdGateAlone, "another writer is inside the gate");
        assertEquals("40001", e.getSQLState());
        assertFalse(changing.holdsGateAlone());
        other.enterGate(); // the failed wait blocks nobody
        other.close();
        changing.holdGateAlone();
        changing.holdGateAlone();
        assertTrue(changing.holdsGateAlone());
        UpdateTurn later = new UpdateTurn(gate, 100, () -> { }, null, new AtomicInteger(1));
        assertEquals("40001", assertThrows(SQLException.class, later::enterGate, "a writer waits while the gate is held alone").getSQLState());
        changing.close();
        changing.close();
        assertFalse(changing.holdsGateAlone());
        later.enterGate(); // at once
        later.close();
        assertEquals(0, gate.active());
        gate.enterExclusive(100); // nothing left pending
        gate.exitExclusive();
    }

    /** Two exclusive entries that would wait for each other: the one that holds a share is refused at once. */
    @Test
    void holdingTheGateAloneIsRefusedAtOnceWhileAnotherExclusiveEntryWaits() throws Exception {
        UpdateGate gate = new UpdateGate();
        UpdateTurn changing = new UpdateTurn(gate, 10_000, () -> { }, null, new AtomicInteger(1));
        changing.enterGate();
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        Thread snapshot = new Thread(() -> {
            try {
                waiting.countDown();
                gate.enterExclusive(10_000);
                entered.countDown();
                gate.exitExclusive();
            } catch (SQLException ignored) {
                // the latch stays closed and the assertion below fails
            }
        });
        snapshot.start();
        waiting.await();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        SQLException e = null;
        while (e == null && System.nanoTime() < deadline) {
            // until the other entry is pending (it may not be yet: then this one takes the gate, and gives it back)
            try {
                changing.holdGateAlone();
                UpdateTurn retry = new UpdateTurn(gate, 10_000, () -> { }, null, new AtomicInteger(1));
                changing.close();
                changing = retry;
                changing.enterGate();
                Thread.sleep(5);
            } catch (SQLException refused) {
                e = refused;
            }
        }
        assertTrue(e != null && "40001".equals(e.getSQLState()), "refused at once: " + e);
        changing.close();
        assertTrue(entered.await(10, java.util.concurrent.TimeUnit.SECONDS), "the other exclusive entry ran once the share was left");
        snapshot.join();
        assertEquals(0, gate.active());
    }
}
