package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Derby locks rows for readers as well as writers, and MacroDB's parts that meet on rows must not wait for each other
 * there: a secondary's readers and its applier take turns ({@code ReadApplyGate}); a lock wait that ends a Derby
 * transaction while its rows are fetched ends MacroDB's transaction too; a read on the primary leaves no locks behind
 * once its result is closed. Each test fails without the part it names.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DerbyLockingTest {

    private static void accounts(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal BIGINT NOT NULL)");
            s.execute("INSERT INTO acct VALUES (1, 100), (2, 100), (3, 100)");
        }
        if (!c.getAutoCommit()) c.commit();
    }

    private static long balance(Connection c, int id) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT bal FROM acct WHERE id = " + id)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    private static long secondaryVersion(MacroConnection mc) {
        return mc.replicaStatus().stream().filter(r -> !r.role().equals("primary")).mapToLong(ReplicaStatus::version).max().orElseThrow();
    }

    /**
     * A read-only transaction at READ COMMITTED on a secondary holds the applier off until it ends, so its second
     * statement sees the state its first one did. Without the turns the applier writes beside it and the second read
     * sees the transfer (70), which an application reading at READ COMMITTED on Derby could see too, but only between
     * statements that Derby's locks order; here they would also meet inside one scan.
     */
    @Test
    void aReadOnlyTransactionOnASecondaryHoldsTheApplierOffUntilItEnds() throws Exception {
        String url = TestDb.url("derby", "replicas=2&readWait=5000");
        try (Connection w = TestDb.open(url); Connection r = TestDb.open(url)) {
            accounts(w);
            MacroConnection mw = TestDb.macro(w);
            assertTrue(mw.admin().awaitCaughtUp(5_000));
            r.setReadOnly(true);
            r.setAutoCommit(false);
            assertEquals(100, balance(r, 1));
            assertFalse(TestDb.macro(r).currentReplica().isPrimary(), "the read runs on the secondary");
            long before = secondaryVersion(mw);

            w.setAutoCommit(false);
            try (Statement s = w.createStatement()) {
                s.executeUpdate("UPDATE acct SET bal = bal - 30 WHERE id = 1");
                s.executeUpdate("UPDATE acct SET bal = bal + 30 WHERE id = 2");
            }
            w.commit();
            Thread.sleep(300); // the applier has the transfer and waits for its turn
            assertEquals(before, secondaryVersion(mw), "the secondary applied beside an open read-only transaction");
            assertEquals(100, balance(r, 1), "the second statement saw what the first did not");
            assertEquals(100, balance(r, 2));
            r.commit();

            assertTrue(mw.admin().awaitCaughtUp(5_000), "the applier goes on once the reader has ended");
            assertEquals(70, balance(r, 1));
            r.commit();
        }
    }

    /**
     * A read-only transaction left open on the only secondary holds its applier, and a reader that comes after a commit
     * (so the applier waits for its turn) does not wait behind it past lockTimeout: it runs on the primary, which is
     * fresh.
     */
    @Test
    void aReaderBehindAWaitingApplierRunsOnThePrimaryAfterLockTimeout() throws Exception {
        String url = TestDb.url("derby", "replicas=2&readWait=5000&lockTimeout=1000");
        try (Connection w = TestDb.open(url); Connection open = TestDb.open(url); Connection late = TestDb.open(url)) {
            accounts(w);
            MacroConnection mw = TestDb.macro(w);
            assertTrue(mw.admin().awaitCaughtUp(5_000));
            open.setReadOnly(true);
            open.setAutoCommit(false);
            assertEquals(100, balance(open, 3));
            assertFalse(TestDb.macro(open).currentReplica().isPrimary());

            try (Statement s = w.createStatement()) {
                s.executeUpdate("UPDATE acct SET bal = 5 WHERE id = 3");
            }
            late.setReadOnly(true);
            late.setAutoCommit(false);
            long started = System.nanoTime();
            assertEquals(5, balance(late, 3), "the late reader sees the commit that returned before it began");
            assertTrue(TestDb.macro(late).currentReplica().isPrimary(), "it ran on the primary");
            assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(900), "it waited about lockTimeout first");
            late.commit();
            open.commit();
            assertTrue(mw.admin().awaitCaughtUp(5_000));
        }
    }

    /**
     * A lock timeout while an update transaction's rows are fetched rolls back Derby's whole transaction. MacroDB's
     * ends with it (40001): otherwise its later commit would ship the row it had changed before, which the primary no
     * longer has, and the secondary would diverge.
     */
    @Test
    void aLockTimeoutWhileRowsAreFetchedEndsTheTransaction() throws Exception {
        String url = TestDb.url("derby", "replicas=2&lockTimeout=1000");
        try (Connection holder = TestDb.open(url); Connection c = TestDb.open(url)) {
            accounts(holder);
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.executeUpdate("UPDATE acct SET bal = 0 WHERE id = 3"); // row 3 stays locked
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE acct SET bal = 1 WHERE id = 1");
                try (ResultSet rs = s.executeQuery("SELECT id, bal FROM acct")) { // Derby waits at the first fetch
                    SQLException e = assertThrows(SQLException.class, () -> {
                        while (rs.next()) rs.getLong(2);
                    });
                    assertEquals("40001", e.getSQLState(), e.toString());
                }
            }
            c.commit(); // nothing is left to commit
            holder.rollback();
            assertEquals(100, balance(holder, 1), "the engine rolled the update back");
            holder.commit();
            TestDb.assertConverged(holder);
        }
    }

    /**
     * An autocommit query on the primary ends its engine transaction as it executes; reading the held result after
     * that starts another, which at REPEATABLE READ keeps its row locks. Closing the result ends it: a writer of
     * those rows then goes on, where it would wait out lockTimeout.
     */
    @Test
    void aClosedResultOnThePrimaryLeavesNoLocks() throws Exception {
        String url = TestDb.url("derby", "replicas=1&lockTimeout=1000");
        try (Connection reader = TestDb.open(url); Connection w = TestDb.open(url)) {
            accounts(w);
            reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            long sum = 0;
            try (Statement s = reader.createStatement(); ResultSet rs = s.executeQuery("SELECT bal FROM acct")) {
                while (rs.next()) sum += rs.getLong(1);
            }
            assertEquals(300, sum);
            try (Statement s = w.createStatement()) {
                assertEquals(1, s.executeUpdate("UPDATE acct SET bal = 7 WHERE id = 2"), "the writer waited for the reader's locks");
            }
        }
    }

    /**
     * MacroDB reads the sequences' positions in every committing transaction that drew from one, and in the
     * transaction that restarts them on a promoted secondary. Reading them must lock no sequence: with Derby's
     * {@code SYSCS_PEEK_AT_SEQUENCE}, a sequence created (or re-created, as a restart does) and not yet compiled against
     * was looked up in {@code SYSSEQUENCES} at REPEATABLE READ, the reader's transaction kept that row locked, and
     * another session's {@code NEXT VALUE FOR} failed at once with X0Y84 ("Too much contention on sequence") until it
     * ended. Plain Derby sessions, MacroDB's engine call.
     */
    @Test
    void readingSequencePositionsLocksNoSequence() throws Exception {
        String url = "jdbc:derby:memory:seqpos_" + Long.toHexString(System.nanoTime());
        io.macrodb.engine.DerbyEngine engine = new io.macrodb.engine.DerbyEngine();
        try (Connection admin = java.sql.DriverManager.getConnection(url + ";create=true");
             Connection committing = java.sql.DriverManager.getConnection(url);
             Connection other = java.sql.DriverManager.getConnection(url)) {
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE SEQUENCE seq START WITH 1");
            }
            committing.setAutoCommit(false);
            java.util.Map<String, Long> positions = engine.sequencePositions(committing); // its transaction stays open
            assertEquals(1L, positions.get("\"APP\".\"SEQ\""), positions.toString());
            try (Statement s = other.createStatement(); ResultSet rs = s.executeQuery("VALUES NEXT VALUE FOR seq")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getLong(1));
            } catch (SQLException e) {
                throw new AssertionError("another session could not draw from the sequence while a transaction that read the"
                        + " positions was open: " + e.getSQLState() + " " + e.getMessage(), e);
            }
            java.util.Map<String, Long> after = engine.sequencePositions(committing);
            assertTrue(after.get("\"APP\".\"SEQ\"") > 1, "the position is past the value handed out: " + after);
            committing.commit();
        } finally {
            try {
                java.sql.DriverManager.getConnection(url + ";drop=true").close();
            } catch (SQLException dropped) {
                // 08006
            }
        }
    }
}
