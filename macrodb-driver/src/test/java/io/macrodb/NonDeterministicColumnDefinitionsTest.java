package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A column whose value each replica would compute for itself with a random, time or sequence
 * function is refused when the table is created or altered (SQLState 0AM01, the database as it
 * was): a generated column, and an ON UPDATE expression however it is written (calls and parentheses
 * before the function included). Deterministic generated columns and ON UPDATE expressions, and
 * foreign keys' ON UPDATE actions, are accepted.
 */
class NonDeterministicColumnDefinitionsTest {

    private static Connection open(String engine, String propagation) throws SQLException {
        Connection c = TestDb.open(TestDb.url(engine, "replicas=2&propagation=" + propagation));
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO t VALUES (1, 1)");
        }
        return c;
    }

    private static String tables(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT TABLE_NAME || '.' || COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'PUBLIC'"
                        + " ORDER BY TABLE_NAME, COLUMN_NAME")) {
            StringBuilder sb = new StringBuilder();
            while (rs.next()) sb.append(rs.getString(1)).append(' ');
            return sb.toString().trim();
        }
    }

    private static void refused(Connection c, String ddl, String... expected) throws SQLException {
        String before = tables(c);
        try (Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.execute(ddl), ddl);
            assertEquals("0AM01", e.getSQLState(), e::toString);
            for (String x : expected) assertTrue(e.getMessage().contains(x), e.getMessage());
        }
        assertEquals(before, tables(c), "the refused statement changed the schema: " + ddl);
        TestDb.assertConverged(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"row", "statement"})
    void h2GeneratedColumnsCallingRandomOrTimeFunctionsAreRefused(String propagation) throws SQLException {
        try (Connection c = open("h2", propagation)) {
            refused(c, "CREATE TABLE g (id INT PRIMARY KEY, g DOUBLE GENERATED ALWAYS AS (RAND()))", "RAND");
            refused(c, "CREATE TABLE g (id INT PRIMARY KEY, x INT, g DOUBLE AS (x * RAND()))", "RAND");
            refused(c, "CREATE TABLE g (id INT PRIMARY KEY, g UUID GENERATED ALWAYS AS (RANDOM_UUID()))", "RANDOM_UUID");
            refused(c, "ALTER TABLE t ADD COLUMN g DOUBLE GENERATED ALWAYS AS (ABS(RAND()) + 1)", "RAND");
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE d (id INT PRIMARY KEY, x INT, g INT GENERATED ALWAYS AS (x * 2), h INT AS (x + 1))");
                s.execute("INSERT INTO d (id, x) VALUES (1, 5)");
                s.execute("UPDATE d SET x = 6");
            }
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void onUpdateCallingANonDeterministicFunctionIsRefusedInStatementMode(String engine) throws SQLException {
        try (Connection c = open(engine, "statement")) {
            refused(c, "CREATE TABLE u (id INT PRIMARY KEY, v INT, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)",
                    "ON UPDATE CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP");
            if (engine.equals("h2")) {
                refused(c, "CREATE TABLE u (id INT PRIMARY KEY, v INT, r DOUBLE ON UPDATE RAND() NOT NULL)", "ON UPDATE RAND()");
                refused(c, "ALTER TABLE t ALTER COLUMN v SET ON UPDATE CAST(RAND() * 10 AS INT)", "RAND");
                // a call or parenthesis before the random function: the whole expression is looked at
                refused(c, "CREATE TABLE u (id INT PRIMARY KEY, v INT, r INT ON UPDATE COALESCE(NULL, 0) + CAST(RAND() * 10 AS INT))",
                        "RAND");
                refused(c, "CREATE TABLE u (id INT PRIMARY KEY, v INT, r DOUBLE ON UPDATE (1) + RAND())", "RAND");
            }
            try (Statement s = c.createStatement()) {
                // a deterministic ON UPDATE, and foreign keys' ON UPDATE actions, are fine
                s.execute("CREATE TABLE p (id INT PRIMARY KEY, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
                s.execute("CREATE TABLE ch (id INT PRIMARY KEY, p INT REFERENCES p (id) ON UPDATE CASCADE ON DELETE SET NULL,"
                        + " CONSTRAINT fk2 FOREIGN KEY (id) REFERENCES p (id) ON UPDATE NO ACTION)");
                if (engine.equals("h2")) s.execute("CREATE TABLE k (id INT PRIMARY KEY, v INT, n INT ON UPDATE 0)");
                s.execute("INSERT INTO p (id, ts) VALUES (1, TIMESTAMP '2020-01-01 00:00:00')");
                s.execute("INSERT INTO ch VALUES (1, 1)");
            }
            TestDb.assertConverged(c);
        }
    }
}
