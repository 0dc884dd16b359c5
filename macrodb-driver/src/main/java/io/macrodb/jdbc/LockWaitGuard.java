package io.macrodb.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounds lock waits on an engine that has no lock timeout (HSQLDB): a statement still running after
 * {@code lockTimeout} is cancelled, which ends its lock wait with an error that MacroDB reports as
 * retryable (40001).
 *
 * <p>Every statement on such an engine passes through here, so registering one must cost little:
 * a call adds itself to a concurrent set and removes itself when it ends. One daemon thread serves
 * every connection: while calls are running it looks at them every {@link #TICK_MILLIS} ms and
 * cancels those past their deadline (so a cancel comes at most a tick late); while none are, it
 * sleeps until the next call arrives. (A timer task scheduled and cancelled per statement cost
 * about 3% of a TPC-C transaction.)
 */
final class LockWaitGuard {
    static final long TICK_MILLIS = 10;

    private static final Set<Running> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Thread WATCHER;
    /** The watcher found nothing running and parks until a call arrives. */
    private static volatile boolean idle;

    static {
        WATCHER = new Thread(LockWaitGuard::watch, "macrodb-lock-wait-guard");
        WATCHER.setDaemon(true);
        WATCHER.start();
    }

    private LockWaitGuard() {}

    /** Work on a physical statement. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws SQLException;
    }

    /** One running call: its statement and deadline; {@code done} (guarded by the object) once it ended. */
    private static final class Running {
        final Statement physical;
        final long deadline;
        boolean done;

        Running(Statement physical, long deadline) {
            this.physical = physical;
            this.deadline = deadline;
        }
    }

    static <T> T run(Statement physical, long timeoutMillis, Call<T> call) throws SQLException {
        Running r = new Running(physical, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
        RUNNING.add(r);
        if (idle) LockSupport.unpark(WATCHER);
        try {
            return call.run();
        } finally {
            // The cancel and the end of the call exclude each other: a late cancel must not hit the
            // next statement of the session (on HSQLDB a cancel ends the whole transaction).
            synchronized (r) {
                r.done = true;
            }
            RUNNING.remove(r);
        }
    }

    private static void watch() {
        while (true) {
            if (RUNNING.isEmpty()) {
                idle = true;
                // a call added after the check above sees idle and unparks this thread
                if (RUNNING.isEmpty()) LockSupport.park(LockWaitGuard.class);
                idle = false;
                continue;
            }
            LockSupport.parkNanos(LockWaitGuard.class, TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
            long now = System.nanoTime();
            for (Running r : RUNNING) {
                if (now - r.deadline < 0) continue;
                RUNNING.remove(r);
                synchronized (r) {
                    if (r.done) continue;
                    try {
                        r.physical.cancel();
                    } catch (SQLException | RuntimeException ignored) {
                        // the session broke, or the engine refused: nothing left to cancel
                    }
                }
            }
        }
    }
}
