package io.macrodb.apps.shop;

import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.orm.jpa.DataJpaTest;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the README warns about: a plain {@code @DataJpaTest} replaces the application's DataSource with
 * an embedded database of its own (H2 here, as it is on the classpath), silently: the test passes, but
 * not on MacroDB.
 */
@DataJpaTest
class DataJpaTestDefaultTest {
    @Autowired DataSource dataSource;
    @Autowired ProductRepository products;

    @Test
    void replacesMacroDbWithAPlainEmbeddedDatabase() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            assertThat(c.isWrapperFor(MacroConnection.class)).isFalse();
            assertThat(c.getMetaData().getURL()).startsWith("jdbc:h2:mem:").doesNotContain("macrodb");
        }
        assertThat(products.findByName("kettle")).isPresent(); // Flyway migrated the replacement
    }
}
