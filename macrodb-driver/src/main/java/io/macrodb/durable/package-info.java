/**
 * Durability ({@code durability=log:<dir>}): the log on disk (segments, group fsync), its record
 * codec and reader, snapshots with their checksums, and the lock that makes a directory one open
 * database's.
 *
 * <p>Uses only {@code log}; sits beside it. Used by {@code replica} (which recovers from it) and
 * {@code jdbc} (configuration).
 */
package io.macrodb.durable;
