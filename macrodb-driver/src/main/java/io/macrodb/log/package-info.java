/**
 * The replication log: change records ({@link io.macrodb.log.ChangeRecord}: a version and what one
 * update transaction changed, as {@link io.macrodb.log.RowChanges} or
 * {@link io.macrodb.log.StatementChange}), table shapes, the shared in-memory log with one cursor
 * per reader, and {@link io.macrodb.log.VersionGate} (a published version that threads wait on).
 *
 * <p>The ground floor: uses nothing of MacroDB's. Everything else may use it.
 */
package io.macrodb.log;
