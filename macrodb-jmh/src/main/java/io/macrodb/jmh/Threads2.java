package io.macrodb.jmh;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Helpers for benchmarks that run a partner thread next to the measured one. */
final class Threads2 {
    private Threads2() {}

    /** A started daemon thread (a benchmark that fails must not keep its fork alive). */
    static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Busy-waits until {@code t} is parked in {@code LockSupport.parkNanos(blocker, ..)}: what the
     * "park" variants need so that the handoff they measure really starts from a parked thread.
     */
    static void awaitParked(Thread t, Object blocker) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(t.getState() == Thread.State.TIMED_WAITING && LockSupport.getBlocker(t) == blocker)) {
            if (!t.isAlive()) throw new IllegalStateException(t.getName() + " died");
            if (System.nanoTime() > deadline) throw new IllegalStateException(t.getName() + " never parked: " + t.getState());
            Thread.onSpinWait();
        }
    }

    static void join(Thread t) {
        if (t == null) return;
        try {
            t.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) throw new IllegalStateException(t.getName() + " did not stop");
    }

    /** Busy-waits (keeps this CPU busy, lets the partner's CPU idle). */
    static void busyWaitMicros(int micros) {
        long end = System.nanoTime() + micros * 1_000L;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }
}
