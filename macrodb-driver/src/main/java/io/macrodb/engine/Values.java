package io.macrodb.engine;


import java.sql.Blob;
import java.sql.Clob;
import java.sql.SQLException;
import java.sql.SQLXML;

/**
 * Turns engine-owned values (LOB handles) into plain values that outlive their session, and reads
 * column values in the representation MacroDB ships: dates and times as java.time values, which
 * both engines convert without the JVM's or the session's time zone.
 */
public final class Values {
    private Values() {}

    public static Object detach(Object v) throws SQLException {
        if (v instanceof Blob b) {
            long n = b.length();
            byte[] bytes = n == 0 ? new byte[0] : b.getBytes(1, Math.toIntExact(n));
            b.free();
            return bytes;
        }
        if (v instanceof Clob c) {
            long n = c.length();
            String s = n == 0 ? "" : c.getSubString(1, Math.toIntExact(n));
            c.free();
            return s;
        }
        if (v instanceof java.sql.Array a) {
            Object arr = a.getArray();
            a.free();
            return arr;
        }
        if (v instanceof SQLXML x) {
            String s = x.getString();
            x.free();
            return s;
        }
        return v;
    }

    /**
     * {@code ps.setObject(i, v)}, except on Derby, whose setObject takes no java.time values: there
     * dates and times are bound as java.sql values of the same fields.
     */
    public static void bind(java.sql.PreparedStatement ps, int i, Object v) throws SQLException {
        if (v instanceof java.time.temporal.Temporal && ps.getClass().getName().startsWith("org.apache.derby.")) DerbyEngine.bind(ps, i, v);
        else ps.setObject(i, v);
    }

    /** Whether {@code c} is an HSQLDB session (its dates and times are read differently, see {@link #read}). */
    public static boolean isHsqldb(java.sql.Connection c) throws SQLException {
        return c.getClass().getName().startsWith("org.hsqldb.");
    }

    private static final java.util.Calendar UTC = java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("UTC"));

    /**
     * Column {@code i} of the current row in the representation MacroDB ships: dates and times as
     * java.time values, exactly as the engine stores them and as its {@code setObject} takes them
     * back. Never through java.sql.Date/Timestamp in the JVM's zone, which shifts dates before
     * 1582-10-15 and local times in a daylight-saving gap, and on HSQLDB goes through the session's
     * time zone too.
     *
     * <p>HSQLDB's {@code BIT(n)} is read as bytes (its {@code getObject} loses all but one bit).
     *
     * <p>H2 hands java.time values over as it stores them. HSQLDB stores seconds since 1970 counted
     * the java.time way and takes java.time values that way, but its {@code getObject(i,
     * LocalDate.class)} counts dates before 1582 by the Julian calendar: so its values are read as
     * the stored seconds (through a UTC calendar, which has neither daylight saving nor an offset).
     *
     * @param type   the column's {@link java.sql.Types} code
     * @param hsqldb whether {@code rs} is HSQLDB's
     */
    public static Object read(java.sql.ResultSet rs, int i, int type, boolean hsqldb) throws SQLException {
        if (rs.getClass().getName().startsWith("org.apache.derby.")) return DerbyEngine.read(rs, i, type); // no java.time in getObject
        if (type == java.sql.Types.OTHER && rs.getClass().getName().startsWith("org.postgresql.")) return PostgresCatalog.readOther(rs, i);
        if (hsqldb) {
            switch (type) {
                case java.sql.Types.DATE: {
                    java.sql.Date d = rs.getDate(i, (java.util.Calendar) UTC.clone());
                    return d == null ? null : java.time.LocalDate.ofEpochDay(Math.floorDiv(d.getTime(), 86_400_000L));
                }
                case java.sql.Types.TIMESTAMP: {
                    java.sql.Timestamp t = rs.getTimestamp(i, (java.util.Calendar) UTC.clone());
                    return t == null ? null : java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(t.getTime(), 1000L), t.getNanos(),
                            java.time.ZoneOffset.UTC);
                }
                case java.sql.Types.TIMESTAMP_WITH_TIMEZONE: {
                    // the stored instant, in the stored offset: HSQLDB's OffsetDateTime carries the offset to the
                    // second (Berlin's local mean time before 1893 is +00:53:28; the text form says +0:53), but
                    // counts dates before 1582 the Julian way, so its date and time are not taken
                    java.sql.Timestamp t = rs.getTimestamp(i, (java.util.Calendar) UTC.clone());
                    return t == null ? null
                            : java.time.OffsetDateTime.ofInstant(t.toInstant(), rs.getObject(i, java.time.OffsetDateTime.class).getOffset());
                }
                case java.sql.Types.BIT:
                    // BIT(n) as its bits, as triggers hand it over and setObject takes it back: getObject
                    // gives a Boolean, which says only whether some bit is set (B'1010' reads as true)
                    return rs.getBytes(i);
                default:
                    break;
            }
        }
        return switch (type) {
            case java.sql.Types.DATE -> rs.getObject(i, java.time.LocalDate.class);
            case java.sql.Types.TIME -> rs.getObject(i, java.time.LocalTime.class);
            case java.sql.Types.TIMESTAMP -> rs.getObject(i, java.time.LocalDateTime.class);
            case java.sql.Types.TIME_WITH_TIMEZONE -> rs.getObject(i, java.time.OffsetTime.class);
            case java.sql.Types.TIMESTAMP_WITH_TIMEZONE -> rs.getObject(i, java.time.OffsetDateTime.class);
            default -> detach(rs.getObject(i));
        };
    }
}
