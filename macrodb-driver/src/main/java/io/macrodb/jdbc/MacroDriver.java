package io.macrodb.jdbc;

import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.ReplicaSets;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The MacroDB JDBC driver: {@code jdbc:macrodb:<engine url>[?option=value&...]}, for example
 * {@code jdbc:macrodb:h2:mem:shop?replicas=4}. Registered through {@code META-INF/services}; every
 * connection to the same engine URL shares one replica set, which is shut down when the last
 * connection closes.
 */
public final class MacroDriver implements Driver {
    public static final int MAJOR = 0;
    public static final int MINOR = 1;
    public static final String VERSION = MAJOR + "." + MINOR;

    static {
        try {
            DriverManager.registerDriver(new MacroDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) return null; // JDBC: another driver's URL
        MacroConfig config = MacroConfig.parse(url, info);
        return open(config);
    }

    static MacroConnection open(MacroConfig config) throws SQLException {
        ReplicaSet rs = ReplicaSets.acquire(config.replicaSetConfig());
        return new MacroConnection(rs, config);
    }

    @Override public boolean acceptsURL(String url) {
        return url != null && url.regionMatches(true, 0, MacroConfig.PREFIX, 0, MacroConfig.PREFIX.length());
    }

    /**
     * One entry per {@link MacroProperty}, in its order: the value the URL or {@code info} gives (or the
     * default where it is fixed), its description, and its choices where the values are a closed set.
     */
    @Override public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        Map<String, String> given = MacroConfig.givenOptions(url, info);
        List<DriverPropertyInfo> out = new ArrayList<>();
        for (MacroProperty p : MacroProperty.values()) out.add(p.propertyInfo(given.get(p.optionName())));
        return out.toArray(new DriverPropertyInfo[0]);
    }

    @Override public int getMajorVersion() { return MAJOR; }

    @Override public int getMinorVersion() { return MINOR; }

    /** Not JDBC compliant in the strict sense: that word is reserved for drivers that pass the JDBC compliance suite. */
    @Override public boolean jdbcCompliant() { return false; }

    @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return Logger.getLogger("io.macrodb");
    }
}
