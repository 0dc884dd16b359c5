package io.macrodb.boot;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.jdbc.DataSourceProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Makes {@code spring.datasource.url=jdbc:macrodb:...} work without {@code driver-class-name}.
 *
 * <p>Why it is needed: {@link DataSourceProperties#determineDriverClassName()} asks {@code
 * DatabaseDriver.fromJdbcUrl}, which does not know {@code jdbc:macrodb:} (UNKNOWN, no class), and
 * then falls back to the embedded database on the classpath: with H2 there, {@code org.h2.Driver}.
 * HikariCP, given that class, refuses the URL at start ("Driver org.h2.Driver claims to not accept
 * jdbcUrl"). This post-processor runs on the bound {@link DataSourceProperties} (after Spring Boot's
 * binding, which is ordered first) and, when the URL is a MacroDB URL and no driver class is set,
 * sets {@code io.macrodb.jdbc.MacroDriver}; it also adds the {@code macrodb.*} properties to the URL.
 * Every path from the properties to a DataSource goes through the properties object: Spring Boot's
 * own pool configurations (through {@code PropertiesJdbcConnectionDetails}) and an application's
 * {@code properties.initializeDataSourceBuilder()}.
 */
final class MacroDbDataSourcePropertiesPostProcessor implements BeanPostProcessor, Ordered {
    private final Environment environment;

    MacroDbDataSourcePropertiesPostProcessor(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof DataSourceProperties p && MacroDbUrls.isMacroDb(p.getUrl())) {
            MacroDbProperties options = Binder.get(environment).bind("macrodb", Bindable.of(MacroDbProperties.class))
                    .orElseGet(MacroDbProperties::new);
            p.setUrl(MacroDbUrls.withOptions(p.getUrl(), options.urlOptions()));
            if (!StringUtils.hasText(p.getDriverClassName())) p.setDriverClassName(MacroDbUrls.DRIVER_CLASS);
        }
        return bean;
    }

    /** After ConfigurationPropertiesBindingPostProcessor (HIGHEST_PRECEDENCE + 1), which fills the properties in. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }
}
