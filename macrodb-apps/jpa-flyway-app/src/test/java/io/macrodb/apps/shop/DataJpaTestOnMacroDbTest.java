package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.jdbc.AutoConfigureTestDatabase;
import org.springframework.boot.test.autoconfigure.jdbc.AutoConfigureTestDatabase.Replace;
import org.springframework.boot.test.autoconfigure.orm.jpa.DataJpaTest;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @DataJpaTest} with {@code @AutoConfigureTestDatabase(replace = Replace.NONE)} keeps the
 * application's DataSource: MacroDB, migrated by the application's Flyway scripts (the slice runs
 * Flyway), with the starter's driver class (the starter registers its auto-configuration for the
 * JDBC test slices).
 */
@DataJpaTest(properties = "spring.datasource.url=jdbc:macrodb:h2:mem:shop-data-jpa-test?replicas=3")
@AutoConfigureTestDatabase(replace = Replace.NONE)
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
