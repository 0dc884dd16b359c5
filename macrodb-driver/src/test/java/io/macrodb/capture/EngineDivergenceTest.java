package io.macrodb.capture;

import io.macrodb.engine.CaptureContext;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An engine that changes rows behind a transaction's capture triggers (H2 does, under deadlocks:
 * benchmarks/h2-isolation) must not make a secondary hold what the primary does not. The test makes
 * the capture see a row the engine never wrote, from an SQL function that reports it through the
 * transaction's own capture context, the way H2's trigger reported a row another transaction then
 * removed. The commit must fail with 40001, ship nothing, and hand the primary over to a secondary.
 */
public class EngineDivergenceTest {

    /** Called by H2 as the function {@code PHANTOM()}: reports a row of T that nobody inserted. */
    public static int phantom() throws SQLException {
        CaptureContext.current().onRow("PUBLIC", "T", null, new Object[] {99, "ghost"});
        return 1;
    }

    @Test
    void aRowTheEngineDidNotKeepFailsTheCommitAndReplacesThePrimary() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=3"))) {
            MacroConnection mc = TestDb.macro(c);
            String oldPrimary = mc.replicaStatus().get(0).url();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
                s.execute("CREATE ALIAS PHANTOM FOR \"" + EngineDivergenceTest.class.getName() + ".phantom\"");
                s.execute("INSERT INTO t VALUES (1, 'a')");
            }
            long before = TransactionChanges.divergences();
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO t VALUES (2, 'b')");
                try (ResultSet rs = s.executeQuery("SELECT PHANTOM()")) {
                    rs.next();
                }
            }
            SQLException e = assertThrows(SQLException.class, c::commit);
            assertEquals("40001", e.getSQLState(), e::toString);
            assertEquals(before + 1, TransactionChanges.divergences());

            long deadline = System.nanoTime() + 20_000_000_000L;
            while (System.nanoTime() < deadline && !mc.replicaStatus().get(0).stateReason().startsWith("promoted")) Thread.sleep(20);
            assertTrue(mc.replicaStatus().get(0).stateReason().startsWith("promoted"), () -> "no promotion: " + mc.replicaStatus());
            assertTrue(!mc.replicaStatus().get(0).url().equals(oldPrimary), () -> "the primary stayed: " + mc.replicaStatus());

            // the retried transaction commits on the new primary, and no replica holds the phantom row
            TestDb.inTransaction(c, tx -> {
                try (Statement s = tx.createStatement()) {
                    s.execute("INSERT INTO t VALUES (2, 'b')");
                }
            });
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            List<String> rows = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v FROM t ORDER BY id")) {
                while (rs.next()) rows.add(rs.getInt(1) + rs.getString(2));
            }
            assertEquals(List.of("1a", "2b"), rows);
        }
    }
}
