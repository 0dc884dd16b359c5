package io.macrodb.durable;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * durability=log: what a commit acknowledged is there after the replica set is closed and opened
 * again (in memory, the only copy was the log and its snapshots), snapshots let old segments go,
 * a torn tail is cut and reported, a damaged middle refuses to start.
 */
class DurabilityTest {

    private static String url(String engine, Path dir, String more) {
        org.junit.jupiter.api.Assumptions.assumeFalse(engine.equals("postgresql"), "durability=log makes in-memory engines durable;"
                + " PostgreSQL servers keep their data durable themselves and MacroDB refuses durability=log over them with 0AM00"
                + " (PostgresEngineTest.badUrlsAreRefusedWithPreciseStates)");
        String name = "durable_" + Math.abs(dir.hashCode());
        String engineUrl = engine.equals("derby") ? "derby:memory:" + name + ";create=true" : engine + ":mem:" + name;
        return "jdbc:macrodb:" + engineUrl + "?replicas=2&durability=log:" + dir + (more.isEmpty() ? "" : "&" + more);
    }

    private static void workload(Connection c, int from, int to) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO item VALUES (?, ?, ?)");
             PreparedStatement upd = c.prepareStatement("UPDATE item SET qty = qty + 1 WHERE id = ?")) {
            for (int i = from; i < to; i++) {
                ins.setInt(1, i);
                ins.setString(2, "item " + i);
                ins.setInt(3, i % 7);
                ins.executeUpdate();
                if (i > from) {
                    upd.setInt(1, i - 1);
                    upd.executeUpdate();
                }
                if (i % 5 == 4) c.rollback(); // never acknowledged: must not come back
                else c.commit();
            }
        }
        c.setAutoCommit(true);
    }

    private static List<String> state(Connection c) throws SQLException {
        List<String> rows = new java.util.ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, name, qty FROM item ORDER BY id")) {
            while (rs.next()) rows.add(rs.getInt(1) + "/" + rs.getString(2) + "/" + rs.getInt(3));
        }
        return rows;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.macrodb.testing.TestEngines#withPropagation")
    void everyAcknowledgedCommitSurvivesARestart(String engine, String propagation, @TempDir Path dir) throws Exception {
        String url = url(engine, dir, "propagation=" + propagation + "&snapshotEvery=25");
        List<String> before;
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40), qty INT)");
            }
            workload(c, 0, 120);
            TestDb.assertConverged(c);
            before = state(c);
        }
        try (Connection c = TestDb.open(url)) {
            String status = TestDb.macro(c).admin().durabilityStatus();
            assertTrue(status.startsWith("recovered v"), status);
            assertEquals(before, state(c), "the recovered database is the one that was acknowledged");
            TestDb.assertConverged(c);
            workload(c, 1000, 1040); // and it goes on from there
            before = state(c);
        }
        try (Connection c = TestDb.open(url)) {
            assertEquals(before, state(c));
            TestDb.assertConverged(c);
        }
        try (Stream<Path> files = Files.list(dir)) {
            long snapshots = files.filter(p -> p.getFileName().toString().matches("snapshot-\\d+\\.sql")).count();
            assertEquals(1, snapshots, "older snapshots are deleted");
        }
        try (Stream<Path> files = Files.list(dir)) {
            // restoring from a snapshot leaves nothing beside it (SQLite made a -wal and a -shm for each)
            assertEquals(List.of(), files.map(p -> p.getFileName().toString()).filter(n -> n.matches("snapshot-\\d+\\.sql.+")).toList());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("io.macrodb.testing.TestEngines#withPropagation")
    void sequencesAndIdentitiesNeverHandOutAValueTwiceAfterARestart(String engine, String propagation, @TempDir Path dir)
            throws Exception {
        // snapshotEvery=5: the restart starts from a snapshot of a secondary, whose own generators never moved
        String url = url(engine, dir, "propagation=" + propagation + "&snapshotEvery=5");
        boolean rowMode = propagation.equals("row");
        if (engine.equals("sqlite")) {
            sqliteAutoincrementNeverHandsOutAValueTwiceAfterARestart(url);
            return;
        }
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE SEQUENCE seq START WITH 1");
                s.execute("CREATE TABLE ticket (id BIGINT PRIMARY KEY, note VARCHAR(20))");
                s.execute("CREATE TABLE auto (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1) PRIMARY KEY, note VARCHAR(20))");
                for (int i = 0; i < 20; i++) {
                    s.execute("INSERT INTO ticket VALUES (NEXT VALUE FOR seq, 'before')");
                    s.execute(rowMode ? "INSERT INTO auto (note) VALUES ('before')" : "INSERT INTO auto (id, note) VALUES (" + (i + 1) + ", 'before')");
                }
            }
            TestDb.assertConverged(c);
        }
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            for (int i = 0; i < 5; i++) {
                s.execute("INSERT INTO ticket VALUES (NEXT VALUE FOR seq, 'after')"); // a used value would be a duplicate key
                if (rowMode) s.execute("INSERT INTO auto (note) VALUES ('after')");
            }
            try (ResultSet rs = s.executeQuery("SELECT MIN(id) FROM ticket WHERE note = 'after'")) {
                rs.next();
                assertTrue(rs.getLong(1) > 20, "the sequence went on past what was handed out before the restart");
            }
            TestDb.assertConverged(c);
        }
    }

    /**
     * SQLite has no sequences: an AUTOINCREMENT key's counter ({@code sqlite_sequence}) is what must go
     * on past every value handed out, even of rows deleted before the restart (a plain rowid would
     * reuse them, as SQLite itself does).
     */
    private static void sqliteAutoincrementNeverHandsOutAValueTwiceAfterARestart(String url) throws Exception {
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE auto (id INTEGER PRIMARY KEY AUTOINCREMENT, note VARCHAR(20))");
            for (int i = 0; i < 20; i++) s.execute("INSERT INTO auto (note) VALUES ('before')");
            s.execute("DELETE FROM auto WHERE id > 15");
            TestDb.assertConverged(c);
        }
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            for (int i = 0; i < 5; i++) s.execute("INSERT INTO auto (note) VALUES ('after')");
            try (ResultSet rs = s.executeQuery("SELECT MIN(id) FROM auto WHERE note = 'after'")) {
                rs.next();
                assertEquals(21, rs.getLong(1), "the counter went on past what was handed out before the restart");
            }
            TestDb.assertConverged(c);
        }
    }

    @Test
    void aSnapshotLetsTheSegmentsBeforeItGo(@TempDir Path dir) throws Exception {
        String url = url("h2", dir, "");
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40), qty INT)");
            }
            workload(c, 0, 30);
            long segmentsBefore = segments(dir).size();
            assertTrue(TestDb.macro(c).admin().awaitCaughtUp(10_000)); // the snapshot is of what a secondary applied
            long v = TestDb.macro(c).admin().snapshot();
            assertTrue(v > 0);
            assertTrue(Files.exists(dir.resolve(SnapshotStore.name(v))));
            assertTrue(segments(dir).size() <= segmentsBefore, "segments wholly before the snapshot are gone");
        }
    }

    private static List<Path> segments(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".seg")).sorted().toList();
        }
    }

    private static Path lastSegmentWithRecords(Path dir) throws IOException {
        Path last = null;
        for (Path p : segments(dir)) if (Files.size(p) > DurableLog.MAGIC.length) last = p;
        return last;
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void aTornTailIsCutAndReported(String engine, @TempDir Path dir) throws Exception {
        String url = url(engine, dir, "");
        List<String> before;
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40), qty INT)");
            }
            workload(c, 0, 20);
            before = state(c);
        }
        Path seg = lastSegmentWithRecords(dir);
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            // the start of a frame that a crash interrupted: a length, part of a version
            ch.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 42, 0, 0, 0}));
        }
        try (Connection c = TestDb.open(url)) {
            String status = TestDb.macro(c).admin().durabilityStatus();
            assertTrue(status.contains("cut a torn record"), status);
            assertEquals(before, state(c));
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void aDamagedMiddleRefusesToStart(String engine, @TempDir Path dir) throws Exception {
        String url = url(engine, dir, "");
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40), qty INT)");
            }
            workload(c, 0, 20);
        }
        Path seg = lastSegmentWithRecords(dir);
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            long at = DurableLog.MAGIC.length + 20; // inside the first record's payload
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x5a));
            b.rewind();
            ch.write(b, at);
        }
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("XX001", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains("Restore the directory from a backup"), e.getMessage());
    }

    @Test
    void theDataSourceBuilderConfiguresDurability(@TempDir Path dir) throws Exception {
        io.macrodb.jdbc.MacroDataSource ds = io.macrodb.jdbc.MacroDataSource.builder().engineUrl("h2:mem:builder_durable")
                .replicas(2).durableLog(dir).fsync("commit").snapshotEvery(1000).user("sa").password("").build();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            s.execute("INSERT INTO t VALUES (7)");
        }
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM t")) {
            assertTrue(rs.next());
            assertEquals(7, rs.getInt(1));
        }
    }

    @Test
    void misuseIsRefusedUpFront(@TempDir Path dir) {
        SQLException file = assertThrows(SQLException.class,
                () -> TestDb.open("jdbc:macrodb:h2:file:" + dir.resolve("db") + "?durability=log:" + dir.resolve("log")).close());
        assertEquals("08001", file.getSQLState());
        assertTrue(file.getMessage().contains("file database"), file.getMessage());
        SQLException fsync = assertThrows(SQLException.class, () -> TestDb.open(url("h2", dir, "fsync=sometimes")).close());
        assertEquals("08001", fsync.getSQLState());
        SQLException alone = assertThrows(SQLException.class, () -> TestDb.open(TestDb.url("h2", "fsync=commit")).close());
        assertTrue(alone.getMessage().contains("durability=log"), alone.getMessage());
    }
}
