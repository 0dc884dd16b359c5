package io.macrodb.replica;

import io.macrodb.jdbc.Internals;
import io.macrodb.log.ChangeRecord;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.ref.WeakReference;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication log's retention is bounded: a secondary that failed (and is not rebuilt, with
 * {@code rebuild=manual}) must not keep the records committed after its failure reachable.
 */
class LogRetentionTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void aRecordAppendedAfterASecondaryFailedIsCollected(String engine) throws Exception {
        String url = TestDb.url(engine, "replicas=3&rebuild=manual");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            ReplicaSet rs = Internals.replicaSet(c);
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100))");
            s.execute("INSERT INTO t VALUES (1, 'a')");
            Replica victim = rs.secondaries().get(0);
            try (Connection direct = DriverManager.getConnection(victim.url(), "sa", "");
                 Statement ds = direct.createStatement()) {
                ds.execute(engine.equals("h2") ? "SHUTDOWN IMMEDIATELY" : "SHUTDOWN");
            } catch (java.sql.SQLException e) {
                // H2 reports the shutdown it was asked for as an error on the session that asked
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int i = 2;
            while (victim.state() != ReplicaState.FAILED && System.nanoTime() < deadline) {
                s.execute("INSERT INTO t VALUES (" + i++ + ", 'b')"); // the applier finds its engine gone
                Thread.sleep(20);
            }
            assertEquals(ReplicaState.FAILED, victim.state(), () -> "the secondary did not fail: " + rs.status());
            s.execute("INSERT INTO t VALUES (" + i++ + ", 'after the failure')");
            WeakReference<ChangeRecord> after = new WeakReference<>(rs.log().tail());
            for (int k = 0; k < 50; k++) s.execute("INSERT INTO t VALUES (" + i++ + ", 'more')");
            assertTrue(rs.awaitCaughtUp(30_000));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (after.get() != null && System.nanoTime() < until) {
                System.gc();
                Thread.sleep(50);
            }
            assertTrue(after.get() == null, "a record committed after the secondary failed stayed reachable: "
                    + rs.status());
        }
    }
}
