package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Disabled;
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
 */
@SpringBootTest
@Disabled("issue 12 items 1/2: waiting for schema changes while another connection has an update transaction open."
        + " Flyway (11.7, H2: no DDL transactions) locks its history table with 'select * from flyway_schema_history for update'"
        + " in a transaction on one connection and runs each migration on a second one; MacroDB's schema change (V1's CREATE"
        + " TABLE) waits for every open update transaction to end, so it waits for the lock holder, which waits for it, and"
        + " fails after lockTimeout with 40001 ('a schema change waited 10000 ms for open update transactions to end')."
        + " The history table itself (CREATE TABLE ... AS SELECT ..., CURRENT_TIMESTAMP) is created since 8e0d027.")
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
        assertThat(jdbc.queryForList("SELECT \"version\" FROM \"flyway_schema_history\" WHERE \"success\" ORDER BY \"installed_rank\"", String.class))
                .containsExactly("1", "2", "3");
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
