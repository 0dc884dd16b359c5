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
    // One setter and one getter per MacroProperty (MacroPropertyTest checks it). A getter returns the value
    // set with the setter, else the one in the URL, else the default (where MacroDB computes it, the value
    // it would choose in this JVM; applyThreads: 0 while the URL names no supported engine).
    public void setReplicas(int replicas) { set(MacroProperty.REPLICAS, Integer.toString(replicas)); }
    public int getReplicas() { return (int) number(MacroProperty.REPLICAS, MacroConfig.defaultReplicas()); }
    /** {@code row} or {@code statement}. */
    public void setPropagation(String propagation) { set(MacroProperty.PROPAGATION, propagation); }
    public String getPropagation() { return string(MacroProperty.PROPAGATION); }
    /** {@code strict}, {@code session}, {@code bounded:<versions>} or {@code bounded:<millis>ms}. */
    public void setConsistency(String consistency) { set(MacroProperty.CONSISTENCY, consistency); }
    public String getConsistency() { return string(MacroProperty.CONSISTENCY); }
    /** {@code leastActive}, {@code freshest} or {@code roundRobin}. */
    public void setBalancer(String balancer) { set(MacroProperty.BALANCER, balancer); }
    public String getBalancer() { return string(MacroProperty.BALANCER); }
    public void setReadWait(long millis) { set(MacroProperty.READ_WAIT, Long.toString(millis)); }
    public long getReadWait() { return number(MacroProperty.READ_WAIT, 0); }
    public void setPrimaryReads(String primaryReads) { set(MacroProperty.PRIMARY_READS, primaryReads); }
    public String getPrimaryReads() { return string(MacroProperty.PRIMARY_READS); }
    public void setLockTimeout(long millis) { set(MacroProperty.LOCK_TIMEOUT, Long.toString(millis)); }
    public long getLockTimeout() { return number(MacroProperty.LOCK_TIMEOUT, 0); }
    public void setApplyGroup(int records) { set(MacroProperty.APPLY_GROUP, Integer.toString(records)); }
    public int getApplyGroup() { return (int) number(MacroProperty.APPLY_GROUP, 0); }
    public void setApplyThreads(int threads) { set(MacroProperty.APPLY_THREADS, Integer.toString(threads)); }
    public int getApplyThreads() {
        return (int) number(MacroProperty.APPLY_THREADS, MacroConfig.defaultApplyThreads(url, getReplicas()));
    }
    /** {@code maxLag}: versions ({@code "10000"}), apply work ({@code "500ms"}) or {@code "0"}. */
    public void setMaxLag(String maxLag) { set(MacroProperty.MAX_LAG, maxLag); }
    public String getMaxLag() { return string(MacroProperty.MAX_LAG); }
    /** {@code admission}: {@code "auto"}, {@code "off"} or a fixed number of transactions per replica. */
    public void setAdmission(String admission) { set(MacroProperty.ADMISSION, admission); }
    public String getAdmission() { return string(MacroProperty.ADMISSION); }
    public void setOptimisticReads(boolean on) { set(MacroProperty.OPTIMISTIC_READS, Boolean.toString(on)); }
    public boolean isOptimisticReads() { return Boolean.parseBoolean(string(MacroProperty.OPTIMISTIC_READS).trim()); }
    /** {@code jmx}: registers the replica set's MXBean while it is open. */
    public void setJmx(boolean on) { set(MacroProperty.JMX, Boolean.toString(on)); }
    public boolean isJmx() { return Boolean.parseBoolean(string(MacroProperty.JMX).trim()); }
    /** {@code routingLog}: logs where each statement ran and why ({@code io.macrodb.routing}, DEBUG). */
    public void setRoutingLog(boolean on) { set(MacroProperty.ROUTING_LOG, Boolean.toString(on)); }
    public boolean isRoutingLog() { return Boolean.parseBoolean(string(MacroProperty.ROUTING_LOG).trim()); }
    /** {@code none} or {@code log:<directory>}. */
    public void setDurability(String durability) { set(MacroProperty.DURABILITY, durability); }
    public String getDurability() { return string(MacroProperty.DURABILITY); }
    /** {@code commit} or {@code <N>ms}. */
    public void setFsync(String fsync) { set(MacroProperty.FSYNC, fsync); }
    public String getFsync() { return string(MacroProperty.FSYNC); }
    public void setSnapshotEvery(long records) { set(MacroProperty.SNAPSHOT_EVERY, Long.toString(records)); }
    public long getSnapshotEvery() { return number(MacroProperty.SNAPSHOT_EVERY, 0); }
    public void setStallTimeout(long millis) { set(MacroProperty.STALL_TIMEOUT, Long.toString(millis)); }
    public long getStallTimeout() { return number(MacroProperty.STALL_TIMEOUT, 0); }
    /** {@code engine} (as the engine keeps the database), {@code -1} (until SHUTDOWN or the JVM exits) or seconds. */
    public void setCloseDelay(String closeDelay) { set(MacroProperty.CLOSE_DELAY, closeDelay); }
    public String getCloseDelay() { return string(MacroProperty.CLOSE_DELAY); }
    /** {@code auto} or {@code manual}. */
    public void setRebuild(String rebuild) { set(MacroProperty.REBUILD, rebuild); }
    public String getRebuild() { return string(MacroProperty.REBUILD); }
    /** {@code auto}, {@code one} or {@code concurrent}. */
    public void setWriters(String writers) { set(MacroProperty.WRITERS, writers); }
    public String getWriters() { return string(MacroProperty.WRITERS); }

    private void set(MacroProperty p, String value) { options.put(p.optionName(), value); }

    /** What the setter or the URL gives for {@code p}, or null. */
    private String given(MacroProperty p) {
        String v = options.get(p.optionName());
        return v != null || url == null ? v : MacroConfig.givenOptions(url, null).get(p.optionName());
    }

    private String string(MacroProperty p) {
        String v = given(p);
        return v != null ? v : p.defaultValue();
    }

    /** A numeric option's value; {@code computed} where its default is computed; 0 where what is given is not a number. */
    private long number(MacroProperty p, long computed) {
        String v = given(p);
        if (v == null) return p.defaultValue() != null ? Long.parseLong(p.defaultValue()) : computed;
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return 0; // connecting reports it
        }
    }

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
        public Builder primaryReads(String primaryReads) { ds.setPrimaryReads(primaryReads); return this; }
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
        /** {@code writers}: {@code auto}, {@code one} or {@code concurrent}. */
        public Builder writers(String writers) { ds.setWriters(writers); return this; }
        /** {@code closeDelay}: {@code engine}, {@code -1} or seconds. */
        public Builder closeDelay(String closeDelay) { ds.setCloseDelay(closeDelay); return this; }

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
