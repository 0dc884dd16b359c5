package io.macrodb.durable;

import java.nio.file.Path;

/**
 * {@code durability=log:<dir>}: where the log and snapshots live, when the log is forced to disk,
 * and how many records may accumulate before a new snapshot lets older segments go.
 */
public record DurabilityConfig(Path directory, DurableLog.Sync sync, long snapshotEvery) {
}
