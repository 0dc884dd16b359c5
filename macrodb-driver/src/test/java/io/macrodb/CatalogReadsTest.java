package io.macrodb;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.Route;
import io.macrodb.jdbc.RoutingCounts;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A query of the engine's catalog sees what the primary has: the secondaries' catalogs differ from it. In row
 * propagation they carry none of the application's triggers (the primary's effects arrive as rows), so a query of
 * {@code INFORMATION_SCHEMA.TRIGGERS} routed to a secondary said the application had no trigger. Such a query now runs
 * on the primary in autocommit, in a declared read-only transaction it begins, and in an undeclared one, while the
 * application's other reads still go to the secondaries.
 */
class CatalogReadsTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.macrodb.testing.TestEngines#all")
    void everyReadOfTheCatalogSeesTheApplicationsTrigger(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, engine.equals("postgresql") ? "" : "replicas=3"))) {
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, v INT)");
                s.execute("CREATE TABLE audit (item_id INT, what VARCHAR(10), PRIMARY KEY (item_id, what))");
                s.execute(triggerDdl(engine));
                s.execute("INSERT INTO item VALUES (1, 1)");
            }
            assertTrue(admin.awaitCaughtUp(30_000), "caught up");
            String query = triggerQuery(engine);
            RoutingCounts start = admin.routingCounts();
            for (int i = 0; i < 12; i++) assertEquals(1, count(c, query), "autocommit read " + i + " of " + query);
            c.setReadOnly(true);
            c.setAutoCommit(false);
            assertEquals(1, count(c, query), "a declared read-only transaction");
            assertEquals(1, count(c, "SELECT COUNT(*) FROM audit"), "the trigger fired once");
            c.commit();
            c.setReadOnly(false);
            assertEquals(1, count(c, query), "an undeclared transaction");
            c.commit();
            c.setAutoCommit(true);
            RoutingCounts d = admin.routingCounts().minus(start);
            assertEquals(14, d.count(Route.PRIMARY_CATALOG), d::toString);
            for (int i = 0; i < 3; i++) assertEquals(1, count(c, "SELECT COUNT(*) FROM item"));
            RoutingCounts after = admin.routingCounts().minus(start);
            assertEquals(3, after.onSecondaries(), () -> "the application's own reads still go to the secondaries: " + after);
        }
    }

    private static int count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = 0;
            while (rs.next()) n += sql.startsWith("SELECT COUNT") ? rs.getInt(1) : 1;
            return n;
        }
    }

    private static String triggerDdl(String engine) {
        return switch (engine) {
            case "h2" -> "CREATE TRIGGER item_audit AFTER INSERT ON item FOR EACH ROW CALL \""
                    + io.macrodb.testing.AuditTrigger.class.getName() + "\"";
            case "hsqldb" -> "CREATE TRIGGER item_audit AFTER INSERT ON item REFERENCING NEW ROW AS r"
                    + " FOR EACH ROW INSERT INTO audit (item_id, what) VALUES (r.id, 'insert')";
            case "derby" -> "CREATE TRIGGER item_audit AFTER INSERT ON item REFERENCING NEW AS r"
                    + " FOR EACH ROW INSERT INTO audit (item_id, what) VALUES (r.id, 'insert')";
            case "sqlite" -> "CREATE TRIGGER item_audit AFTER INSERT ON item BEGIN INSERT INTO audit VALUES (NEW.id, 'insert'); END";
            // a function and its trigger, in one schema change
            case "postgresql" -> "CREATE FUNCTION audit_item() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " INSERT INTO audit VALUES (NEW.id, 'insert'); RETURN NULL; END $$;"
                    + " CREATE TRIGGER item_audit AFTER INSERT ON item FOR EACH ROW EXECUTE FUNCTION audit_item()";
            default -> throw new IllegalArgumentException(engine);
        };
    }

    /** The application's trigger, as the engine's catalog lists it: one row. */
    private static String triggerQuery(String engine) {
        return switch (engine) {
            case "h2", "hsqldb" -> "SELECT TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = 'ITEM_AUDIT'";
            case "derby" -> "SELECT TRIGGERNAME FROM SYS.SYSTRIGGERS WHERE TRIGGERNAME = 'ITEM_AUDIT'";
            case "sqlite" -> "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name = 'item_audit'";
            case "postgresql" -> "SELECT trigger_name FROM information_schema.triggers WHERE trigger_name = 'item_audit'";
            default -> throw new IllegalArgumentException(engine);
        };
    }
}
