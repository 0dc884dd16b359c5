package io.macrodb.log;

import java.util.Arrays;
import java.util.Objects;

/**
 * A primary key's values with value equality: arrays by content, numbers by numeric value (a
 * trigger and a result set may hand the same key back as different Number classes), and a TIMESTAMP
 * WITH TIME ZONE by instant (HSQLDB's JDBC driver hands it back in the session's offset; the engine
 * compares such values by instant). Capture, group compaction and writesets all know a row by it.
 */
public record RowKey(Object[] values) {

    /** The key of {@code row}, an image with one value per column of {@code shape}. */
    public static RowKey of(TableShape shape, Object[] row) {
        return new RowKey(shape.keyOf(row));
    }

    /** The value a key column compares by. */
    public static Object canonical(Object v) {
        if (v instanceof java.math.BigDecimal d) return d.signum() == 0 ? java.math.BigDecimal.ZERO : d.stripTrailingZeros();
        if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            return java.math.BigDecimal.valueOf(((Number) v).longValue());
        }
        if (v instanceof java.math.BigInteger b) return new java.math.BigDecimal(b);
        if (v instanceof java.time.OffsetDateTime t) return t.toInstant();
        return v;
    }

    /** A hash of one value consistent with {@link #canonical} equality. */
    public static int hash(Object v) {
        return Arrays.deepHashCode(new Object[] {canonical(v)});
    }

    @Override public boolean equals(Object o) {
        if (!(o instanceof RowKey k) || k.values.length != values.length) return false;
        for (int i = 0; i < values.length; i++) {
            if (!Objects.deepEquals(canonical(values[i]), canonical(k.values[i]))) return false;
        }
        return true;
    }

    @Override public int hashCode() {
        int h = 1;
        for (Object v : values) h = 31 * h + hash(v);
        return h;
    }

    @Override public String toString() { return Arrays.deepToString(values); }
}
