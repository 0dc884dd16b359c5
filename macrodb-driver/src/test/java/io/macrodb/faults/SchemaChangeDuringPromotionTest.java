package io.macrodb.faults;

import io.macrodb.engine.CaptureContext;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.Failovers;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A schema change that waits for an open update transaction while the primary is replaced must not
 * run on the replaced engine (which stays up when it was replaced for diverging) and be logged: the
 * secondaries would then have a table the new primary lacks. It fails with 40001, and its retry runs
 * on the new primary.
 */
public class SchemaChangeDuringPromotionTest {

    /** Called by H2 as {@code PHANTOM()}: reports a row that no statement wrote, so the commit's check fails. */
    public static int phantom() throws SQLException {
        CaptureContext.current().onRow("PUBLIC", "T", null, new Object[] {99, 99});
        return 1;
    }

    @Test
    void aSchemaChangeThatWaitedThroughAPromotionIsRefusedAndItsRetryRunsOnTheNewPrimary() throws Exception {
        String url = TestDb.url("h2", "replicas=3&lockTimeout=20000");
        try (Connection admin = TestDb.open(url); Connection holder = TestDb.open(url); Connection ddl = TestDb.open(url);
             Connection diverging = TestDb.open(url)) {
            MacroConnection mc = TestDb.macro(admin);
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                s.execute("CREATE ALIAS PHANTOM FOR \"" + SchemaChangeDuringPromotionTest.class.getName() + ".phantom\"");
                s.execute("INSERT INTO t VALUES (1, 1)");
            }
            try (Statement s = ddl.createStatement()) {
                s.execute("SELECT COUNT(*) FROM t"); // its session is on the first primary
            }
            // two update transactions in the update gate: one holds every schema change back, the other's
            // commit will find its engine diverged (the gate keeps out new ones while a schema change waits)
            diverging.setAutoCommit(false);
            try (Statement s = diverging.createStatement()) {
                s.executeUpdate("UPDATE t SET v = 3 WHERE id = 1 AND 1 = 0");
            }
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("UPDATE t SET v = 2 WHERE id = 1");
            }
            CompletableFuture<SQLException> waiting = CompletableFuture.supplyAsync(() -> {
                try (Statement s = ddl.createStatement()) {
                    s.execute("CREATE TABLE u (id INT PRIMARY KEY)");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            Thread.sleep(300); // the schema change now waits for the holder
            assertFalse(waiting.isDone(), "the schema change should wait for the open update transaction");

            // the primary is replaced meanwhile (its engine stays up)
            try (Statement s = diverging.createStatement(); ResultSet rs = s.executeQuery("SELECT PHANTOM()")) {
                rs.next();
            }
            assertEquals("40001", assertThrows(SQLException.class, diverging::commit).getSQLState());
            Failovers.awaitPromotion(mc);

            holder.rollback(); // the schema change goes on, on an engine that is no longer the primary
            SQLException refused = waiting.get(30, TimeUnit.SECONDS);
            assertEquals("40001", refused == null ? "none: it ran on the replaced primary" : refused.getSQLState(),
                    () -> String.valueOf(refused));
            assertTrue(refused.getMessage().contains("primary"), refused::getMessage); // not the lockTimeout's 40001

            try (Statement s = ddl.createStatement()) {
                s.execute("CREATE TABLE u (id INT PRIMARY KEY)"); // the retry, on the new primary
                s.execute("INSERT INTO u VALUES (1)");
            }
            TestDb.assertConverged(admin);
        }
    }
}
