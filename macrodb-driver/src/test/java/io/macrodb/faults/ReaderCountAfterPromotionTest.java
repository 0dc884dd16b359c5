package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.Failovers;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A read that was routed to the primary just before the primary failed runs on its successor, and counts as a reader of
 * the replica it ran on: the count the balancer routes by ({@code activeReaders}) comes back to 0 on every replica.
 * Before, the read was counted as started on the failed primary and ended on the new one, whose count went below 0
 * ({@code activeReaders=-2} was seen on a promoted PostgreSQL primary), a count the metrics report and the balancer
 * compares secondaries by.
 */
class ReaderCountAfterPromotionTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aReadRoutedToAFailedPrimaryIsCountedWhereItRan(String engine) throws Exception {
        String url = TestDb.url(engine, "replicas=3&lockTimeout=5000");
        try (Connection c = TestDb.open(url)) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept (id INT PRIMARY KEY, v INT)");
            }
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            Failovers.shutDown(mc.replicaStatus().get(0).url());
            // a read of the catalog is routed to the primary (the failed one, unless the monitor was first); a connection
            // with no primary session yet opens one there, finds the engine gone, and runs on the successor
            try (Connection other = TestDb.open(url);
                 Statement s = other.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'KEPT'")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
            Failovers.awaitPromotion(mc);
            for (ReplicaStatus r : mc.replicaStatus()) assertEquals(0, r.activeReaders(), () -> "no read is open: " + mc.replicaStatus());
        }
    }
}
