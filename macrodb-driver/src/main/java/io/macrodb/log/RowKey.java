package io.macrodb.log;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Objects;

/**
 * A primary key's values with value equality: arrays by content, exact numbers by numeric value (a
 * trigger and a result set may hand the same key back as different Number classes: {@code 10},
 * {@code 10L}, {@code 10.0} as a {@code BigDecimal} and {@code 1E+1} are one key), and a TIMESTAMP
 * WITH TIME ZONE by instant (HSQLDB's JDBC driver hands it back in the session's offset; the engine
 * compares such values by instant). Capture, group compaction and writesets all know a row by it.
 *
 * <p>It sits in the hash maps of every commit's capture and every secondary's group compaction, a
 * few lookups per changed row: so {@link #hashCode} is computed once, and neither it nor
 * {@link #equals} allocates for the common keys (integers, strings).
 */
public final class RowKey {
    private final Object[] values;
    /**
     * The hash once computed, 0 before (a key whose hash is 0 computes it each time). One field, as
     * {@link String} caches its hash: a thread that reads it racily sees 0 or the hash, both right.
     */
    private int hash;

    /** @param values the key's values; not copied, and not to be changed once the key is in use */
    public RowKey(Object[] values) {
        this.values = Objects.requireNonNull(values, "values");
    }

    /** The key of {@code row}, an image with one value per column of {@code shape}. */
    public static RowKey of(TableShape shape, Object[] row) {
        return new RowKey(shape.keyOf(row));
    }

    public Object[] values() { return values; }

    /** Whether two values are one key value as {@link RowKey} compares them. */
    public static boolean same(Object a, Object b) {
        if (a == b) return true;
        if (a == null || b == null) return false;
        if (isSmallInteger(a) && isSmallInteger(b)) return ((Number) a).longValue() == ((Number) b).longValue();
        if (isExactNumber(a) && isExactNumber(b)) return decimal(a).compareTo(decimal(b)) == 0;
        if (a instanceof OffsetDateTime t) a = t.toInstant();
        if (b instanceof OffsetDateTime t) b = t.toInstant();
        return Objects.deepEquals(a, b);
    }

    /** A hash of one value consistent with {@link #same}. */
    public static int hash(Object v) {
        if (v == null) return 0;
        if (isSmallInteger(v)) return Long.hashCode(((Number) v).longValue());
        if (v instanceof BigDecimal d) return decimalHash(d);
        if (v instanceof BigInteger b) return integerHash(b);
        if (v instanceof OffsetDateTime t) return t.toInstant().hashCode();
        if (v.getClass().isArray()) return Arrays.deepHashCode(new Object[] {v});
        return v.hashCode();
    }

    private static boolean isSmallInteger(Object v) {
        return v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte;
    }

    private static boolean isExactNumber(Object v) {
        return isSmallInteger(v) || v instanceof BigDecimal || v instanceof BigInteger;
    }

    private static BigDecimal decimal(Object v) {
        if (v instanceof BigDecimal d) return d;
        if (v instanceof BigInteger b) return new BigDecimal(b);
        return BigDecimal.valueOf(((Number) v).longValue());
    }

    /** An integral value hashes as the long it fits in (as {@link #isSmallInteger} values do), else as its BigInteger. */
    private static int integerHash(BigInteger b) {
        return b.bitLength() < 64 ? Long.hashCode(b.longValue()) : b.hashCode();
    }

    /**
     * Equal values hash alike whatever their scale: an integral value as {@link #integerHash}, any other by its form
     * without trailing zeros, which is one form per value.
     */
    private static int decimalHash(BigDecimal d) {
        if (d.signum() == 0) return 0;
        BigDecimal s = d.scale() > 0 ? d.stripTrailingZeros() : d;
        if (s.scale() > 0) return s.hashCode(); // not integral
        // integral: at most 18 digits always fits in a long
        if (s.precision() - s.scale() <= 18) return Long.hashCode(s.longValue());
        return integerHash(s.toBigInteger());
    }

    @Override public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof RowKey k) || k.values.length != values.length) return false;
        int h = hash, kh = k.hash;
        if (h != 0 && kh != 0 && h != kh) return false;
        for (int i = 0; i < values.length; i++) {
            if (!same(values[i], k.values[i])) return false;
        }
        return true;
    }

    @Override public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = 1;
            for (Object v : values) h = 31 * h + hash(v);
            hash = h;
        }
        return h;
    }

    @Override public String toString() { return Arrays.deepToString(values); }
}
