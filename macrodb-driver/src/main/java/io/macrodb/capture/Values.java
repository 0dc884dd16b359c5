package io.macrodb.capture;

import java.sql.Blob;
import java.sql.Clob;
import java.sql.SQLException;
import java.sql.SQLXML;

/** Turns engine-owned values (LOB handles) into plain values that outlive their session. */
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
}
