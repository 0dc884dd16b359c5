package io.macrodb;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.route.ShapeLearning;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transactions that never call setReadOnly (autocommit off, SELECTs, maybe writes, commit): they
 * start on a secondary; at their first write they move to the primary, which re-runs their reads
 * and compares; a changed read fails the transaction with 40001 and changes nothing.
 */
class UndeclaredTransactionTest {

    private static Connection open(String url) throws SQLException {
        Connection c = TestDb.open(url);
        c.setAutoCommit(false);
        return c;
    }

    private static void setup(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL)");
            for (int i = 1; i <= 20; i++) s.execute("INSERT INTO acct VALUES (" + i + ", 100)");
        }
        c.commit();
    }

    private static int balance(Connection c, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT bal FROM acct WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void aReadOnlyTransactionThatNeverSaidSoRunsOnASecondary(String engine) throws Exception {
        try (Connection c = open(TestDb.url(engine, "replicas=2"))) {
            setup(c);
            MacroConnection mc = TestDb.macro(c);
            mc.admin().awaitCaughtUp(5_000); // so that readWait plays no part here
            assertEquals(100, balance(c, 1));
            assertFalse(mc.currentReplica().isPrimary(), "an undeclared read starts on a secondary");
            assertEquals(100, balance(c, 2));
            c.commit();
        }
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void aWriteMovesTheTransactionToThePrimaryWhenItsReadsStillHold(String engine) throws Exception {
        try (Connection c = open(TestDb.url(engine, "replicas=2"))) {
            setup(c);
            MacroConnection mc = TestDb.macro(c);
            mc.admin().awaitCaughtUp(5_000);
            int b = balance(c, 1);
            assertFalse(mc.currentReplica().isPrimary());
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE acct SET bal = " + (b - 10) + " WHERE id = 1");
            }
            assertTrue(mc.currentReplica().isPrimary(), "after its first write the transaction runs on the primary");
            assertEquals(90, balance(c, 1), "and sees its own write");
            c.commit();
            TestDb.assertConverged(c);
            assertEquals(90, balance(c, 1));
            c.commit();
            assertTrue(mc.routingStats().stream().anyMatch(s -> s.promoted() > 0), mc.routingStats().toString());
        }
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void aReadThatChangedBeforeTheFirstWriteFailsWith40001AndChangesNothing(String engine) throws Exception {
        String url = TestDb.url(engine, "replicas=2");
        try (Connection c = open(url); Connection other = TestDb.open(url)) {
            setup(c);
            int b = balance(c, 1);
            try (Statement s = other.createStatement()) {
                s.executeUpdate("UPDATE acct SET bal = bal + 1 WHERE id = 1"); // commits in between
            }
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE acct SET bal = " + (b - 10) + " WHERE id = 1"); // would lose the +1
                }
            });
            assertEquals("40001", e.getSQLState());
            assertTrue(e.getMessage().contains("retry"), e.getMessage());
            c.rollback();
            assertEquals(101, balance(c, 1), "the stale write never happened");
            c.commit();
            TestDb.assertConverged(other);
            assertTrue(TestDb.macro(c).routingStats().stream().anyMatch(s -> s.conflicts() > 0));
        }
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void anOpenResultSetReadsOnFromThePrimaryAfterTheMove(String engine) throws Exception {
        try (Connection c = open(TestDb.url(engine, "replicas=2"))) {
            setup(c);
            List<Integer> seen = new ArrayList<>();
            try (Statement q = c.createStatement(); ResultSet rs = q.executeQuery("SELECT id, bal FROM acct ORDER BY id");
                 PreparedStatement upd = c.prepareStatement("UPDATE acct SET bal = ? WHERE id = ?")) {
                while (rs.next()) {
                    int id = rs.getInt(1);
                    seen.add(id);
                    upd.setInt(1, rs.getInt(2) * 2);
                    upd.setInt(2, id);
                    upd.executeUpdate(); // the first one moves the transaction while rs is open
                }
            }
            c.commit();
            assertEquals(20, seen.size());
            TestDb.assertConverged(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(bal) FROM acct")) {
                rs.next();
                assertEquals(4000, rs.getInt(1));
            }
            c.commit();
        }
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void shapesThatKeepWritingLearnToStartOnThePrimary(String engine) throws Exception {
        try (Connection c = open(TestDb.url(engine, "replicas=2"))) {
            setup(c);
            MacroConnection mc = TestDb.macro(c);
            for (int i = 0; i < 20; i++) {
                int b = balance(c, 3);
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE acct SET bal = " + (b + 1) + " WHERE id = 3");
                }
                c.commit();
            }
            balance(c, 3);
            assertTrue(mc.currentReplica().isPrimary(), "after enough promotions this shape starts on the primary: " + mc.routingStats());
            c.commit();
            ShapeLearning.ShapeStats stats = mc.routingStats().stream().filter(ShapeLearning.ShapeStats::primaryFirst).findFirst().orElseThrow();
            assertEquals("SELECT BAL FROM ACCT WHERE ID = ?", stats.shape());
            assertEquals(120, balance(c, 3));
            c.commit();
        }
    }

    @ParameterizedTest
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void readsTooLargeToRememberSendTheShapeToThePrimary(String engine) throws Exception {
        try (Connection c = open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE big (id INT PRIMARY KEY)");
                if (engine.equals("derby")) { // no row generator in Derby's SQL
                    try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO big VALUES (?)")) {
                        for (int i = 1; i <= 10001; i++) {
                            ps.setInt(1, i);
                            ps.addBatch();
                        }
                        ps.executeBatch();
                    }
                } else s.execute(switch (engine) {
                    case "h2" -> "INSERT INTO big SELECT X FROM SYSTEM_RANGE(1, 10001)";
                    case "postgresql" -> "INSERT INTO big SELECT generate_series(1, 10001)";
                    case "sqlite" -> "INSERT INTO big WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 10001)"
                            + " SELECT x FROM r";
                    default -> "INSERT INTO big SELECT X FROM UNNEST(SEQUENCE_ARRAY(1, 10001, 1)) AS T(X)";
                });
            }
            c.commit();
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM big")) {
                while (rs.next()) {
                    rs.getInt(1);
                }
            }
            SQLException e = assertThrows(SQLException.class, () -> {
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("DELETE FROM big WHERE id = 1");
                }
            });
            assertEquals("40001", e.getSQLState());
            c.rollback();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM big")) {
                assertTrue(mc.currentReplica().isPrimary(), "the shape now starts on the primary");
                rs.next();
            }
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("DELETE FROM big WHERE id = 1"));
            }
            c.commit();
            TestDb.assertConverged(c);
        }
    }
}
