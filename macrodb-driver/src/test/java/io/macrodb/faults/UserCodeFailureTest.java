package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An exception thrown by the application's own code inside the engine fails the statement, not the
 * replica: H2 reports a user aggregate's exception as a general error (50000), the code it also
 * gives sessions of a database that is shutting down. MacroDB probes the engine before it takes
 * such an error for a gone engine; without the probe every retry of the statement failed the
 * primary over to the next secondary.
 */
public class UserCodeFailureTest {

    /** An H2 aggregate whose {@code add} throws, as application code may. */
    public static final class Failing implements org.h2.api.AggregateFunction {
        @Override public void init(Connection c) { }
        @Override public int getType(int[] inputTypes) { return Types.INTEGER; }
        @Override public void add(Object value) { throw new IllegalStateException("the application's aggregate failed"); }
        @Override public Object getResult() { return 0; }
    }

    @Test
    void aUserAggregatesExceptionFailsTheStatementAndNoReplica() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                s.execute("CREATE AGGREGATE FAILING FOR \"" + Failing.class.getName() + "\"");
                s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
            }
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            List<ReplicaStatus> before = mc.replicaStatus();

            // in an update transaction, on the primary
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE t SET v = 10 WHERE id = 1");
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT FAILING(v) FROM t"));
                assertEquals(50000, e.getErrorCode(), e::toString);
                s.executeUpdate("UPDATE t SET v = 20 WHERE id = 2"); // the transaction goes on
            }
            c.commit();

            // in a read-only transaction, on the secondary
            c.setReadOnly(true);
            try (Statement s = c.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT FAILING(v) FROM t"));
                assertEquals(50000, e.getErrorCode(), e::toString);
            }
            c.commit();
            c.setReadOnly(false);
            c.setAutoCommit(true);

            List<ReplicaStatus> after = mc.replicaStatus();
            assertEquals(before.get(0).url(), after.get(0).url(), () -> "the primary was replaced: " + after);
            assertTrue(after.stream().allMatch(r -> r.state() == ReplicaState.ACTIVE), () -> "a replica left: " + after);
            assertEquals(before.get(1).url(), after.get(1).url(), () -> "the secondary was replaced: " + after);
            TestDb.assertConverged(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(v) FROM t")) {
                rs.next();
                assertEquals(30, rs.getInt(1));
            }
        }
    }
}
