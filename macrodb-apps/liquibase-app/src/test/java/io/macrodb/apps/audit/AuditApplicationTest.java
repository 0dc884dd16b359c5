package io.macrodb.apps.audit;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Liquibase application started as its users start it: application.properties holds only the
 * MacroDB URL; Liquibase runs the changelog at start: a table, three rows, then an audit column added
 * by {@code addColumn} with {@code defaultValueComputed: CURRENT_TIMESTAMP} to the table with rows.
 */
@SpringBootTest
class AuditApplicationTest {
    @Autowired DataSource dataSource;
    @Autowired JdbcTemplate jdbc;
    @Autowired Notes notes;
    @Autowired HealthContributorRegistry health;

    @Test
    void liquibaseChangelogRunsAndEveryReplicaHoldsThePrimarysTimestamps() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThat(c.isWrapperFor(MacroConnection.class)).isTrue();
        }
        assertThat(jdbc.queryForList("SELECT ID FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED", String.class))
                .containsExactly("1-note", "2-first-notes", "3-audit-column");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM note WHERE created_at IS NOT NULL", Integer.class)).isEqualTo(3);
        try (Connection c = dataSource.getConnection()) {
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            assertThat(admin.awaitCaughtUp(10_000)).isTrue();
            // the audit column's values, DATABASECHANGELOG (no primary key) and DATABASECHANGELOGLOCK are the
            // same rows on every replica
            List<String> sums = admin.checksums();
            assertThat(sums).hasSize(3).doesNotContainNull();
            assertThat(sums).containsOnly(sums.get(0));
        }
    }

    @Test
    void theApplicationWritesAndReads() {
        notes.add(10, "tenth");
        assertThat(notes.texts()).containsExactly("first", "second", "third", "tenth");
        assertThat(jdbc.queryForObject("SELECT created_at FROM note WHERE id = 10", java.sql.Timestamp.class)).isNotNull();
        assertThat(((HealthIndicator) health.getContributor("macrodb")).health().getStatus()).isEqualTo(Status.UP);
    }
}
