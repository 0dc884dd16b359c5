package io.macrodb.boot;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Health of one MacroDB database: UP while its primary is active (reads and writes are served; a
 * failed secondary is rebuilt online and only shows in the details), DOWN when the primary is not
 * active or the database cannot be reached. Details: the primary's version, how many secondaries are
 * in the rotation, update transactions held back by {@code maxLag}, and per replica its role, state
 * (with the reason), version, lag in versions and staleness.
 */
public class MacroDbHealthIndicator extends AbstractHealthIndicator {
    private final MacroAdmin admin;

    public MacroDbHealthIndicator(MacroAdmin admin) {
        super("MacroDB health check failed");
        this.admin = admin;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        List<ReplicaStatus> replicas = admin.replicaStatus();
        boolean primaryActive = false;
        int secondaries = 0;
        int activeSecondaries = 0;
        Map<String, Object> perReplica = new LinkedHashMap<>();
        for (ReplicaStatus r : replicas) {
            boolean primary = "primary".equals(r.role());
            if (primary) {
                primaryActive |= r.state() == ReplicaState.ACTIVE;
            } else {
                secondaries++;
                if (r.state() == ReplicaState.ACTIVE) activeSecondaries++;
            }
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("role", r.role());
            d.put("state", r.state().name());
            if (r.stateReason() != null && !r.stateReason().isEmpty()) d.put("reason", r.stateReason());
            d.put("version", r.version());
            d.put("lag", r.lag());
            d.put("stalenessMillis", r.stalenessMillis());
            d.put("activeReaders", r.activeReaders());
            perReplica.put(Integer.toString(r.index()), d);
        }
        builder.status(primaryActive ? org.springframework.boot.actuate.health.Status.UP
                        : org.springframework.boot.actuate.health.Status.DOWN)
                .withDetail("version", admin.version())
                .withDetail("activeSecondaries", activeSecondaries + "/" + secondaries)
                .withDetail("throttledTransactions", admin.throttledTransactions())
                .withDetail("replicas", perReplica);
    }
}
