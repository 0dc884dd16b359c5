package io.macrodb.jdbc;

import io.macrodb.log.Propagation;
import io.macrodb.sql.SqlState;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * A {@link javax.sql.DataSource} for MacroDB. Configure it with the {@link #builder()} in code, or as
 * a bean (no-argument constructor and setters) under a pool such as HikariCP
 * ({@code dataSourceClassName=io.macrodb.jdbc.MacroDataSource}, {@code dataSource.url=...}).
 *
 * <pre>{@code
 * DataSource ds = MacroDataSource.builder()
 *         .engineUrl("h2:mem:shop")
 *         .replicas(4)
 *         .consistency("session")
 *         .user("sa").password("")
 *         .build();
 * }</pre>
 */
public class MacroDataSource implements javax.sql.DataSource {
    private String url;
    private String user;
    private String password;
    private final Map<String, String> options = new LinkedHashMap<>();
    private final Properties engineProperties = new Properties();
    private int loginTimeout;
    private PrintWriter logWriter;

    public MacroDataSource() {}

    /** A builder that validates everything when {@link Builder#build()} is called. */
    public static Builder builder() { return new Builder(); }

    /** The full URL, {@code jdbc:macrodb:...}; options given with setters are added to it. */
    public void setUrl(String url) { this.url = url; }
    public String getUrl() { return url; }
    public void setUser(String user) { this.user = user; }
    public String getUser() { return user; }
    public void setPassword(String password) { this.password = password; }
    public void setReplicas(int replicas) { options.put("replicas", Integer.toString(replicas)); }
    public void setPropagation(String propagation) { options.put("propagation", propagation); }
    public void setConsistency(String consistency) { options.put("consistency", consistency); }
    public void setBalancer(String balancer) { options.put("balancer", balancer); }
    public void setReadWait(long millis) { options.put("readWait", Long.toString(millis)); }
    public void setLockTimeout(long millis) { options.put("lockTimeout", Long.toString(millis)); }
    public void setApplyGroup(int records) { options.put("applyGroup", Integer.toString(records)); }
    public void setApplyThreads(int threads) { options.put("applyThreads", Integer.toString(threads)); }
    /** {@code maxLag}: versions ({@code "10000"}), apply work ({@code "500ms"}) or {@code "0"}. */
    public void setMaxLag(String maxLag) { options.put("maxLag", maxLag); }
    /** {@code admission}: {@code "auto"}, {@code "off"} or a fixed number of transactions per replica. */
    public void setAdmission(String admission) { options.put("admission", admission); }
    public void setOptimisticReads(boolean on) { options.put("optimisticReads", Boolean.toString(on)); }
    /** {@code jmx}: registers the replica set's MXBean while it is open. */
    public void setJmx(boolean on) { options.put("jmx", Boolean.toString(on)); }
    /** {@code routingLog}: logs where each statement ran and why ({@code io.macrodb.routing}, DEBUG). */
    public void setRoutingLog(boolean on) { options.put("routingLog", Boolean.toString(on)); }
    /** {@code none} or {@code log:<directory>}. */
    public void setDurability(String durability) { options.put("durability", durability); }
    /** {@code commit} or {@code <N>ms}. */
    public void setFsync(String fsync) { options.put("fsync", fsync); }
    public void setSnapshotEvery(long records) { options.put("snapshotEvery", Long.toString(records)); }
    public void setStallTimeout(long millis) { options.put("stallTimeout", Long.toString(millis)); }
    /** {@code auto} or {@code manual}. */
    public void setRebuild(String rebuild) { options.put("rebuild", rebuild); }
    /** An engine connection property, passed to every replica's engine connection. */
    public void setEngineProperty(String key, String value) { engineProperties.setProperty(key, value); }

    /**
     * The URL with every option: what {@link #getConnection()} connects to. Values given with setters
     * are percent-encoded; an option both in the URL and set with a setter is refused on connecting.
     */
    public String effectiveUrl() {
        if (url == null) return null;
        if (options.isEmpty()) return url;
        String q = options.entrySet().stream().map(e -> MacroConfig.encode(e.getKey()) + "=" + MacroConfig.encode(e.getValue())).collect(Collectors.joining("&"));
        return url + (url.contains("?") ? "&" : "?") + q;
    }

    private Properties properties(String u, String p) {
        Properties props = new Properties();
        props.putAll(engineProperties);
        if (u != null) props.setProperty("user", u);
        if (p != null) props.setProperty("password", p);
        return props;
    }

    @Override public Connection getConnection() throws SQLException {
        return getConnection(user, password);
    }

    @Override public Connection getConnection(String username, String pw) throws SQLException {
        if (url == null) {
            throw SqlStates.rejected("the data source has no URL; call setUrl(\"jdbc:macrodb:h2:mem:shop\") or use MacroDataSource.builder()");
        }
        return MacroDriver.open(MacroConfig.parse(effectiveUrl(), properties(username, pw)));
    }

    @Override public PrintWriter getLogWriter() { return logWriter; }
    @Override public void setLogWriter(PrintWriter out) { this.logWriter = out; }
    @Override public void setLoginTimeout(int seconds) { this.loginTimeout = seconds; }
    @Override public int getLoginTimeout() { return loginTimeout; }

    @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return Logger.getLogger("io.macrodb");
    }

    @Override public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) return iface.cast(this);
        throw new SQLException("MacroDB: MacroDataSource does not wrap " + iface.getName(), SqlState.INVALID_ARGUMENT.getState());
    }

    @Override public boolean isWrapperFor(Class<?> iface) { return iface.isInstance(this); }

    /** Programmatic configuration. */
    public static final class Builder {
        private final MacroDataSource ds = new MacroDataSource();
        private String engineUrl;

        /** The engine's URL without {@code jdbc:}, e.g. {@code h2:mem:shop} or {@code hsqldb:file:/var/db/shop}. */
        public Builder engineUrl(String engineUrl) { this.engineUrl = engineUrl; return this; }
        public Builder user(String user) { ds.setUser(user); return this; }
        public Builder password(String password) { ds.setPassword(password); return this; }
        public Builder replicas(int replicas) { ds.setReplicas(replicas); return this; }
        public Builder propagation(Propagation p) { ds.setPropagation(p.name().toLowerCase(java.util.Locale.ROOT)); return this; }
        public Builder consistency(String consistency) { ds.setConsistency(consistency); return this; }
        public Builder balancer(String balancer) { ds.setBalancer(balancer); return this; }
        public Builder readWaitMillis(long millis) { ds.setReadWait(millis); return this; }
        public Builder lockTimeoutMillis(long millis) { ds.setLockTimeout(millis); return this; }
        public Builder applyGroup(int records) { ds.setApplyGroup(records); return this; }
        public Builder applyThreads(int threads) { ds.setApplyThreads(threads); return this; }
        public Builder maxLag(String maxLag) { ds.setMaxLag(maxLag); return this; }
        public Builder admission(String admission) { ds.setAdmission(admission); return this; }
        public Builder engineProperty(String key, String value) { ds.setEngineProperty(key, value); return this; }
        public Builder optimisticReads(boolean on) { ds.setOptimisticReads(on); return this; }
        public Builder jmx(boolean on) { ds.setJmx(on); return this; }
        public Builder routingLog(boolean on) { ds.setRoutingLog(on); return this; }
        /** Keeps the log and snapshots in {@code directory}: commits survive the process. */
        public Builder durableLog(java.nio.file.Path directory) { ds.setDurability("log:" + directory); return this; }
        public Builder fsync(String policy) { ds.setFsync(policy); return this; }
        public Builder snapshotEvery(long records) { ds.setSnapshotEvery(records); return this; }
        public Builder stallTimeoutMillis(long millis) { ds.setStallTimeout(millis); return this; }
        public Builder rebuild(String policy) { ds.setRebuild(policy); return this; }

        /**
         * @throws SQLException SQLState 08001 if the engine or an option is not valid (nothing is opened)
         */
        public MacroDataSource build() throws SQLException {
            if (engineUrl == null || engineUrl.isBlank()) {
                throw SqlStates.rejected("the builder needs engineUrl(...), e.g. engineUrl(\"h2:mem:shop\")");
            }
            String e = engineUrl.startsWith("jdbc:") ? engineUrl.substring(5) : engineUrl;
            ds.setUrl(MacroConfig.PREFIX + e);
            MacroConfig.parse(ds.effectiveUrl(), ds.properties(ds.user, ds.password)); // validate now
            return ds;
        }
    }
}
