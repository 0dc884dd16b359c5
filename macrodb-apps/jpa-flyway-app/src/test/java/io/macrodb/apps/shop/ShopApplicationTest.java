package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop's JPA repository, transactions, routing, meters and health on MacroDB: the application as
 * it is, its schema made by its own Flyway migrations at start.
 */
@SpringBootTest(properties = "spring.datasource.url=jdbc:macrodb:h2:mem:shop-jpa?replicas=3")
class ShopApplicationTest {
    @Autowired DataSource dataSource;
    @Autowired Catalog catalog;
    @Autowired ProductRepository products;
    @Autowired JdbcTemplate jdbc;
    @Autowired MeterRegistry registry;
    @Autowired HealthContributorRegistry health;

    private <T> T withAdmin(SqlFunction<MacroAdmin, T> f) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return f.apply(c.unwrap(MacroAdmin.class));
        }
    }

    public interface SqlFunction<A, T> {
        T apply(A a) throws SQLException;
    }

    @Test
    void startsOnMacroDbAndEveryReplicaHoldsTheSameRows() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThat(c.isWrapperFor(MacroConnection.class)).isTrue();
        }
        // the seed rows got the audit column's value (ADD ... DEFAULT CURRENT_TIMESTAMP on a table with rows)
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM product WHERE name IN ('kettle', 'teapot', 'mug') AND created_at IS NOT NULL",
                Integer.class)).isEqualTo(3);
        assertThat((boolean) withAdmin(a -> a.awaitCaughtUp(10_000))).isTrue();
        java.util.List<String> sums = withAdmin(MacroAdmin::checksums);
        assertThat(sums).hasSize(3).doesNotContainNull();
        assertThat(sums).containsOnly(sums.get(0));
    }

    @Test
    void jpaRepositoryWritesAndReads() {
        Product p = catalog.add("whisk", new BigDecimal("4.20"), 7);
        assertThat(p.getId()).isNotNull();
        assertThat(catalog.sell("whisk", 5)).isEqualTo(2);
        assertThat(products.findByName("whisk")).get().satisfies(q -> {
            assertThat(q.getStock()).isEqualTo(2);
            assertThat(q.getPrice()).isEqualByComparingTo("4.20");
            assertThat(q.getCreatedAt()).isNotNull();
        });
        assertThat(catalog.lowStock(5)).extracting(Product::getName).contains("teapot", "whisk").doesNotContain("mug");
    }

    private double secondaryReads() {
        return registry.find("macrodb.replica.reads").tag("role", "secondary").functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }

    @Test
    void readOnlyTransactionsRunOnSecondariesAsTheMetersShow() throws SQLException {
        catalog.add("sieve", new BigDecimal("3.10"), 9);
        assertThat((boolean) withAdmin(a -> a.awaitCaughtUp(10_000))).isTrue();
        double before = secondaryReads();
        for (int i = 0; i < 10; i++) {
            assertThat(catalog.count()).isGreaterThanOrEqualTo(4);
            assertThat(products.findByName("sieve")).isPresent(); // Spring Data's own read-only transaction
        }
        assertThat(secondaryReads() - before).isGreaterThanOrEqualTo(20);
        assertThat(registry.get("macrodb.transactions").tag("target", "secondary").tag("reason", "fresh")
                .functionCounter().count()).isGreaterThanOrEqualTo(20);
    }

    @Test
    void healthIsUp() {
        HealthIndicator macrodb = (HealthIndicator) health.getContributor("macrodb");
        assertThat(macrodb.health().getStatus()).isEqualTo(Status.UP);
        assertThat(macrodb.health().getDetails()).containsEntry("activeSecondaries", "2/2");
    }
}
