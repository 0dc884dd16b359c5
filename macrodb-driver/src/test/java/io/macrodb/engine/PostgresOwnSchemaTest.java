package io.macrodb.engine;

import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Schema {@code macrodb} is MacroDB's own on a PostgreSQL primary: its capture functions and its mark live there, every
 * catalog read, copy and checksum leaves it out, and MacroDB drops it when the database closes. Before, MacroDB took over
 * a schema of that name that the application already had and dropped it with {@code CASCADE} at close, its tables and
 * rows with it; and a user named {@code macrodb} (whose {@code "$user"} in the default search_path is that schema)
 * created every table there, where its rows were never replicated. Now each way in is refused with {@code 42939}
 * (reserved name) and nothing changes, and the close drops only what MacroDB made.
 */
class PostgresOwnSchemaTest {

    /** Runs {@code sql} on database {@code db} of server 0 as superuser {@code sa}, outside MacroDB. */
    private static Connection direct(PgCluster pg, String db) throws SQLException {
        return DriverManager.getConnection(pg.server(0).jdbcUrl(db), "sa", "");
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void anApplicationSchemaNamedMacrodbIsRefusedAndKept() throws Exception {
        PgCluster.assumeAvailable();
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(2, "capture=triggers&closeDelay=0");
        try (Connection d = direct(pg, PgCluster.primaryDatabase(url)); Statement s = d.createStatement()) {
            s.execute("CREATE SCHEMA macrodb");
            s.execute("CREATE TABLE macrodb.orders (id int PRIMARY KEY)");
            s.execute("INSERT INTO macrodb.orders VALUES (1), (2)");
        }
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("42939", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("table orders") && e.getMessage().contains("ALTER SCHEMA macrodb RENAME"), e::getMessage);
        try (Connection d = direct(pg, PgCluster.primaryDatabase(url))) {
            assertEquals("2", one(d, "SELECT count(*) FROM macrodb.orders"), "the application's rows are still there");
            assertEquals("f", one(d, "SELECT to_regclass('macrodb.replica') IS NOT NULL"), "MacroDB put nothing there");
        }
    }

    @Test
    void aUserWhoseSearchPathStartsAtMacrodbIsRefused() throws Exception {
        PgCluster.assumeAvailable();
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(2, "capture=triggers&closeDelay=0");
        // the bootstrap superuser of the test servers is named macrodb: "$user", public starts at schema macrodb
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(url, PgCluster.USER, "").close());
        assertEquals("42939", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("search_path") && e.getMessage().contains("ALTER ROLE"), e::getMessage);
        try (Connection d = direct(pg, PgCluster.primaryDatabase(url))) {
            assertEquals("0", one(d, "SELECT count(*) FROM pg_namespace WHERE nspname = 'macrodb'"), "nothing was changed");
        }
    }

    @Test
    void aSchemaChangeIntoMacrodbIsRefusedAndUndone() throws Exception {
        PgCluster.assumeAvailable();
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(2, "capture=triggers&closeDelay=0");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kept (id int PRIMARY KEY)");
            SQLException named = assertThrows(SQLException.class, () -> s.execute("CREATE TABLE macrodb.orders (id int PRIMARY KEY)"));
            assertEquals("42939", named.getSQLState(), named::getMessage);
            assertTrue(named.getMessage().contains("table orders"), named::getMessage);
            s.execute("SET search_path TO macrodb, public");
            SQLException unqualified = assertThrows(SQLException.class, () -> s.execute("CREATE SEQUENCE numbers"));
            assertEquals("42939", unqualified.getSQLState(), unqualified::getMessage);
            s.execute("SET search_path TO public");
            s.execute("INSERT INTO kept VALUES (1)"); // the database goes on
            try (Connection d = direct(pg, PgCluster.primaryDatabase(url))) {
                assertEquals("f", one(d, "SELECT to_regclass('macrodb.orders') IS NOT NULL OR to_regclass('macrodb.numbers') IS NOT NULL"),
                        "the refused changes were rolled back");
            }
            TestDb.assertConverged(c);
        }
    }

    @Test
    void closingLeavesWhatMacroDbDidNotMake() throws Exception {
        PgCluster.assumeAvailable();
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(2, "capture=triggers&closeDelay=0");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY)");
            // a session outside MacroDB puts a table into the schema while the set is open
            try (Connection d = direct(pg, PgCluster.primaryDatabase(url)); Statement ds = d.createStatement()) {
                ds.execute("CREATE TABLE macrodb.notes (id int)");
                ds.execute("INSERT INTO macrodb.notes VALUES (7)");
            }
        }
        try (Connection d = direct(pg, PgCluster.primaryDatabase(url))) {
            assertEquals("7", one(d, "SELECT string_agg(id::text, ',') FROM macrodb.notes"), "not dropped with CASCADE");
            assertEquals("f", one(d, "SELECT to_regclass('macrodb.replica') IS NOT NULL"), "MacroDB's own objects are gone");
            assertEquals("0", one(d, "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal"));
        }
    }
}
