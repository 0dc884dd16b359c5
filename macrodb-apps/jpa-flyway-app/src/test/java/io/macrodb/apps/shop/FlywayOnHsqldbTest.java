package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop on HSQLDB, started as on H2 with only the URL changed (and the migrations in HSQLDB's
 * column syntax): Flyway migrates every replica, the JPA repository writes and reads, and every
 * replica ends with the same rows, the primary's timestamps of V3 included. On HSQLDB Flyway works
 * on one connection: it locks its history table with {@code LOCK TABLE ... WRITE}, keeps a BIT
 * column in it, and runs its DDL on the connection whose prepared statements it then runs again.
 */
@SpringBootTest(properties = {"spring.datasource.url=jdbc:macrodb:hsqldb:mem:shop_hsqldb?replicas=3",
        "spring.flyway.locations=classpath:db/hsqldb"})
class FlywayOnHsqldbTest {
    @Autowired DataSource dataSource;
    @Autowired JdbcTemplate jdbc;
    @Autowired ProductRepository products;

    @Test
    void migratesAndRunsOnEveryReplica() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThat(c.isWrapperFor(MacroConnection.class)).isTrue();
            assertThat(c.getMetaData().getDatabaseProductName()).containsIgnoringCase("HSQL");
        }
        // "success" is a BIT column on HSQLDB
        assertThat(jdbc.queryForList("SELECT \"version\" FROM \"flyway_schema_history\" WHERE \"success\" = 1 AND \"version\" IS NOT NULL"
                + " ORDER BY \"installed_rank\"", String.class)).containsExactly("1", "2", "3");
        products.save(new Product("saucer", new BigDecimal("3.50"), 7));
        assertThat(products.findByName("saucer")).isPresent();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM product WHERE created_at IS NOT NULL", Integer.class)).isEqualTo(4);
        try (Connection c = dataSource.getConnection()) {
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            assertThat(admin.awaitCaughtUp(10_000)).isTrue();
            List<String> sums = admin.checksums();
            assertThat(sums).hasSize(3).doesNotContainNull().containsOnly(sums.get(0));
        }
    }
}
