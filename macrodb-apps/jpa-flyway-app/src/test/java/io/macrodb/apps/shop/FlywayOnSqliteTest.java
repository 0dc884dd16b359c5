package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroDataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Flyway on SQLite through MacroDB, with a migration that fails halfway: SQLite's DDL is transactional, so Flyway
 * runs each migration in one transaction and rolls a failed one back whole. Through MacroDB too: the rows changed
 * before the migration's first schema change, the new table, the new column and the rows after them are gone on
 * every replica, and the history holds V1 alone. (MacroDB used to commit the open transaction before each schema
 * change, as H2 and HSQLDB do themselves, and the first half of V2 stayed behind, on every replica.) No Spring here:
 * Flyway's own API over a {@link MacroDataSource}, as a migration tool or a build step runs it.
 */
class FlywayOnSqliteTest {
    private static final String URL = "jdbc:macrodb:sqlite:mem:flyway_halfway?replicas=3";

    @Test
    void aMigrationThatFailsHalfwayLeavesNoTraceOnAnyReplica() throws SQLException {
        try (Connection keep = DriverManager.getConnection(URL)) { // an in-memory database lives while a connection is open
            MacroDataSource dataSource = new MacroDataSource();
            dataSource.setUrl(URL);
            Flyway flyway = Flyway.configure().dataSource(dataSource).locations("classpath:db/sqlite-halfway").load();
            assertThatThrownBy(flyway::migrate).isInstanceOf(FlywayException.class).hasMessageContaining("no_such_table");

            assertThat(rows(keep, "SELECT * FROM item ORDER BY id")).containsExactly("1|kettle|10", "2|teapot|4");
            assertThat(rows(keep, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'shipment'")).isEmpty();
            assertThat(rows(keep, "SELECT \"version\", \"success\" FROM \"flyway_schema_history\" WHERE \"version\" IS NOT NULL"))
                    .containsExactly("1|1");

            MacroAdmin admin = keep.unwrap(MacroAdmin.class);
            assertThat(admin.awaitCaughtUp(10_000)).isTrue();
            List<String> sums = admin.checksums();
            assertThat(sums).hasSize(3).doesNotContainNull().containsOnly(sums.get(0));

            // the database goes on: the next write reaches every replica
            try (Statement s = keep.createStatement()) {
                s.execute("UPDATE item SET qty = qty + 1 WHERE id = 2");
            }
            assertThat(admin.awaitCaughtUp(10_000)).isTrue();
            assertThat(admin.checksums()).containsOnly(admin.checksums().get(0));
        }
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) sb.append(i == 1 ? "" : "|").append(rs.getString(i));
                out.add(sb.toString());
            }
        }
        return out;
    }
}
