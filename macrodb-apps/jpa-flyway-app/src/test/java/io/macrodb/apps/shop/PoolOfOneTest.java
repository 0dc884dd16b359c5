package io.macrodb.apps.shop;

import com.zaxxer.hikari.HikariDataSource;
import io.macrodb.jdbc.MacroConnection;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The shop with a HikariCP pool of one connection over its in-memory database: a statement MacroDB
 * refuses (SQLState 0AM01) fails that statement, and the pool keeps its one connection, so the
 * database, which lives as long as a connection to it is open, keeps its rows.
 */
@SpringBootTest(properties = {"spring.datasource.url=jdbc:macrodb:h2:mem:shop-pool-of-one?replicas=3",
        "spring.datasource.hikari.maximum-pool-size=1"})
@TestPropertySource("classpath:without-flyway.properties") // Flyway needs two connections at once, on any database
class PoolOfOneTest {
    @Autowired DataSource dataSource;
    @Autowired Catalog catalog;
    @Autowired JdbcTemplate jdbc;
    @Autowired TransactionTemplate transactions;

    private MacroConnection physical() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return c.unwrap(MacroConnection.class);
        }
    }

    private static String sqlState(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException s) return s.getSQLState();
        }
        return null;
    }

    @Test
    void survivesARefusedStatement() throws SQLException {
        HikariDataSource pool = dataSource.unwrap(HikariDataSource.class);
        assertThat(pool.getMaximumPoolSize()).isEqualTo(1);
        catalog.add("ladle", new BigDecimal("5.00"), 4);
        MacroConnection before = physical();

        // autocommit: a temporary table's rows would live on one replica only
        assertThatThrownBy(() -> jdbc.execute("CREATE GLOBAL TEMPORARY TABLE scratch (id INT)"))
                .isInstanceOf(DataAccessException.class).satisfies(e -> assertThat(sqlState(e)).isEqualTo("0AM01"));
        // inside a transaction that wrote first: the transaction fails and rolls back
        assertThatThrownBy(() -> transactions.executeWithoutResult(s -> {
            jdbc.update("UPDATE product SET stock = 0 WHERE name = 'ladle'");
            jdbc.execute("CREATE GLOBAL TEMPORARY TABLE scratch (id INT)");
        })).satisfies(e -> assertThat(sqlState(e)).isEqualTo("0AM01"));

        assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isEqualTo(1);
        assertThat(physical()).isSameAs(before);
        assertThat(jdbc.queryForObject("SELECT stock FROM product WHERE name = 'ladle'", Integer.class)).isEqualTo(4);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM product", Integer.class)).isEqualTo(4);
        assertThat(catalog.sell("ladle", 1)).isEqualTo(3);
        assertThat(catalog.lowStock(4)).extracting(Product::getName).contains("ladle", "teapot");
    }
}
