package io.macrodb.boot;

import io.macrodb.micrometer.MacroDbMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.actuate.autoconfigure.health.CompositeHealthContributorConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.util.Map;

/**
 * MacroDB's health indicator ({@code macrodb}) and meters ({@code macrodb.*}), for each MacroDB
 * DataSource bean ({@link MacroDbMonitor} says which are recognised). The health indicator needs
 * spring-boot-actuator and can be turned off with {@code management.health.macrodb.enabled=false};
 * the meters need Micrometer and a registry, and {@code management.metrics.enable.macrodb=false}
 * turns them off.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass(io.macrodb.jdbc.MacroAdmin.class)
@ConditionalOnBean(DataSource.class)
public class MacroDbObservabilityAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MacroDbMonitors macroDbMonitors(Map<String, DataSource> dataSources) {
        return new MacroDbMonitors(dataSources);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
    @ConditionalOnEnabledHealthIndicator("macrodb")
    static class Health extends CompositeHealthContributorConfiguration<MacroDbHealthIndicator, io.macrodb.jdbc.MacroAdmin> {
        Health() {
            super(MacroDbHealthIndicator::new);
        }

        /** One indicator for one MacroDB DataSource, a composite by bean name for several; none without one. */
        @Bean
        @ConditionalOnMissingBean(name = {"macrodbHealthIndicator", "macrodbHealthContributor"})
        HealthContributor macrodbHealthContributor(MacroDbMonitors monitors) {
            Map<String, io.macrodb.jdbc.MacroAdmin> admins = new java.util.LinkedHashMap<>();
            monitors.byName().forEach((name, m) -> admins.put(name, m.admin()));
            if (admins.isEmpty()) {
                return (HealthIndicator) () -> org.springframework.boot.actuate.health.Health.unknown()
                        .withDetail("reason", "no MacroDB DataSource the starter recognises (HikariCP or MacroDataSource)").build();
            }
            return createContributor(admins);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, MacroDbMetrics.class})
    static class Metrics {
        /**
         * The meters of each MacroDB DataSource, tagged {@code db=<bean name>}: MacroDbMetrics of
         * macrodb-micrometer, over the monitoring connection's admin. The one place that says which
         * binder the starter uses.
         */
        @Bean
        MeterBinder macroDbMeterBinder(MacroDbMonitors monitors) {
            return registry -> monitors.byName().forEach((name, m) -> new MacroDbMetrics(m.admin(), name).bindTo(registry));
        }
    }
}
