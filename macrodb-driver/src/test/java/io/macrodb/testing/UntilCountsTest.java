package io.macrodb.testing;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The load tests' way of waiting: it returns at the counts, and fails clearly on a hang or a failed client. */
class UntilCountsTest {

    @Test void returnsOnceTheCountsAreReached() throws Exception {
        AtomicLong done = new AtomicLong();
        Thread worker = new Thread(() -> {
            for (int i = 0; i < 100; i++) done.incrementAndGet();
        });
        worker.start();
        UntilCounts.await("counting", Duration.ofSeconds(30), () -> done.get() >= 100, done::toString,
                UntilCounts.firstFailure(new AtomicReference<>()));
        assertEquals(100, done.get());
        worker.join();
    }

    @Test void theHangGuardFailsWithTheCountsSoFar() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> UntilCounts.await("stuck load", Duration.ofMillis(50),
                () -> false, () -> "3 of 10 commits", UntilCounts.clients(List.of(new CompletableFuture<Void>()))));
        assertTrue(e.getMessage().contains("stuck load") && e.getMessage().contains("hang guard")
                && e.getMessage().contains("3 of 10 commits"), e.getMessage());
    }

    @Test void aFailedClientFailsTheWaitAtOnce() {
        Future<?> failed = CompletableFuture.failedFuture(new IllegalStateException("the client's failure"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> UntilCounts.await("load", Duration.ofSeconds(60),
                () -> false, () -> "", UntilCounts.clients(List.of(failed))));
        assertEquals("the client's failure", e.getCause().getMessage());

        Future<?> returned = CompletableFuture.completedFuture(null);
        AssertionFailedError stopped = assertThrows(AssertionFailedError.class, () -> UntilCounts.await("load", Duration.ofSeconds(60),
                () -> false, () -> "", UntilCounts.clients(List.of(returned))));
        assertTrue(stopped.getMessage().contains("stopped before"), stopped.getMessage());

        AtomicReference<String> failure = new AtomicReference<>("reader: saw 3 rows up to 4");
        AssertionFailedError recorded = assertThrows(AssertionFailedError.class, () -> UntilCounts.await("load", Duration.ofSeconds(60),
                () -> false, () -> "", UntilCounts.firstFailure(failure)));
        assertTrue(recorded.getMessage().contains("saw 3 rows up to 4"), recorded.getMessage());
    }
}
