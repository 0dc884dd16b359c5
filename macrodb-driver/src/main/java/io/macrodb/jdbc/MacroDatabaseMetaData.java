package io.macrodb.jdbc;

import io.macrodb.sql.SqlState;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * The primary's metadata (every replica has the same schema), with the MacroDB connection as its
 * connection and MacroDB's name and version alongside the engine's. It follows the primary through
 * a failover.
 */
final class MacroDatabaseMetaData extends DelegatingDatabaseMetaData {
    private final MacroConnection connection;

    MacroDatabaseMetaData(MacroConnection connection, DatabaseMetaData delegate) {
        super(delegate);
        this.connection = connection;
    }

    /**
     * Every forwarded call runs on the metadata of the primary's session as it is now: a metadata
     * object the application keeps (a pool, an ORM) goes on working after a failover, and an engine
     * found gone by the call fails over as any call on the primary does ({@link Transaction#onPrimary}).
     */
    @Override protected <T> T call(Call<T> c) throws SQLException {
        connection.checkOpen(); // a closed connection's metadata answers nothing (and borrows no session)
        return connection.transaction().onPrimary(primary -> c.on(primary.getMetaData()));
    }

    @Override public Connection getConnection() {
        return connection;
    }

    @Override public String getURL() {
        return connection.config().url();
    }

    @Override public String getDriverName() {
        return "MacroDB over " + safe(() -> delegate.getDriverName());
    }

    @Override public String getDriverVersion() {
        return MacroDriver.VERSION + " (" + safe(() -> delegate.getDriverVersion()) + ")";
    }

    @Override public int getDriverMajorVersion() {
        return MacroDriver.MAJOR;
    }

    @Override public int getDriverMinorVersion() {
        return MacroDriver.MINOR;
    }

    @Override public boolean supportsBatchUpdates() {
        return true;
    }

    private interface Get {
        String get() throws SQLException;
    }

    private static String safe(Get g) {
        try {
            return g.get();
        } catch (SQLException e) {
            return "unknown";
        }
    }

    @Override public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        if (iface.isInstance(delegate)) return iface.cast(delegate);
        throw new SQLException("MacroDB: this metadata does not wrap " + iface.getName(), SqlState.INVALID_ARGUMENT.getState());
    }

    @Override public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this) || iface.isInstance(delegate);
    }
}
