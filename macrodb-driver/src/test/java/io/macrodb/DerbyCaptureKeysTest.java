package io.macrodb;

import io.macrodb.engine.CaptureContext;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Derby's capture triggers pass only a row's key, and MacroDB reads every changed row back by that key at commit. In
 * the randomized failover workload a trigger reported a key that was not the row's (a retried
 * {@code INSERT ... VALUES (NEXT VALUE FOR seq, ...)}: the commit read nothing back at the reported key and shipped an
 * empty record, while the primary kept the row it had inserted; a later update of that row failed on every secondary).
 * The check that the rows read back are the rows the triggers reported ran only with trusted trigger images, which
 * key-only triggers never give: it runs now on every table whose rows no failed statement of the transaction changed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public class DerbyCaptureKeysTest { // public: Derby calls staleKey by its class name
    private static volatile String schema;

    /** Called by Derby as {@code STALE_KEY()}: reports an insert of key 99 of ACCT, a row no statement wrote (a wrong key). */
    public static int staleKey() throws SQLException {
        CaptureContext.current().onRow(schema, "ACCT", null, new Object[] {99, 100L});
        return 1;
    }

    @Test
    void aKeyReportedByATriggerThatReadsBackAbsentFailsTheCommitInsteadOfShippingNothing() throws Exception {
        String url = TestDb.url("derby", "replicas=2");
        try (Connection w = TestDb.open(url)) {
            try (Statement s = w.createStatement()) {
                s.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal BIGINT NOT NULL)");
                s.execute("CREATE TABLE other (id INT PRIMARY KEY)");
                s.execute("INSERT INTO other VALUES (1)");
                s.execute("CREATE FUNCTION stale_key() RETURNS INT PARAMETER STYLE JAVA NO SQL LANGUAGE JAVA EXTERNAL NAME '"
                        + DerbyCaptureKeysTest.class.getName() + ".staleKey'");
                try (ResultSet rs = s.executeQuery("VALUES CURRENT SCHEMA")) {
                    assertTrue(rs.next());
                    schema = rs.getString(1);
                }
            }
            w.setAutoCommit(false);
            try (Statement s = w.createStatement()) {
                s.executeUpdate("INSERT INTO acct VALUES (1, 100)");
                // evaluated while the statement runs, in its capture context, as a trigger is
                s.executeUpdate("UPDATE acct SET bal = bal + stale_key() - 1 WHERE id = 1");
            }
            SQLException e = assertThrows(SQLException.class, w::commit, "a commit whose triggers named a row that is not there");
            assertEquals("40001", e.getSQLState(), e::toString);
            w.setAutoCommit(true);
            try (Statement s = w.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM acct")) {
                assertTrue(rs.next());
                assertEquals(0, rs.getInt(1), "the transaction was rolled back");
            }
            // the application's retry, with triggers that report the right key, commits and ships its row
            try (Statement s = w.createStatement()) {
                s.executeUpdate("INSERT INTO acct VALUES (1, 100)");
            }
            assertTrue(TestDb.macro(w).admin().awaitCaughtUp(5_000));
            TestDb.assertConverged(w);

            // A failed statement leaves the check off only for the tables whose rows it changed: the engine may have undone
            // rows its triggers reported there, not elsewhere (seen: an INSERT INTO parents failing on a duplicate key, and
            // a key of ITEMS read back with a row no statement wrote shipped in the same record)
            w.setAutoCommit(false);
            try (Statement s = w.createStatement()) {
                s.executeUpdate("INSERT INTO acct VALUES (2, 100)");
                assertEquals("23505", assertThrows(SQLException.class, () -> s.executeUpdate("INSERT INTO other VALUES (1)")).getSQLState());
                s.executeUpdate("UPDATE acct SET bal = bal + stale_key() - 1 WHERE id = 2");
            }
            e = assertThrows(SQLException.class, w::commit, "a failed statement on another table does not turn the check off");
            assertEquals("40001", e.getSQLState(), e::toString);
            w.setAutoCommit(true);
            assertTrue(TestDb.macro(w).admin().awaitCaughtUp(5_000));
            TestDb.assertConverged(w);
        }
    }
}
