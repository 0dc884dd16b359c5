package io.macrodb.log;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.UUID;

/**
 * The binary form of the values a change carries (the durable log's, {@code io.macrodb.durable.RecordCodec}, and
 * an engine's snapshot script where its SQL text cannot state a value): a tag, then the value. Common JDBC value
 * types have their own tags; any other value is written with Java serialization if it is {@link Serializable}, and
 * refused otherwise (before the transaction commits, so nothing is lost).
 */
public final class ValueCodec {
    private ValueCodec() {}

    /** Writes a row: its length, then each value. */
    public static void writeRow(DataOutputStream out, Object[] row) throws IOException {
        out.writeInt(row.length);
        for (Object v : row) writeValue(out, v);
    }

    /** Reads a row {@link #writeRow} wrote. */
    public static Object[] readRow(DataInputStream in) throws IOException {
        Object[] row = new Object[in.readInt()];
        for (int i = 0; i < row.length; i++) row[i] = readValue(in);
        return row;
    }

    /** One row of values as text: Base64 of {@link #writeRow}. */
    public static String encodeValues(Object[] row) throws SQLException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writeRow(out, row);
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot encode values: " + e.getMessage(), "XX000", e);
        }
        return java.util.Base64.getEncoder().encodeToString(bytes.toByteArray());
    }

    /** The values {@link #encodeValues} wrote. */
    public static Object[] decodeValues(String text) throws IOException {
        byte[] bytes;
        try {
            bytes = java.util.Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IOException("not Base64: " + e.getMessage(), e);
        }
        return readRow(new DataInputStream(new ByteArrayInputStream(bytes)));
    }

    /** Long strings do not fit writeUTF's 64 KiB: values use a length-prefixed UTF-8 form. */
    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Writes one value: a tag, then its bytes. */
    public static void writeValue(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte('N');
        } else if (v instanceof Integer i) {
            out.writeByte('i');
            out.writeInt(i);
        } else if (v instanceof Long l) {
            out.writeByte('l');
            out.writeLong(l);
        } else if (v instanceof Short s) {
            out.writeByte('s');
            out.writeShort(s);
        } else if (v instanceof Byte b) {
            out.writeByte('b');
            out.writeByte(b);
        } else if (v instanceof Boolean b) {
            out.writeByte('z');
            out.writeBoolean(b);
        } else if (v instanceof Double d) {
            out.writeByte('d');
            out.writeDouble(d);
        } else if (v instanceof Float f) {
            out.writeByte('f');
            out.writeFloat(f);
        } else if (v instanceof String s) {
            out.writeByte('S');
            writeString(out, s);
        } else if (v instanceof BigDecimal d) {
            out.writeByte('D');
            writeString(out, d.toString());
        } else if (v instanceof BigInteger d) {
            out.writeByte('I');
            writeString(out, d.toString());
        } else if (v instanceof byte[] b) {
            out.writeByte('B');
            out.writeInt(b.length);
            out.write(b);
        } else if (v instanceof java.sql.Timestamp t) {
            out.writeByte('T');
            out.writeLong(t.getTime());
            out.writeInt(t.getNanos());
        } else if (v instanceof java.sql.Date d) {
            out.writeByte('a');
            writeString(out, d.toString());
        } else if (v instanceof java.sql.Time t) {
            out.writeByte('t');
            out.writeLong(t.getTime());
        } else if (v instanceof LocalDate d) {
            out.writeByte('1');
            writeString(out, d.toString());
        } else if (v instanceof LocalTime t) {
            out.writeByte('2');
            writeString(out, t.toString());
        } else if (v instanceof LocalDateTime t) {
            out.writeByte('3');
            writeString(out, t.toString());
        } else if (v instanceof OffsetDateTime t) {
            out.writeByte('4');
            writeString(out, t.toString());
        } else if (v instanceof OffsetTime t) {
            out.writeByte('5');
            writeString(out, t.toString());
        } else if (v instanceof UUID u) {
            out.writeByte('U');
            out.writeLong(u.getMostSignificantBits());
            out.writeLong(u.getLeastSignificantBits());
        } else if (v instanceof Object[] a) {
            out.writeByte('A');
            writeRow(out, a);
        } else if (v instanceof Serializable s) {
            out.writeByte('J');
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            try (ObjectOutputStream o = new ObjectOutputStream(b)) {
                o.writeObject(s);
            }
            out.writeInt(b.size());
            b.writeTo(out);
        } else {
            throw new IOException("a value of type " + v.getClass().getName() + " cannot be written to the log");
        }
    }

    /** Reads one value {@link #writeValue} wrote. */
    public static Object readValue(DataInputStream in) throws IOException {
        int tag = in.readUnsignedByte();
        switch (tag) {
            case 'N': return null;
            case 'i': return in.readInt();
            case 'l': return in.readLong();
            case 's': return in.readShort();
            case 'b': return in.readByte();
            case 'z': return in.readBoolean();
            case 'd': return in.readDouble();
            case 'f': return in.readFloat();
            case 'S': return readString(in);
            case 'D': return new BigDecimal(readString(in));
            case 'I': return new BigInteger(readString(in));
            case 'B': {
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                return b;
            }
            case 'T': {
                java.sql.Timestamp t = new java.sql.Timestamp(in.readLong());
                t.setNanos(in.readInt());
                return t;
            }
            case 'a': return java.sql.Date.valueOf(readString(in));
            case 't': return new java.sql.Time(in.readLong());
            case '1': return LocalDate.parse(readString(in));
            case '2': return LocalTime.parse(readString(in));
            case '3': return LocalDateTime.parse(readString(in));
            case '4': return OffsetDateTime.parse(readString(in));
            case '5': return OffsetTime.parse(readString(in));
            case 'U': return new UUID(in.readLong(), in.readLong());
            case 'A': return readRow(in);
            case 'J': {
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                try (ObjectInputStream o = new ObjectInputStream(new ByteArrayInputStream(b))) {
                    return o.readObject();
                } catch (ClassNotFoundException e) {
                    throw new IOException("a logged value's class is missing: " + e.getMessage(), e);
                }
            }
            default: throw new IOException("unknown value tag " + tag);
        }
    }
}
