package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lag bound: a secondary that cannot keep up holds new update transactions back at
 * {@code maxLag} instead of falling behind without limit.
 */
class LagBoundTest {

    @Test void aSecondaryThatCannotApplyHoldsUpdateTransactionsAtMaxLag() throws Exception {
        int maxLag = 40;
        String url = TestDb.url("h2", "replicas=2&maxLag=" + maxLag + "&lockTimeout=60000&stallTimeout=60000");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            MacroConnection mc = TestDb.macro(c);
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, n INT)");
            s.execute("INSERT INTO t VALUES (0, 0)");
            assertTrue(mc.admin().awaitCaughtUp(10_000));
            ReplicaStatus secondary = mc.replicaStatus().get(1);
            // A session on the secondary's engine locks row 0: the applier waits for it at the next
            // change of that row, and everything after waits in order.
            try (Connection blocker = DriverManager.getConnection(secondary.url(), "sa", "")) {
                blocker.setAutoCommit(false);
                try (Statement b = blocker.createStatement()) {
                    b.executeQuery("SELECT * FROM t WHERE id = 0 FOR UPDATE").close();
                }
                s.execute("UPDATE t SET n = 1 WHERE id = 0");
                long stuckAt = mc.admin().version();
                AtomicInteger done = new AtomicInteger();
                AtomicReference<SQLException> failed = new AtomicReference<>();
                AtomicLong maxSeenLag = new AtomicLong();
                Thread writer = new Thread(() -> {
                    try (Connection w = TestDb.open(url); Statement ws = w.createStatement()) {
                        for (int i = 1; i <= 200; i++) {
                            ws.execute("INSERT INTO t VALUES (" + i + ", 0)");
                            done.incrementAndGet();
                        }
                    } catch (SQLException e) {
                        failed.set(e);
                    }
                }, "lag-bound-writer");
                writer.start();
                long until = System.nanoTime() + 3_000_000_000L;
                while (System.nanoTime() < until) {
                    maxSeenLag.accumulateAndGet(mc.replicaStatus().get(1).lag(), Math::max);
                    Thread.sleep(10);
                }
                assertTrue(writer.isAlive(), "200 update transactions committed while the secondary applied nothing");
                long lag = mc.admin().version() - (stuckAt - 1);
                assertTrue(lag <= maxLag + 1, "the secondary fell " + lag + " versions behind with maxLag=" + maxLag);
                assertTrue(maxSeenLag.get() <= maxLag + 1, "the reported lag reached " + maxSeenLag.get());
                assertTrue(mc.admin().throttledTransactions() > 0);
                blocker.rollback();
                writer.join(60_000);
                assertNull(failed.get());
                assertEquals(200, done.get());
            }
            TestDb.assertConverged(c);
        }
    }

    @Test void maxLagRejectsNonsense() {
        SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                () -> TestDb.open(TestDb.url("h2", "maxLag=lots")).close());
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("maxLag"), e.getMessage());
    }
}
