package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.jdbc.AutoConfigureTestDatabase;
import org.springframework.boot.test.autoconfigure.jdbc.AutoConfigureTestDatabase.Replace;
import org.springframework.boot.test.autoconfigure.orm.jpa.DataJpaTest;
import org.springframework.test.context.TestPropertySource;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @DataJpaTest} with {@code @AutoConfigureTestDatabase(replace = Replace.NONE)
@TestPropertySource("classpath:without-flyway.properties") // see FlywayStartTest} keeps the
 * application's DataSource: MacroDB, with its migration scripts (the slice runs Flyway or Spring Boot's SQL initialisation), with the starter's
 * driver class (the starter registers its auto-configuration for the JDBC test slices).
 */
@DataJpaTest(properties = "spring.datasource.url=jdbc:macrodb:h2:mem:shop-data-jpa-test?replicas=3")
@AutoConfigureTestDatabase(replace = Replace.NONE)
@TestPropertySource("classpath:without-flyway.properties") // see FlywayStartTest
class DataJpaTestOnMacroDbTest {
    @Autowired DataSource dataSource;
    @Autowired ProductRepository products;

    @Test
    void keepsMacroDb() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThat(c.isWrapperFor(MacroConnection.class)).isTrue();
        }
        assertThat(products.findByName("kettle")).isPresent(); // the V2 seed
        products.saveAndFlush(new Product("spoon", new BigDecimal("1.00"), 100));
        assertThat(products.findByName("spoon")).isPresent();
    }
}
