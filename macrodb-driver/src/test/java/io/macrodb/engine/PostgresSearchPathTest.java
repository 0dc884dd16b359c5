package io.macrodb.engine;

import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Where names resolve, and what a query's result depends on besides the rows. Before 2026-11-29 MacroDB carried a
 * session's current schema (the first of its search_path) and set it on every session as the whole path, so through
 * MacroDB a database whose search_path named several schemas lost all but the first: a read of a table in {@code
 * public} failed with 42P01, on the primary too; and a primary with that path had its copy written with bare names,
 * which the secondary resolved elsewhere, so the database could not be opened. Nothing compared a secondary's database
 * with the primary's: one made with another collation answered the same {@code ORDER BY} otherwise.
 */
class PostgresSearchPathTest {

    /**
     * Runs {@code sql} six times, read-only and not in turn (so on the secondaries and on the primary), each time expecting
     * the one row {@code expected}; the connection is left read-write.
     */
    private static void readsOnEveryRoute(Connection c, String sql, String expected) throws SQLException {
        for (int i = 0; i < 6; i++) {
            c.setReadOnly(i % 2 == 0);
            assertEquals(List.of(expected), TestDb.rows(c, sql, "|"), "read " + i);
        }
        c.setReadOnly(false);
    }

    /** Sets {@code search_path} on the databases of {@code url} ({@code replicas} of them), or resets it where null. */
    private static void searchPath(String url, int replicas, String path) throws SQLException {
        PgCluster pg = PgCluster.shared();
        String db = PgCluster.primaryDatabase(url);
        for (int i = 0; i < replicas; i++) {
            String name = i == 0 ? db : db + "_r" + i;
            try (Connection c = pg.server(i).connect("postgres"); Statement s = c.createStatement()) {
                s.execute("ALTER DATABASE " + name + (path == null ? " RESET search_path" : " SET search_path = " + path));
            }
        }
    }

    /**
     * A search_path of two schemas, set on every database: names of both resolve through MacroDB on every route, and a
     * schema change ships under the whole path (a view and a foreign key that name the second schema's table land in the
     * first schema on every replica).
     */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"triggers", "decoding"})
    void aSearchPathOfSeveralSchemasResolvesAsOnThePrimaryOnEveryRoute(String capture) throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=" + capture);
        pg.onPrimary(url, "CREATE SCHEMA app", "CREATE TABLE app.items (k int PRIMARY KEY, name text)",
                "CREATE TABLE public.others (k int PRIMARY KEY)", "INSERT INTO app.items VALUES (1, 'a'), (2, 'b')",
                "INSERT INTO public.others VALUES (7)");
        searchPath(url, 3, "app, public");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            readsOnEveryRoute(c, "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM others), current_setting('search_path')",
                    "2|1|app, public");
            s.execute("CREATE VIEW both_v AS SELECT i.k, o.k AS other FROM items i, others o");
            s.execute("CREATE TABLE more (k int PRIMARY KEY, o int REFERENCES others (k))");
            s.execute("INSERT INTO more VALUES (1, 7)");
            c.setAutoCommit(false);
            s.execute("CREATE TABLE most (k int PRIMARY KEY, o int REFERENCES others (k))");
            s.execute("INSERT INTO most SELECT k, other FROM both_v");
            c.commit();
            TestDb.assertOnEveryReplica(c, 3, "SELECT format('%s.%s', table_schema, table_name) FROM information_schema.tables"
                    + " WHERE table_name IN ('both_v', 'more', 'most') ORDER BY 1", List.of("app.both_v", "app.more", "app.most"));
            TestDb.assertOnEveryReplica(c, 3, "SELECT k, o FROM app.most ORDER BY k", List.of("1|7", "2|7"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * A session's {@code SET} reaches every session its connection reads on: after {@code SET search_path TO tenant_b}
     * a read of {@code orders} on a secondary reads tenant b's table, not tenant a's or none. Before 2026-11-29 the
     * {@code SET} was taken for a schema change: logged, run on the secondaries' apply sessions, and never on the sessions
     * that read there. It logs nothing now, and {@code RESET} is carried the same way, and so is {@code SELECT
     * set_config(name, value, false)}, as the setting stands after it (it set the primary's session alone before).
     */
    @Test
    void aSessionsSetReachesTheSessionsItReadsOn() throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=triggers");
        pg.onPrimary(url, "CREATE SCHEMA tenant_a", "CREATE SCHEMA tenant_b", "CREATE TABLE tenant_a.orders (k int PRIMARY KEY, who text)",
                "CREATE TABLE tenant_b.orders (k int PRIMARY KEY, who text)", "INSERT INTO tenant_a.orders VALUES (1, 'a')",
                "INSERT INTO tenant_b.orders VALUES (1, 'b'), (2, 'b')");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            long version = TestDb.macro(c).replicaStatus().get(0).version();
            s.execute("SET search_path TO tenant_b, public");
            s.execute("SET TIME ZONE 'Asia/Kolkata'");
            s.execute("SET myapp.tenant = 'b'");
            readsOnEveryRoute(c, "SELECT count(*), min(who), current_setting('TimeZone'), current_setting('myapp.tenant', true) FROM"
                    + " orders", "2|b|Asia/Kolkata|b");
            s.execute("RESET myapp.tenant");
            s.execute("SET SESSION search_path = tenant_a");
            readsOnEveryRoute(c, "SELECT count(*), min(who), coalesce(current_setting('myapp.tenant', true), '') FROM orders", "1|a|");
            // as Flyway changes the search_path: a query whose effect is the setting, carried as it leaves it
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT set_config('search_path', ?, false)")) {
                ps.setString(1, "tenant_b");
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("tenant_b", rs.getString(1));
                }
            }
            s.executeQuery("SELECT set_config('myapp.tenant', upper('b'), false)").close();
            readsOnEveryRoute(c, "SELECT count(*), min(who), current_setting('myapp.tenant', true) FROM orders", "2|b|B");
            c.setReadOnly(true); // in a read-only transaction, wherever that runs it
            s.executeQuery("SELECT set_config('myapp.tenant', 'c', false)").close();
            readsOnEveryRoute(c, "SELECT count(*), min(who), current_setting('myapp.tenant', true) FROM orders", "2|b|c");
            assertEquals(version, TestDb.macro(c).replicaStatus().get(0).version(), "a SET is not logged");
            TestDb.assertConverged(c);
        }
    }

    /**
     * A secondary database that differs from the primary's in its locale, or in a setting a session starts with, is
     * refused at open with {@code 55000} naming the difference, and is left as it was; so is, when the set opens again, a
     * secondary kept from before whose settings were changed past MacroDB while it was closed.
     */
    @Test
    void aSecondaryThatDiffersInLocaleOrSettingsIsRefused() throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=triggers&closeDelay=0");
        String db = PgCluster.primaryDatabase(url);
        pg.onPrimary(url, "CREATE TABLE names (k int PRIMARY KEY, name text)", "INSERT INTO names VALUES (1, 'a'), (2, 'B'), (3, 'c')");
        try (Connection c = pg.server(2).connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE " + db + "_r2");
            s.execute("CREATE DATABASE " + db + "_r2 TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.utf8'");
        }
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("55000", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("secondary database " + db + "_r2") && e.getMessage().contains("LOCALE_PROVIDER is 'i'"
                + " here and 'c' on the primary") && e.getMessage().contains("ICU_LOCALE is 'en-US' here and not set on the primary")
                && e.getMessage().contains("Nothing was changed there"), e::getMessage);
        try (Connection c = pg.server(2).connect(db + "_r2")) {
            assertEquals(List.of("0"), TestDb.rows(c, "SELECT count(*) FROM pg_class WHERE relname IN ('names', 'replica')", "|"));
        }
        try (Connection c = pg.server(2).connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE " + db + "_r2");
            s.execute("CREATE DATABASE " + db + "_r2 TEMPLATE template0");
        }
        searchPath(url, 1, "public, pg_temp");
        e = assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("55000", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("search_path is '\"$user\", public' here and 'public, pg_temp' on the primary"), e::getMessage);
        searchPath(url, 3, "public, pg_temp");
        try (Connection c = TestDb.open(url)) {
            TestDb.assertOnEveryReplica(c, 3, "SELECT string_agg(name, ',' ORDER BY name) FROM names", List.of("B,a,c"));
            TestDb.assertConverged(c);
        }
        try (Connection c = pg.server(1).connect("postgres"); Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + db + "_r1 SET IntervalStyle = 'iso_8601'"); // past MacroDB, while the set is closed
        }
        e = assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("55000", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("secondary database " + db + "_r1") && e.getMessage().contains("IntervalStyle is"
                + " 'iso_8601' here and 'postgres' on the primary"), e::getMessage);
    }
}
