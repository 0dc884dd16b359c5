package io.macrodb.route;

import io.macrodb.replica.Replica;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/** Picks one secondary among those fresh enough for a read-only transaction. */
public interface Balancer {

    /** @param candidates active secondaries that satisfy the consistency level, never empty */
    Replica pick(List<Replica> candidates);

    /**
     * Fewest read-only transactions running now; ties go to the freshest, then to a random one (so
     * that idle, equally fresh secondaries share the load instead of the first taking it all). The
     * default.
     */
    Balancer LEAST_ACTIVE = candidates -> {
        Replica best = null;
        int n = candidates.size();
        int start = n == 1 ? 0 : java.util.concurrent.ThreadLocalRandom.current().nextInt(n);
        for (int i = 0; i < n; i++) {
            Replica r = candidates.get((start + i) % n);
            if (best == null || r.activeReaders() < best.activeReaders()
                    || r.activeReaders() == best.activeReaders() && r.version() > best.version()) {
                best = r;
            }
        }
        return best;
    };

    /** Highest version; ties go to the least active, then to a random one. */
    Balancer FRESHEST = candidates -> {
        Replica best = null;
        int n = candidates.size();
        int start = n == 1 ? 0 : java.util.concurrent.ThreadLocalRandom.current().nextInt(n);
        for (int i = 0; i < n; i++) {
            Replica r = candidates.get((start + i) % n);
            if (best == null || r.version() > best.version()
                    || r.version() == best.version() && r.activeReaders() < best.activeReaders()) {
                best = r;
            }
        }
        return best;
    };

    /** Each in turn. */
    static Balancer roundRobin() {
        AtomicInteger next = new AtomicInteger();
        return candidates -> candidates.get(Math.floorMod(next.getAndIncrement(), candidates.size()));
    }

    /**
     * The balancers of one replicated database, by name, shared by its connections (so that
     * round-robin turns over the whole database's reads, not each connection's).
     */
    final class Shared {
        private final java.util.concurrent.ConcurrentHashMap<String, Balancer> byName = new java.util.concurrent.ConcurrentHashMap<>();

        public Balancer get(String name) {
            return byName.computeIfAbsent(name.trim().toLowerCase(Locale.ROOT), Balancer::parse);
        }
    }

    static Balancer parse(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "leastactive", "least-active" -> LEAST_ACTIVE;
            case "freshest" -> FRESHEST;
            case "roundrobin", "round-robin" -> roundRobin();
            default -> throw new IllegalArgumentException("balancer='" + name + "' is not one of leastActive, freshest, roundRobin");
        };
    }
}
