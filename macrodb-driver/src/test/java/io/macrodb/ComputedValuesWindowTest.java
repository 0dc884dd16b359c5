package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A schema change whose values the primary computed ({@code ADD COLUMN ... DEFAULT RAND()} on a table with rows) reaches
 * a secondary as the statement and the primary's values. On an engine whose schema changes commit by themselves (H2,
 * HSQLDB) the secondary's statement commits its own values first, and the primary's values overwrite them only with
 * the record's rows: no reader may run on the secondary in between, or it reads values the primary never had. Readers
 * here accept stale secondaries ({@code bounded}), so that they keep reading there while the change is applied.
 */
class ComputedValuesWindowTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void noReaderSeesTheSecondarysOwnComputedValues(String engine) throws Exception {
        long seed = TestDb.seed("computed values window " + engine);
        int rows = 20_000;
        String url = TestDb.url(engine, "replicas=2&consistency=bounded:1000000&primaryReads=fallback");
        try (Connection writer = TestDb.open(url); Connection reader = TestDb.open(url)) {
            try (Statement s = writer.createStatement()) {
                s.execute("CREATE TABLE person (id INT PRIMARY KEY, name VARCHAR(20))");
                s.execute(engine.equals("h2") ? "INSERT INTO person SELECT x, 'p' || x FROM SYSTEM_RANGE(1, " + rows + ")"
                        : "INSERT INTO person SELECT ROWNUM(), 'p' FROM INFORMATION_SCHEMA.SYSTEM_COLUMNS a,"
                        + " INFORMATION_SCHEMA.SYSTEM_COLUMNS b LIMIT " + rows);
            }
            assertTrue(TestDb.macro(reader).admin().awaitCaughtUp(30_000));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<double[]> seen = new ArrayList<>(); // id, r, on a secondary (1) or not (0)
            Thread r = new Thread(() -> {
                Random rnd = new Random(seed);
                try {
                    reader.setReadOnly(true);
                    reader.setAutoCommit(false);
                    while (!stop.get()) {
                        int id = 1 + rnd.nextInt(rows);
                        try (Statement s = reader.createStatement(); ResultSet rs = s.executeQuery("SELECT r FROM person WHERE id = " + id)) {
                            if (rs.next()) {
                                double v = rs.getDouble(1);
                                if (!rs.wasNull()) {
                                    boolean onSecondary = !TestDb.macro(reader).currentReplica().isPrimary();
                                    synchronized (seen) {
                                        seen.add(new double[] {id, v, onSecondary ? 1 : 0});
                                    }
                                }
                            }
                        } catch (SQLException e) {
                            if (!isNoSuchColumn(e)) throw e; // before the column exists where it read
                        }
                        reader.commit();
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            r.start();
            Thread.sleep(200);
            try (Statement s = writer.createStatement()) {
                s.execute("ALTER TABLE person ADD COLUMN r DOUBLE DEFAULT RAND()");
            }
            assertTrue(TestDb.macro(writer).admin().awaitCaughtUp(60_000));
            Thread.sleep(100);
            stop.set(true);
            r.join();
            assertNull(failure.get(), () -> "the reader failed: " + failure.get());
            Map<Integer, Double> primary = new HashMap<>();
            writer.setReadOnly(false);
            try (Statement s = writer.createStatement(); ResultSet rs = s.executeQuery("SELECT id, r FROM person")) {
                while (rs.next()) primary.put(rs.getInt(1), rs.getDouble(2));
            }
            int onSecondaries = 0;
            List<String> wrong = new ArrayList<>();
            synchronized (seen) {
                for (double[] o : seen) {
                    if (o[2] == 1) onSecondaries++;
                    double p = primary.get((int) o[0]);
                    if (p != o[1] && wrong.size() < 5) {
                        wrong.add("id " + (int) o[0] + ": read " + o[1] + (o[2] == 1 ? " on a secondary" : " on the primary")
                                + ", the primary holds " + p);
                    }
                }
            }
            assertTrue(onSecondaries > 0, "no read ran on a secondary after the change: the test tested nothing");
            assertEquals(List.of(), wrong, () -> seen.size() + " reads of the new column, " + wrong.size()
                    + "+ of them values the primary never had");
            TestDb.assertConverged(writer);
        }
    }

    /** The column does not exist yet where the read ran: H2's 42S22 (42122), HSQLDB's 42501 (-5501). */
    private static boolean isNoSuchColumn(SQLException e) {
        return "42S22".equals(e.getSQLState()) && e.getErrorCode() == 42122 || "42501".equals(e.getSQLState()) && e.getErrorCode() == -5501;
    }
}
