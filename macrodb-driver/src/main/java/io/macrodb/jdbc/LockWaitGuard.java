package io.macrodb.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds lock waits on an engine that has no lock timeout (HSQLDB): an update statement still
 * running after {@code lockTimeout} is cancelled, which ends its lock wait with an error that
 * MacroDB reports as retryable (40001). One daemon timer thread serves every connection.
 */
final class LockWaitGuard {
    private static final ScheduledThreadPoolExecutor TIMER;
    static {
        TIMER = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "macrodb-lock-wait-guard");
            t.setDaemon(true);
            return t;
        });
        TIMER.setRemoveOnCancelPolicy(true);
    }

    private LockWaitGuard() {}

    /** Work on a physical statement. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws SQLException;
    }

    static <T> T run(Statement physical, long timeoutMillis, Call<T> call) throws SQLException {
        // The cancel and the end of the call exclude each other: a late timer must not cancel the
        // next statement of the session (on HSQLDB a cancel ends the whole transaction).
        AtomicBoolean done = new AtomicBoolean();
        ScheduledFuture<?> timer = TIMER.schedule(() -> {
            synchronized (done) {
                if (done.get()) return;
                try {
                    physical.cancel();
                } catch (SQLException ignored) {
                    // the session broke: nothing left to cancel
                }
            }
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        try {
            return call.run();
        } finally {
            synchronized (done) {
                done.set(true);
            }
            timer.cancel(false);
        }
    }
}
