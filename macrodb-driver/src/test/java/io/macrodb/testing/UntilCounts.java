package io.macrodb.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * How a load test waits: until counts of work are reached (commits, reads, reads on secondaries,
 * snapshots...), not for a fixed time, so a slow or busy machine does the same work as a fast one and
 * a test cannot pass on a run that did little. The time limit is only a guard against a hang:
 * reaching it fails the test with the counts so far. {@link BankWorkload} waits this way; tests
 * whose load is not a bank use {@link #await} directly.
 *
 * <pre>
 * UntilCounts.await("register h2", UntilCounts.HANG_GUARD,
 *         () -> commits.get() >= 2_000 &amp;&amp; reads.get() >= 5_000,
 *         () -> commits + " commits, " + reads + " reads",
 *         UntilCounts.clients(futures));
 * </pre>
 */
public final class UntilCounts {

    /** The default guard against a hang: far beyond what any count here takes, even on a loaded 2-core machine. */
    public static final Duration HANG_GUARD = Duration.ofSeconds(120);

    /** Throws (an exception or an assertion failure) if a client of the load failed or stopped early. */
    @FunctionalInterface
    public interface ClientCheck {
        void check() throws Exception;
    }

    private UntilCounts() {}

    /**
     * Waits until {@code reached} holds, checking every 5 ms. Fails the test at once if {@code clients}
     * reports a failed client, and with {@code progress} (the counts so far) if {@code hangGuard} passes first.
     */
    public static void await(String name, Duration hangGuard, BooleanSupplier reached, Supplier<String> progress,
                             ClientCheck clients) throws Exception {
        long deadline = System.nanoTime() + hangGuard.toNanos();
        while (!reached.getAsBoolean()) {
            clients.check();
            if (System.nanoTime() > deadline) {
                fail(name + ": hang guard: " + hangGuard.toSeconds() + " s passed before the counts this test needs were"
                        + " reached (it runs until counts, not for a time): " + progress.get());
            }
            Thread.sleep(5);
        }
        clients.check();
    }

    /** A check of clients run as futures: one that ended (failed, or returned before the load was stopped) fails the test. */
    public static ClientCheck clients(List<? extends Future<?>> futures) {
        return () -> {
            for (Future<?> f : futures) {
                if (f.isDone()) {
                    f.get(); // a client failed: its exception fails the test
                    fail("a client stopped before the load did");
                }
            }
        };
    }

    /** A check of clients that record their first failure in {@code failure}. */
    public static ClientCheck firstFailure(AtomicReference<?> failure) {
        return () -> {
            Object f = failure.get();
            if (f instanceof Throwable t) throw new AssertionError("a client failed", t);
            if (f != null) fail("a client failed: " + f);
        };
    }
}
