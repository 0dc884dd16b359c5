package io.macrodb.jdbc;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An ordinary JDBC application, unchanged, on MacroDB: every call it makes behaves as on the engine. */
class JdbcBehaviourTest {

    private static String url(String engine, String propagation) {
        return TestDb.url(engine, "replicas=3&propagation=" + propagation);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "hsqldb,row", "h2,statement", "hsqldb,statement"})
    void preparedStatementParameterTypesRoundTripThroughSecondaries(String engine, String propagation) throws Exception {
        try (Connection c = TestDb.open(url(engine, propagation))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE typed (id INT PRIMARY KEY, i INT, l BIGINT, d DOUBLE, dec DECIMAL(12,3), b BOOLEAN,"
                        + " s VARCHAR(50), dt DATE, tm TIME, ts TIMESTAMP, bin VARBINARY(16), cl CLOB, bl BLOB, n INT)");
            }
            byte[] bytes = {1, 2, 3, (byte) 0xff};
            Timestamp ts = Timestamp.valueOf("2024-02-29 12:34:56.789");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO typed VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
                ps.setInt(1, 1);
                ps.setInt(2, -7);
                ps.setLong(3, Long.MAX_VALUE);
                ps.setDouble(4, 2.5);
                ps.setBigDecimal(5, new BigDecimal("123456789.125"));
                ps.setBoolean(6, true);
                ps.setString(7, "héllo 'quoted'");
                ps.setDate(8, Date.valueOf("2024-02-29"));
                ps.setTime(9, Time.valueOf("23:59:58"));
                ps.setTimestamp(10, ts);
                ps.setBytes(11, bytes);
                ps.setCharacterStream(12, new java.io.StringReader("a long text"));
                ps.setBinaryStream(13, new java.io.ByteArrayInputStream("blob!".getBytes(StandardCharsets.UTF_8)));
                ps.setNull(14, Types.INTEGER);
                assertEquals(1, ps.executeUpdate());
            }
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM typed WHERE id = ? AND s = ?")) {
                ps.setInt(1, 1);
                ps.setString(2, "héllo 'quoted'");
                try (ResultSet rs = ps.executeQuery()) {
                    assertFalse(TestDb.macro(c).currentReplica().isPrimary(), "a read-only transaction runs on a secondary");
                    assertTrue(rs.next());
                    assertEquals(-7, rs.getInt("i"));
                    assertEquals(Long.MAX_VALUE, rs.getLong("l"));
                    assertEquals(2.5, rs.getDouble("d"));
                    assertEquals(new BigDecimal("123456789.125"), rs.getBigDecimal("dec"));
                    assertTrue(rs.getBoolean("b"));
                    assertEquals(Date.valueOf("2024-02-29"), rs.getDate("dt"));
                    assertEquals(Time.valueOf("23:59:58"), rs.getTime("tm"));
                    assertEquals(ts, rs.getTimestamp("ts"));
                    assertArrayEquals(bytes, rs.getBytes("bin"));
                    assertEquals("a long text", rs.getString("cl"));
                    assertArrayEquals("blob!".getBytes(StandardCharsets.UTF_8), rs.getBytes("bl"));
                    rs.getInt("n");
                    assertTrue(rs.wasNull());
                    assertSame(ps, rs.getStatement());
                    assertFalse(rs.next());
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "hsqldb,row", "h2,statement", "hsqldb,statement"})
    void batchesRunAndAFailureStopsWithTheCountsBeforeIt(String engine, String propagation) throws Exception {
        try (Connection c = TestDb.open(url(engine, propagation))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE b (id INT PRIMARY KEY, v INT)");
                s.addBatch("INSERT INTO b VALUES (1, 1)");
                s.addBatch("INSERT INTO b VALUES (2, 2)");
                s.addBatch("UPDATE b SET v = v + 10");
                assertArrayEquals(new int[] {1, 1, 2}, s.executeBatch());
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO b VALUES (?, ?)")) {
                for (int id : new int[] {3, 4, 1, 5}) {
                    ps.setInt(1, id);
                    ps.setInt(2, id);
                    ps.addBatch();
                }
                BatchUpdateException e = assertThrows(BatchUpdateException.class, ps::executeBatch);
                assertArrayEquals(new int[] {1, 1}, e.getUpdateCounts(), "3 and 4 were inserted before the duplicate 1");
                assertTrue(e.getSQLState().startsWith("23"), e.getSQLState());
            }
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE b SET v = ? WHERE id = ?")) {
                for (int id = 1; id <= 4; id++) {
                    ps.setInt(1, id * 100);
                    ps.setInt(2, id);
                    ps.addBatch();
                }
                assertArrayEquals(new int[] {1, 1, 1, 1}, ps.executeBatch());
            }
            c.rollback();
            c.setAutoCommit(true);
            assertEquals(List.of("1:11", "2:12", "3:3", "4:4"), rows(c, "SELECT id, v FROM b ORDER BY id"));
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void generatedKeysComeFromThePrimaryAndReplicate(String engine) throws Exception {
        try (Connection c = TestDb.open(url(engine, "row"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE g (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1) PRIMARY KEY, v VARCHAR(10))");
                assertEquals(1, s.executeUpdate("INSERT INTO g (v) VALUES ('a')", Statement.RETURN_GENERATED_KEYS));
                try (ResultSet keys = s.getGeneratedKeys()) {
                    assertTrue(keys.next());
                    assertEquals(1, keys.getLong(1));
                }
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO g (v) VALUES (?)", new String[] {"ID"})) {
                ps.setString(1, "b");
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    assertTrue(keys.next());
                    assertEquals(2, keys.getLong(1));
                }
            }
            TestDb.assertConverged(c);
            assertEquals(List.of("1:a", "2:b"), rows(c, "SELECT id, v FROM g ORDER BY id"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void resultSetNavigationMetadataAndWrappers(String engine) throws Exception {
        try (Connection c = TestDb.open(url(engine, "row"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE nav (id INT PRIMARY KEY, name VARCHAR(10))");
                s.execute("INSERT INTO nav VALUES (1, 'one'), (2, 'two'), (3, 'three')");
            }
            try (Statement s = c.createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY);
                 ResultSet rs = s.executeQuery("SELECT id, name FROM nav ORDER BY id")) {
                assertTrue(rs.last());
                assertEquals(3, rs.getRow());
                assertTrue(rs.absolute(1));
                assertEquals("one", rs.getString(2));
                assertTrue(rs.relative(1));
                assertEquals(2, rs.getInt("ID"));
                assertTrue(rs.previous());
                rs.beforeFirst();
                assertTrue(rs.next());
                assertEquals("NAME", rs.getMetaData().getColumnName(2).toUpperCase());
                assertEquals(ResultSet.TYPE_SCROLL_INSENSITIVE, rs.getType());
            }
            try (Statement s = c.createStatement()) {
                s.setMaxRows(2);
                try (ResultSet rs = s.executeQuery("SELECT id FROM nav")) {
                    int n = 0;
                    while (rs.next()) n++;
                    assertEquals(2, n, "maxRows reaches the physical statement on the secondary");
                }
            }
            DatabaseMetaData md = c.getMetaData();
            assertSame(c, md.getConnection());
            assertTrue(md.getURL().startsWith("jdbc:macrodb:"));
            try (ResultSet tables = md.getTables(null, null, "NAV", null)) {
                assertTrue(tables.next());
            }
            assertTrue(c.isWrapperFor(MacroConnection.class));
            assertNotNull(c.unwrap(MacroConnection.class));
            assertTrue(c.isValid(1));
            assertThrows(SQLException.class, () -> c.unwrap(String.class));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void sessionSettingsFollowTheConnectionToEveryReplica(String engine) throws Exception {
        try (Connection c = TestDb.open(url(engine, "row"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA app");
                s.execute("CREATE TABLE app.t (id INT PRIMARY KEY)");
                s.execute("INSERT INTO app.t VALUES (42)");
            }
            c.setSchema("APP");
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            c.setAutoCommit(false);
            assertEquals(List.of("42"), rows(c, "SELECT id FROM t"));
            assertFalse(TestDb.macro(c).currentReplica().isPrimary());
            assertEquals(Connection.TRANSACTION_SERIALIZABLE, TestDb.macro(c).unwrap(MacroConnection.class).getTransactionIsolation());
            c.commit();
            assertThrows(SQLException.class, () -> c.setTransactionIsolation(12345));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void closedObjectsRefuseWork(String engine) throws Exception {
        Connection c = TestDb.open(url(engine, "row"));
        Statement s = c.createStatement();
        s.execute("CREATE TABLE z (id INT PRIMARY KEY)");
        ResultSet rs = s.executeQuery("SELECT * FROM z");
        s.close();
        assertTrue(s.isClosed());
        assertTrue(rs.isClosed());
        assertEquals("55000", assertThrows(SQLException.class, () -> s.execute("SELECT 1")).getSQLState());
        assertFalse(assertThrows(SQLException.class, rs::next).getSQLState().startsWith("08"), "a pool would evict the connection");
        c.close();
        c.close(); // idempotent
        assertTrue(c.isClosed());
        assertEquals("08003", assertThrows(SQLException.class, c::createStatement).getSQLState());
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void autocommitReadsGoToSecondariesAndWritesToThePrimary(String engine) throws Exception {
        try (Connection c = TestDb.open(url(engine, "row"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE r (id INT PRIMARY KEY)");
                s.execute("INSERT INTO r VALUES (1)");
                // the first apply on a new engine loads classes; let it finish so that readWait is not the point here
                TestDb.macro(c).admin().awaitCaughtUp(5_000);
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM r")) {
                    assertTrue(s.toString().contains("secondary"), s.toString());
                    rs.next();
                    assertEquals(1, rs.getInt(1), "the read waited for the insert before it");
                }
                try (ResultSet rs = s.executeQuery("SELECT id FROM r FOR UPDATE")) {
                    assertTrue(s.toString().contains("primary"), "a locking read goes to the primary: " + s);
                }
            }
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void updatableResultSetChangesAreCaptured(String engine) throws Exception {
        try (Connection c = TestDb.open(url(engine, "row"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE u (id INT PRIMARY KEY, v INT)");
                s.execute("INSERT INTO u VALUES (1, 1), (2, 2)");
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE);
                 ResultSet rs = s.executeQuery("SELECT id, v FROM u WHERE id = 1")) {
                assertTrue(rs.next());
                rs.updateInt("v", 100);
                rs.updateRow();
            }
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
            assertEquals(List.of("1:100", "2:2"), rows(c, "SELECT id, v FROM u ORDER BY id"));
        }
    }

    static List<String> rows(Connection c, String sql) throws SQLException {
        return TestDb.rows(c, sql, ":");
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void dataSourceBuilderAndBeanConnect(String engine) throws Exception {
        String engineUrl = TestDb.url(engine, "").substring("jdbc:macrodb:".length()).replaceAll("\\?.*", "");
        // closeDelay 0: an HSQLDB memory database's set would otherwise be kept, with replicas=2, for the bean below
        MacroDataSource ds = MacroDataSource.builder().engineUrl(engineUrl).replicas(2).consistency("session").closeDelay("0")
                .user("sa").password("").build();
        try (Connection c = ds.getConnection()) {
            assertEquals(2, TestDb.macro(c).replicaStatus().size());
            assertEquals("session", TestDb.macro(c).config().readConsistency());
        }
        MacroDataSource bean = new MacroDataSource();
        bean.setUrl("jdbc:macrodb:" + engineUrl);
        bean.setReplicas(3);
        bean.setCloseDelay("0");
        bean.setUser("sa");
        bean.setPassword("");
        try (Connection c = bean.getConnection()) {
            assertEquals(3, TestDb.macro(c).replicaStatus().size());
        }
        SQLException e = assertThrows(SQLException.class, () -> MacroDataSource.builder().engineUrl("duckdb:memory:x").build());
        assertEquals("08001", e.getSQLState());
        assertNull(new MacroDataSource().getUrl());
    }
}
