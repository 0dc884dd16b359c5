package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.Failovers;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code DatabaseMetaData} the application keeps (pools and ORMs do) goes on answering after the
 * primary it came from failed: its calls run on the primary's current session.
 */
class MetadataAfterPromotionTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aKeptMetadataObjectAnswersFromTheNewPrimary(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2&lockTimeout=5000"))) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept (id INT PRIMARY KEY, v INT)");
            }
            DatabaseMetaData md = c.getMetaData();
            assertEquals(1, tables(md));
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            Failovers.shutDown(mc.replicaStatus().get(0).url());
            Failovers.awaitPromotion(mc);
            assertEquals(1, tables(md), "the kept metadata answers from the new primary");
            assertTrue(md.getDatabaseProductName().length() > 0);
            try (ResultSet rs = md.getPrimaryKeys(null, null, "KEPT")) {
                assertTrue(rs.next());
                assertEquals("ID", rs.getString("COLUMN_NAME"));
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aClosedConnectionsMetadataAnswersNothing() throws Exception {
        DatabaseMetaData md;
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            md = c.getMetaData();
            assertEquals(0, tables(md));
        }
        assertEquals("08003", org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class, () -> tables(md)).getSQLState());
    }

    private static int tables(DatabaseMetaData md) throws Exception {
        int n = 0;
        try (ResultSet rs = md.getTables(null, null, "KEPT", new String[] {"TABLE"})) {
            while (rs.next()) n++;
        }
        return n;
    }
}
