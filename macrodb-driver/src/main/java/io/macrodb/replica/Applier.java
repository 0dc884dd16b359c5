package io.macrodb.replica;

import io.macrodb.capture.CaptureContext;
import io.macrodb.engine.Engine;
import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one thread that writes into a secondary. It takes records from the shared log in version
 * order at its own cursor and applies them; when it is behind it applies several records in one
 * engine transaction (group apply) and publishes only the last version, so readers never see a
 * state between two versions. An apply that fails is rolled back and retried, never skipped; one
 * that keeps failing takes the replica out of the rotation.
 */
final class Applier implements Runnable {
    private static final Logger LOG = Logger.getLogger(Applier.class.getName());
    private static final int MAX_ATTEMPTS = 20;

    private final Replica replica;
    private final Engine engine;
    private final ReplicationLog.Cursor cursor;
    private final Connection session;
    private final int maxGroup;
    private final RowWriter writer;
    private final AtomicLong appliedRecords = new AtomicLong();
    private final AtomicLong groups = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private volatile ChangeRecord lastApplied;
    /** Records applied per nanosecond of applying, smoothed (0 until the first group). */
    private volatile double applyRate;
    private volatile boolean running = true;
    /** Stopped by an operator ({@link ReplicaSet#pauseApplying}). */
    private volatile boolean paused;
    /** How many holders (snapshots being written) need the replica to stay at its version. */
    private final java.util.concurrent.atomic.AtomicInteger holds = new java.util.concurrent.atomic.AtomicInteger();
    private Thread thread;

    private final boolean rowPropagation;
    /** With durability=log: the newest version on disk. Only records on disk are applied. */
    private final io.macrodb.log.VersionGate durable;
    /** Held while a group is applied: {@link #holdStill} takes it to know that none is in flight. */
    private final java.util.concurrent.locks.ReentrantLock applyLock = new java.util.concurrent.locks.ReentrantLock();

    Applier(Replica replica, Engine engine, ReplicationLog.Cursor cursor, Connection session, int maxGroup, boolean rowPropagation,
            io.macrodb.log.VersionGate durable) {
        this.rowPropagation = rowPropagation;
        this.durable = durable;
        this.replica = replica;
        this.engine = engine;
        this.cursor = cursor;
        this.session = session;
        this.maxGroup = maxGroup;
        this.writer = new RowWriter(session);
        this.lastApplied = cursor.current();
    }

    void start(String name) {
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * An operator's pause (or its end). Independent of {@link #holdStill}: resuming does not let a
     * snapshot's replica move on while the snapshot is written.
     */
    void setPaused(boolean p) {
        paused = p;
        if (p) awaitNoGroupInFlight();
    }

    /**
     * Stops applying for one holder (returning once no group is being applied, so the replica then
     * holds exactly its published version), or releases that holder's hold. Holds count: the replica
     * moves again only when every holder has released it and no operator pause is in force.
     */
    void holdStill(boolean still) {
        if (still) {
            holds.incrementAndGet();
            awaitNoGroupInFlight();
        } else if (holds.decrementAndGet() < 0) {
            holds.incrementAndGet();
            throw new IllegalStateException("MacroDB: released a hold on " + replica + " that was not taken");
        }
    }

    private void awaitNoGroupInFlight() {
        applyLock.lock();
        applyLock.unlock();
    }

    boolean isPaused() { return paused || holds.get() > 0; }

    long appliedRecords() { return appliedRecords.get(); }
    long groups() { return groups.get(); }
    long retries() { return retries.get(); }

    /** Records this applier applies per nanosecond when it has work (smoothed); 0 if unknown. */
    double applyRate() { return applyRate; }

    /** The last record this applier committed (its replica is at that record's version). */
    ChangeRecord lastApplied() { return lastApplied; }

    long stalenessNanos() {
        ChangeRecord next = lastApplied.next();
        return next == null ? 0 : Math.max(0, System.nanoTime() - next.commitNanos());
    }

    @Override public void run() {
        CaptureContext.enter(CaptureContext.APPLYING);
        try {
            while (running) {
                if (Thread.currentThread().isInterrupted()) {
                    if (running) replica.setState(ReplicaState.FAILED, "applier thread interrupted");
                    running = false;
                    return;
                }
                ChangeRecord first = cursor.awaitNext(TimeUnit.MILLISECONDS.toNanos(200));
                if (first == null) continue;
                if (durable != null && !durable.await(first.version(), TimeUnit.MILLISECONDS.toNanos(200), () -> running)) continue;
                applyLock.lock();
                try {
                    if (isPaused()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                        continue;
                    }
                    ChangeRecord last = groupEnd(first);
                    if (!applyWithRetries(first, last)) return;
                } finally {
                    applyLock.unlock();
                }
            }
        } finally {
            CaptureContext.restore(null);
            writer.close();
            try {
                session.close();
            } catch (SQLException ignored) {
                // shutting down
            }
        }
    }

    /** The last record of the group that starts at {@code first}: DDL is applied alone. */
    private ChangeRecord groupEnd(ChangeRecord first) {
        if (isDdl(first)) return first;
        ChangeRecord last = first;
        int n = 1;
        ChangeRecord next;
        long limit = durable == null ? Long.MAX_VALUE : durable.version();
        while (n < maxGroup && (next = last.next()) != null && !isDdl(next) && next.version() <= limit) {
            last = next;
            n++;
        }
        return last;
    }

    private static boolean isDdl(ChangeRecord r) { return r.isDdl(); }

    private boolean applyWithRetries(ChangeRecord first, ChangeRecord last) {
        boolean safe = false;
        for (int attempt = 1; running; attempt++) {
            try {
                apply(first, last, safe);
                return true;
            } catch (SQLException | RuntimeException e) {
                retries.incrementAndGet();
                rollbackQuietly();
                writer.clear();
                boolean retryable = e instanceof SQLException se && engine.isRetryable(se);
                if (!safe && e instanceof SQLException se && se.getSQLState() != null && se.getSQLState().startsWith("23")) {
                    // a transaction swapped unique values between rows: apply this group the safe way
                    safe = true;
                    attempt--;
                    continue;
                }
                if (!running) return false; // shutting down
                if (attempt >= MAX_ATTEMPTS || !retryable && attempt >= 3) {
                    replica.setState(ReplicaState.FAILED, "applying v" + first.version() + "..v" + last.version()
                            + " failed " + attempt + " times: " + e);
                    LOG.log(Level.WARNING, replica + " left the rotation", e);
                    running = false;
                    return false;
                }
                try {
                    Thread.sleep(Math.min(200, 2L << attempt)); // 4, 8, ... 200 ms
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    if (running) replica.setState(ReplicaState.FAILED, "applier interrupted");
                    running = false;
                    return false;
                }
            }
        }
        return false;
    }

    private void apply(ChangeRecord first, ChangeRecord last, boolean safe) throws SQLException {
        long started = System.nanoTime();
        int records = 0;
        boolean ddl = false;
        for (ChangeRecord r = first; ; r = r.next()) {
            for (Change c : r.changes()) {
                if (c instanceof RowChanges rc) writer.apply(rc, safe);
                else if (c instanceof StatementChange sc) {
                    writer.apply(sc);
                    ddl |= sc.ddl();
                }
            }
            records++;
            if (r == last) break;
        }
        java.util.concurrent.locks.ReentrantLock publishing = replica.publishLock();
        publishing.lock();
        try {
            session.commit();
            cursor.advanceTo(last);
            lastApplied = last;
            replica.gate().publish(last.version());
        } finally {
            publishing.unlock();
        }
        // Outside the publication lock: on HSQLDB the trigger DDL waits for readers' transactions,
        // and a reader ending its transaction waits for that lock.
        if (ddl) afterSchemaChange();
        appliedRecords.addAndGet(records);
        groups.incrementAndGet();
        double rate = records / (double) Math.max(1, System.nanoTime() - started);
        double old = applyRate;
        applyRate = old == 0 ? rate : 0.8 * old + 0.2 * rate;
    }

    /**
     * Every replica carries the capture triggers too (they refuse writes by readers, and a promoted
     * secondary will need them); in row propagation it carries none of the application's own. This
     * runs after the DDL committed, is idempotent, and is retried on its own: retrying the whole
     * apply would run the DDL twice.
     */
    private void afterSchemaChange() throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                engine.refreshCapture(session);
                if (rowPropagation) engine.dropUserTriggers(session);
                session.commit();
                return;
            } catch (SQLException e) {
                rollbackQuietly();
                if (attempt >= 3) {
                    replica.setState(ReplicaState.FAILED, "refreshing capture triggers after a schema change failed: " + e);
                    running = false;
                    throw e;
                }
            }
        }
    }

    private void rollbackQuietly() {
        try {
            session.rollback();
        } catch (SQLException ignored) {
            // a broken session fails the next attempt, which is what decides the replica's fate
        }
    }

    void stop() {
        running = false;
        if (thread != null && thread != Thread.currentThread()) {
            thread.interrupt();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        cursor.close();
    }
}
