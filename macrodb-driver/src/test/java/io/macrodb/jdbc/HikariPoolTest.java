package io.macrodb.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MacroDB under HikariCP, configured both by JDBC URL and as a DataSource bean, the way applications do it. */
class HikariPoolTest {

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void pooledConnectionsRouteAndConverge(boolean asDataSourceBean) throws Exception {
        String url = TestDb.url("h2", "replicas=3");
        HikariConfig cfg = new HikariConfig();
        if (asDataSourceBean) {
            cfg.setDataSourceClassName(MacroDataSource.class.getName());
            cfg.addDataSourceProperty("url", url);
            cfg.addDataSourceProperty("user", "sa");
            cfg.addDataSourceProperty("password", "");
        } else {
            cfg.setJdbcUrl(url);
            cfg.setUsername("sa");
            cfg.setPassword("");
        }
        cfg.setMaximumPoolSize(4);
        cfg.setMinimumIdle(1); // keeps the replica set open between borrowings
        try (HikariDataSource ds = new HikariDataSource(cfg)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, qty INT)");
            }
            for (int i = 0; i < 50; i++) {
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO item VALUES (?, ?)")) {
                    ps.setInt(1, i);
                    ps.setInt(2, i);
                    ps.executeUpdate();
                }
            }
            try (Connection c = ds.getConnection()) {
                // the read goes to a secondary only if one has the 50 inserts within readWait (5 ms): on a loaded
                // machine it may not yet, and the read then rightly runs on the primary
                assertTrue(c.unwrap(MacroConnection.class).admin().awaitCaughtUp(30_000));
                c.setReadOnly(true);
                c.setAutoCommit(false);
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(qty) FROM item")) {
                    rs.next();
                    assertEquals(50, rs.getInt(1));
                    assertEquals(1225, rs.getInt(2));
                    assertFalse(c.unwrap(MacroConnection.class).currentReplica().isPrimary(), "the pool hands out MacroDB connections");
                }
                c.commit();
            }
            try (Connection c = ds.getConnection()) {
                assertTrue(c.isValid(1));
                TestDb.assertConverged(c);
            }
        }
    }
}
