package io.macrodb.jdbc;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A SQL {@code BEGIN} (HSQLDB's {@code START TRANSACTION}) starts one transaction, as in every engine (H2 2.x,
 * HSQLDB, SQLite, PostgreSQL): when it ends, by SQL or by JDBC, the connection is in autocommit again, and the next
 * statement commits by itself. MacroDB left autocommit off, so the rows of the statements after the transaction were
 * never committed. A plain H2 and HSQLDB connection behave the same ({@code plainEngine...}).
 */
class SqlBeginTest {

    private static String begin(String engine) {
        return engine.equals("hsqldb") ? "START TRANSACTION" : "BEGIN";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void autocommitComesBackWhenTheTransactionEnds(String engine) throws SQLException {
        org.junit.jupiter.api.Assumptions.assumeFalse(engine.equals("derby"), "Derby has no SQL BEGIN");
        String url = TestDb.url(engine, "replicas=2");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sb (k INT PRIMARY KEY)");
            s.execute(begin(engine));
            assertFalse(c.getAutoCommit(), "in the transaction BEGIN started");
            s.execute("INSERT INTO sb VALUES (1)");
            s.execute("COMMIT");
            assertTrue(c.getAutoCommit(), "after its COMMIT");
            s.execute("INSERT INTO sb VALUES (2)"); // commits by itself
            s.execute(begin(engine));
            s.execute("INSERT INTO sb VALUES (3)");
            c.rollback(); // a JDBC end ends it too
            assertTrue(c.getAutoCommit(), "after its rollback()");
            s.execute("INSERT INTO sb VALUES (4)");
            try (Connection other = TestDb.open(url); Statement o = other.createStatement();
                 ResultSet rs = o.executeQuery("SELECT k FROM sb ORDER BY k")) {
                StringBuilder seen = new StringBuilder();
                while (rs.next()) seen.append(rs.getInt(1));
                assertEquals("124", seen.toString(), "what another connection sees");
            }
            TestDb.assertConverged(c);
        }
    }

    /** setAutoCommit(false) is a mode: it stays after commit(), and a BEGIN in it leaves it on. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void setAutoCommitFalseStaysAfterCommit(String engine) throws SQLException {
        org.junit.jupiter.api.Assumptions.assumeFalse(engine.equals("derby"), "Derby has no SQL BEGIN");
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE sc (k INT PRIMARY KEY)");
            c.setAutoCommit(false);
            s.execute(begin(engine));
            s.execute("INSERT INTO sc VALUES (1)");
            s.execute("COMMIT");
            assertFalse(c.getAutoCommit());
            c.commit();
            assertFalse(c.getAutoCommit());
        }
    }
}
