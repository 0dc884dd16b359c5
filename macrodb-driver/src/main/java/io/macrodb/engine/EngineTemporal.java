package io.macrodb.engine;

/**
 * A date or time value as an engine stores it, handed over by a trigger that has no JDBC type to
 * convert it with (HSQLDB's triggers see the engine's internal {@code TimestampData} and {@code
 * TimeData}, which stand for DATE and TIMESTAMP alike). {@link TransactionChanges} turns it into the
 * java.time value of the column's type; nothing else ever sees it.
 *
 * @param seconds seconds since 1970-01-01T00:00 (a timestamp, local or UTC), or of the day (a time)
 * @param nanos   fraction of the second
 * @param zoneSeconds the value's UTC offset for the WITH TIME ZONE types, 0 otherwise
 * @param time    whether this is a time of day rather than a date or timestamp
 */
public record EngineTemporal(long seconds, int nanos, int zoneSeconds, boolean time) {
}
