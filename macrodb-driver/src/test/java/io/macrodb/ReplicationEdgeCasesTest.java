package io.macrodb;

import io.macrodb.jdbc.Internals;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.BatchUpdateException;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Corner cases where replicas could drift apart or a connection could be left in a bad state. */
class ReplicationEdgeCasesTest {

    private static int count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aBatchTheEngineAppliesInPartIsReplicatedAsTheEngineLeftIt() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            }
            c.setAutoCommit(false);
            try (CallableStatement cs = c.prepareCall("INSERT INTO t VALUES (?)")) {
                for (int id : new int[] {1, 1, 2}) {
                    cs.setInt(1, id);
                    cs.addBatch();
                }
                assertThrows(BatchUpdateException.class, cs::executeBatch); // H2 goes on after the duplicate
            }
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"row", "statement"})
    void aFailedAutocommitStatementLeavesNoTransactionOpen(String propagation) throws Exception {
        String url = TestDb.url("h2", "replicas=2&lockTimeout=2000&propagation=" + propagation);
        try (Connection a = TestDb.open(url); Connection b = TestDb.open(url)) {
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
                s.execute("INSERT INTO t VALUES (1)");
                assertThrows(SQLException.class, () -> s.execute("INSERT INTO t VALUES (1)"));
            }
            assertEquals(null, TestDb.macro(a).currentReplica(), "no transaction left open");
            long start = System.nanoTime();
            try (Statement s = b.createStatement()) {
                s.execute("INSERT INTO t VALUES (2)"); // statement mode: needs the writer turn
                s.execute("CREATE INDEX t_id ON t (id)"); // needs every update transaction ended
            }
            assertTrue(System.nanoTime() - start < 1_000_000_000L, "nothing waited for the failed statement's transaction");
            a.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE); // allowed: no transaction is open
            TestDb.assertConverged(a);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void setSchemaInSqlAndThroughJdbcApplyInTheOrderGiven(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA a");
                s.execute("CREATE SCHEMA b");
                s.execute("CREATE TABLE a.t (v VARCHAR(5) PRIMARY KEY)");
                s.execute("CREATE TABLE b.t (v VARCHAR(5) PRIMARY KEY)");
                s.execute("INSERT INTO a.t VALUES ('in a')");
                s.execute("INSERT INTO b.t VALUES ('in b')");
                s.execute("SET SCHEMA a");
            }
            assertEquals("A", c.getSchema());
            c.setSchema("B");
            TestDb.assertConverged(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t")) {
                assertTrue(s.toString().contains("secondary"), s.toString());
                rs.next();
                assertEquals("in b", rs.getString(1));
            }
        }
    }

    @Test
    void sessionConsistencyNeverGoesBackInTime() throws Exception {
        String url = TestDb.url("h2", "replicas=3&balancer=roundRobin&readWait=0");
        try (Connection w = TestDb.open(url); Connection r = TestDb.open(url.replace("readWait=0", "readWait=0&consistency=session"))) {
            try (Statement s = w.createStatement()) {
                s.execute("CREATE TABLE reg (id INT PRIMARY KEY, n INT)");
                s.execute("INSERT INTO reg VALUES (1, 0)");
            }
            MacroConnection mr = TestDb.macro(r);
            assertTrue(mr.admin().awaitCaughtUp(5_000));
            mr.admin().pauseApplying(2, true);
            try {
                try (Statement s = w.createStatement()) {
                    s.execute("UPDATE reg SET n = 5 WHERE id = 1");
                }
                assertTrue(Internals.replicaSet(mr).secondaries().get(0).gate().await(mr.admin().version(), 5_000_000_000L, () -> true));
                int last = -1;
                for (int i = 0; i < 10; i++) {
                    int n = count(r, "SELECT n FROM reg WHERE id = 1");
                    assertTrue(n >= last, "read " + i + " went back in time: " + last + " then " + n);
                    last = n;
                }
                assertEquals(5, last);
            } finally {
                mr.admin().pauseApplying(2, false);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void settingsTheSecondariesOwnAreNotReplayed(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE parent (id INT PRIMARY KEY)");
                s.execute("CREATE TABLE child (id INT PRIMARY KEY, p INT REFERENCES parent(id))");
                s.execute(engine.equals("h2") ? "SET REFERENTIAL_INTEGRITY TRUE" : "SET DATABASE REFERENTIAL INTEGRITY TRUE");
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO parent VALUES (1)");
                s.execute("INSERT INTO child VALUES (10, 1)"); // shipped as rows: the child table may be applied first
            }
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
            for (ReplicaStatus st : TestDb.macro(c).replicaStatus()) assertEquals(ReplicaState.ACTIVE, st.state(), st.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void schemaChangesThatWouldDivergeAreRefused(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, created TIMESTAMP DEFAULT CURRENT_TIMESTAMP)"); // fine: no rows yet
                s.execute("INSERT INTO t (id) VALUES (1), (2)");
                // a column each replica computes for itself on every write (a default is shipped: ComputedValuesTest)
                SQLException e = assertThrows(SQLException.class,
                        () -> s.execute("ALTER TABLE t ADD COLUMN g DOUBLE GENERATED ALWAYS AS (RAND())"));
                assertEquals("0AM01", e.getSQLState());
                assertTrue(e.getMessage().contains("compute the value in the application"), e.getMessage());
                SQLException tmp = assertThrows(SQLException.class, () -> s.execute(engine.equals("h2")
                        ? "CREATE LOCAL TEMPORARY TABLE tmp (id INT)" : "DECLARE LOCAL TEMPORARY TABLE tmp (id INT)"));
                assertEquals("0AM01", tmp.getSQLState());
                s.execute("ALTER TABLE t ADD COLUMN r DOUBLE");
                s.execute("UPDATE t SET r = RAND()");
            }
            TestDb.assertConverged(c);
        }
    }

    /**
     * A column added with a time or random default to an empty table is as safe as a CREATE TABLE
     * with that default: later inserts that omit the column carry the primary's value in row mode;
     * statement mode refuses them. (With rows: {@code ComputedValuesTest}.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2:row", "hsqldb:row", "h2:statement", "hsqldb:statement"})
    void aVolatileDefaultIsAddedToAnEmptyTable(String config) throws Exception {
        String engine = config.split(":")[0];
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2&propagation=" + config.split(":")[1]));
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE empty_t (id INT PRIMARY KEY)");
            s.execute("ALTER TABLE empty_t ADD COLUMN created TIMESTAMP DEFAULT CURRENT_TIMESTAMP");
            s.execute("ALTER TABLE empty_t ADD COLUMN r DOUBLE DEFAULT RAND()");
            s.execute(config.endsWith(":row") ? "INSERT INTO empty_t (id) VALUES (1), (2), (3)" // the primary's defaults travel
                    : "INSERT INTO empty_t VALUES (1, TIMESTAMP '2026-01-01 00:00:00', 0.5), (2, TIMESTAMP '2026-01-02 00:00:00', 0.25),"
                    + " (3, TIMESTAMP '2026-01-03 00:00:00', 0.125)"); // statement mode refuses an insert that leaves them to each replica
            assertEquals(3, count(c, "SELECT COUNT(*) FROM empty_t WHERE created IS NOT NULL AND r IS NOT NULL"));
            TestDb.assertConverged(c);
        }
    }

    @Test
    void dynamicSqlIsReplicatedLikeTheSchemaChangeItMayBe() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("EXECUTE IMMEDIATE 'CREATE TABLE dyn (id INT PRIMARY KEY)'");
                s.execute("INSERT INTO dyn VALUES (1)");
            }
            TestDb.assertConverged(c);
            assertEquals(1, count(c, "SELECT COUNT(*) FROM dyn"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void statementOptionsDoNotLeakThroughCachedStatements(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
                s.execute("INSERT INTO t VALUES (1), (2), (3)");
            }
            TestDb.assertConverged(c);
            String q = "SELECT id FROM t ORDER BY id";
            try (PreparedStatement ps = c.prepareStatement(q)) {
                ps.setMaxRows(1);
                try (ResultSet rs = ps.executeQuery()) {
                    int n = 0;
                    while (rs.next()) n++;
                    assertEquals(1, n);
                }
            }
            try (PreparedStatement ps = c.prepareStatement(q); ResultSet rs = ps.executeQuery()) {
                int n = 0;
                while (rs.next()) n++;
                assertEquals(3, n, "the next statement with the same SQL has no row limit");
            }
            try (PreparedStatement ps = c.prepareStatement(q)) {
                assertNotNull(ps.getMetaData());
                assertEquals(1, ps.getMetaData().getColumnCount());
                assertEquals(0, ps.getParameterMetaData().getParameterCount());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void anOptimisticReadWithMaxRowsMovesToThePrimaryWithoutAFalseConflict(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                s.execute("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)");
            }
            TestDb.assertConverged(c);
            c.setAutoCommit(false);
            List<Integer> seen = new ArrayList<>();
            try (Statement s = c.createStatement()) {
                s.setMaxRows(2);
                try (ResultSet rs = s.executeQuery("SELECT id FROM t ORDER BY id")) {
                    while (rs.next()) seen.add(rs.getInt(1));
                }
                s.setMaxRows(0);
                s.executeUpdate("UPDATE t SET v = 10 WHERE id = 1");
            }
            c.commit();
            assertEquals(List.of(1, 2), seen);
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
        }
    }
}
