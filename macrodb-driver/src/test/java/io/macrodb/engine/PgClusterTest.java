package io.macrodb.engine;

import io.macrodb.testing.PgCluster;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The test fixture itself: three PostgreSQL servers start, answer, one stops and starts again. */
class PgClusterTest {
    @Test
    void startsThreeServersAndStopsOne() throws Exception {
        PgCluster.assumeAvailable();
        try (PgCluster pg = PgCluster.start(3)) {
            assertEquals(3, pg.servers().size());
            for (PgCluster.Server s : pg.servers()) {
                try (Connection c = s.connect("postgres"); Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT current_setting('wal_level'), current_setting('fsync'), inet_server_port()")) {
                    assertTrue(rs.next());
                    assertEquals("logical", rs.getString(1));
                    assertEquals("off", rs.getString(2));
                    assertEquals(s.port(), rs.getInt(3));
                }
            }
            PgCluster.Server one = pg.server(1);
            one.stop(true);
            assertFalse(one.running());
            SQLException e = assertThrows(SQLException.class, () -> one.connect("postgres").close());
            assertTrue(e.getSQLState().startsWith("08"), e.getSQLState() + " " + e.getMessage());
            try (Connection c = pg.server(2).connect("postgres")) {
                assertTrue(c.isValid(5));
            }
            one.start();
            try (Connection c = one.connect("postgres")) {
                assertTrue(c.isValid(5));
            }
        }
    }
}
