package io.macrodb.jdbc;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot of one database's routing counters since it opened ({@link MacroAdmin#routingCounts()}):
 * cumulative, so two snapshots subtract ({@link #minus}) to give a window's figures. Every map is
 * unmodifiable.
 *
 * @param transactions       transactions by where they began and why (every {@link Route}, zeros included)
 * @param readsByReplica     read-only transactions (declared, autocommit reads and undeclared ones that
 *                           started on a secondary) begun on each replica, by replica index
 * @param refusalsBySqlState statements and commits MacroDB itself refused or failed (its own messages, not
 *                           the engine's errors), by SQLState: {@code 0AM01} not replicable, {@code 25006}
 *                           read-only, {@code 40001} retry, ...
 */
public record RoutingCounts(Map<Route, Long> transactions, Map<Integer, Long> readsByReplica,
                            Map<String, Long> refusalsBySqlState) {
    public RoutingCounts {
        EnumMap<Route, Long> t = new EnumMap<>(Route.class);
        t.putAll(transactions);
        transactions = java.util.Collections.unmodifiableMap(t);
        readsByReplica = java.util.Collections.unmodifiableMap(new TreeMap<>(readsByReplica));
        refusalsBySqlState = java.util.Collections.unmodifiableMap(new TreeMap<>(refusalsBySqlState));
    }

    /** Transactions that began on a secondary. */
    public long onSecondaries() {
        return count(Route.SECONDARY_FRESH) + count(Route.SECONDARY_AFTER_WAIT);
    }

    /** Transactions that began on the primary (a moved transaction counted once, where it began). */
    public long onPrimary() {
        long n = 0;
        for (Map.Entry<Route, Long> e : transactions.entrySet()) {
            if (!e.getKey().onSecondary() && e.getKey() != Route.MOVED_TO_PRIMARY) n += e.getValue();
        }
        return n;
    }

    public long count(Route r) { return transactions.getOrDefault(r, 0L); }

    /** The figures of the window between {@code earlier} and this snapshot. */
    public RoutingCounts minus(RoutingCounts earlier) {
        return new RoutingCounts(diff(transactions, earlier.transactions), diff(readsByReplica, earlier.readsByReplica),
                diff(refusalsBySqlState, earlier.refusalsBySqlState));
    }

    private static <K> Map<K, Long> diff(Map<K, Long> now, Map<K, Long> before) {
        Map<K, Long> out = new java.util.HashMap<>();
        now.forEach((k, v) -> out.put(k, v - before.getOrDefault(k, 0L)));
        return out;
    }
}
