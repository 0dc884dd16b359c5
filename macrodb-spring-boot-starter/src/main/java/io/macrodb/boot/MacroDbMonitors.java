package io.macrodb.boot;

import org.springframework.beans.factory.DisposableBean;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@link MacroDbMonitor} for each MacroDB DataSource bean, by bean name; closes their monitoring
 * connections when the context closes (before the DataSources, which it depends on).
 */
public final class MacroDbMonitors implements DisposableBean {
    private final Map<String, MacroDbMonitor> monitors;

    MacroDbMonitors(Map<String, DataSource> dataSources) {
        Map<String, MacroDbMonitor> m = new LinkedHashMap<>();
        dataSources.forEach((name, ds) -> {
            MacroDbMonitor monitor = MacroDbMonitor.of(ds);
            if (monitor != null) m.put(name, monitor);
        });
        this.monitors = Collections.unmodifiableMap(m);
    }

    /** The monitored DataSources' bean names and their admins. */
    Map<String, MacroDbMonitor> byName() {
        return monitors;
    }

    /** The {@link io.macrodb.jdbc.MacroAdmin} of DataSource bean {@code name}, or null if it is not a monitored MacroDB one. */
    public io.macrodb.jdbc.MacroAdmin admin(String name) {
        MacroDbMonitor m = monitors.get(name);
        return m == null ? null : m.admin();
    }

    @Override
    public void destroy() {
        for (MacroDbMonitor m : monitors.values()) {
            try {
                m.close();
            } catch (SQLException e) {
                // closing: nothing left to do with it
            }
        }
    }
}
