package io.macrodb;

import io.macrodb.testing.AuditTrigger;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The application's own triggers take effect exactly once on every replica. Row propagation
 * captures their effects on the primary as rows, so secondaries must not fire them again; statement
 * propagation replays the statements, so secondaries must fire them.
 */
class UserTriggerTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "hsqldb,row", "h2,statement", "hsqldb,statement"})
    void triggerEffectsReachEverySecondaryOnce(String engine, String propagation) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=3&propagation=" + propagation))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, v INT)");
                s.execute("CREATE TABLE audit (item_id INT, what VARCHAR(10), PRIMARY KEY (item_id, what))");
                if (engine.equals("h2")) {
                    s.execute("CREATE TRIGGER item_audit AFTER INSERT, UPDATE, DELETE ON item FOR EACH ROW CALL \""
                            + AuditTrigger.class.getName() + "\"");
                } else {
                    for (String ev : new String[] {"INSERT", "UPDATE", "DELETE"}) {
                        String row = ev.equals("DELETE") ? "OLD ROW AS r" : "NEW ROW AS r";
                        s.execute("CREATE TRIGGER item_audit_" + ev + " AFTER " + ev + " ON item REFERENCING " + row
                                + " FOR EACH ROW INSERT INTO audit (item_id, what) VALUES (r.id, '" + ev.toLowerCase() + "')");
                    }
                }
                s.execute("INSERT INTO item VALUES (1, 10), (2, 20)");
                s.execute("UPDATE item SET v = v + 1 WHERE id = 1");
                s.execute("DELETE FROM item WHERE id = 2");
            }
            TestDb.assertConverged(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM audit")) {
                rs.next();
                assertEquals(4, rs.getInt(1), "two inserts, one update, one delete, each audited once");
            }
        }
    }

    /**
     * A trigger dropped through MacroDB leaves the secondaries in the rotation. In row propagation they carry none of the
     * application's triggers, and ran the DROP TRIGGER all the same: it failed there on a trigger they did not have, and
     * every secondary left the rotation (seen on PostgreSQL: PostgresFaultTest). A change of the application's triggers
     * alone is not run on such a secondary (ReplicaSet.changesOnlyATrigger); the primary has it.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("io.macrodb.testing.TestEngines#all")
    void aTriggerDroppedThroughMacroDbLeavesTheSecondariesInTheRotation(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=3&propagation=row"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, v INT)");
                s.execute("CREATE TABLE audit (item_id INT, what VARCHAR(10), PRIMARY KEY (item_id, what))");
                if (engine.equals("postgresql")) {
                    s.execute("CREATE FUNCTION audit_item() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                            + " INSERT INTO audit VALUES (NEW.id, 'insert'); RETURN NULL; END $$"); // what trigger() calls there
                }
                s.execute(trigger(engine, "item_audit", "item"));
                s.execute("INSERT INTO item VALUES (1, 10)");
                s.execute(engine.equals("postgresql") ? "DROP TRIGGER item_audit ON item" : "DROP TRIGGER item_audit");
                s.execute("INSERT INTO item VALUES (2, 20)");
            }
            TestDb.assertConverged(c);
            for (var r : TestDb.macro(c).replicaStatus()) {
                assertEquals(io.macrodb.replica.ReplicaState.ACTIVE, r.state(), r::toString);
            }
            TestDb.assertOnEveryReplica(c, 3, "SELECT COUNT(*) FROM audit", java.util.List.of("1"));
        }
    }

    /**
     * A promotion puts back the triggers the primary had when it failed: not one dropped with its table (putting it
     * back failed on the missing table), and one created afterwards on a new table of the same name.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("io.macrodb.testing.TestEngines#all")
    void aPromotionPutsBackTheTriggersThePrimaryHadWhenItFailed(String engine) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(engine.equals("postgresql"), "PostgresFaultTest stops a PostgreSQL primary's"
                + " own server: thePromotedPrimaryHasTheApplicationsTriggersAsThePrimaryLastHadThem");
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=3&propagation=row"))) {
            var mc = TestDb.macro(c);
            String oldPrimary = mc.replicaStatus().get(0).url();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE audit (item_id INT, what VARCHAR(10), PRIMARY KEY (item_id, what))");
                s.execute("CREATE TABLE gone (id INT PRIMARY KEY, v INT)");
                s.execute(trigger(engine, "gone_audit", "gone"));
                s.execute("DROP TABLE gone");
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, v INT)");
                s.execute(trigger(engine, "item_audit", "item"));
                s.execute("INSERT INTO item VALUES (1, 10)");
                if (!engine.equals("derby")) { // Derby refuses to rename a table with triggers
                    // its trigger's statement names the old name; the catalog's, the new one
                    s.execute("CREATE TABLE moved (id INT PRIMARY KEY, v INT)");
                    s.execute(trigger(engine, "moved_audit", "moved"));
                    s.execute("ALTER TABLE moved RENAME TO renamed");
                }
            }
            assertEquals(true, mc.admin().awaitCaughtUp(10_000));
            io.macrodb.testing.Failovers.shutDown(oldPrimary);
            io.macrodb.testing.Failovers.awaitPromotion(mc);
            assertEquals(true, mc.replicaStatus().get(0).stateReason().startsWith("promoted"), () -> mc.replicaStatus().toString());
            for (int attempt = 0; ; attempt++) {
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO item VALUES (2, 20)");
                    break;
                } catch (java.sql.SQLException e) {
                    if (!"40001".equals(e.getSQLState()) || attempt > 100) throw e;
                    Thread.sleep(20);
                }
            }
            if (!engine.equals("derby")) {
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO renamed VALUES (3, 30)");
                }
            }
            io.macrodb.testing.Failovers.awaitAllActive(mc, 3); // the failed primary's place taken by a new secondary
            TestDb.assertOnEveryReplica(c, 3, "SELECT COUNT(*) FROM audit", java.util.List.of(engine.equals("derby") ? "2" : "3"));
        }
    }

    /** The engine's own form of an audit trigger after insert (on PostgreSQL, of function {@code audit_item()}). */
    private static String trigger(String engine, String name, String table) {
        return switch (engine) {
            case "postgresql" -> "CREATE TRIGGER " + name + " AFTER INSERT ON " + table + " FOR EACH ROW EXECUTE FUNCTION audit_item()";
            case "h2" -> "CREATE TRIGGER " + name + " AFTER INSERT ON " + table + " FOR EACH ROW CALL \"" + AuditTrigger.class.getName() + "\"";
            case "sqlite" -> "CREATE TRIGGER " + name + " AFTER INSERT ON " + table + " BEGIN INSERT INTO audit VALUES (NEW.id, 'insert'); END";
            case "derby" -> "CREATE TRIGGER " + name + " AFTER INSERT ON " + table + " REFERENCING NEW AS r FOR EACH ROW"
                    + " INSERT INTO audit VALUES (r.id, 'insert')";
            default -> "CREATE TRIGGER " + name + " AFTER INSERT ON " + table + " REFERENCING NEW ROW AS r FOR EACH ROW"
                    + " INSERT INTO audit VALUES (r.id, 'insert')";
        };
    }
}
