package io.macrodb.server;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Type mapping between JDBC and PostgreSQL: which type OID a JDBC column reports, how a value is written in the
 * text and binary formats (what PostgreSQL's output and send functions write), and how a parameter in either
 * format becomes a Java value for {@code PreparedStatement.setObject}. Types without a mapping travel as text.
 */
public final class PgTypes {
    public static final int UNSPECIFIED = 0;
    public static final int BOOL = 16;
    public static final int BYTEA = 17;
    public static final int INT8 = 20;
    public static final int INT2 = 21;
    public static final int INT4 = 23;
    public static final int TEXT = 25;
    public static final int OID = 26;
    public static final int JSON = 114;
    public static final int FLOAT4 = 700;
    public static final int FLOAT8 = 701;
    public static final int BPCHAR = 1042;
    public static final int VARCHAR = 1043;
    public static final int DATE = 1082;
    public static final int TIME = 1083;
    public static final int TIMESTAMP = 1114;
    public static final int TIMESTAMPTZ = 1184;
    public static final int TIMETZ = 1266;
    public static final int NUMERIC = 1700;
    public static final int UUID_OID = 2950;

    private static final LocalDate PG_EPOCH = LocalDate.of(2000, 1, 1);
    private static final LocalDateTime PG_EPOCH_TS = PG_EPOCH.atStartOfDay();
    private static final DateTimeFormatter TIME_OUT = new DateTimeFormatterBuilder()
            .appendPattern("HH:mm:ss").appendFraction(ChronoField.MICRO_OF_SECOND, 0, 6, true).toFormatter(Locale.ROOT);
    private static final DateTimeFormatter DATE_OUT = DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT);
    private static final Pattern DATETIME_IN = Pattern.compile(
            "\\s*(\\d{4,}-\\d{1,2}-\\d{1,2})?[ T]?(\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\.\\d{1,9})?)?\\s*(Z|[+-]\\d{1,2}(?::?\\d{2}(?::?\\d{2})?)?)?\\s*");

    private PgTypes() { }

    /** The PostgreSQL type OID for a JDBC column (or parameter) type; the type name tells UUID and JSON apart. */
    public static int oidOf(int jdbcType, String typeName) {
        String n = typeName == null ? "" : typeName.toUpperCase(Locale.ROOT);
        if (n.equals("UUID")) return UUID_OID;
        if (n.equals("JSON")) return JSON;
        switch (jdbcType) {
            case Types.BOOLEAN: case Types.BIT: return BOOL;
            case Types.TINYINT: case Types.SMALLINT: return INT2;
            case Types.INTEGER: return INT4;
            case Types.BIGINT: return INT8;
            case Types.REAL: return FLOAT4;
            case Types.FLOAT: case Types.DOUBLE: return FLOAT8;
            case Types.NUMERIC: case Types.DECIMAL: return NUMERIC;
            case Types.CHAR: case Types.NCHAR: return BPCHAR;
            case Types.VARCHAR: case Types.NVARCHAR: return VARCHAR;
            case Types.LONGVARCHAR: case Types.LONGNVARCHAR: case Types.CLOB: case Types.NCLOB: return TEXT;
            case Types.BINARY: case Types.VARBINARY: case Types.LONGVARBINARY: case Types.BLOB: return BYTEA;
            case Types.DATE: return DATE;
            case Types.TIME: return TIME;
            case Types.TIME_WITH_TIMEZONE: return TIMETZ;
            case Types.TIMESTAMP: return TIMESTAMP;
            case Types.TIMESTAMP_WITH_TIMEZONE: return TIMESTAMPTZ;
            default: return TEXT;
        }
    }

    /** The typlen PostgreSQL reports in a RowDescription: the fixed size, or -1 for variable length. */
    public static int typeSize(int oid) {
        switch (oid) {
            case BOOL: return 1;
            case INT2: return 2;
            case INT4: case FLOAT4: case DATE: case OID: return 4;
            case INT8: case FLOAT8: case TIME: case TIMESTAMP: case TIMESTAMPTZ: return 8;
            case TIMETZ: return 12;
            case UUID_OID: return 16;
            default: return -1;
        }
    }

    /** Whether this server can write (and read) values of the type in the binary format; others are sent as text. */
    public static boolean hasBinary(int oid) {
        switch (oid) {
            case BOOL: case BYTEA: case INT2: case INT4: case INT8: case FLOAT4: case FLOAT8: case TEXT: case VARCHAR:
            case BPCHAR: case DATE: case TIME: case TIMESTAMP: case TIMESTAMPTZ: case NUMERIC: case UUID_OID: case JSON:
                return true;
            default: return false;
        }
    }

    /** Reads column {@code col} of the current row and encodes it; null for SQL NULL. */
    public static byte[] encode(ResultSet rs, int col, int oid, boolean binary, ZoneId zone) throws SQLException {
        Object v;
        switch (oid) {
            case DATE: v = rs.getObject(col, LocalDate.class); break;
            case TIME: v = rs.getObject(col, LocalTime.class); break;
            case TIMESTAMP: v = rs.getObject(col, LocalDateTime.class); break;
            case TIMESTAMPTZ: v = rs.getObject(col, OffsetDateTime.class); break;
            case BYTEA: v = rs.getBytes(col); break;
            case BOOL: { boolean b = rs.getBoolean(col); v = rs.wasNull() ? null : b; break; }
            case INT2: case INT4: case INT8: { long l = rs.getLong(col); v = rs.wasNull() ? null : l; break; }
            case FLOAT4: { float f = rs.getFloat(col); v = rs.wasNull() ? null : f; break; }
            case FLOAT8: { double d = rs.getDouble(col); v = rs.wasNull() ? null : d; break; }
            case NUMERIC: v = rs.getBigDecimal(col); break;
            case UUID_OID: { Object o = rs.getObject(col); v = o == null ? null : o instanceof UUID u ? u : UUID.fromString(o.toString()); break; }
            default: v = rs.getString(col);
        }
        if (v == null) return null;
        return binary && hasBinary(oid) ? encodeBinary(v, oid) : text(v, oid, zone).getBytes(StandardCharsets.UTF_8);
    }

    /** The text format of a value of type {@code oid}, as PostgreSQL's output function writes it. */
    public static String text(Object v, int oid, ZoneId zone) {
        switch (oid) {
            case BOOL: return ((Boolean) v) ? "t" : "f";
            case BYTEA: return "\\x" + HexFormat.of().formatHex((byte[]) v);
            case FLOAT4: return floatText(((Float) v).doubleValue(), true);
            case FLOAT8: return floatText((Double) v, false);
            case NUMERIC: return ((BigDecimal) v).toPlainString();
            case DATE: return dateText((LocalDate) v);
            case TIME: return TIME_OUT.format((LocalTime) v);
            case TIMESTAMP: { LocalDateTime t = (LocalDateTime) v; return dateText(t.toLocalDate()) + " " + TIME_OUT.format(t.toLocalTime()); }
            case TIMESTAMPTZ: {
                OffsetDateTime t = ((OffsetDateTime) v).atZoneSameInstant(zone).toOffsetDateTime();
                return dateText(t.toLocalDate()) + " " + TIME_OUT.format(t.toLocalTime()) + offsetText(t.getOffset());
            }
            default: return v.toString();
        }
    }

    private static String dateText(LocalDate d) {
        if (d.getYear() <= 0) return DATE_OUT.format(d.withYear(1 - d.getYear())) + " BC";
        return DATE_OUT.format(d);
    }

    private static String offsetText(ZoneOffset o) {
        int s = o.getTotalSeconds();
        char sign = s < 0 ? '-' : '+';
        s = Math.abs(s);
        String r = String.format(Locale.ROOT, "%c%02d", sign, s / 3600);
        if (s % 3600 != 0) r += String.format(Locale.ROOT, ":%02d", (s % 3600) / 60);
        if (s % 60 != 0) r += String.format(Locale.ROOT, ":%02d", s % 60);
        return r;
    }

    /** Shortest text that reads back to the same value, in PostgreSQL's spelling (Infinity, NaN, 1e+20). */
    static String floatText(double d, boolean single) {
        if (Double.isNaN(d)) return "NaN";
        if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        String s = single ? Float.toString((float) d) : Double.toString(d);
        BigDecimal b = new BigDecimal(s);
        double a = Math.abs(d);
        if (a >= 1e-4 && a < 1e15) return b.stripTrailingZeros().toPlainString();
        String m = b.unscaledValue().abs().toString().replaceAll("0+$", "");
        if (m.isEmpty()) m = "0";
        int exp = b.precision() - b.scale() - 1;
        String mant = m.length() > 1 ? m.charAt(0) + "." + m.substring(1) : m;
        return (d < 0 ? "-" : "") + mant + "e" + (exp < 0 ? "-" : "+") + String.format(Locale.ROOT, "%02d", Math.abs(exp));
    }

    /** The binary format of a value of type {@code oid}, as PostgreSQL's send function writes it. */
    public static byte[] encodeBinary(Object v, int oid) {
        switch (oid) {
            case BOOL: return new byte[] {(byte) (((Boolean) v) ? 1 : 0)};
            case BYTEA: return (byte[]) v;
            case INT2: return ByteBuffer.allocate(2).putShort(((Long) v).shortValue()).array();
            case INT4: return ByteBuffer.allocate(4).putInt(((Long) v).intValue()).array();
            case INT8: return ByteBuffer.allocate(8).putLong((Long) v).array();
            case FLOAT4: return ByteBuffer.allocate(4).putFloat((Float) v).array();
            case FLOAT8: return ByteBuffer.allocate(8).putDouble((Double) v).array();
            case DATE: return ByteBuffer.allocate(4).putInt((int) ChronoUnit.DAYS.between(PG_EPOCH, (LocalDate) v)).array();
            case TIME: return ByteBuffer.allocate(8).putLong(((LocalTime) v).toNanoOfDay() / 1000).array();
            case TIMESTAMP: return ByteBuffer.allocate(8).putLong(ChronoUnit.MICROS.between(PG_EPOCH_TS, (LocalDateTime) v)).array();
            case TIMESTAMPTZ: {
                LocalDateTime utc = ((OffsetDateTime) v).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
                return ByteBuffer.allocate(8).putLong(ChronoUnit.MICROS.between(PG_EPOCH_TS, utc)).array();
            }
            case UUID_OID: {
                UUID u = (UUID) v;
                return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
            }
            case NUMERIC: return numericBinary((BigDecimal) v);
            default: return v.toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** PostgreSQL's numeric send format: base-10000 digits, weight, sign, display scale. */
    static byte[] numericBinary(BigDecimal v) {
        int dscale = Math.max(0, v.scale());
        BigDecimal abs = v.abs().setScale(dscale);
        String intPart = abs.toBigInteger().toString();
        String frac = dscale == 0 ? "" : abs.toPlainString().substring(abs.toPlainString().indexOf('.') + 1);
        int padInt = (4 - intPart.length() % 4) % 4;
        String ip = "0".repeat(padInt) + intPart;
        String fp = frac + "0".repeat((4 - frac.length() % 4) % 4);
        List<Short> digits = new ArrayList<>();
        for (int i = 0; i < ip.length(); i += 4) digits.add(Short.parseShort(ip.substring(i, i + 4)));
        int weight = ip.length() / 4 - 1;
        for (int i = 0; i < fp.length(); i += 4) digits.add(Short.parseShort(fp.substring(i, i + 4)));
        while (!digits.isEmpty() && digits.get(0) == 0) { digits.remove(0); weight--; }
        while (!digits.isEmpty() && digits.get(digits.size() - 1) == 0) digits.remove(digits.size() - 1);
        if (digits.isEmpty()) weight = 0;
        ByteBuffer b = ByteBuffer.allocate(8 + 2 * digits.size());
        b.putShort((short) digits.size()).putShort((short) weight).putShort((short) (v.signum() < 0 ? 0x4000 : 0)).putShort((short) dscale);
        for (short d : digits) b.putShort(d);
        return b.array();
    }

    static BigDecimal numericFromBinary(ByteBuffer b) {
        int n = b.getShort();
        int weight = b.getShort();
        int sign = b.getShort() & 0xFFFF;
        int dscale = b.getShort();
        if (sign == 0xC000) throw new IllegalArgumentException("NaN is not a supported numeric value");
        BigDecimal r = BigDecimal.ZERO;
        for (int i = 0; i < n; i++) {
            r = r.add(BigDecimal.valueOf(b.getShort()).scaleByPowerOfTen(4 * (weight - i)));
        }
        r = r.setScale(Math.max(0, dscale), java.math.RoundingMode.UNNECESSARY);
        return sign == 0x4000 ? r.negate() : r;
    }

    /**
     * A parameter value as a Java object for {@code setObject}: decoded from its format by its type OID, or by
     * the JDBC type the engine infers ({@code jdbcType}, used when the client left the OID unspecified).
     *
     * @throws IllegalArgumentException (reported as 22P02/08P01) when the bytes are not a value of the type
     */
    public static Object decodeParameter(byte[] v, boolean binary, int oid, int jdbcType, String jdbcTypeName) {
        if (v == null) return null;
        if (oid == UNSPECIFIED || oid == TEXT || oid == VARCHAR) {
            int inferred = jdbcType == Types.NULL ? UNSPECIFIED : oidOf(jdbcType, jdbcTypeName);
            if (oid != UNSPECIFIED && inferred != UNSPECIFIED && !binary) oid = inferred == BPCHAR || inferred == VARCHAR ? oid : inferred;
            else if (oid == UNSPECIFIED) oid = inferred;
        }
        if (binary) {
            ByteBuffer b = ByteBuffer.wrap(v);
            Object r;
            switch (oid) {
                case BOOL: r = b.get() != 0; break;
                case BYTEA: return v;
                case INT2: r = b.getShort(); break;
                case INT4: r = b.getInt(); break;
                case INT8: r = b.getLong(); break;
                case FLOAT4: r = b.getFloat(); break;
                case FLOAT8: r = b.getDouble(); break;
                case DATE: r = PG_EPOCH.plusDays(b.getInt()); break;
                case TIME: r = LocalTime.ofNanoOfDay(b.getLong() * 1000); break;
                case TIMESTAMP: r = PG_EPOCH_TS.plus(b.getLong(), ChronoUnit.MICROS); break;
                case TIMESTAMPTZ: r = PG_EPOCH_TS.plus(b.getLong(), ChronoUnit.MICROS).atOffset(ZoneOffset.UTC); break;
                case UUID_OID: r = new UUID(b.getLong(), b.getLong()); break;
                case NUMERIC: r = numericFromBinary(b); break;
                default: return new String(v, StandardCharsets.UTF_8);
            }
            if (b.hasRemaining()) throw new IllegalArgumentException("incorrect binary data format in bind parameter");
            return r;
        }
        String s = new String(v, StandardCharsets.UTF_8);
        return decodeText(s, oid);
    }

    /** A value in PostgreSQL's text format as a Java object of the type's natural class. */
    public static Object decodeText(String s, int oid) {
        String t = s.trim();
        switch (oid) {
            case BOOL: {
                String l = t.toLowerCase(Locale.ROOT);
                if (l.equals("t") || l.equals("true") || l.equals("on") || l.equals("1") || l.equals("y") || l.equals("yes")) return true;
                if (l.equals("f") || l.equals("false") || l.equals("off") || l.equals("0") || l.equals("n") || l.equals("no")) return false;
                throw new IllegalArgumentException("invalid input syntax for type boolean: \"" + s + "\"");
            }
            case BYTEA:
                if (t.startsWith("\\x")) return HexFormat.of().parseHex(t.substring(2));
                return s.getBytes(StandardCharsets.UTF_8);
            case INT2: return Short.parseShort(t);
            case INT4: return Integer.parseInt(t);
            case INT8: return Long.parseLong(t);
            case FLOAT4: return Float.parseFloat(t);
            case FLOAT8: return Double.parseDouble(t);
            case NUMERIC: return new BigDecimal(t);
            case UUID_OID: return UUID.fromString(t);
            case DATE: return dateTime(t, true).toLocalDate();
            case TIME: return LocalTime.parse(t);
            case TIMESTAMP: return dateTime(t, false);
            case TIMESTAMPTZ: {
                Matcher m = match(t);
                LocalDateTime ldt = dateTime(t, false);
                ZoneOffset off = m.group(3) == null ? ZoneOffset.UTC : offset(m.group(3));
                return ldt.atOffset(off);
            }
            default: return s;
        }
    }

    private static Matcher match(String t) {
        Matcher m = DATETIME_IN.matcher(t);
        if (!m.matches() || m.group(1) == null) throw new IllegalArgumentException("invalid input syntax for type timestamp: \"" + t + "\"");
        return m;
    }

    private static LocalDateTime dateTime(String t, boolean dateOnly) {
        Matcher m = match(t);
        String[] d = m.group(1).split("-");
        LocalDate date = LocalDate.of(Integer.parseInt(d[0]), Integer.parseInt(d[1]), Integer.parseInt(d[2]));
        LocalTime time = m.group(2) == null || dateOnly ? LocalTime.MIDNIGHT : LocalTime.parse(m.group(2).length() == 5 ? m.group(2) + ":00"
                : m.group(2).indexOf(':') == 1 ? "0" + m.group(2) : m.group(2));
        return date.atTime(time);
    }

    private static ZoneOffset offset(String o) {
        if (o.equals("Z")) return ZoneOffset.UTC;
        int sign = o.charAt(0) == '-' ? -1 : 1;
        String digits = o.substring(1).replace(":", "");
        int h = Integer.parseInt(digits.substring(0, Math.min(2, digits.length())));
        int mi = digits.length() >= 4 ? Integer.parseInt(digits.substring(2, 4)) : 0;
        int se = digits.length() >= 6 ? Integer.parseInt(digits.substring(4, 6)) : 0;
        return ZoneOffset.ofHoursMinutesSeconds(sign * h, sign * mi, sign * se);
    }

}
