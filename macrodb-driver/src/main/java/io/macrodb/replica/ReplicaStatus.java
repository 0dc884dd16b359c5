package io.macrodb.replica;

/**
 * A snapshot of one replica for operators and tests.
 *
 * @param lag            versions this replica is behind the primary (0 for the primary)
 * @param stalenessMillis how long ago the oldest change it has not applied was committed
 * @param appliedRecords  log records applied (secondaries)
 * @param applyGroups     engine transactions those were applied in (records/groups = group size)
 * @param applyRetries    apply attempts that failed and were retried
 * @param applyThreads    engine sessions the secondary applies with (0 for the primary)
 * @param parallelBatches batches whose units several sessions applied at once
 * @param parallelRedos   units of those that were rolled back and applied again (a conflict the
 *                        writesets did not see, or a unit behind one that failed)
 * @param admissionLimit  transactions this replica runs at once now (0: no limit)
 * @param admissionWaits  transactions that queued for admission here
 */
public record ReplicaStatus(int index, String role, String url, ReplicaState state, String stateReason, long version,
                            long lag, double stalenessMillis, int activeReaders, long appliedRecords, long applyGroups,
                            long applyRetries, int applyThreads, long parallelBatches, long parallelRedos,
                            int admissionLimit, long admissionWaits) {
}
