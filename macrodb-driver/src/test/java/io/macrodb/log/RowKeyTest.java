package io.macrodb.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * {@link RowKey}'s equality is the engine's: a key value handed over as an Integer by a trigger and as a
 * BigDecimal by a result set is one row. Every representation of one number must be equal and hash alike, and
 * different numbers must differ. (jqwik prints the seed of a failing run.)
 */
class RowKeyTest {

    /** Every representation of the integer {@code n} the engines hand over, scaled decimals included. */
    private static List<Object> representations(BigInteger n) {
        List<Object> out = new ArrayList<>();
        out.add(n);
        BigDecimal d = new BigDecimal(n);
        out.add(d);
        out.add(d.setScale(2));
        out.add(d.stripTrailingZeros()); // 10 -> 1E+1
        if (n.bitLength() < 64) out.add(n.longValue());
        if (n.bitLength() < 32) out.add(n.intValue());
        if (n.bitLength() < 16) out.add(n.shortValue());
        if (n.bitLength() < 8) out.add(n.byteValue());
        return out;
    }

    @Provide
    Arbitrary<BigInteger> integers() {
        return Arbitraries.oneOf(
                Arbitraries.longs().between(-1000, 1000).map(BigInteger::valueOf),
                Arbitraries.longs().map(BigInteger::valueOf),
                Arbitraries.bigIntegers().between(BigInteger.TEN.pow(30).negate(), BigInteger.TEN.pow(30)),
                Arbitraries.of(0L, 10L, 100L, 1_000_000L, Long.MAX_VALUE, Long.MIN_VALUE, 999_999_999_999_999_999L,
                        1_000_000_000_000_000_000L).map(BigInteger::valueOf));
    }

    @Property(tries = 400)
    void everyRepresentationOfAnIntegerIsOneKey(@ForAll("integers") BigInteger n) {
        List<Object> reps = representations(n);
        for (Object a : reps) {
            for (Object b : reps) {
                RowKey ka = new RowKey(new Object[] {a, "x"});
                RowKey kb = new RowKey(new Object[] {b, "x"});
                assertEquals(ka, kb, a + " (" + a.getClass().getSimpleName() + ") and " + b + " (" + b.getClass().getSimpleName() + ")");
                assertEquals(ka.hashCode(), kb.hashCode(), a + " and " + b + " must hash alike");
            }
        }
    }

    @Property(tries = 400)
    void differentIntegersAreDifferentKeys(@ForAll("integers") BigInteger n, @ForAll @IntRange(min = 1, max = 1_000_000) int delta) {
        List<Object> here = representations(n);
        List<Object> there = representations(n.add(BigInteger.valueOf(delta)));
        for (Object a : here) {
            for (Object b : there) {
                assertNotEquals(new RowKey(new Object[] {a}), new RowKey(new Object[] {b}), a + " and " + b);
            }
        }
    }

    @Property(tries = 300)
    void aFractionIsOneKeyWhateverItsTrailingZerosAndNoIntegersKey(@ForAll("integers") BigInteger unscaled,
                                                                    @ForAll @IntRange(min = 1, max = 12) int scale) {
        BigDecimal d = new BigDecimal(unscaled, scale);
        RowKey plain = new RowKey(new Object[] {d});
        RowKey padded = new RowKey(new Object[] {d.setScale(scale + 3)});
        assertEquals(plain, padded);
        assertEquals(plain.hashCode(), padded.hashCode());
        if (d.stripTrailingZeros().scale() > 0) { // not integral: no integer representation is the same key
            BigInteger floor = d.setScale(0, java.math.RoundingMode.FLOOR).toBigIntegerExact();
            for (Object i : representations(floor)) assertNotEquals(plain, new RowKey(new Object[] {i}), d + " and " + i);
        }
    }

    @Test
    void timestampsWithTimeZoneAreOneKeyPerInstant() {
        OffsetDateTime utc = OffsetDateTime.of(2026, 11, 27, 12, 0, 0, 0, ZoneOffset.UTC);
        OffsetDateTime berlin = utc.withOffsetSameInstant(ZoneOffset.ofHours(1));
        OffsetDateTime later = utc.plusNanos(1);
        assertEquals(new RowKey(new Object[] {utc}), new RowKey(new Object[] {berlin}));
        assertEquals(new RowKey(new Object[] {utc}).hashCode(), new RowKey(new Object[] {berlin}).hashCode());
        assertEquals(new RowKey(new Object[] {utc}), new RowKey(new Object[] {Instant.parse("2026-11-27T12:00:00Z")}));
        assertNotEquals(new RowKey(new Object[] {utc}), new RowKey(new Object[] {later}));
    }

    @Test
    void arraysByContentAndOtherTypesAsThemselves() {
        assertEquals(new RowKey(new Object[] {new byte[] {1, 2}}), new RowKey(new Object[] {new byte[] {1, 2}}));
        assertEquals(new RowKey(new Object[] {new byte[] {1, 2}}).hashCode(), new RowKey(new Object[] {new byte[] {1, 2}}).hashCode());
        assertNotEquals(new RowKey(new Object[] {new byte[] {1, 2}}), new RowKey(new Object[] {new byte[] {1, 3}}));
        assertNotEquals(new RowKey(new Object[] {"10"}), new RowKey(new Object[] {10}), "a string is not a number");
        assertNotEquals(new RowKey(new Object[] {10.0}), new RowKey(new Object[] {10}), "an approximate number is not an exact one");
        assertEquals(new RowKey(new Object[] {null, 1}), new RowKey(new Object[] {null, 1L}));
        assertNotEquals(new RowKey(new Object[] {null}), new RowKey(new Object[] {0}));
        assertNotEquals(new RowKey(new Object[] {1}), new RowKey(new Object[] {1, 1}));
    }

    @Test
    void aMapFindsARowByAnyRepresentationOfItsKey() {
        Map<RowKey, String> rows = new HashMap<>();
        rows.put(new RowKey(new Object[] {3, 10L, "a"}), "row");
        assertEquals("row", rows.get(new RowKey(new Object[] {new BigDecimal("3.00"), new BigDecimal("1E+1"), "a"})));
        assertEquals("row", rows.get(new RowKey(new Object[] {BigInteger.valueOf(3), (short) 10, "a"})));
        assertTrue(rows.get(new RowKey(new Object[] {3, 11, "a"})) == null);
    }
}
