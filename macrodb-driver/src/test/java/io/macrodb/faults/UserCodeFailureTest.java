package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.io.Reader;
import java.sql.Connection;
import java.sql.PreparedStatement;
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

    /** A value whose text the engine's driver asks for, and which throws, as an application's object may. */
    private static final Object BROKEN_VALUE = new Object() {
        @Override public String toString() {
            throw new IllegalStateException("the application's value failed");
        }
    };

    /**
     * An unchecked exception out of a JDBC call arrives as an SQLException with the exception as its cause, on every
     * engine, and fails only the statement. HSQLDB's and SQLite's drivers pass on what an application's value throws
     * as it is (H2 and Derby wrap it), and MacroDB passed that on as it was, and also what an application's stream
     * threw while MacroDB read it. A pool or framework that handles SQLException only saw an exception it did not
     * expect. The engine answers afterwards, so no replica is failed and the transaction goes on.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void anUncheckedExceptionOfTheApplicationsValueOrStreamArrivesAsAnSQLException(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, c VARCHAR(40))");
                s.execute("INSERT INTO t (id, v) VALUES (1, 1)");
            }
            List<ReplicaStatus> before = mc.replicaStatus();
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE t SET c = ? WHERE id = 1")) {
                ps.setObject(1, BROKEN_VALUE, Types.VARCHAR);
                // H2 and Derby refuse the value's type; HSQLDB, SQLite and PostgreSQL ask for its text
                SQLException e = assertThrows(SQLException.class, ps::executeUpdate);
                boolean askedForText = !engine.equals("h2") && !engine.equals("derby");
                assertEquals(askedForText, causes(e, "the application's value failed"), () -> "the application's exception is the cause: " + e);

                InputStream stream = new InputStream() {
                    @Override public int read() {
                        throw new IllegalStateException("the application's stream failed");
                    }
                };
                SQLException s = assertThrows(SQLException.class, () -> {
                    ps.setAsciiStream(1, stream);
                    ps.executeUpdate();
                });
                assertEquals("22000", s.getSQLState(), s::toString);
                assertTrue(causes(s, "the application's stream failed"), s::toString);

                Reader reader = new Reader() {
                    @Override public int read(char[] b, int off, int len) {
                        throw new IllegalStateException("the application's reader failed");
                    }

                    @Override public void close() { }
                };
                SQLException r = assertThrows(SQLException.class, () -> {
                    ps.setCharacterStream(1, reader);
                    ps.executeUpdate();
                });
                assertEquals("22000", r.getSQLState(), r::toString);
                assertTrue(causes(r, "the application's reader failed"), r::toString);

                ps.setString(1, "kept");
                assertEquals(1, ps.executeUpdate(), "the transaction goes on");
            }
            c.commit();
            c.setAutoCommit(true);
            List<ReplicaStatus> after = mc.replicaStatus();
            assertEquals(before.get(0).url(), after.get(0).url(), () -> "the primary was replaced: " + after);
            assertTrue(after.stream().allMatch(r -> r.state() == ReplicaState.ACTIVE), () -> "a replica left: " + after);
            assertTrue(mc.admin().awaitCaughtUp(10_000));
            TestDb.assertConverged(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT c FROM t WHERE id = 1")) {
                assertTrue(rs.next());
                assertEquals("kept", rs.getString(1));
            }
        }
    }

    private static boolean causes(Throwable t, String message) {
        for (Throwable x = t; x != null; x = x.getCause()) {
            if (x instanceof IllegalStateException && message.equals(x.getMessage())) return true;
        }
        return false;
    }
}
