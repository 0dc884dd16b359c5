package io.macrodb.route;

import io.macrodb.replica.Admission;
import io.macrodb.replica.Replica;
import io.macrodb.replica.ReplicaSet;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Chooses where a read-only transaction runs. A secondary that already satisfies the consistency
 * level is used at once. Otherwise, with {@code primaryReads=idle}, a primary that runs fewer
 * transactions than its share of the processors takes the read at once ({@link ReplicaSet#primaryIdle()}):
 * waiting for a secondary to apply the newest commits (often the client's own, a few hundred
 * microseconds of apply work) gains nothing while the primary has a processor free. Otherwise the
 * freshest secondary is waited for (spin, then park) up to {@code maxWaitMillis}, and if it is still
 * behind the transaction runs on the primary, which is always fresh. Waiting longer than a read would
 * take on the primary gains nothing: under an update-heavy mix this is what keeps reads from queueing
 * behind the appliers.
 *
 * <p>Admission: the transaction is admitted to the replica it runs on (at most that replica's
 * limit run at once). A secondary that is fresh but full is passed over for another fresh one with
 * room; only when every fresh one is full does the reader wait, in line, at the balancer's choice.
 */
public final class ReadRouter {
    private final ReplicaSet replicas;
    private ReadConsistency consistency;
    private final Balancer balancer;
    private final long maxWaitNanos;
    /** {@code primaryReads=idle}: a read that would wait runs on an idle primary instead. */
    private final boolean primaryWhenIdle;
    private final ReadWaits waits;
    private long lastWaitNanos;
    /** The version the last {@link #choose} required of a secondary. */
    private long lastRequired;
    private Decision lastDecision = Decision.NO_SECONDARY;

    /** Why the last {@link #route} chose where it did (the counters of {@link ReadWaits}, one call at a time). */
    public enum Decision {
        /** a secondary was fresh enough at once */
        FRESH,
        /** the freshest secondary was waited for and caught up */
        WAITED,
        /** the freshest secondary was waited for the whole readWait, then the primary was used */
        WAIT_TIMED_OUT,
        /** no secondary could catch up within readWait at its recent apply rate (or readWait is 0): the primary at once */
        NO_WAIT,
        /** no secondary was fresh enough, and the primary had room ({@code primaryReads=idle}): the primary at once */
        PRIMARY_IDLE,
        /** no secondary is in the rotation: the primary */
        NO_SECONDARY
    }

    /**
     * A router for one connection (it is not thread-safe: it remembers its last wait).
     *
     * @param primaryWhenIdle whether a read that no secondary can take at once runs on an idle primary
     *                        ({@code primaryReads=idle}) instead of waiting for a secondary
     * @param waits           the database's shared routing counters, which every routing decision updates
     */
    public ReadRouter(ReplicaSet replicas, ReadConsistency consistency, Balancer balancer, long maxWaitMillis,
                      boolean primaryWhenIdle, ReadWaits waits) {
        this.replicas = replicas;
        this.consistency = consistency;
        this.balancer = balancer;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
        this.primaryWhenIdle = primaryWhenIdle;
        this.waits = waits;
    }

    public ReadConsistency consistency() { return consistency; }

    /** Changes the consistency of this connection's later routing decisions (a session-level setting). */
    public void setConsistency(ReadConsistency consistency) { this.consistency = java.util.Objects.requireNonNull(consistency); }

    /** How long the last {@link #route} waited for a secondary to catch up (0 when it did not wait). */
    public long lastWaitNanos() { return lastWaitNanos; }

    /** Why the last {@link #route} went where it did. */
    public Decision lastDecision() { return lastDecision; }

    /** The version the last {@link #route} required of a secondary (0 when there was none to ask). */
    public long lastRequired() { return lastRequired; }

    /** Where a read-only transaction runs, and its admission there (to close when it ends). */
    public record Choice(Replica replica, Admission.Permit permit) {}

    /**
     * @param sessionVersion version of the calling connection's last commit
     * @return the replica to run on (a secondary fresh enough, or the primary), admitted
     * @throws SQLException 40001 if the replica's admission queue did not let it in within lockTimeout
     */
    public Choice route(long sessionVersion) throws SQLException {
        Replica r = choose(sessionVersion);
        Admission.Permit p = r.admission().tryEnter();
        if (p != null) return new Choice(r, p);
        if (!r.isPrimary()) {
            long required = lastRequired; // what choose() found r fresh enough for
            for (Replica other : replicas.secondaries()) {
                if (other == r || !other.isActive() || other.keepsReadersOut() || other.version() < required) continue;
                p = other.admission().tryEnter();
                if (p != null) return new Choice(other, p);
            }
        }
        long timeout = replicas.config().lockTimeoutMillis();
        return new Choice(r, r.admission().enter(timeout, r.isPrimary() ? "the primary" : r.toString()));
    }

    private Replica choose(long sessionVersion) {
        lastWaitNanos = 0;
        lastRequired = 0;
        List<Replica> secondaries = replicas.secondaries();
        if (secondaries.isEmpty()) {
            lastDecision = Decision.NO_SECONDARY;
            waits.primaryNoSecondary();
            return replicas.primary();
        }
        long required = consistency.requiredVersion(replicas.version(), sessionVersion);
        lastRequired = required;
        List<Replica> fresh = new ArrayList<>(secondaries.size());
        Replica freshest = null;
        for (Replica r : secondaries) {
            if (!r.isActive() || r.keepsReadersOut()) continue;
            if (r.version() >= required || consistency.acceptsStaleness(r.stalenessNanos())
                    && r.version() >= sessionVersion) {
                fresh.add(r);
            } else if (freshest == null || r.version() > freshest.version()) {
                freshest = r;
            }
        }
        if (!fresh.isEmpty()) {
            lastDecision = Decision.FRESH;
            waits.atOnce();
            return balancer.pick(fresh);
        }
        if (freshest == null) {
            lastDecision = Decision.NO_SECONDARY;
            waits.primaryNoSecondary(); // every secondary has left the rotation
            return replicas.primary();
        }
        if (primaryWhenIdle && replicas.primaryIdle()) {
            lastDecision = Decision.PRIMARY_IDLE;
            waits.primaryIdle();
            return replicas.primary();
        }
        // Wait for the freshest secondary only if its recent apply rate says it will get there within
        // readWait: a wait that cannot pay off goes to the primary at once instead of at its end.
        if (maxWaitNanos > 0 && freshest.expectedCatchUpNanos(required) <= maxWaitNanos) {
            Replica f = freshest;
            long start = System.nanoTime();
            boolean caughtUp = f.gate().await(required, maxWaitNanos, f::isActive);
            lastWaitNanos = Math.max(1, System.nanoTime() - start);
            waits.waited(lastWaitNanos, caughtUp);
            lastDecision = caughtUp ? Decision.WAITED : Decision.WAIT_TIMED_OUT;
            if (caughtUp) return f;
        } else {
            lastDecision = Decision.NO_WAIT;
            waits.primaryNoWait();
        }
        return replicas.primary();
    }
}
