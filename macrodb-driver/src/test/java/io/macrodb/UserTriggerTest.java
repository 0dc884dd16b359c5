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
}
