package io.macrodb.testing;

import io.macrodb.jdbc.MacroConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the fault tests fail a primary and wait for its successor. */
public final class Failovers {
    private Failovers() {}

    /** How long {@link #shutDown} waits for Derby's drop of a primary before it fails the test with every thread's stack. */
    static final long DERBY_DROP_BOUND_MILLIS = Long.getLong("macrodb.derbyDropBoundMillis", 60_000);

    /**
     * Stops an embedded engine from outside, the way a crash of its database would look: H2's and HSQLDB's
     * {@code SHUTDOWN IMMEDIATELY}; an in-memory Derby database is dropped (Derby boots one that was only shut down
     * again on the next connection, so a shut-down one is no gone engine), see {@link #dropDerby}; a SQLite database's
     * files are overwritten, see {@link #corruptSqlite}.
     */
    public static void shutDown(String engineUrl) {
        if (engineUrl.startsWith("jdbc:derby:")) {
            dropDerby(engineUrl);
            return;
        }
        if (engineUrl.startsWith("jdbc:sqlite:")) {
            corruptSqlite(engineUrl);
            return;
        }
        try (Connection k = DriverManager.getConnection(engineUrl, "sa", ""); Statement s = k.createStatement()) {
            s.execute("SHUTDOWN IMMEDIATELY");
        } catch (SQLException expectedClose) {
            // the engine closes the connection that shut it down
        }
    }

    /** The one user a Derby database that {@link #dropDerby} stops still lets in: the drop's own session. */
    private static final String DERBY_DROPPER = "MACRODB_TEST_DROPPER";

    /**
     * Closes a Derby database to new sessions and drops it ({@code ;drop=true}) on a thread of its own, within
     * {@link #DERBY_DROP_BOUND_MILLIS}: Derby interrupts every thread inside the database, the sessions MacroDB has open
     * on it fail from then on, and no new one is let in.
     * <ul>
     * <li>Closed to new sessions first ({@code derby.database.defaultConnectionMode=noAccess}, which takes effect at
     * once, with only {@link #DERBY_DROPPER} let in), because Derby's drop shuts the database down, sleeps 500 ms "to
     * give running threads a chance to detect the shutdown" and only then removes its files ({@code EmbedConnection}).
     * A session opened in those 500 ms (MacroDB's probe of the failed primary, a workload's retry) booted the database
     * again from the files still there, went on on files that were then removed, and met what no real engine does:
     * store errors and a raw {@code NullPointerException} from Derby's in-memory store ({@code BlockedByteArray}), and
     * an interrupt from dropping the booted database again (seen in 24 of 30 failover runs, and behind both failures of
     * {@code FailoverConvergenceTest} in 30 runs on 2026-11-27). Now such a session is refused ({@code 08004}), which
     * MacroDB takes for a gone engine. Derby still boots the database to refuse it; that copy lets nobody but the
     * dropper in, who drops it again.
     * <li>A thread of its own, because Derby keeps an interrupt it notices while the dropped database's sessions close
     * and sets it again on the thread's next Derby error (README, "Derby"): the caller, a workload thread, found its
     * next sleep cut short.
     * <li>Bounded, because once in 8 loops under load the drop waited in its checkpoint ({@code CachedPage.clean}) for
     * minutes while writers went on committing, and a test that waits for it without bound hangs CI: past the bound
     * the test fails with every thread's stack (who holds the page the checkpoint waits for).
     * </ul>
     */
    static void dropDerby(String engineUrl) {
        String base = engineUrl.replace(";create=true", "");
        try (Connection c = DriverManager.getConnection(base); Statement s = c.createStatement()) {
            s.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.database.fullAccessUsers', '" + DERBY_DROPPER + "')");
            s.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.database.defaultConnectionMode', 'noAccess')");
        } catch (SQLException e) {
            throw new AssertionError("could not close " + engineUrl + " to new sessions before dropping it", e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DERBY_DROP_BOUND_MILLIS);
        for (int attempt = 1; ; attempt++) {
            java.util.concurrent.atomic.AtomicReference<Throwable> outcome = new java.util.concurrent.atomic.AtomicReference<>();
            Thread dropper = new Thread(() -> {
                try (Connection ignored = DriverManager.getConnection(base + ";drop=true", DERBY_DROPPER, "")) {
                    outcome.set(new AssertionError("Derby did not drop " + engineUrl));
                } catch (Throwable expected) {
                    outcome.set(expected); // SQLException 08006: the database was dropped
                }
            }, "derby-drop " + attempt + " " + base);
            dropper.setDaemon(true);
            long started = System.nanoTime();
            dropper.start();
            try {
                dropper.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while Derby dropped " + engineUrl, e);
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            if (dropper.isAlive()) {
                throw new AssertionError("Derby's drop " + attempt + " of " + engineUrl + " did not end in " + tookMillis + " ms (bound "
                        + DERBY_DROP_BOUND_MILLIS + " ms for all drops; " + (refusesSessions(base) ? "it refuses new sessions"
                        : "it still accepts new sessions") + "); every thread:\n" + allStacks());
            }
            Throwable t = outcome.get();
            // Derby's drop of a database booted back on files the first drop removed shuts it down, then fails to
            // remove the files: "Directory memory:... cannot be removed" (XBM0... wrapped); gone is gone
            boolean dropped = t instanceof SQLException e && "08006".equals(e.getSQLState());
            if (!dropped && !(attempt > 1 && t instanceof SQLException)) {
                throw new AssertionError("Derby's drop " + attempt + " of " + engineUrl + " ended with " + t, t);
            }
            if (tookMillis > 5_000) System.out.println("Derby's drop " + attempt + " of " + engineUrl + " took " + tookMillis + " ms");
            if (!refusesSessions(base)) throw new AssertionError("Derby's drop " + attempt + " of " + engineUrl + " left it open to sessions");
            if (!letsTheDropperIn(base) || System.nanoTime() > deadline || attempt >= 5) return; // a copy left booted lets nobody else in
        }
    }

    /** Whether a Derby database closed by {@link #dropDerby} is booted (again): only its dropper gets a session. */
    private static boolean letsTheDropperIn(String url) {
        try (Connection c = DriverManager.getConnection(url, DERBY_DROPPER, "")) {
            return true;
        } catch (SQLException gone) {
            return false;
        }
    }

    /** How long {@link #corruptSqlite} goes on overwriting a SQLite database's files. */
    static final long SQLITE_CORRUPTION_MILLIS = 15_000;

    /**
     * Fails an embedded SQLite database from outside, as a failing disk or a stray process would: its database file and
     * its WAL are overwritten with garbage in place, and the header of its WAL index ({@code -shm}, SQLite's shared
     * memory) is zeroed, as after a restart, so that every session's next transaction rebuilds the index from the
     * files instead of going on from what it had cached. That transaction fails with {@code SQLITE_NOTADB} (26) or
     * {@code SQLITE_CORRUPT} (11), which MacroDB takes for a gone engine ({@code SqliteEngine.isEngineGone}). The
     * overwriting goes on every 50 ms for {@link #SQLITE_CORRUPTION_MILLIS} on a thread of its own (or until the files
     * are gone): a commit under way writes a valid index header again, after which its session could go on from its
     * page cache.
     * <p>SQLite has no statement that stops a database, and the other ways fail nothing or too much: deleting the files
     * is no failure on Linux (the sessions open on them go on reading and committing the unlinked files; only a new
     * session fails, with {@code SQLITE_CANTOPEN}); a WAL index that shrinks under SQLite's mapping of it kills the
     * JVM ({@code SIGBUS}); and garbage in the index itself (not a disk's failure: it is memory) once made SQLite
     * map the index file 65,000 times over, up to the process's limit, and the JVM failed for want of memory. The
     * files keep their sizes.
     */
    static void corruptSqlite(String engineUrl) {
        String path = engineUrl.substring("jdbc:sqlite:".length());
        int q = path.indexOf('?');
        if (q >= 0) path = path.substring(0, q);
        java.nio.file.Path db = java.nio.file.Path.of(path);
        if (!java.nio.file.Files.exists(db)) throw new AssertionError("no SQLite database file " + db + " (" + engineUrl + ")");
        if (!overwrite(db)) throw new AssertionError("could not overwrite " + db);
        Thread t = new Thread(() -> {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SQLITE_CORRUPTION_MILLIS);
            try {
                while (System.nanoTime() < end && overwrite(db)) Thread.sleep(50);
            } catch (InterruptedException e) {
                // the JVM is ending
            }
        }, "sqlite-corrupt " + db.getFileName());
        t.setDaemon(true);
        t.start();
    }

    /** The WAL index's header: two copies of its 48 bytes and the checkpoint information (SQLite's wal.c). */
    private static final int WAL_INDEX_HEADER_BYTES = 136;

    /**
     * Overwrites {@code db} and its {@code -wal} with garbage and zeroes the header of its {@code -shm}, keeping every
     * file's size and making none; whether {@code db} was there.
     */
    private static boolean overwrite(java.nio.file.Path db) {
        boolean found = false;
        for (String suffix : new String[] {"", "-wal", "-shm"}) {
            java.nio.file.Path f = java.nio.file.Path.of(db + suffix);
            // WRITE without CREATE: a file MacroDB removed stays removed; never truncated (see corruptSqlite)
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.WRITE)) {
                long size = ch.size();
                boolean index = suffix.equals("-shm");
                long end = index ? Math.min(size, WAL_INDEX_HEADER_BYTES) : size;
                java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(64 * 1024);
                java.util.Arrays.fill(bytes.array(), index ? 0 : (byte) 0x5a);
                for (long at = 0; at < end; at += bytes.capacity()) {
                    bytes.clear().limit((int) Math.min(bytes.capacity(), end - at));
                    ch.write(bytes, at);
                }
                found |= suffix.isEmpty();
            } catch (java.nio.file.NoSuchFileException gone) {
                // removed (a WAL index SQLite has not made yet, or the replica's files discarded)
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return found;
    }

    /** Whether a new session of the Derby database {@code url} (without {@code create}) fails: the database is gone. */
    private static boolean refusesSessions(String url) {
        try (Connection c = DriverManager.getConnection(url)) {
            return false;
        } catch (SQLException gone) {
            return true; // XJ004: database not found
        }
    }

    /** Every live thread's name, state and stack, with the monitor each waits for and its owner. */
    public static String allStacks() {
        StringBuilder sb = new StringBuilder();
        for (java.lang.management.ThreadInfo ti : java.lang.management.ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            sb.append('"').append(ti.getThreadName()).append("\" ").append(ti.getThreadState());
            if (ti.getLockName() != null) sb.append(" on ").append(ti.getLockName());
            if (ti.getLockOwnerName() != null) sb.append(" owned by \"").append(ti.getLockOwnerName()).append('"');
            sb.append('\n');
            for (StackTraceElement e : ti.getStackTrace()) sb.append("    at ").append(e).append('\n');
            for (java.lang.management.MonitorInfo m : ti.getLockedMonitors()) sb.append("    holds ").append(m).append(" (locked at ").append(m.getLockedStackFrame()).append(")\n");
        }
        return sb.toString();
    }

    /** Waits (30 s at most) until a secondary was promoted, and asserts it was. */
    /** Whether, within 20 s, the set has {@code replicas} replicas and every one is active (a failed one's place taken). */
    public static boolean awaitAllActive(MacroConnection mc, int replicas) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            java.util.List<io.macrodb.replica.ReplicaStatus> st = mc.replicaStatus();
            if (st.size() == replicas && st.stream().allMatch(r -> r.state() == io.macrodb.replica.ReplicaState.ACTIVE)) return true;
            Thread.sleep(20);
        }
        return false;
    }

    public static void awaitPromotion(MacroConnection mc) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && !mc.replicaStatus().get(0).stateReason().startsWith("promoted")) Thread.sleep(20);
        assertTrue(mc.replicaStatus().get(0).stateReason().startsWith("promoted"), () -> "no promotion: " + mc.replicaStatus());
    }

    /**
     * Derby's lock and transaction tables ({@code SYSCS_DIAG.LOCK_TABLE}, {@code SYSCS_DIAG.TRANSACTION_TABLE}) of each of
     * {@code mc}'s replicas, read through a session of its own: what a stalled workload waits for. Other engines: nothing.
     */
    public static String derbyLocks(MacroConnection mc) {
        StringBuilder sb = new StringBuilder();
        for (io.macrodb.replica.ReplicaStatus r : mc.replicaStatus()) {
            if (!r.url().startsWith("jdbc:derby:")) continue;
            sb.append("\nDerby tables of replica ").append(r.index()).append(' ').append(r.state()).append(' ').append(r.url());
            try (Connection c = DriverManager.getConnection(r.url().replace(";create=true", ""))) {
                dump(c, "SELECT XID, TYPE, MODE, TABLENAME, LOCKNAME, STATE, TABLETYPE, LOCKCOUNT, INDEXNAME FROM SYSCS_DIAG.LOCK_TABLE", sb);
                dump(c, "SELECT XID, GLOBAL_XID, USERNAME, TYPE, STATUS, FIRST_INSTANT, SQL_TEXT FROM SYSCS_DIAG.TRANSACTION_TABLE", sb);
            } catch (SQLException e) {
                sb.append("\n  (cannot read: ").append(e.getSQLState()).append(' ').append(e.getMessage()).append(')');
            }
        }
        return sb.toString();
    }

    private static void dump(Connection c, String sql, StringBuilder sb) throws SQLException {
        try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
            java.sql.ResultSetMetaData md = rs.getMetaData();
            sb.append("\n  ").append(sql.substring(sql.lastIndexOf(' ') + 1)).append(':');
            while (rs.next()) {
                sb.append("\n    ");
                for (int i = 1; i <= md.getColumnCount(); i++) sb.append(i == 1 ? "" : " | ").append(rs.getString(i));
            }
        }
    }
}
