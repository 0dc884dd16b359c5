package io.macrodb.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An H2 {@link org.h2.api.DatabaseEventListener} (named in the engine URL: {@code ;DATABASE_EVENT_LISTENER=}this class)
 * that holds one thread's {@code COMMIT} statement after the engine committed it and before the statement ends.
 * H2 reports the end of a statement ({@code STATE_STATEMENT_END}) after the statement ran and before the session
 * leaves it ({@code SessionLocal.endStatement}), which is where a session that {@code SHUTDOWN} suspended meanwhile
 * throws "The database is open in exclusive mode" (90135): a commit that happened, reported as failed.
 *
 * <p>{@link #holdNextCommitOf} arms it for one thread; {@link #awaitHeld} returns once that thread's commit is done in
 * the engine and held; {@link #release} lets it go on. Every other statement, thread and database passes untouched.
 */
public final class H2CommitPause implements org.h2.api.DatabaseEventListener {
    private static volatile Thread target;
    private static volatile CountDownLatch held = new CountDownLatch(1);
    private static volatile CountDownLatch released = new CountDownLatch(1);

    /** Holds the next {@code COMMIT} that {@code t} runs, once the engine committed it. */
    public static void holdNextCommitOf(Thread t) {
        held = new CountDownLatch(1);
        released = new CountDownLatch(1);
        target = t;
    }

    /** Waits until the armed thread's commit is held; false if it was not within {@code millis}. */
    public static boolean awaitHeld(long millis) throws InterruptedException {
        return held.await(millis, TimeUnit.MILLISECONDS);
    }

    /** Lets the held commit statement end (and disarms). */
    public static void release() {
        target = null;
        released.countDown();
    }

    @Override
    public void setProgress(int state, String name, long x, long max) {
        if (state != STATE_STATEMENT_END || target != Thread.currentThread() || name == null || !name.trim().equalsIgnoreCase("COMMIT")) {
            return;
        }
        target = null;
        CountDownLatch r = released;
        held.countDown();
        try {
            if (!r.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("H2CommitPause: never released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
