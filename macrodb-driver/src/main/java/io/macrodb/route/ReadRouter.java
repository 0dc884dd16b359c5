package io.macrodb.route;

import io.macrodb.replica.Replica;
import io.macrodb.replica.ReplicaSet;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Chooses where a read-only transaction runs. A secondary that already satisfies the consistency
 * level is used at once; otherwise the freshest secondary is waited for (spin, then park) up to
 * {@code maxWaitMillis}, and if it is still behind the transaction runs on the primary, which is
 * always fresh. Waiting longer than a read would take on the primary gains nothing: under an
 * update-heavy mix this is what keeps reads from queueing behind the appliers.
 */
public final class ReadRouter {
    private final ReplicaSet replicas;
    private final ReadConsistency consistency;
    private final Balancer balancer;
    private final long maxWaitNanos;

    public ReadRouter(ReplicaSet replicas, ReadConsistency consistency, Balancer balancer, long maxWaitMillis) {
        this.replicas = replicas;
        this.consistency = consistency;
        this.balancer = balancer;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
    }

    public ReadConsistency consistency() { return consistency; }

    /**
     * @param sessionVersion version of the calling connection's last commit
     * @return the replica to run on: a secondary fresh enough, or the primary
     */
    public Replica route(long sessionVersion) {
        List<Replica> secondaries = replicas.secondaries();
        if (secondaries.isEmpty()) return replicas.primary();
        long required = consistency.requiredVersion(replicas.version(), sessionVersion);
        List<Replica> fresh = new ArrayList<>(secondaries.size());
        Replica freshest = null;
        for (Replica r : secondaries) {
            if (!r.isActive()) continue;
            if (r.version() >= required || consistency.acceptsStaleness(r.stalenessNanos())
                    && r.version() >= sessionVersion) {
                fresh.add(r);
            } else if (freshest == null || r.version() > freshest.version()) {
                freshest = r;
            }
        }
        if (!fresh.isEmpty()) return balancer.pick(fresh);
        // Wait for the freshest secondary only if its recent apply rate says it will get there within
        // readWait: a wait that cannot pay off goes to the primary at once instead of at its end.
        if (freshest != null && maxWaitNanos > 0 && freshest.expectedCatchUpNanos(required) <= maxWaitNanos) {
            Replica f = freshest;
            if (f.gate().await(required, maxWaitNanos, f::isActive)) return f;
        }
        return replicas.primary();
    }
}
