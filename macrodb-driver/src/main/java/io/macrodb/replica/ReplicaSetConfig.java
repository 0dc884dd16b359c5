package io.macrodb.replica;

import io.macrodb.engine.Engine;
import io.macrodb.engine.EngineUrl;
import io.macrodb.log.Propagation;

import java.util.Properties;

/**
 * What a replica set is built from; fixed for its life.
 *
 * @param url              the primary's engine URL (the application's URL after {@code jdbc:macrodb:})
 * @param connectProperties user, password and engine properties passed to every engine connection
 * @param replicas         total replicas, primary included (at least 1)
 * @param applyGroup       most records a behind secondary applies in one engine transaction
 * @param applyThreads     engine sessions each secondary applies the log with (1: one, in order)
 * @param maxLagVersions   versions a secondary may be behind before update transactions wait for it (0: no bound)
 * @param maxLagMillis     the same bound as apply work in milliseconds (0: none)
 * @param admissionLimit   transactions each replica runs at once (0: no limit)
 * @param admissionAdaptive whether that limit follows measured throughput
 * @param durability       the durable log and snapshots, or null for none
 * @param stallTimeoutMillis how long a secondary may be behind without progress before it leaves the rotation
 * @param autoRebuild      whether a failed secondary is rebuilt automatically
 * @param closeDelayMillis how long the set stays open after its last connection closes: 0 not at all,
 *                         -1 until SHUTDOWN or the JVM exits, N milliseconds
 * @param oneWriter        whether update transactions on the primary take a turn each from their start
 *                         ({@code writers=one}, statement propagation, or an engine that needs it)
 */
public record ReplicaSetConfig(Engine engine, EngineUrl url, Properties connectProperties, int replicas,
                               Propagation propagation, long lockTimeoutMillis, int applyGroup,
                               int applyThreads, long maxLagVersions, long maxLagMillis,
                               int admissionLimit, boolean admissionAdaptive, io.macrodb.durable.DurabilityConfig durability, long stallTimeoutMillis, boolean autoRebuild,
                               long closeDelayMillis, boolean oneWriter) {
}
