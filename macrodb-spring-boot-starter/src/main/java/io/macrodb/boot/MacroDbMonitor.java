package io.macrodb.boot;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroDataSource;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * The {@link MacroAdmin} of one MacroDB DataSource, for the health indicator and the meters, through
 * a connection of its own outside the pool.
 *
 * <p>Why not a pooled connection: a {@code MacroAdmin} works only while the connection it was
 * reached from is open (its javadoc: 08003 after close), so the meters would hold a pooled connection
 * for the application's lifetime (with a pool of one, the application's only connection), or borrow
 * one for every sample (waiting for the pool when the application holds them all). A MacroDB
 * connection that runs no statement holds no engine session, so this one costs nothing but keeps
 * the database open until the application context closes, as the pool does. It is opened at the
 * first use, with the pool's URL and credentials, and opened again if it was closed.
 *
 * <p>Recognised: a HikariCP pool (Spring Boot's default) whose URL starts with {@code jdbc:macrodb:},
 * and a {@link MacroDataSource} (also behind wrappers that implement {@code unwrap}). Other pools
 * are not monitored.
 */
final class MacroDbMonitor implements AutoCloseable {
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    private final Opener opener;
    private final String url;
    private Connection connection;
    private final MacroAdmin admin;

    MacroDbMonitor(Opener opener, String url) {
        this.opener = opener;
        this.url = url;
        this.admin = (MacroAdmin) Proxy.newProxyInstance(MacroAdmin.class.getClassLoader(), new Class<?>[]{MacroAdmin.class},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "equals" -> proxy == args[0];
                            case "hashCode" -> System.identityHashCode(proxy);
                            default -> "MacroAdmin[" + this.url + ", through the starter's monitoring connection]";
                        };
                    }
                    try {
                        return method.invoke(current(), args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A monitor for {@code dataSource}, or null if it is not a MacroDB DataSource the starter recognises. */
    static MacroDbMonitor of(DataSource dataSource) {
        try {
            if (dataSource.isWrapperFor(MacroDataSource.class)) {
                MacroDataSource m = dataSource.unwrap(MacroDataSource.class);
                return new MacroDbMonitor(m::getConnection, m.effectiveUrl());
            }
            if (ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", MacroDbMonitor.class.getClassLoader())) {
                return Hikari.monitor(dataSource);
            }
        } catch (SQLException e) {
            return null;
        }
        return null;
    }

    /** Kept apart so that the class loads without HikariCP. */
    private static final class Hikari {
        static MacroDbMonitor monitor(DataSource dataSource) throws SQLException {
            if (!dataSource.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)) return null;
            com.zaxxer.hikari.HikariDataSource h = dataSource.unwrap(com.zaxxer.hikari.HikariDataSource.class);
            String url = h.getJdbcUrl();
            if (!MacroDbUrls.isMacroDb(url)) return null;
            return new MacroDbMonitor(() -> {
                // what HikariCP's DriverDataSource passes to Driver.connect
                Properties p = new Properties();
                p.putAll(h.getDataSourceProperties());
                if (h.getUsername() != null) p.setProperty("user", h.getUsername());
                if (h.getPassword() != null) p.setProperty("password", h.getPassword());
                return DriverManager.getConnection(url, p);
            }, url);
        }
    }

    /** The admin: each call goes to the monitoring connection, opened (again) if need be. */
    MacroAdmin admin() {
        return admin;
    }

    String url() {
        return url;
    }

    private synchronized MacroAdmin current() throws SQLException {
        if (connection == null || connection.isClosed()) connection = opener.open();
        return connection.unwrap(MacroAdmin.class);
    }

    @Override
    public synchronized void close() throws SQLException {
        if (connection != null) connection.close();
        connection = null;
    }
}
