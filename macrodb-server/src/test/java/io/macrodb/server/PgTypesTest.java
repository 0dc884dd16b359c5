package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.BigRange;
import net.jqwik.api.constraints.Scale;
import org.junit.jupiter.api.Test;

/** Type mapping details a client sees: PostgreSQL's spellings of floats and timestamps, numeric's binary format. */
class PgTypesTest {
    @Property(tries = 500)
    void numericBinaryRoundTrips(@ForAll @BigRange(min = "-1e30", max = "1e30") @Scale(6) BigDecimal v) {
        BigDecimal back = PgTypes.numericFromBinary(ByteBuffer.wrap(PgTypes.numericBinary(v)));
        assertEquals(v.setScale(Math.max(0, v.scale())), back);
    }

    @Test
    void numericBinaryMatchesPostgresLayout() {
        // 12345.678 is digits [1, 2345, 6780], weight 1, positive, dscale 3 (as numeric_send writes it)
        ByteBuffer b = ByteBuffer.wrap(PgTypes.numericBinary(new BigDecimal("12345.678")));
        assertEquals(3, b.getShort());
        assertEquals(1, b.getShort());
        assertEquals(0, b.getShort());
        assertEquals(3, b.getShort());
        assertEquals(1, b.getShort());
        assertEquals(2345, b.getShort());
        assertEquals(6780, b.getShort());
    }

    @Test
    void floatsAreSpelledAsPostgresSpellsThem() {
        assertEquals("1.5", PgTypes.floatText(1.5, false));
        assertEquals("10000000000", PgTypes.floatText(1e10, false));
        assertEquals("1e+20", PgTypes.floatText(1e20, false));
        assertEquals("1.25e-05", PgTypes.floatText(1.25e-5, false));
        assertEquals("-Infinity", PgTypes.floatText(Double.NEGATIVE_INFINITY, false));
        assertEquals("NaN", PgTypes.floatText(Double.NaN, false));
        assertEquals("0.1", PgTypes.floatText(0.1f, true));
    }

    @Test
    void timestampsInBothDirections() {
        LocalDateTime t = LocalDateTime.of(2024, 2, 29, 13, 45, 6, 120_000_000);
        assertEquals("2024-02-29 13:45:06.12", PgTypes.text(t, PgTypes.TIMESTAMP, ZoneOffset.UTC));
        assertEquals(t, PgTypes.decodeText("2024-02-29 13:45:06.12", PgTypes.TIMESTAMP));
        OffsetDateTime z = OffsetDateTime.of(t, ZoneOffset.ofHoursMinutes(5, 30));
        assertEquals("2024-02-29 13:45:06.12+05:30", PgTypes.text(z, PgTypes.TIMESTAMPTZ, ZoneOffset.ofHoursMinutes(5, 30)));
        assertEquals(z.toInstant(), ((OffsetDateTime) PgTypes.decodeText("2024-02-29 08:15:06.12+00", PgTypes.TIMESTAMPTZ)).toInstant());
        assertEquals(t, PgTypes.decodeParameter(PgTypes.encodeBinary(t, PgTypes.TIMESTAMP), true, PgTypes.TIMESTAMP, java.sql.Types.NULL, null));
    }

    /** Binary parameters as PostgreSQL's send functions write them (psycopg 3 sends booleans in binary) decode back. */
    @org.junit.jupiter.api.Test
    void binaryParametersOfEachTypeDecode() {
        Object[][] cases = {
            {true, PgTypes.BOOL}, {false, PgTypes.BOOL}, {(long) -7, PgTypes.INT2}, {(long) 123456, PgTypes.INT4},
            {9_000_000_000L, PgTypes.INT8}, {1.5f, PgTypes.FLOAT4}, {-2.25d, PgTypes.FLOAT8},
            {java.time.LocalDate.of(2024, 1, 2), PgTypes.DATE}, {java.util.UUID.fromString("12345678-1234-5678-1234-567812345678"), PgTypes.UUID_OID},
            {new BigDecimal("-12.50"), PgTypes.NUMERIC}};
        for (Object[] c : cases) {
            Object back = PgTypes.decodeParameter(PgTypes.encodeBinary(c[0], (Integer) c[1]), true, (Integer) c[1], java.sql.Types.NULL, null);
            Object want = c[0] instanceof Long l ? ((Integer) c[1] == PgTypes.INT2 ? (Object) l.shortValue() : (Integer) c[1] == PgTypes.INT4 ? (Object) l.intValue() : l) : c[0];
            assertEquals(want, back, "type " + c[1]);
        }
    }
}
