package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.Failovers;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sequence value handed out by a transaction that changed no row (a {@code SELECT NEXT VALUE FOR s}, the usual way to
 * take an order number, or rows inserted and deleted again) is never handed out again after a promotion: the commit ships
 * the sequence's position even with no row to ship.
 */
class SequenceAfterPromotionTest {

    private static long next(Connection c, String engine) throws Exception {
        String sql = engine.equals("derby") ? "VALUES NEXT VALUE FOR s" : engine.equals("hsqldb") ? "CALL NEXT VALUE FOR s" : "SELECT NEXT VALUE FOR s";
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void aValueTakenWithoutChangingARowIsNotHandedOutAgain(String engine) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.macrodb.testing.TestEngines.all().anyMatch(engine::equals), "not among -Dmacrodb.testEngines");
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2&lockTimeout=5000"))) {
            MacroConnection mc = TestDb.macro(c);
            String oldPrimaryUrl = mc.replicaStatus().get(0).url();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE SEQUENCE s START WITH 1");
                s.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)");
            }
            long last = 0;
            for (int i = 0; i < 3; i++) last = next(c, engine); // order numbers, autocommit: 1, 2, 3
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) { // rows inserted and deleted again: no row changes in the end
                s.execute("INSERT INTO t VALUES (NEXT VALUE FOR s)");
                s.execute("DELETE FROM t");
            }
            c.commit();
            c.setAutoCommit(true);
            last++; // 4
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            Failovers.shutDown(oldPrimaryUrl);
            Failovers.awaitPromotion(mc);
            long after = -1;
            for (int attempt = 0; ; attempt++) {
                try {
                    after = next(c, engine);
                    break;
                } catch (java.sql.SQLException e) {
                    if (!"40001".equals(e.getSQLState()) || attempt > 50) throw e;
                }
            }
            long handedOut = last;
            long got = after;
            assertTrue(got > handedOut, () -> "the promoted primary handed out " + got + ", which the failed one had handed out already (up to "
                    + handedOut + ")");
            TestDb.assertConverged(c);
        }
    }
}
