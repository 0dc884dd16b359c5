package io.macrodb.boot;

import com.zaxxer.hikari.HikariDataSource;
import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The starter's auto-configuration in application contexts as Spring Boot builds them: the
 * DataSource auto-configuration with HikariCP, the actuator's health registry and a meter registry.
 * Each test uses a database name of its own (in-memory databases are per JVM).
 */
class MacroDbAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MacroDbAutoConfiguration.class, DataSourceAutoConfiguration.class,
                    MacroDbObservabilityAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                    MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class));

    private static void roundTrip(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20))");
            s.execute("INSERT INTO item VALUES (1, 'one')");
            try (ResultSet rs = s.executeQuery("SELECT name FROM item WHERE id = 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("one");
            }
            assertThat(c.isWrapperFor(MacroConnection.class)).isTrue();
        }
    }

    /** Without the starter: Spring Boot falls back to the embedded H2's driver, which refuses the URL. */
    @Test
    void withoutTheStarterSpringBootChoosesH2sDriverAndTheFirstConnectionFails() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:nostarter?replicas=2")
                .run(ctx -> {
                    HikariDataSource h = ctx.getBean(DataSource.class).unwrap(HikariDataSource.class);
                    assertThat(h.getDriverClassName()).isEqualTo("org.h2.Driver");
                    assertThatThrownBy(() -> h.getConnection().close()).hasStackTraceContaining("claims to not accept jdbcUrl");
                });
    }

    @Test
    void theUrlAloneSelectsMacroDbsDriverUnderHikari() {
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:urlalone?replicas=2").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(DataSourceProperties.class).getDriverClassName()).isEqualTo("io.macrodb.jdbc.MacroDriver");
            HikariDataSource h = ctx.getBean(DataSource.class).unwrap(HikariDataSource.class);
            assertThat(h.getDriverClassName()).isEqualTo("io.macrodb.jdbc.MacroDriver");
            roundTrip(h);
        });
    }

    @Test
    void hsqldbUrlsToo() {
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:hsqldb:mem:hsqlurl?replicas=2").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            roundTrip(ctx.getBean(DataSource.class));
        });
    }

    @Test
    void anExplicitDriverClassAndOtherUrlsAreLeftAlone() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:plain").run(ctx -> {
            DataSourceProperties p = ctx.getBean(DataSourceProperties.class);
            assertThat(p.getUrl()).isEqualTo("jdbc:h2:mem:plain");
            assertThat(p.getDriverClassName()).isNull();
            assertThat(ctx.getBean(MacroDbMonitors.class).byName()).isEmpty();
            try (Connection c = ctx.getBean(DataSource.class).getConnection()) {
                assertThat(c.isWrapperFor(MacroConnection.class)).isFalse();
            }
        });
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:explicit?replicas=2",
                "spring.datasource.driver-class-name=io.macrodb.jdbc.MacroDriver").run(ctx -> roundTrip(ctx.getBean(DataSource.class)));
    }

    @Test
    void macrodbPropertiesGoIntoTheUrl() {
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:props",
                "macrodb.replicas=3", "macrodb.consistency=session", "macrodb.read-wait=7ms", "macrodb.lock-timeout=2s",
                "macrodb.max-lag=500ms", "macrodb.optimistic-reads=false").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            HikariDataSource h = ctx.getBean(DataSource.class).unwrap(HikariDataSource.class);
            assertThat(h.getJdbcUrl()).isEqualTo("jdbc:macrodb:h2:mem:props?replicas=3&consistency=session&readWait=7"
                    + "&lockTimeout=2000&maxLag=500ms&optimisticReads=false");
            try (Connection c = h.getConnection()) {
                MacroConnection mc = c.unwrap(MacroConnection.class);
                assertThat(mc.config().readWaitMillis()).isEqualTo(7);
                assertThat(c.unwrap(MacroAdmin.class).replicaStatus()).hasSize(3);
            }
        });
        // appended after options the URL has, and values encoded as the driver decodes them
        assertThat(MacroDbUrls.withOptions("jdbc:macrodb:h2:mem:x?replicas=2", Map.of("durability", "log:/d/a&b=c")))
                .isEqualTo("jdbc:macrodb:h2:mem:x?replicas=2&durability=log:/d/a%26b%3Dc");
    }

    @Test
    void anOptionBothInTheUrlAndAsAPropertyIsRefusedAtStart() {
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:twice?replicas=2", "macrodb.replicas=3").run(ctx ->
                assertThat(ctx).getFailure().hasStackTraceContaining("MacroDB option 'replicas' is set twice")
                        .hasStackTraceContaining("macrodb.replicas=3"));
    }

    @Test
    void healthIsUpWithEachReplicasStateAndLag() {
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:health?replicas=3").run(ctx -> {
            DataSource ds = ctx.getBean(DataSource.class);
            roundTrip(ds);
            HealthIndicator indicator = ctx.getBean("macrodbHealthContributor", HealthIndicator.class);
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                MacroAdmin admin = c.unwrap(MacroAdmin.class);
                admin.pauseApplying(2, true);
                s.execute("INSERT INTO item VALUES (2, 'two')");
                Health h = indicator.health();
                assertThat(h.getStatus()).isEqualTo(Status.UP);
                assertThat(h.getDetails()).containsEntry("activeSecondaries", "2/2").containsKey("version");
                @SuppressWarnings("unchecked")
                Map<String, Map<String, Object>> replicas = (Map<String, Map<String, Object>>) h.getDetails().get("replicas");
                assertThat(replicas).containsOnlyKeys("0", "1", "2");
                assertThat(replicas.get("0")).containsEntry("role", "primary").containsEntry("state", "ACTIVE").containsEntry("lag", 0L);
                assertThat(replicas.get("2")).containsEntry("role", "secondary");
                assertThat((Long) replicas.get("2").get("lag")).isGreaterThanOrEqualTo(1L);
                admin.pauseApplying(2, false);
            }
        });
    }

    @Test
    void healthCanBeTurnedOff() {
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:nohealth?replicas=2",
                "management.health.macrodb.enabled=false").run(ctx ->
                assertThat(ctx).doesNotHaveBean("macrodbHealthContributor"));
    }

    @Test
    void readsOnSecondariesShowInTheMeters() {
        runner.withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:meters?replicas=2").run(ctx -> {
            DataSource ds = ctx.getBean(DataSource.class);
            roundTrip(ds);
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            try (Connection c = ds.getConnection()) {
                assertThat(c.unwrap(MacroAdmin.class).awaitCaughtUp(10_000)).isTrue();
                c.setReadOnly(true);
                for (int i = 0; i < 5; i++) {
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM item")) {
                        assertThat(rs.next()).isTrue();
                    }
                }
            }
            assertThat(registry.get("macrodb.replica.reads").tag("db", "dataSource").tag("role", "secondary")
                    .functionCounter().count()).isGreaterThanOrEqualTo(5);
            assertThat(registry.get("macrodb.replica.lag").tag("replica", "1").gauge().value()).isGreaterThanOrEqualTo(0);
            assertThat(registry.get("macrodb.transactions.throttled").functionCounter().count()).isZero();
            assertThat(registry.get("macrodb.read.waits").functionTimer().count()).isGreaterThanOrEqualTo(0);
        });
    }

    @Test
    void noMetersWithoutMicrometer() {
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .withPropertyValues("spring.datasource.url=jdbc:macrodb:h2:mem:nomicrometer?replicas=2")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).doesNotHaveBean("macroDbMeterBinder");
                    roundTrip(ctx.getBean(DataSource.class));
                });
    }

    /** The monitoring connection closes with the context: an in-memory database is gone as with a plain pool. */
    @Test
    void theMonitoringConnectionClosesWithTheContext() throws SQLException {
        String url = "jdbc:macrodb:h2:mem:closes?replicas=2";
        runner.withPropertyValues("spring.datasource.url=" + url).run(ctx -> {
            roundTrip(ctx.getBean(DataSource.class));
            assertThat(ctx.getBean(MacroDbMonitors.class).admin("dataSource").replicaStatus()).hasSize(2);
        });
        try (Connection c = java.sql.DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'ITEM'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isZero();
        }
    }
}
