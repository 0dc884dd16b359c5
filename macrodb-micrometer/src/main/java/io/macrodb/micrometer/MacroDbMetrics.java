package io.macrodb.micrometer;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.Route;
import io.macrodb.jdbc.RoutingCounts;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.route.ReadWaits;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Micrometer meters for one MacroDB replicated database, read from its {@link MacroAdmin}:
 *
 * <pre>{@code
 * MacroAdmin admin = connection.unwrap(MacroAdmin.class);        // keep that connection open
 * new MacroDbMetrics(admin, "shop").bindTo(registry);
 * // or, sampling through a (pooled) DataSource at most once a second:
 * new MacroDbMetrics(dataSource, "shop", Duration.ofSeconds(1)).bindTo(registry);
 * }</pre>
 *
 * Every meter has the tag {@code db} (the name given here); the per-replica ones also {@code
 * replica} (its index) and {@code role} (primary or secondary when bound; {@code
 * macrodb.replica.primary} says which it is now, after a failover):
 *
 * <table>
 * <tr><th>meter</th><th>type</th><th>tags</th><th>what</th></tr>
 * <tr><td>{@code macrodb.transactions}</td><td>function counter</td><td>{@code target} (secondary, primary),
 *     {@code reason} (fresh, waited, wait_timed_out, no_wait, primary_idle, no_secondary, update, optimistic_off, learned,
 *     untrackable, catalog, schema_change, moved)</td><td>transactions by where they began and why (moved: an
 *     undeclared transaction that moved to the primary at its first write, also counted where it began)</td></tr>
 * <tr><td>{@code macrodb.replica.reads}</td><td>function counter</td><td>replica, role</td><td>read-only transactions begun there</td></tr>
 * <tr><td>{@code macrodb.replica.applied}</td><td>function counter</td><td>replica, role</td><td>log records applied (its rate is the apply rate)</td></tr>
 * <tr><td>{@code macrodb.replica.lag}</td><td>gauge</td><td>replica, role</td><td>versions behind the primary</td></tr>
 * <tr><td>{@code macrodb.replica.staleness}</td><td>time gauge</td><td>replica, role</td><td>age of the oldest commit it has not applied</td></tr>
 * <tr><td>{@code macrodb.replica.readers}</td><td>gauge</td><td>replica, role</td><td>read-only transactions running there now</td></tr>
 * <tr><td>{@code macrodb.replica.active}</td><td>gauge</td><td>replica, role</td><td>1 while in the rotation, 0 once failed</td></tr>
 * <tr><td>{@code macrodb.replica.primary}</td><td>gauge</td><td>replica, role</td><td>1 for the primary now</td></tr>
 * <tr><td>{@code macrodb.read.waits}</td><td>function timer</td><td></td><td>read-only transactions that waited for a secondary, and the time they waited</td></tr>
 * <tr><td>{@code macrodb.transactions.throttled}</td><td>function counter</td><td></td><td>update transactions held back by {@code maxLag}</td></tr>
 * <tr><td>{@code macrodb.refusals}</td><td>function counter</td><td>{@code sqlstate}</td><td>MacroDB's own refusals (0AM01, 0AM00, 25006 and 40001 from the start, any other state from the first sample that sees it)</td></tr>
 * <tr><td>{@code macrodb.version}</td><td>gauge</td><td></td><td>the primary's last published version</td></tr>
 * </table>
 *
 * <p>Counters are the driver's cumulative counts ({@link MacroAdmin#routingCounts()}, {@link
 * MacroAdmin#replicaStatus()}); a registry turns them into rates. A replica's applied count starts
 * again from 0 when it is rebuilt. When the admin cannot be read (its connection closed, the
 * DataSource failing) the meters report NaN (gauges) or their last value (counters).
 */
public final class MacroDbMetrics implements MeterBinder {
    private static final Logger LOG = Logger.getLogger(MacroDbMetrics.class.getName());

    /** Where samples come from: one MacroAdmin, or a connection of a DataSource per sample. */
    @FunctionalInterface
    private interface Source {
        Sample read() throws SQLException;
    }

    /** What one look at the admin saw. */
    private record Sample(List<ReplicaStatus> replicas, RoutingCounts routing, ReadWaits.Stats waits, long throttled, long version) {
        ReplicaStatus replica(int index) {
            for (ReplicaStatus s : replicas) if (s.index() == index) return s;
            return null;
        }
    }

    private final Source source;
    private final long maxAgeNanos;
    private final Tags tags;
    private volatile Sample last;
    private volatile long lastAt;
    private final Set<String> refusalStates = ConcurrentHashMap.newKeySet();
    private volatile MeterRegistry registry;

    /**
     * Meters read from {@code admin} each time a registry polls them (every call is cheap: counters
     * and versions, no engine query). The connection {@code admin} was reached from must stay open.
     *
     * @param name the {@code db} tag
     */
    public MacroDbMetrics(MacroAdmin admin, String name) {
        this(() -> sample(admin), 0, name);
    }

    /**
     * Meters sampled through a connection of {@code dataSource} (a pool's, typically), at most once
     * per {@code maxAge}: every meter read within that time shares one sample. With an in-memory
     * database, a sample taken while no other connection is open opens an empty database, as any
     * connection would: bind to an admin instead when the application does not hold connections.
     */
    public MacroDbMetrics(DataSource dataSource, String name, Duration maxAge) {
        this(() -> {
            try (Connection c = dataSource.getConnection()) {
                return sample(c.unwrap(MacroAdmin.class));
            }
        }, maxAge.toNanos(), name);
    }

    private MacroDbMetrics(Source source, long maxAgeNanos, String name) {
        this.source = source;
        this.maxAgeNanos = maxAgeNanos;
        this.tags = Tags.of("db", name);
    }

    private static Sample sample(MacroAdmin admin) throws SQLException {
        return new Sample(admin.replicaStatus(), admin.routingCounts(), admin.readWaits(), admin.throttledTransactions(),
                admin.version());
    }

    /** The newest sample (taken now unless one younger than maxAge exists); null if none could be read. */
    private Sample sample() {
        Sample s = last;
        long now = System.nanoTime();
        if (s != null && maxAgeNanos > 0 && now - lastAt < maxAgeNanos) return s;
        try {
            s = source.read();
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "MacroDB metrics: sampling failed", e);
            return null;
        }
        last = s;
        lastAt = now;
        registerNewRefusals(s);
        return s;
    }

    private double read(ToDoubleFunction<Sample> f) {
        Sample s = sample();
        return s == null ? Double.NaN : f.applyAsDouble(s);
    }

    /** For counters: the last value seen when the admin cannot be read (a counter must not drop to NaN). */
    private double count(ToDoubleFunction<Sample> f) {
        Sample s = sample();
        if (s == null) s = last;
        return s == null ? 0 : f.applyAsDouble(s);
    }

    private double replica(int index, Function<ReplicaStatus, Double> f, boolean counter) {
        ToDoubleFunction<Sample> g = s -> {
            ReplicaStatus r = s.replica(index);
            return r == null ? Double.NaN : f.apply(r);
        };
        return counter ? count(g) : read(g);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        Sample first = sample();
        for (Route r : Route.values()) {
            FunctionCounter.builder("macrodb.transactions", this, m -> m.count(s -> s.routing().count(r)))
                    .tags(tags).tag("target", r.target()).tag("reason", r.reason())
                    .description("Transactions by where they began and why").baseUnit("transactions").register(registry);
        }
        if (first != null) {
            for (ReplicaStatus st : first.replicas()) {
                int i = st.index();
                Tags t = tags.and(Tag.of("replica", Integer.toString(i)), Tag.of("role", st.role()));
                FunctionCounter.builder("macrodb.replica.reads", this, m -> m.count(s -> s.routing().readsByReplica().getOrDefault(i, 0L)))
                        .tags(t).description("Read-only transactions begun on this replica").baseUnit("transactions").register(registry);
                FunctionCounter.builder("macrodb.replica.applied", this, m -> m.replica(i, r -> (double) r.appliedRecords(), true))
                        .tags(t).description("Log records this replica applied; its rate is the apply rate").baseUnit("records").register(registry);
                Gauge.builder("macrodb.replica.lag", this, m -> m.replica(i, r -> (double) r.lag(), false))
                        .tags(t).description("Versions behind the primary").baseUnit("versions").register(registry);
                TimeGauge.builder("macrodb.replica.staleness", this, TimeUnit.MILLISECONDS, m -> m.replica(i, ReplicaStatus::stalenessMillis, false))
                        .tags(t).description("Age of the oldest commit this replica has not applied").register(registry);
                Gauge.builder("macrodb.replica.readers", this, m -> m.replica(i, r -> (double) r.activeReaders(), false))
                        .tags(t).description("Read-only transactions running on this replica").register(registry);
                Gauge.builder("macrodb.replica.active", this, m -> m.replica(i, r -> r.state() == ReplicaState.ACTIVE ? 1.0 : 0.0, false))
                        .tags(t).description("1 while the replica is in the rotation").register(registry);
                Gauge.builder("macrodb.replica.primary", this, m -> m.replica(i, r -> r.role().equals("primary") ? 1.0 : 0.0, false))
                        .tags(t).description("1 for the primary now").register(registry);
            }
        } else {
            LOG.warning("MacroDB metrics: the admin could not be read when binding; per-replica meters are left out");
        }
        FunctionTimer.builder("macrodb.read.waits", this,
                        m -> (long) m.count(s -> s.waits().waited()), m -> m.count(s -> s.waits().waitNanos()), TimeUnit.NANOSECONDS)
                .tags(tags).description("Read-only transactions that waited for a secondary to catch up, and how long").register(registry);
        FunctionCounter.builder("macrodb.transactions.throttled", this, m -> m.count(Sample::throttled))
                .tags(tags).description("Update transactions held back because a secondary was more than maxLag behind")
                .baseUnit("transactions").register(registry);
        // Micrometer holds the objects of function meters weakly; this gauge holds the binder strongly, so that
        // the meters keep working for as long as the registry has them, also when the application keeps no
        // reference to this binder (new MacroDbMetrics(admin, name).bindTo(registry) is the usual call)
        Gauge.builder("macrodb.version", this, m -> m.read(s -> s.version())).strongReference(true)
                .tags(tags).description("The primary's last published version").register(registry);
        for (String state : COMMON_REFUSALS) registerRefusal(registry, state);
        if (first != null) registerNewRefusals(first);
    }

    /**
     * The refusals every application may meet, registered at once so that they report 0 rather than
     * being missing: not replicable, not offered, read-only, retry. Others are registered at the
     * first sample that sees them.
     */
    private static final List<String> COMMON_REFUSALS = List.of("0AM01", "0AM00", "25006", "40001");

    private void registerRefusal(MeterRegistry reg, String state) {
        if (!refusalStates.add(state)) return;
        FunctionCounter.builder("macrodb.refusals", this, m -> m.count(x -> x.routing().refusalsBySqlState().getOrDefault(state, 0L)))
                .tags(tags).tag("sqlstate", state).description("Statements and commits MacroDB refused or failed itself, by SQLState")
                .baseUnit("refusals").register(reg);
    }

    /** A {@code macrodb.refusals} counter for each SQLState seen for the first time. */
    private void registerNewRefusals(Sample s) {
        MeterRegistry reg = registry;
        if (reg == null) return;
        for (String state : s.routing().refusalsBySqlState().keySet()) registerRefusal(reg, state);
    }
}
