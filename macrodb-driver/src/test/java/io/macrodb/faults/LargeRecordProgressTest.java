package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A secondary applying one large record is busy, not stuck: the monitor counts the rows its applier sends to the engine
 * (in batches of {@code RowWriter.BATCH_ROWS}) as progress, not only the versions it completes. Before, a transaction
 * that took longer than {@code stallTimeout} to apply failed the secondary ("no progress for 30000 ms at v1 while 2
 * records waited": a 10,000-row Derby insert on a loaded machine), which was then rebuilt, and again at the next large
 * transaction. Here {@code stallTimeout} is 1 s and one record inserts 60,000 rows (a few seconds of apply on a 2-core machine).
 */
class LargeRecordProgressTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite"})
    void aSecondaryApplyingALargeRecordIsNotTakenForStuck(String engine) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.macrodb.testing.TestEngines.all().anyMatch(engine::equals), "not among -Dmacrodb.testEngines");
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2&stallTimeout=1000&rebuild=manual"))) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE big (id INT PRIMARY KEY, name VARCHAR(40), qty INT)");
            }
            c.setAutoCommit(false);
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO big VALUES (?, ?, ?)")) {
                for (int i = 0; i < 60_000; i++) {
                    ins.setInt(1, i);
                    ins.setString(2, "row number " + i);
                    ins.setInt(3, i % 97);
                    ins.addBatch();
                    if (i % 5_000 == 4_999) ins.executeBatch();
                }
            }
            long started = System.nanoTime();
            c.commit();
            c.setAutoCommit(true);
            assertTrue(mc.admin().awaitCaughtUp(120_000), () -> "not caught up: " + mc.replicaStatus());
            long applyMillis = (System.nanoTime() - started) / 1_000_000;
            ReplicaStatus secondary = mc.replicaStatus().get(1);
            assertTrue(secondary.state().name().equals("ACTIVE"), () -> "the secondary was failed while it applied for "
                    + applyMillis + " ms: " + secondary);
            System.out.println(engine + ": 60,000 rows applied in about " + applyMillis + " ms with stallTimeout=1000");
            TestDb.assertConverged(c);
        }
    }
}
