package io.macrodb.jdbc;

import java.sql.SQLException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The routing counters of one replicated database, shared by its connections (a replica-set
 * extension): one {@link LongAdder} increment per transaction begun and per refusal, nothing else on
 * the hot path. {@link #snapshot()} is what {@link MacroAdmin#routingCounts()} returns.
 */
final class RoutingCounters {
    private static final Route[] ROUTES = Route.values();
    private final LongAdder[] routes = new LongAdder[ROUTES.length];
    /** Read-only transactions by replica index (indices are fixed for a set's life: 0..replicas-1). */
    private final LongAdder[] reads;
    private final ConcurrentHashMap<String, LongAdder> refusals = new ConcurrentHashMap<>();

    RoutingCounters(int replicas) {
        for (int i = 0; i < routes.length; i++) routes[i] = new LongAdder();
        reads = new LongAdder[replicas];
        for (int i = 0; i < replicas; i++) reads[i] = new LongAdder();
    }

    void began(Route r) { routes[r.ordinal()].increment(); }

    void readOn(int replicaIndex) {
        if (replicaIndex >= 0 && replicaIndex < reads.length) reads[replicaIndex].increment();
    }

    /** Counts {@code e} if MacroDB raised it itself (its messages start with "MacroDB:"); engine errors are not refusals. */
    void failed(SQLException e) {
        String m = e.getMessage();
        if (m != null && m.startsWith("MacroDB:")) {
            String state = e.getSQLState() == null ? "none" : e.getSQLState();
            refusals.computeIfAbsent(state, k -> new LongAdder()).increment();
        }
    }

    RoutingCounts snapshot() {
        Map<Route, Long> t = new EnumMap<>(Route.class);
        for (Route r : ROUTES) t.put(r, routes[r.ordinal()].sum());
        Map<Integer, Long> byReplica = new HashMap<>();
        for (int i = 0; i < reads.length; i++) byReplica.put(i, reads[i].sum());
        Map<String, Long> byState = new HashMap<>();
        refusals.forEach((k, v) -> byState.put(k, v.sum()));
        return new RoutingCounts(t, byReplica, byState);
    }
}
