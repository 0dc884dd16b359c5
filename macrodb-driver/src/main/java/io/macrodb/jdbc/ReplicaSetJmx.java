package io.macrodb.jdbc;

import io.macrodb.engine.EngineUrl;
import io.macrodb.replica.ReplicaSet;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.route.ReadWaits;
import io.macrodb.sql.SqlState;

import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * The {@link ReplicaSetMXBean} of one replica set: a replica-set extension, registered by the first
 * connection opened with {@code jmx=true} and unregistered when the set shuts down (the set closes
 * its {@link AutoCloseable} extensions then).
 */
final class ReplicaSetJmx implements ReplicaSetMXBean, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReplicaSetJmx.class.getName());

    private final ReplicaSet db;
    private final RoutingCounters counters;
    private final ReadWaits waits;
    private final String url;
    private final ObjectName name;
    private boolean registered;
    private boolean closed;

    private ReplicaSetJmx(ReplicaSet db, RoutingCounters counters, ReadWaits waits) {
        this.db = db;
        this.counters = counters;
        this.waits = waits;
        this.url = displayUrl(db.config().url());
        this.name = objectName(url);
    }

    /** Registers {@code db}'s MXBean unless it is already; a failure to register is logged, never thrown. */
    static void register(ReplicaSet db) {
        RoutingCounters c = db.extension(RoutingCounters.class, () -> new RoutingCounters(db.config().replicas()));
        ReadWaits w = db.extension(ReadWaits.class, ReadWaits::new);
        db.extension(ReplicaSetJmx.class, () -> new ReplicaSetJmx(db, c, w)).register();
    }

    /** {@code io.macrodb:type=ReplicaSet,name="<url>"}. */
    static ObjectName objectName(String url) {
        try {
            return new ObjectName("io.macrodb:type=ReplicaSet,name=" + ObjectName.quote(url));
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e); // quote() makes any string a valid value
        }
    }

    /** {@code jdbc:macrodb:<engine>:<database>[;settings]}, with every setting whose key names a password left out. */
    static String displayUrl(EngineUrl u) {
        StringBuilder b = new StringBuilder(MacroConfig.PREFIX).append(u.engine()).append(':').append(u.database());
        u.settings().forEach((k, v) -> {
            if (!k.toLowerCase(Locale.ROOT).contains("password")) b.append(';').append(k).append(v.isEmpty() ? "" : "=" + v);
        });
        return b.toString();
    }

    private synchronized void register() {
        if (registered || closed) return;
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            server.registerMBean(this, name);
            registered = true;
        } catch (InstanceAlreadyExistsException e) {
            LOG.warning("MacroDB: " + name + " is already registered (another copy of the driver?); this one is not");
        } catch (Exception e) {
            LOG.warning("MacroDB: registering " + name + " failed: " + e);
        }
    }

    /** Unregisters the MXBean (the replica set is shutting down). */
    @Override public synchronized void close() {
        closed = true;
        if (!registered) return;
        registered = false;
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (InstanceNotFoundException e) {
            // someone unregistered it already
        } catch (Exception e) {
            LOG.warning("MacroDB: unregistering " + name + " failed: " + e);
        }
    }

    // ---------------------------------------------------------------- attributes

    @Override public String getUrl() { return url; }

    @Override public long getVersion() { return db.version(); }

    @Override public int getReplicas() { return db.config().replicas(); }

    @Override public int getPrimaryIndex() { return db.primary().index(); }

    @Override public String[] getReplicaStatus() {
        return db.status().stream().map(s -> String.format(Locale.ROOT,
                "%d %s %s%s v%d lag %d (%.1f ms) readers %d applied %d",
                s.index(), s.role(), s.state(), s.stateReason() == null || s.stateReason().isEmpty() ? "" : " (" + s.stateReason() + ")",
                s.version(), s.lag(), s.stalenessMillis(), s.activeReaders(), s.appliedRecords())).toArray(String[]::new);
    }

    @Override public Map<Integer, String> getRoles() { return per(s -> s.role()); }

    @Override public Map<Integer, String> getStates() { return per(s -> s.state().name()); }

    @Override public Map<Integer, Long> getLag() { return per(ReplicaStatus::lag); }

    @Override public Map<Integer, Double> getStalenessMillis() { return per(ReplicaStatus::stalenessMillis); }

    @Override public Map<Integer, Long> getAppliedRecords() { return per(ReplicaStatus::appliedRecords); }

    private <V> Map<Integer, V> per(java.util.function.Function<ReplicaStatus, V> f) {
        Map<Integer, V> out = new TreeMap<>();
        for (ReplicaStatus s : db.status()) out.put(s.index(), f.apply(s));
        return out;
    }

    @Override public Map<Integer, Long> getReadsByReplica() { return counters.snapshot().readsByReplica(); }

    @Override public Map<String, Long> getTransactionsByRoute() {
        Map<String, Long> out = new LinkedHashMap<>();
        counters.snapshot().transactions().forEach((r, n) -> out.put(r.toString(), n));
        return out;
    }

    @Override public long getTransactionsOnSecondaries() { return counters.snapshot().onSecondaries(); }

    @Override public long getTransactionsOnPrimary() { return counters.snapshot().onPrimary(); }

    @Override public Map<String, Long> getRefusalsBySqlState() { return counters.snapshot().refusalsBySqlState(); }

    @Override public double getReadWaitMillis() { return waits.snapshot().waitNanos() / 1e6; }

    @Override public long getThrottledTransactions() { return db.throttledTransactions(); }

    @Override public String getDurabilityStatus() { return db.durabilityStatus(); }

    @Override public String getCaptureStatus() { return db.captureStatus(); }

    // ---------------------------------------------------------------- operations

    @Override public void rebuild(int index) {
        try {
            db.rebuild(index);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SqlState.INVALID_ARGUMENT.getState() + ": MacroDB: " + e.getMessage());
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public long snapshot() {
        try {
            return db.snapshot();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean awaitCaughtUp(long timeoutMillis) {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException(SqlState.INVALID_ARGUMENT.getState() + ": MacroDB: awaitCaughtUp needs a timeout >= 0 ms");
        }
        return db.awaitCaughtUp(timeoutMillis);
    }

    @Override public void pauseApplying(int index, boolean paused) {
        try {
            db.pauseApplying(index, paused);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(SqlState.INVALID_ARGUMENT.getState() + ": MacroDB: " + e.getMessage());
        }
    }

    /** The SQLState and message only: the exception's classes (the engine's among them) need not exist on the client. */
    private static IllegalStateException failure(SQLException e) {
        return new IllegalStateException(e.getSQLState() + ": " + e.getMessage());
    }

    @Override public String toString() { return "ReplicaSetMXBean[" + name + "]"; }
}
