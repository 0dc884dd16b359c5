package io.macrodb.boot;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import javax.sql.DataSource;

/**
 * MacroDB in a Spring Boot application: {@code spring.datasource.url=jdbc:macrodb:h2:mem:shop?replicas=3}
 * is the whole configuration (no {@code driver-class-name}), and {@code macrodb.*} properties add
 * MacroDB's URL options ({@link MacroDbProperties}). Ordered before {@link DataSourceAutoConfiguration};
 * also imported by the JDBC test slices ({@code @DataJpaTest}, {@code @JdbcTest}, {@code @DataJdbcTest},
 * {@code @JooqTest}) so that a slice that keeps the application's DataSource
 * ({@code @AutoConfigureTestDatabase(replace = NONE)}) keeps MacroDB.
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class)
@ConditionalOnClass({DataSource.class, EmbeddedDatabaseType.class, io.macrodb.jdbc.MacroDriver.class})
@EnableConfigurationProperties(MacroDbProperties.class)
public class MacroDbAutoConfiguration {
    /** Static: a BeanPostProcessor is created before the configuration class's other beans. */
    @Bean
    static MacroDbDataSourcePropertiesPostProcessor macroDbDataSourcePropertiesPostProcessor(Environment environment) {
        return new MacroDbDataSourcePropertiesPostProcessor(environment);
    }
}
