/**
 * The replicated database: {@link io.macrodb.replica.ReplicaSet} (one primary, N-1 secondaries),
 * the commit order ({@link io.macrodb.replica.CommitOrder}), each {@link io.macrodb.replica.Replica}
 * with its sessions, admission and {@link io.macrodb.replica.Applier} (which pulls the log, in
 * parallel where writesets allow), failover, rebuild, snapshots and recovery.
 *
 * <p>Uses {@code log}, {@code sql}, {@code engine} and {@code durable}; never {@code capture},
 * {@code route} or {@code jdbc}: what a transaction changed reaches it as
 * {@link io.macrodb.replica.PendingChanges} (enforced by {@code LayeringTest}).
 */
package io.macrodb.replica;
