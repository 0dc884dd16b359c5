package io.macrodb.replica;

import io.macrodb.engine.CaptureContext;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The replica sets open in this JVM, one per primary URL, shared by every connection to that URL.
 *
 * <p>Lifetime, as the engine's database lives ({@link ReplicaSetConfig#closeDelayMillis}): the first
 * connection opens the set (the primary, and each secondary copied from it); when the last one closes,
 * the set closes at once (delay 0: H2 without {@code DB_CLOSE_DELAY}), is kept until an explicit
 * {@code SHUTDOWN} or the JVM's end (-1: H2's {@code DB_CLOSE_DELAY=-1}, an HSQLDB memory database),
 * or is kept that long and then closed unless a connection came back. A kept set is reused as it is:
 * the next connection copies nothing. {@link #shutdown} closes a set at once whatever its delay (the
 * {@code SHUTDOWN} statement), and a JVM shutdown hook closes every set still open, so that a file
 * database loses its capture triggers and a durable log is closed (its directory lock is the
 * process's and goes with it in any case).
 */
public final class ReplicaSets {
    private static final Logger LOG = Logger.getLogger(ReplicaSets.class.getName());
    private static final Map<String, ReplicaSet> OPEN = new HashMap<>();
    /** Sets without connections that close when their delay ends: the token their timer task must still find. */
    private static final Map<ReplicaSet, Object> PENDING = new IdentityHashMap<>();
    /** Sets opened (each one's secondaries copied from its primary) since the JVM started. */
    private static final AtomicLong OPENED = new AtomicLong();
    private static ScheduledExecutorService timer;
    private static Thread hook;

    private ReplicaSets() {}

    /** The set for {@code config.url()}, opened if needed, with one more reference taken. */
    public static ReplicaSet acquire(ReplicaSetConfig config) throws SQLException {
        String key = config.url().jdbcUrl();
        synchronized (OPEN) {
            ReplicaSet rs = OPEN.get(key);
            if (rs == null) {
                rs = ReplicaSet.open(config);
                OPEN.put(key, rs);
                OPENED.incrementAndGet();
                installHook();
            } else {
                rs.checkCompatible(config);
                if (rs.config().closeDelayMillis() != config.closeDelayMillis()) {
                    throw new SQLException("MacroDB: " + key + " is already open with closeDelay="
                            + describeDelay(rs.config().closeDelayMillis()) + ", and this connection asks for "
                            + describeDelay(config.closeDelayMillis()) + " (an option of the database, not of one connection);"
                            + " connect with the same value (closeDelay and the engine's DB_CLOSE_DELAY or shutdown=true),"
                            + " or close every connection to it first", "08001");
                }
                PENDING.remove(rs); // a connection came back before the delay ended
            }
            rs.retain();
            return rs;
        }
    }

    /** Drops a reference; the last one closes the set now, later, or at SHUTDOWN, as its close delay says. */
    public static void release(ReplicaSet rs) {
        synchronized (OPEN) {
            if (!rs.releaseRef()) return;
            String key = rs.config().url().jdbcUrl();
            long delay = rs.config().closeDelayMillis();
            if (OPEN.get(key) != rs || delay == 0) {
                // closed by SHUTDOWN already (or replaced since), or nothing to keep it for
                OPEN.remove(key, rs);
                close(rs);
                return;
            }
            if (delay < 0) return; // kept until SHUTDOWN or the JVM's end
            Object token = new Object();
            PENDING.put(rs, token);
            timer().schedule(() -> expire(rs, token), delay, TimeUnit.MILLISECONDS);
        }
    }

    /** The delay of a set without connections ended: it closes unless a connection came back meanwhile. */
    private static void expire(ReplicaSet rs, Object token) {
        synchronized (OPEN) {
            if (!PENDING.remove(rs, token)) return;
            OPEN.remove(rs.config().url().jdbcUrl(), rs);
            close(rs);
        }
    }

    /**
     * An application's {@code SHUTDOWN} statement: closes the set now, whatever its delay and its other
     * connections (they fail from now on, as on the engine), then runs {@code statement} on the primary's
     * database so that the engine closes it too (and compacts it, for {@code SHUTDOWN COMPACT}). The
     * set's references are still dropped by its connections' close, which closes nothing more.
     */
    public static void shutdown(ReplicaSet rs, String statement) throws SQLException {
        synchronized (OPEN) {
            OPEN.remove(rs.config().url().jdbcUrl(), rs);
            PENDING.remove(rs);
            close(rs);
            // The set's own engine connections are closed; the engine may still keep the database
            // (DB_CLOSE_DELAY, an HSQLDB memory or file database): the statement closes it as the
            // application asked. (Where the engine dropped it with its last connection, this opens and
            // shuts an empty one.)
            CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
            try (Connection c = DriverManager.getConnection(rs.engine().primaryUrl(rs.config().url()),
                    rs.config().connectProperties());
                 Statement s = c.createStatement()) {
                s.execute(statement);
            } catch (SQLException e) {
                if (!rs.engine().isEngineGone(e)) throw e;
            } finally {
                CaptureContext.restore(prev);
            }
        }
    }

    /**
     * Closes {@code rs} if no connection holds it (a set kept for its close delay whose primary's
     * database the engine closed); otherwise leaves it to fail over.
     *
     * @return whether it was closed
     */
    static boolean closeIfUnused(ReplicaSet rs, String why) {
        synchronized (OPEN) {
            if (rs.references() > 0) return false;
            OPEN.remove(rs.config().url().jdbcUrl(), rs);
            PENDING.remove(rs);
            LOG.info(() -> "MacroDB: closing " + rs + ", kept without connections: " + why);
            close(rs);
            return true;
        }
    }

    private static void close(ReplicaSet rs) {
        rs.shutdown();
        rs.closeExtensions();
    }

    /** How many replica sets this JVM opened (each copies its primary into its secondaries): for tests and tools. */
    public static long opened() { return OPENED.get(); }

    /** Whether the set for {@code jdbcUrl} (the engine URL, {@code jdbc:h2:mem:shop}) is open now, with or without connections. */
    public static boolean isOpen(String jdbcUrl) {
        synchronized (OPEN) {
            return OPEN.containsKey(jdbcUrl);
        }
    }

    private static String describeDelay(long millis) {
        return millis < 0 ? "-1 (until SHUTDOWN)" : millis % 1000 == 0 ? Long.toString(millis / 1000) : millis + " ms";
    }

    private static ScheduledExecutorService timer() {
        if (timer == null) {
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
                Thread th = new Thread(r, "macrodb-close-delay");
                th.setDaemon(true);
                return th;
            });
            t.setRemoveOnCancelPolicy(true);
            timer = t;
        }
        return timer;
    }

    /** Closes every set still open when the JVM exits (kept ones and those with connections alike). */
    private static void installHook() {
        if (hook != null) return;
        hook = new Thread(ReplicaSets::closeAllAtExit, "macrodb-exit");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException exiting) {
            // the JVM is already exiting
        }
    }

    private static void closeAllAtExit() {
        List<ReplicaSet> sets;
        synchronized (OPEN) {
            sets = new ArrayList<>(OPEN.values());
            OPEN.clear();
            PENDING.clear();
        }
        for (ReplicaSet rs : sets) {
            try {
                close(rs);
            } catch (RuntimeException e) {
                LOG.warning("MacroDB: closing " + rs + " at exit failed: " + e);
            }
        }
    }
}
