package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop started exactly as its users start it: {@code @SpringBootTest} of the
 * {@code @SpringBootApplication}, application.properties holding only
 * {@code spring.datasource.url=jdbc:macrodb:h2:mem:shop?replicas=3}, Flyway migrating at start.
 *
 * <p>Flyway (11, on H2) locks its history table with {@code select * from flyway_schema_history for
 * update} in a transaction on one connection and runs each migration's DDL on a second one, from the
 * same thread. That DDL must not wait for the lock holder's transaction: an update transaction enters
 * MacroDB's update gate only at its first statement that may write.
 */
@SpringBootTest
class FlywayStartTest {
    @Autowired DataSource dataSource;
    @Autowired JdbcTemplate jdbc;

    private <T> T withAdmin(ShopApplicationTest.SqlFunction<MacroAdmin, T> f) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return f.apply(c.unwrap(MacroAdmin.class));
        }
    }

    @Test
    void startsOnMacroDbWithFlywaysMigrationsOnEveryReplica() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThat(c.isWrapperFor(MacroConnection.class)).isTrue();
        }
        // Flyway's first row (installed_rank -1, no version) records the creation of the history table itself
        assertThat(jdbc.queryForList("SELECT \"version\" FROM \"flyway_schema_history\" WHERE \"success\" AND \"version\" IS NOT NULL"
                + " ORDER BY \"installed_rank\"", String.class)).containsExactly("1", "2", "3");
        // the seed rows got the audit column's value from the V3 migration
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM product WHERE name IN ('kettle', 'teapot', 'mug') AND created_at IS NOT NULL",
                Integer.class)).isEqualTo(3);
        // Flyway's history table (CREATE TABLE ... AS SELECT with CURRENT_TIMESTAMP) and the ADD ... DEFAULT
        // CURRENT_TIMESTAMP reached every secondary with the primary's values: every replica holds the same rows
        assertThat((boolean) withAdmin(a -> a.awaitCaughtUp(10_000))).isTrue();
        List<String> sums = withAdmin(MacroAdmin::checksums);
        assertThat(sums).hasSize(3).doesNotContainNull();
        assertThat(sums).containsOnly(sums.get(0));
    }

}
