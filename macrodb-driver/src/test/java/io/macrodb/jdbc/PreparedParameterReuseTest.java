package io.macrodb.jdbc;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Parameters of a prepared statement across executions, as JDBC defines them: a value stays set until
 * it is set again or cleared, and a statement run with a parameter unset fails. MacroDB keeps the
 * values itself and binds them on whichever physical statement runs the execution, skipping the
 * physical statement's clearParameters when every value is about to be overwritten: these tests
 * fail if a value cleared or never set could leak from an earlier execution or batch.
 */
class PreparedParameterReuseTest {

    private static void setup(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE p (id INT PRIMARY KEY, a INT, b INT)");
            for (int i = 0; i < 5; i++) s.execute("INSERT INTO p VALUES (" + i + ", " + i + ", " + (10 * i) + ")");
        }
    }

    private static int count(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aValueStaysSetUntilClearedAndAClearedOneIsReportedUnset(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            setup(c);
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM p WHERE a >= ? AND b <= ?")) {
                ps.setInt(1, 1);
                ps.setInt(2, 30);
                assertEquals(3, count(ps));
                ps.setInt(1, 2); // the second value stays set
                assertEquals(2, count(ps));
                ps.clearParameters();
                ps.setInt(1, 0);
                SQLException e = assertThrows(SQLException.class, () -> count(ps), "the second parameter was cleared");
                // H2: 07001 / 90012; HSQLDB: S1000 / -424 "Parameter not set"
                assertTrue(e.getErrorCode() == 90012 || e.getErrorCode() == -424,
                        () -> "unset parameter reported as " + e.getSQLState() + "/" + e.getErrorCode() + ": " + e.getMessage());
                ps.setInt(2, 40);
                assertEquals(5, count(ps));
            }
            c.setAutoCommit(false); // the same physical statement within one transaction on the primary
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM p WHERE a >= ? AND b <= ?")) {
                ps.setInt(1, 1);
                ps.setInt(2, 30);
                assertEquals(3, count(ps));
                ps.clearParameters();
                ps.setInt(1, 1);
                assertThrows(SQLException.class, () -> count(ps), "the second parameter was cleared");
            }
            c.rollback();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aBatchLeavesNothingBehindForTheNextExecution(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            setup(c);
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE p SET b = ? WHERE id = ?")) {
                ps.setInt(1, 7);
                ps.setInt(2, 1);
                assertEquals(1, ps.executeUpdate());
                ps.setInt(1, 8);
                ps.setInt(2, 2);
                ps.addBatch();
                ps.clearParameters();
                ps.setInt(1, 9);
                assertEquals(1, ps.executeBatch().length);
                // only the first parameter is set now: the batch's id must not stand in for the second
                assertThrows(SQLException.class, ps::executeUpdate, "the second parameter is not set");
                ps.setInt(2, 3);
                assertEquals(1, ps.executeUpdate());
            }
            c.commit();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, b FROM p ORDER BY id")) {
                int[] expected = {0, 7, 8, 9, 40};
                for (int want : expected) {
                    assertTrue(rs.next());
                    assertEquals(want, rs.getInt(2), "row " + rs.getInt(1));
                }
            }
            c.commit();
            TestDb.assertConverged(c);
        }
    }
}
