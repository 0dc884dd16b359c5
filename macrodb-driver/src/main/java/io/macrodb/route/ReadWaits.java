package io.macrodb.route;

import java.util.concurrent.atomic.LongAdder;

/**
 * How read-only transactions of one replicated database were routed, and how long they waited for
 * a secondary to catch up: the cost of strong consistency on the read side. Shared by every
 * connection of the database (counters are {@link LongAdder}s, so readers on many cores do not
 * contend on them); {@link #snapshot()} gives a consistent-enough view for monitoring, and two
 * snapshots subtract to give the figures of a time window.
 */
public final class ReadWaits {
    private final LongAdder atOnce = new LongAdder();
    private final LongAdder waitedThenSecondary = new LongAdder();
    private final LongAdder waitedThenPrimary = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    private final LongAdder primaryNoWait = new LongAdder();
    private final LongAdder primaryNoSecondary = new LongAdder();
    private final LongAdder primaryIdle = new LongAdder();

    void atOnce() { atOnce.increment(); }

    void waited(long nanos, boolean caughtUp) {
        (caughtUp ? waitedThenSecondary : waitedThenPrimary).increment();
        waitNanos.add(nanos);
    }

    void primaryNoWait() { primaryNoWait.increment(); }

    void primaryNoSecondary() { primaryNoSecondary.increment(); }

    void primaryIdle() { primaryIdle.increment(); }

    public Stats snapshot() {
        return new Stats(atOnce.sum(), waitedThenSecondary.sum(), waitedThenPrimary.sum(), waitNanos.sum(),
                primaryNoWait.sum(), primaryNoSecondary.sum(), primaryIdle.sum());
    }

    /**
     * Counts of read-only transactions by how they were routed.
     *
     * @param atOnce              ran on a secondary that was already fresh enough
     * @param waitedThenSecondary waited for a secondary to catch up, then ran on it
     * @param waitedThenPrimary   waited the whole {@code readWait}, then ran on the primary
     * @param waitNanos           total time spent in those waits (both kinds)
     * @param primaryNoWait       ran on the primary at once: no secondary could catch up within
     *                            {@code readWait} at its recent apply rate (or readWait is 0)
     * @param primaryNoSecondary  ran on the primary because no secondary was in the rotation
     * @param primaryIdle         ran on the primary at once instead of waiting for a secondary, because the primary
     *                            ran fewer transactions than its share of the processors ({@code primaryReads=idle})
     */
    public record Stats(long atOnce, long waitedThenSecondary, long waitedThenPrimary, long waitNanos,
                        long primaryNoWait, long primaryNoSecondary, long primaryIdle) {
        /** The counts without {@code primaryIdle} (as before {@code primaryReads}): none ran on an idle primary. */
        public Stats(long atOnce, long waitedThenSecondary, long waitedThenPrimary, long waitNanos, long primaryNoWait,
                     long primaryNoSecondary) {
            this(atOnce, waitedThenSecondary, waitedThenPrimary, waitNanos, primaryNoWait, primaryNoSecondary, 0);
        }

        /** Every routed read-only transaction. */
        public long reads() {
            return atOnce + waitedThenSecondary + waitedThenPrimary + primaryNoWait + primaryNoSecondary + primaryIdle;
        }

        public long waited() { return waitedThenSecondary + waitedThenPrimary; }

        public long onSecondaries() { return atOnce + waitedThenSecondary; }

        /** Mean wait over every routed read-only transaction (those that did not wait count as 0). */
        public double meanWaitMicros() {
            long n = reads();
            return n == 0 ? 0 : waitNanos / 1_000.0 / n;
        }

        /** The figures of the window between {@code earlier} and this snapshot. */
        public Stats minus(Stats earlier) {
            return new Stats(atOnce - earlier.atOnce, waitedThenSecondary - earlier.waitedThenSecondary,
                    waitedThenPrimary - earlier.waitedThenPrimary, waitNanos - earlier.waitNanos,
                    primaryNoWait - earlier.primaryNoWait, primaryNoSecondary - earlier.primaryNoSecondary,
                    primaryIdle - earlier.primaryIdle);
        }

        @Override public String toString() {
            return String.format("%d reads: %d on a fresh secondary at once, %d waited (%d then ran on the secondary,"
                            + " %d on the primary; mean wait %.1f us over all reads), %d on the primary without waiting,"
                            + " %d on an idle primary instead of waiting, %d on the primary with no secondary in rotation",
                    reads(), atOnce, waited(), waitedThenSecondary, waitedThenPrimary, meanWaitMicros(),
                    primaryNoWait, primaryIdle, primaryNoSecondary);
        }
    }
}
