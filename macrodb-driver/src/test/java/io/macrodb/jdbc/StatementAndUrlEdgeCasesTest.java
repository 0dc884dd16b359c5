package io.macrodb.jdbc;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Edge cases of statement propagation and of MacroDB URLs and DataSources found by adversarial testing. */
class StatementAndUrlEdgeCasesTest {

    private static Connection statementMode(String engine) throws SQLException {
        return TestDb.open(TestDb.url(engine, "replicas=2&propagation=statement"));
    }

    private static Integer n(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT n FROM t WHERE id = 1")) {
            assertTrue(rs.next());
            int v = rs.getInt(1);
            return rs.wasNull() ? null : v;
        }
    }

    /** What the plain engine says about the same misuse, to compare with MacroDB's answer. */
    private static SQLException plainEngineError(String engine, int index, boolean set) throws SQLException {
        String url = engine.equals("h2") ? "jdbc:h2:mem:plain" + System.nanoTime() : "jdbc:hsqldb:mem:plain" + System.nanoTime();
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, n INT)");
                s.execute("INSERT INTO t VALUES (1, 7)");
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE t SET n = ? WHERE id = 1")) {
                return assertThrows(SQLException.class, () -> {
                    if (set) ps.setInt(index, 13);
                    ps.executeUpdate();
                });
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void statementModeRefusesAParameterIndexOutOfRangeLikeTheEngine(String engine) throws Exception {
        SQLException plain = plainEngineError(engine, 5, true);
        try (Connection c = statementMode(engine)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, n INT)");
                s.execute("INSERT INTO t VALUES (1, 7)");
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE t SET n = ? WHERE id = 1")) {
                SQLException e = assertThrows(SQLException.class, () -> {
                    ps.setInt(5, 13);
                    ps.executeUpdate();
                });
                assertEquals(plain.getSQLState(), e.getSQLState(), e::toString);
                assertEquals(plain.getErrorCode(), e.getErrorCode(), e::toString);
            }
            assertEquals(7, n(c));
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void statementModeReportsAnUnsetParameterLikeTheEngine(String engine) throws Exception {
        SQLException plain = plainEngineError(engine, 1, false);
        try (Connection c = statementMode(engine)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, n INT, m INT)");
                s.execute("INSERT INTO t VALUES (1, 7, 8)");
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE t SET n = ?, m = ? WHERE id = 1")) {
                ps.setInt(2, 13); // parameter 1 left unset
                SQLException e = assertThrows(SQLException.class, ps::executeUpdate);
                assertEquals(plain.getSQLState(), e.getSQLState(), e::toString);
                assertEquals(plain.getErrorCode(), e.getErrorCode(), e::toString);
            }
            assertEquals(7, n(c));
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void statementModeTakesAnUnquotedSchemaQualifiedTableWithColumnsForNoCall(String engine) throws Exception {
        try (Connection c = statementMode(engine)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, locked BOOLEAN)");
                assertEquals(1, s.executeUpdate("INSERT INTO PUBLIC.T (ID, LOCKED) VALUES (2, FALSE)"));
                assertEquals(1, s.executeUpdate("MERGE INTO PUBLIC.T USING (VALUES (3, TRUE)) AS v (ID, LOCKED) ON PUBLIC.T.ID = v.ID"
                        + " WHEN NOT MATCHED THEN INSERT (ID, LOCKED) VALUES (v.ID, v.LOCKED)"));
                assertEquals(1, s.executeUpdate("UPDATE PUBLIC.T SET LOCKED = TRUE WHERE ID = 2"));
                assertEquals(1, s.executeUpdate("DELETE FROM PUBLIC.T WHERE ID = 3"));
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO PUBLIC.T(ID, LOCKED) SELECT PUBLIC.T.ID + 10, PUBLIC.T.LOCKED FROM PUBLIC.T"
                    + " JOIN PUBLIC.T AS u ON u.ID = PUBLIC.T.ID WHERE PUBLIC.T.ID = ?")) {
                ps.setInt(1, 2);
                assertEquals(1, ps.executeUpdate());
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t WHERE locked")) {
                rs.next();
                assertEquals(2, rs.getInt(1));
            }
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void statementModeStillRefusesASchemaQualifiedFunctionCall(String engine) throws Exception {
        try (Connection c = statementMode(engine)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                SQLException e = assertThrows(SQLException.class,
                        () -> s.executeUpdate("INSERT INTO PUBLIC.T (ID, V) VALUES (1, PUBLIC.F(1))"));
                assertEquals("0AM01", e.getSQLState(), e::toString);
            }
            TestDb.assertConverged(c);
        }
    }

    private static SQLException refused(String url) {
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(url));
        assertEquals("08001", e.getSQLState(), e::toString);
        return e;
    }

    @Test
    void badPercentEncodingInTheUrlIs08001() {
        refused(TestDb.url("h2", "replicas=%zz"));
        refused(TestDb.url("h2", "replicas=2&consistency=%"));
    }

    @Test
    void anOptionGivenTwiceInTheUrlIsRefused() {
        SQLException e = refused(TestDb.url("h2", "replicas=2&replicas=3"));
        assertTrue(e.getMessage().contains("replicas"), e::getMessage);
        e = refused(TestDb.url("h2", "propagation=row&PROPAGATION=statement"));
        assertTrue(e.getMessage().contains("propagation"), e::getMessage);
    }

    @Test
    void anOptionInTheDataSourceUrlAndASetterIsRefused() {
        MacroDataSource ds = new MacroDataSource();
        ds.setUrl(TestDb.url("h2", "replicas=2"));
        ds.setReplicas(3);
        ds.setUser("sa");
        ds.setPassword("");
        SQLException e = assertThrows(SQLException.class, ds::getConnection);
        assertEquals("08001", e.getSQLState(), e::toString);
        assertTrue(e.getMessage().contains("replicas"), e::getMessage);
    }

    @Test
    void dataSourceValuesArePercentEncoded() throws Exception {
        MacroDataSource ds = new MacroDataSource();
        ds.setUrl(TestDb.url("h2", null));
        ds.setUser("sa");
        ds.setPassword("");
        ds.setReplicas(2);
        // '&' must not start a second option: the value is one (bad) consistency, not consistency=strict plus replicas=1
        ds.setConsistency("strict&replicas=1");
        SQLException e = assertThrows(SQLException.class, ds::getConnection);
        assertEquals("08001", e.getSQLState(), e::toString);
        assertTrue(e.getMessage().contains("strict&replicas=1"), e::getMessage);

        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("macrodb a&b=c%d+e");
        try {
            MacroDataSource durable = new MacroDataSource();
            durable.setUrl(TestDb.url("h2", null));
            durable.setUser("sa");
            durable.setPassword("");
            durable.setReplicas(2);
            durable.setDurability("log:" + dir.resolve("log&replicas=1"));
            try (Connection c = durable.getConnection()) {
                assertEquals(2, TestDb.macro(c).replicaSet().config().replicas());
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
                    s.execute("INSERT INTO t VALUES (1)");
                }
                TestDb.assertConverged(c);
            }
            assertTrue(java.nio.file.Files.isDirectory(dir.resolve("log&replicas=1")), "log directory named as given");
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2:tcp://localhost/~/shop", "h2:ssl://localhost/shop", "H2:TCP://localhost:9092/mem:shop",
            "hsqldb:hsql://localhost/shop", "hsqldb:hsqls://localhost/shop", "hsqldb:http://localhost/shop",
            "hsqldb:https://localhost/shop"})
    void serverUrlsAreRefusedBecauseMacroDbRunsTheEnginesItself(String engineUrl) {
        SQLException e = refused("jdbc:macrodb:" + engineUrl + "?replicas=2");
        assertTrue(e.getMessage().contains("embedded") && e.getMessage().contains("mem:"), e::getMessage);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void statementModeLetsTheEngineReportASyntaxError(String engine) throws Exception {
        String bad = "UPDATE t SET v = WHERE id = 1";
        SQLException plain;
        String url = engine.equals("h2") ? "jdbc:h2:mem:plain" + System.nanoTime() : "jdbc:hsqldb:mem:plain" + System.nanoTime();
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            plain = assertThrows(SQLException.class, () -> s.executeUpdate(bad));
        }
        try (Connection c = statementMode(engine)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                s.execute("INSERT INTO t VALUES (1, 7)");
                SQLException e = assertThrows(SQLException.class, () -> s.executeUpdate(bad));
                assertEquals(plain.getSQLState(), e.getSQLState(), e::toString);
                assertEquals(plain.getErrorCode(), e.getErrorCode(), e::toString);
            }
            try (PreparedStatement ps = c.prepareStatement("UPDATE t SET v = ? WHERE id = 1")) {
                ps.setInt(1, 8);
                assertEquals(1, ps.executeUpdate());
            }
            TestDb.assertConverged(c);
        }
    }
}
