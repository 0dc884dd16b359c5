package io.macrodb.capture;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** After a promotion, the new primary's capture images are the rows its transactions leave. */
class AfterPromotionImagesTest {
    @Test
    void aSavepointRollbackOnThePromotedPrimaryKeepsImagesExact() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=3"))) {
            MacroConnection mc = TestDb.macro(c);
            String oldPrimaryUrl = mc.replicaStatus().get(0).url();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE counters (id INT PRIMARY KEY, n BIGINT NOT NULL)");
                s.execute("CREATE TABLE parents (id INT PRIMARY KEY, name VARCHAR(50))");
                for (int i = 0; i < 10; i++) s.execute("INSERT INTO counters VALUES (" + i + ", 0)");
                s.execute("INSERT INTO parents VALUES (7, 'p')");
            }
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            try (Connection k = DriverManager.getConnection(oldPrimaryUrl, "sa", ""); Statement s = k.createStatement()) {
                s.execute("SHUTDOWN IMMEDIATELY");
            } catch (SQLException expectedClose) {
                // closed by its own shutdown
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && !mc.replicaStatus().get(0).stateReason().startsWith("promoted")) Thread.sleep(20);
            long before = TransactionChanges.divergences();
            c.setAutoCommit(false);
            TestDb.inTransaction(c, tx -> {
                try (Statement s = tx.createStatement()) {
                    s.executeUpdate("UPDATE counters SET n = n + 1 WHERE id = 6");
                    Savepoint sp = tx.setSavepoint();
                    s.executeUpdate("UPDATE counters SET n = n + 100 WHERE id = 6");
                    tx.rollback(sp);
                    s.executeUpdate("DELETE FROM parents WHERE id = 7");
                }
            });
            assertEquals(before, TransactionChanges.divergences(), () -> mc.replicaStatus().toString());
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
        }
    }
}
