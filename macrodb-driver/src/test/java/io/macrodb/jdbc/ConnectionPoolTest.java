package io.macrodb.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A refusal does not cost a pooled connection (issue 12, item 4). HikariCP evicts a connection whose
 * exception has a SQLState of class 08 or 0A000 (among a few others); MacroDB's refusals were 0A000,
 * so with a pool of one over an in-memory database each refusal closed the last connection, and with
 * it the database. Its refusals are now 0AM01 (cannot be replicated safely) and 0AM00 (a feature
 * MacroDB does not offer): the pool keeps the same physical connection, and the database its rows.
 */
class ConnectionPoolTest {

    /** A pool of one physical connection, as small as a pool gets: an eviction drops the database. */
    private static HikariDataSource pool(String url) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(url);
        cfg.setUsername("sa");
        cfg.setPassword("");
        cfg.setMaximumPoolSize(1);
        cfg.setMinimumIdle(1);
        return new HikariDataSource(cfg);
    }

    /** Engine, propagation, what to create first, and a statement MacroDB refuses as unreplicable. */
    static Stream<Arguments> refusals() {
        List<Arguments> cases = new ArrayList<>();
        for (String engine : List.of("h2", "hsqldb")) {
            // Hibernate 6's temporary tables for bulk mutations, at every Spring Boot start
            cases.add(Arguments.of(engine, "row", "", "CREATE GLOBAL TEMPORARY TABLE HTE_item (id INT)"));
            // a schema change each replica would fill with its own random values, on rows it could not match
            cases.add(Arguments.of(engine, "row", engine.equals("h2") ? "CREATE TABLE loose AS SELECT id FROM item" : "CREATE TABLE loose AS (SELECT id FROM item) WITH DATA",
                    "ALTER TABLE loose ADD COLUMN r DOUBLE DEFAULT RAND()"));
            // refused inside the engine, by the capture trigger: the engine's own exception comes along
            cases.add(Arguments.of(engine, "row", "CREATE TABLE nokey (v CLOB)", "INSERT INTO nokey VALUES ('x')"));
            // a non-deterministic write that statement propagation cannot replay
            cases.add(Arguments.of(engine, "statement", "", "UPDATE item SET qty = CAST(RAND() * 100 AS INT)"));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}: {3}")
    @MethodSource("refusals")
    void aRefusedStatementKeepsThePooledConnectionAndTheDatabase(String engine, String propagation, String setup,
                                                                 String refused) throws Exception {
        try (HikariDataSource ds = pool(TestDb.url(engine, "replicas=2&propagation=" + propagation))) {
            MacroConnection physical;
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                physical = c.unwrap(MacroConnection.class);
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, qty INT)");
                s.execute("INSERT INTO item VALUES (1, 10), (2, 20), (3, 30)");
                if (!setup.isEmpty()) s.execute(setup);
                SQLException e = assertThrows(SQLException.class, () -> s.execute(refused));
                assertEquals("0AM01", e.getSQLState(), e::toString);
                assertFalse(c.isClosed(), () -> "the pool took the refusal for a dead connection: " + e);
            }
            assertKept(ds, physical);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb", "sqlite"})
    void aFeatureMacroDbDoesNotOfferKeepsThePooledConnectionAndTheDatabase(String engine) throws Exception {
        try (HikariDataSource ds = pool(TestDb.url(engine, "replicas=2"))) {
            MacroConnection physical;
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                physical = c.unwrap(MacroConnection.class);
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, qty INT)");
                s.execute("INSERT INTO item VALUES (1, 10), (2, 20), (3, 30)");
                // a JDBC method MacroDB refuses
                SQLException e = assertThrows(SQLException.class, () -> c.setShardingKey(null));
                assertInstanceOf(SQLFeatureNotSupportedException.class, e);
                assertEquals("0AM00", e.getSQLState(), e::toString);
                assertFalse(c.isClosed(), () -> "the pool took the refusal for a dead connection: " + e);
                // a transaction statement MacroDB does not offer
                SQLException prepare = assertThrows(SQLException.class, () -> s.execute("PREPARE COMMIT tx1"));
                assertEquals("0AM00", prepare.getSQLState(), prepare::toString);
                assertFalse(c.isClosed(), () -> "the pool took the refusal for a dead connection: " + prepare);
            }
            assertKept(ds, physical);
        }
    }

    /**
     * Using a statement or result set after it was closed is the application's mistake, not a dead
     * connection: not class 08, which the pool would evict on (a statement: 55000, as pgjdbc reports
     * it; a result set: what the engine reports).
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb", "sqlite"})
    void aClosedStatementOrResultSetKeepsThePooledConnection(String engine) throws Exception {
        try (HikariDataSource ds = pool(TestDb.url(engine, "replicas=2"))) {
            MacroConnection physical;
            try (Connection c = ds.getConnection()) {
                physical = c.unwrap(MacroConnection.class);
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE item (id INT PRIMARY KEY, qty INT)");
                    s.execute("INSERT INTO item VALUES (1, 10), (2, 20), (3, 30)");
                }
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM item");
                rs.close();
                SQLException closedRs = assertThrows(SQLException.class, rs::next); // the engine's own answer
                assertFalse(closedRs.getSQLState().startsWith("08"), closedRs::toString);
                s.close();
                SQLException closedS = assertThrows(SQLException.class, () -> s.executeQuery("SELECT 1"));
                assertEquals("55000", closedS.getSQLState(), closedS::toString);
                assertFalse(c.isClosed(), "the pool took a closed statement for a dead connection");
            }
            assertKept(ds, physical);
        }
    }

    /** The pool hands out the same physical connection, and the database still holds the rows. */
    private static void assertKept(HikariDataSource ds, MacroConnection physical) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(qty) FROM item")) {
            assertSame(physical, c.unwrap(MacroConnection.class), "the pool evicted the connection and opened another");
            rs.next();
            assertEquals(3, rs.getInt(1));
            assertEquals(60, rs.getInt(2));
        }
        assertEquals(1, ds.getHikariPoolMXBean().getTotalConnections(), "one physical connection, the first");
    }
}
