package io.macrodb.replica;

import io.macrodb.jdbc.Internals;
import io.macrodb.log.StatementChange;
import io.macrodb.testing.AuditTrigger;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening a set over a database that already holds rows and the application's triggers exports the
 * primary once (PrimaryScript): every secondary is imported from that script and the triggers
 * (kept for a promotion in row propagation) are read from it. Each secondary holds the rows and
 * none of the application's triggers; the set knows the trigger.
 */
class OpenFromScriptTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void everySecondaryIsImportedFromTheOneExportAndTheTriggersAreReadFromIt(int replicas) throws Exception {
        String name = "script_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        String plain = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        try (Connection c = DriverManager.getConnection(plain, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
            s.execute("CREATE TABLE audit (item_id INT, what VARCHAR(10), PRIMARY KEY (item_id, what))");
            s.execute("INSERT INTO t SELECT X, 'row ' || X FROM SYSTEM_RANGE(1, 500)");
            s.execute("CREATE TRIGGER t_audit AFTER INSERT ON t FOR EACH ROW CALL \"" + AuditTrigger.class.getName() + "\"");
        }
        String url = "jdbc:macrodb:h2:mem:" + name + ";DB_CLOSE_DELAY=-1?replicas=" + replicas;
        try (Connection c = TestDb.open(url)) {
            ReplicaSet set = Internals.replicaSet(c);
            List<String> triggers = set.userTriggers().stream().map(StatementChange::sql).toList();
            assertEquals(1, triggers.size(), triggers::toString);
            assertTrue(triggers.get(0).toUpperCase().contains("T_AUDIT"), triggers::toString);
            assertEquals(replicas - 1, set.secondaries().size());
            for (Replica r : set.secondaries()) {
                try (Connection sc = r.open(); Statement s = sc.createStatement()) {
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
                        rs.next();
                        assertEquals(500, rs.getInt(1), r + " holds every row");
                    }
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = 'T_AUDIT'")) {
                        rs.next();
                        assertEquals(0, rs.getInt(1), r + " does not carry the application's trigger (row propagation)");
                    }
                }
            }
            TestDb.assertConverged(c);
            try (Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }
}
