package io.macrodb.durable;

import io.macrodb.jdbc.Internals;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaSet;
import io.macrodb.route.ReadWaits;
import io.macrodb.testing.TestDb;
import io.macrodb.testing.UntilCounts;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Tag;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A snapshot is exactly the state its version names, whatever races it: writers committing, other
 * snapshots, an operator pausing and resuming the secondary it is taken from. Before issue 9's fix
 * one shared pause flag let a resume free the secondary in the middle of a snapshot (which then held
 * rows of later versions, and the database could not be opened again: replaying the next version
 * hit its own row), and two snapshots wrote the same temporary file.
 */
@Tag("slow") // left out of the fast test command (README); CI runs it
class SnapshotRaceTest {

    // The counts a race runs until (it ran for 2.5 s before; on this project's 2-core machine 1,000 commits took 2.5 to 4 s,
    // with 50 to 100 snapshots, 200 to 500 pauses and 850 (HSQLDB) to 150,000 reads on the way; under other builds 160
    // pauses could take 4 s). The commits take longest.
    // -Dmacrodb.snapshotRaceSnapshots=N runs a longer race: the other counts grow with it.
    private static final int SNAPSHOTS = Integer.getInteger("macrodb.snapshotRaceSnapshots", 40);
    private static final int COMMITS = SNAPSHOTS * 15;
    private static final int PAUSES = SNAPSHOTS * 2;
    private static final int READS = SNAPSHOTS * 10;

    /**
     * Two writers commit (each transaction inserts a row and updates it), two snapshotters take snapshots,
     * a pauser pauses and resumes both secondaries, and a reader checks in strict read-only transactions
     * that it sees every acknowledged commit, each whole. Runs until {@link #SNAPSHOTS} snapshots,
     * {@link #COMMITS} commits, {@link #PAUSES} pauses and {@link #READS} reads, half of them on secondaries
     * ({@link UntilCounts}); then the database is opened again from its snapshots and log.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "hsqldb,row", "sqlite,row", "h2,statement"})
    void snapshotsRacingPausesAndEachOtherReopenToEveryAcknowledgedCommit(String engine, String propagation, @TempDir Path dir)
            throws Exception {
        if (System.getProperty("macrodb.snapshotRaceMillis") != null) {
            throw new IllegalArgumentException("-Dmacrodb.snapshotRaceMillis is gone: the race runs until counts;"
                    + " -Dmacrodb.snapshotRaceSnapshots=N runs a longer one (default 40)");
        }
        String name = "snapshot race " + engine + " " + propagation;
        String url = "jdbc:macrodb:" + engine + ":mem:snaprace_" + Math.abs(dir.hashCode()) + "?replicas=3&propagation=" + propagation
                + "&durability=log:" + dir;
        Set<Integer> acknowledged = new ConcurrentSkipListSet<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger snapshots = new AtomicInteger();
        AtomicInteger pauses = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger readsOnSecondaries = new AtomicInteger();
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            }
            MacroConnection mc = TestDb.macro(c);
            ReplicaSet rs = Internals.replicaSet(mc);
            ReadWaits.Stats waitsAtStart = mc.readWaits();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger next = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                threads.add(new Thread(() -> {
                    try (Connection wc = TestDb.open(url); PreparedStatement ins = wc.prepareStatement("INSERT INTO t VALUES (?, ?)");
                         PreparedStatement upd = wc.prepareStatement("UPDATE t SET v = v + 1 WHERE id = ?")) {
                        wc.setAutoCommit(false);
                        while (!stop.get()) {
                            int id = next.getAndIncrement();
                            ins.setInt(1, id);
                            ins.setInt(2, 0);
                            ins.executeUpdate();
                            upd.setInt(1, id);
                            upd.executeUpdate();
                            wc.commit();
                            acknowledged.add(id);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "writer-" + w));
            }
            // two snapshotters: snapshots overlap unless MacroDB keeps them apart
            for (int k = 0; k < 2; k++) {
                threads.add(new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            rs.snapshot();
                            snapshots.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "snapshotter-" + k));
            }
            threads.add(new Thread(() -> {
                try {
                    boolean paused = false;
                    while (!stop.get()) {
                        paused = !paused;
                        rs.pauseApplying(1, paused);
                        rs.pauseApplying(2, paused);
                        if (paused) pauses.incrementAndGet();
                        Thread.sleep(1);
                    }
                    rs.pauseApplying(1, false);
                    rs.pauseApplying(2, false);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "pauser"));
            // a strict reader: every commit acknowledged before its transaction began, and each whole (v = 1)
            threads.add(new Thread(() -> {
                try (Connection rc = TestDb.open(url); Statement s = rc.createStatement()) {
                    MacroConnection mrc = TestDb.macro(rc);
                    rc.setReadOnly(true);
                    rc.setAutoCommit(false);
                    while (!stop.get()) {
                        int before = acknowledged.size();
                        try (ResultSet r = s.executeQuery("SELECT COUNT(*), COALESCE(MIN(v), 1), COALESCE(MAX(v), 1) FROM t")) {
                            r.next();
                            if (r.getInt(1) < before || r.getInt(2) != 1 || r.getInt(3) != 1) {
                                throw new AssertionError("a read that began after " + before + " commits were acknowledged saw "
                                        + r.getInt(1) + " rows with v from " + r.getInt(2) + " to " + r.getInt(3) + " on "
                                        + mrc.currentReplica());
                            }
                        }
                        if (!mrc.currentReplica().isPrimary()) readsOnSecondaries.incrementAndGet();
                        rc.commit();
                        reads.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "reader"));
            threads.forEach(Thread::start);
            try {
                UntilCounts.await(name, UntilCounts.HANG_GUARD,
                        () -> snapshots.get() >= SNAPSHOTS && acknowledged.size() >= COMMITS && pauses.get() >= PAUSES
                                && reads.get() >= READS && readsOnSecondaries.get() >= READS / 2
                                && mc.readWaits().minus(waitsAtStart).onSecondaries() >= READS / 2,
                        () -> "wanted " + SNAPSHOTS + " snapshots, " + COMMITS + " commits, " + PAUSES + " pauses, " + READS
                                + " reads (" + READS / 2 + " on secondaries); done " + snapshots + " snapshots, " + acknowledged.size()
                                + " commits, " + pauses + " pauses, " + reads + " reads (" + readsOnSecondaries + " on secondaries); "
                                + mc.readWaits().minus(waitsAtStart),
                        UntilCounts.firstFailure(failure));
            } finally {
                stop.set(true);
                for (Thread t : threads) t.join(60_000);
            }
            if (failure.get() != null) throw new AssertionError("a racing thread failed", failure.get());
            System.out.println(name + ": " + snapshots + " snapshots, " + acknowledged.size() + " commits, " + pauses + " pauses, "
                    + reads + " reads (" + readsOnSecondaries + " on secondaries); " + mc.readWaits().minus(waitsAtStart));
            assertTrue(snapshots.get() >= SNAPSHOTS, "snapshots were taken: " + snapshots);
            assertTrue(acknowledged.size() >= COMMITS, "writers made progress: " + acknowledged.size());
            assertTrue(pauses.get() >= PAUSES, "the secondaries were paused: " + pauses);
            assertTrue(reads.get() >= READS && readsOnSecondaries.get() >= READS / 2,
                    "reads ran, on secondaries too: " + reads + " (" + readsOnSecondaries + " on secondaries)");
        }
        try (Connection c = TestDb.open(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, v FROM t ORDER BY id")) {
            Set<Integer> found = new TreeSet<>();
            while (rs.next()) {
                found.add(rs.getInt(1));
                assertEquals(1, rs.getInt(2), "row " + rs.getInt(1) + " came back without its update");
            }
            assertEquals(new TreeSet<>(acknowledged), found, "after " + snapshots.get() + " snapshots");
            TestDb.assertConverged(c);
        } catch (SQLException e) {
            throw new AssertionError("the database could not be opened again after " + snapshots.get() + " snapshots", e);
        }
    }

    @org.junit.jupiter.api.Test
    void aLoggedRecordThatDoesNotApplyIsReportedPreciselyAsDamage(@TempDir Path dir) throws Exception {
        String url = "jdbc:macrodb:h2:mem:damaged_" + Math.abs(dir.hashCode()) + "?replicas=2&durability=log:" + dir;
        long snapshot;
        long second;
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO t VALUES (1, 0)");
            // The snapshot is taken from a secondary, of the version it has applied: without this wait it
            // can be of v0, before the table exists, and the line appended below fails for that reason.
            assertTrue(TestDb.macro(c).admin().awaitCaughtUp(10_000));
            snapshot = TestDb.macro(c).admin().snapshot();
            s.execute("INSERT INTO t VALUES (2, 0)"); // logged after the snapshot
            second = TestDb.macro(c).admin().version();
        }
        // the snapshot already holds the row the log's next record inserts: the record cannot apply
        Path file = dir.resolve(String.format("snapshot-%020d.sql", snapshot));
        java.nio.file.Files.writeString(file, "INSERT INTO PUBLIC.T VALUES (2, 0);\n", java.nio.file.StandardOpenOption.APPEND);
        // ... with its recorded length and checksum gone, as in a snapshot written before they were recorded
        Path seq = dir.resolve(String.format("snapshot-%020d.seq", snapshot));
        java.nio.file.Files.write(seq, java.nio.file.Files.readAllLines(seq).stream().filter(l -> !l.startsWith("#")).toList());
        SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("XX001", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("record v" + second + " does not apply")
                && e.getMessage().contains(file.getFileName().toString()), e::getMessage);
    }

    @org.junit.jupiter.api.Test
    void aTruncatedSnapshotIsDamageNotAQuietlySmallerDatabase(@TempDir Path dir) throws Exception {
        String url = "jdbc:macrodb:h2:mem:truncated_" + Math.abs(dir.hashCode()) + "?replicas=2&durability=log:" + dir;
        long snapshot;
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100))");
            for (int i = 0; i < 200; i++) s.execute("INSERT INTO t VALUES (" + i + ", 'row " + i + "')");
            TestDb.macro(c).admin().awaitCaughtUp(10_000);
            snapshot = TestDb.macro(c).admin().snapshot();
        }
        Path file = dir.resolve(String.format("snapshot-%020d.sql", snapshot));
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 2); // what a torn copy or a full disk leaves: a script that still runs, with rows missing
        }
        SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("XX001", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("damaged") && e.getMessage().contains(file.getFileName().toString()), e::getMessage);
    }
}
