package io.macrodb.boot;

import com.zaxxer.hikari.HikariDataSource;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.jdbc.MacroDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** DataSources an application defines itself: from Spring Boot's properties, and MacroDataSource beans. */
class UserDataSourcesTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MacroDbAutoConfiguration.class, DataSourceAutoConfiguration.class,
                    MacroDbObservabilityAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                    MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class FromProperties {
        @Bean
        DataSource dataSource(DataSourceProperties properties) {
            return properties.initializeDataSourceBuilder().type(HikariDataSource.class).build();
        }
    }

    @Test
    void initializeDataSourceBuilderGetsTheDriverClassAndTheOptions() {
        runner.withUserConfiguration(FromProperties.class)
                .withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:userbuilt", "macrodb.replicas=2").run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    HikariDataSource h = ctx.getBean(DataSource.class).unwrap(HikariDataSource.class);
                    assertThat(h.getDriverClassName()).isEqualTo("io.macrodb.jdbc.MacroDriver");
                    assertThat(h.getJdbcUrl()).isEqualTo("jdbc:macrodb:h2:mem:userbuilt?replicas=2");
                    try (Connection c = h.getConnection()) {
                        assertThat(c.isWrapperFor(MacroConnection.class)).isTrue();
                    }
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDatabases {
        @Bean
        MacroDataSource orders() throws SQLException {
            return MacroDataSource.builder().engineUrl("h2:mem:orders").replicas(2).build();
        }

        @Bean
        MacroDataSource stock() throws SQLException {
            return MacroDataSource.builder().engineUrl("hsqldb:mem:stock").replicas(3).build();
        }
    }

    @Test
    void severalMacroDataSourcesGetAHealthEntryAndMetersEach() {
        runner.withUserConfiguration(TwoDatabases.class).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            CompositeHealthContributor health = ctx.getBean("macrodbHealthContributor", CompositeHealthContributor.class);
            HealthIndicator orders = (HealthIndicator) health.getContributor("orders");
            HealthIndicator stock = (HealthIndicator) health.getContributor("stock");
            assertThat(orders.health().getStatus()).isEqualTo(Status.UP);
            assertThat(orders.health().getDetails()).containsEntry("activeSecondaries", "1/1");
            assertThat(stock.health().getDetails()).containsEntry("activeSecondaries", "2/2");
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            assertThat(registry.find("macrodb.replica.lag").tag("db", "orders").gauges()).hasSize(2);
            assertThat(registry.find("macrodb.replica.lag").tag("db", "stock").gauges()).hasSize(3);
        });
    }
}
