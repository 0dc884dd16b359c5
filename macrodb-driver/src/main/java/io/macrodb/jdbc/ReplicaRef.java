package io.macrodb.jdbc;

/**
 * Which replica a transaction or statement ran on, as the public API names it: the replica's index
 * in {@link MacroAdmin#replicaStatus()} (0 for the first primary, 1..N for secondaries; a secondary
 * promoted by failover keeps its index) and whether it was the primary then.
 *
 * @param index   the replica's index, as in {@link io.macrodb.replica.ReplicaStatus#index()}
 * @param primary whether it was the primary when the statement ran
 */
public record ReplicaRef(int index, boolean primary) {
    /** Whether the replica was the primary when the statement ran. */
    public boolean isPrimary() { return primary; }

    @Override public String toString() { return primary ? "primary " + index : "secondary " + index; }
}
