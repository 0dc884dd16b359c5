package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Parallel apply when every transaction writes one shared row, as TPC-C's transactions write their
 * warehouse and district rows: consecutive units of a backlog all depend on each other through that
 * row, and must still be applied in parallel (each writes its own rows at once, and the shared row
 * only after the units before it committed), never write the shared row's images out of order, and
 * make the units visible only in version order.
 */
class ParallelApplyDependenciesTest {

    private static ReplicaStatus secondary(MacroConnection mc, int index) {
        for (ReplicaStatus r : mc.replicaStatus()) if (r.index() == index) return r;
        throw new AssertionError("no replica " + index + ": " + mc.replicaStatus());
    }

    /**
     * Transaction k inserts item k and sets the shared counter to k (with an absolute value, as row
     * propagation ships it: an earlier image written after a later one would leave the counter
     * short). With {@code keyless}, each transaction also appends to a table without a primary key,
     * which writesets know only as a whole table and group compaction does not net: the unit is then
     * written record by record, waiting before its first record that shares a row. A reader of the
     * secondary's engine, outside MacroDB, must always find the counter equal to the number of items.
     */
    @ParameterizedTest(name = "{0}, keyless table {1}")
    @CsvSource({"h2,false", "hsqldb,false", "h2,true", "hsqldb,true"})
    void unitsThatShareARowAreAppliedInParallelAndInOrder(String engine, boolean keyless) throws Exception {
        int transactions = 2000;
        String url = TestDb.url(engine, "replicas=2&applyThreads=4&applyGroup=32");
        try (Connection c = TestDb.open(url)) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)");
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, pad VARCHAR(100))");
                s.execute("CREATE TABLE audit (k INT)");
                s.execute("INSERT INTO counter VALUES (1, 0)");
            }
            assertTrue(mc.admin().awaitCaughtUp(10_000)); // the reader below needs the tables there
            mc.admin().pauseApplying(1, true);
            c.setAutoCommit(false);
            try (PreparedStatement item = c.prepareStatement("INSERT INTO item VALUES (?, ?)");
                 PreparedStatement count = c.prepareStatement("UPDATE counter SET n = n + 1 WHERE id = 1");
                 PreparedStatement audit = c.prepareStatement("INSERT INTO audit VALUES (?)")) {
                for (int k = 1; k <= transactions; k++) {
                    item.setInt(1, k);
                    item.setString(2, "item " + k + " " + "x".repeat(k % 40));
                    item.executeUpdate();
                    if (keyless) {
                        audit.setInt(1, k);
                        audit.executeUpdate();
                    }
                    count.executeUpdate(); // the shared row last, as TPC-C's Payment writes its warehouse
                    c.commit();
                }
            } finally {
                c.setAutoCommit(true);
            }
            ReplicaStatus beforeResume = secondary(mc, 1);
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<String> wrong = new AtomicReference<>();
            AtomicLong reads = new AtomicLong();
            Thread reader = new Thread(() -> {
                try (Connection r = DriverManager.getConnection(beforeResume.url(), "sa", "");
                     Statement s = r.createStatement()) {
                    while (!done.get() && wrong.get() == null) {
                        try (ResultSet rs = s.executeQuery("SELECT (SELECT n FROM counter WHERE id = 1),"
                                + " (SELECT COUNT(*) FROM item), (SELECT COALESCE(MAX(id), 0) FROM item),"
                                + " (SELECT COUNT(*) FROM audit) FROM counter WHERE id = 1")) {
                            rs.next();
                            long n = rs.getLong(1);
                            long items = rs.getLong(2);
                            long maxItem = rs.getLong(3);
                            long audits = rs.getLong(4);
                            reads.incrementAndGet();
                            if (n != items || items != maxItem || keyless && audits != items) {
                                wrong.set("the secondary showed counter " + n + ", " + items + " items up to " + maxItem
                                        + ", " + audits + " audit rows");
                            }
                        }
                    }
                } catch (SQLException e) {
                    wrong.compareAndSet(null, "reader failed: " + e);
                }
            }, "dependent-apply-reader");
            reader.start();
            mc.admin().pauseApplying(1, false);
            try {
                assertTrue(mc.admin().awaitCaughtUp(60_000), () -> "not caught up: " + mc.replicaStatus());
            } finally {
                done.set(true);
                reader.join(10_000);
            }
            ReplicaStatus after = secondary(mc, 1);
            System.out.println("dependent units, " + engine + (keyless ? ", keyless" : "") + ": "
                    + (after.parallelBatches() - beforeResume.parallelBatches()) + " parallel batches, "
                    + (after.parallelRedos() - beforeResume.parallelRedos()) + " units redone, "
                    + reads.get() + " reads; " + after);
            assertNull(wrong.get(), () -> wrong.get() + " after " + reads.get() + " reads");
            assertTrue(reads.get() > 0);
            assertEquals("ACTIVE", after.state().name(), after::toString);
            // a backlog of 2,000 records in units of up to 32 makes dozens of batches of 4 units; the
            // planner before dependencies stopped each batch at the shared row and made none
            assertTrue(after.parallelBatches() - beforeResume.parallelBatches() >= 10,
                    () -> "units that share a row were not applied in parallel: " + after);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT n FROM counter")) {
                rs.next();
                assertEquals(transactions, rs.getInt(1));
            }
            TestDb.assertConverged(c);
        }
    }
}
