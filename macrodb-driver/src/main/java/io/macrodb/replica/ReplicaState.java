package io.macrodb.replica;

/** Where a replica is in its life. */
public enum ReplicaState {
    /** Being built (loaded from another replica); not yet serving reads. */
    STARTING,
    /** Serving: the primary runs updates, a secondary applies the log and serves reads. */
    ACTIVE,
    /** Left the rotation after an error retries could not clear; see {@link Replica#stateReason()}. */
    FAILED,
    /** The replica set was shut down. */
    CLOSED
}
