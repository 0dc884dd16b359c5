package io.macrodb.engine;

import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Row security that applies to the user MacroDB connects as. PostgreSQL applies a table's policies to every query of
 * such a user, MacroDB's own among them: the copy to a secondary, the commit's read-back of changed rows, the
 * secondaries' apply. Before 2026-11-29 a database whose table forced row security on its owner, MacroDB's user,
 * opened: the copy left out every row the policies hid from a session without the application's settings (all of them
 * here), and the secondaries stayed empty while the primary held four rows; with {@code capture=triggers} a commit that
 * inserted a row the policies hid failed, saying the row was gone. Such a database is now refused at open, and a schema
 * change that would make one is refused and rolled back. The tests read every replica past MacroDB as a superuser, whom
 * no policy applies to ({@link TestDb#everyReplica}).
 */
class PostgresRowSecurityTest {

    /** Logs in, may set {@code session_replication_role} and make a publication's slot; not a superuser. */
    private static final String OWNER = "rls_owner";
    /** As {@link #OWNER}, with {@code BYPASSRLS}. */
    private static final String BYPASS = "rls_bypass";

    @BeforeAll
    static void roles() throws SQLException {
        PgCluster.assumeAvailable();
        for (PgCluster.Server server : PgCluster.shared().servers()) {
            try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
                for (String role : List.of(OWNER, BYPASS)) {
                    s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + role + "') THEN CREATE ROLE "
                            + role + " LOGIN REPLICATION" + (role.equals(BYPASS) ? " BYPASSRLS" : "") + "; END IF; END $$");
                    s.execute("GRANT SET ON PARAMETER session_replication_role TO " + role);
                }
            }
        }
    }

    /** A MacroDB URL over new databases, every one of them owned by {@code role}, the primary holding {@link #tenants}. */
    private static String database(String role, String capture) throws SQLException {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=" + capture);
        String db = PgCluster.primaryDatabase(url);
        for (PgCluster.Server server : pg.servers()) {
            try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
                for (String n : TestDb.rows(c, "SELECT datname FROM pg_database WHERE datname LIKE '" + db + "%'", "|")) {
                    s.execute("ALTER DATABASE " + n + " OWNER TO " + role);
                }
            }
        }
        try (Connection c = DriverManager.getConnection(pg.server(0).jdbcUrl(db), as(role)); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE tenants (k int PRIMARY KEY, tenant text NOT NULL, v text)");
            s.execute("INSERT INTO tenants VALUES (1, 'a', 'one'), (2, 'b', 'two'), (3, 'a', 'three')");
            s.execute("CREATE POLICY own ON tenants USING (tenant = current_setting('app.tenant', true)) WITH CHECK (true)");
        }
        if (capture.equals("decoding")) pg.onPrimary(url, "CREATE PUBLICATION macrodb FOR ALL TABLES");
        return url;
    }

    private static Properties as(String role) {
        Properties p = new Properties();
        p.setProperty("user", role);
        p.setProperty("password", "");
        return p;
    }

    /** Whether the primary's database of {@code url} holds schema macrodb (MacroDB wrote to it). */
    private static boolean touched(String url) throws SQLException {
        try (Connection c = PgCluster.shared().server(0).connect(PgCluster.primaryDatabase(url))) {
            return !TestDb.rows(c, "SELECT 1 FROM pg_namespace WHERE nspname = 'macrodb'", "|").isEmpty();
        }
    }

    /**
     * Row security forced on the owner MacroDB connects as is refused at open with {@code 0AM00}, naming the table and
     * what to change, before MacroDB writes anything. Without the refusal the copy left every row out.
     */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"triggers", "decoding"})
    void rowSecurityForcedOnMacroDbsUserIsRefusedAtOpen(String capture) throws Exception {
        String url = database(OWNER, capture);
        PgCluster.shared().onPrimary(url, "ALTER TABLE tenants ENABLE ROW LEVEL SECURITY", "ALTER TABLE tenants FORCE ROW LEVEL SECURITY");
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(url, as(OWNER)).close());
        assertEquals("0AM00", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("public.tenants (forced on its owner too; user " + OWNER + ")")
                && e.getMessage().contains("NO FORCE ROW LEVEL SECURITY") && e.getMessage().contains("BYPASSRLS")
                && e.getMessage().contains("Nothing was changed"), e::getMessage);
        assertFalse(touched(url));
    }

    /** Row security enabled on a table of another owner applies to MacroDB's user, and is refused as well. */
    @Test
    void rowSecurityOnATableOfAnotherOwnerIsRefusedAtOpen() throws Exception {
        String url = database(OWNER, "triggers");
        PgCluster.shared().onPrimary(url, "ALTER TABLE tenants ENABLE ROW LEVEL SECURITY", "ALTER TABLE tenants OWNER TO " + PgCluster.USER,
                "GRANT ALL ON tenants TO " + OWNER);
        SQLException e = assertThrows(SQLException.class, () -> DriverManager.getConnection(url, as(OWNER)).close());
        assertEquals("0AM00", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("public.tenants (enabled, and the user is not its owner; user " + OWNER + ")"), e::getMessage);
        assertFalse(touched(url));
    }

    /**
     * Row security the owner passes (enabled, not forced) is taken, and so is row security forced on a user with
     * BYPASSRLS: every row reaches every secondary, also one the application's own policies hide from it. A schema change
     * that forces row security on MacroDB's user is refused with {@code 0AM00} and rolled back, in autocommit and in a
     * transaction, which goes on.
     */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"triggers", "decoding"})
    void rowSecurityMacroDbsUserPassesIsTakenAndASchemaChangeThatForcesItIsRefused(String capture) throws Exception {
        String url = database(OWNER, capture);
        PgCluster.shared().onPrimary(url, "ALTER TABLE tenants ENABLE ROW LEVEL SECURITY");
        try (Connection c = DriverManager.getConnection(url, as(OWNER)); Statement s = c.createStatement()) {
            assertEquals(List.of(List.of("3"), List.of("3"), List.of("3")), TestDb.everyReplica(c, "SELECT count(*) FROM tenants"));
            SQLException e = assertThrows(SQLException.class, () -> s.execute("ALTER TABLE tenants FORCE ROW LEVEL SECURITY"));
            assertEquals("0AM00", e.getSQLState(), e::getMessage);
            assertTrue(e.getMessage().contains("after this schema change the database would hold tables whose row security"), e::getMessage);
            c.setAutoCommit(false);
            s.execute("INSERT INTO tenants VALUES (4, 'b', 'four')");
            e = assertThrows(SQLException.class, () -> s.execute("ALTER TABLE tenants FORCE ROW LEVEL SECURITY"));
            assertEquals("0AM00", e.getSQLState(), e::getMessage);
            s.execute("UPDATE tenants SET v = 'changed' WHERE k = 2");
            c.commit();
            List<String> all = List.of("1|a|one|f", "2|b|changed|f", "3|a|three|f", "4|b|four|f");
            assertEquals(List.of(all, all, all), TestDb.everyReplica(c, "SELECT k, tenant, v, (SELECT relforcerowsecurity FROM pg_class"
                    + " WHERE oid = 'tenants'::regclass) FROM tenants ORDER BY k"));
            TestDb.assertConverged(c);
        }
        String bypass = database(BYPASS, capture);
        PgCluster.shared().onPrimary(bypass, "ALTER TABLE tenants ENABLE ROW LEVEL SECURITY", "ALTER TABLE tenants FORCE ROW LEVEL SECURITY");
        try (Connection c = DriverManager.getConnection(bypass, as(BYPASS)); Statement s = c.createStatement()) {
            s.execute("SET app.tenant = 'a'");
            s.execute("INSERT INTO tenants VALUES (4, 'b', 'four')");
            List<String> all = List.of("1|a", "2|b", "3|a", "4|b");
            assertEquals(List.of(all, all, all), TestDb.everyReplica(c, "SELECT k, tenant FROM tenants ORDER BY k"));
            TestDb.assertConverged(c);
        }
    }
}
