package io.macrodb.engine;

import java.sql.SQLException;

/**
 * The row trigger MacroDB installs on every table of an HSQLDB replica (three per table: HSQLDB names
 * one event per trigger). HSQLDB passes the table but not its schema, so the schema travels in the
 * trigger's name: {@code MACRODB_CAPTURE:<event>:<length of schema>:<schema><table>}.
 */
public final class HsqldbCaptureTrigger implements org.hsqldb.trigger.Trigger {
    private volatile String schema;

    @Override public void fire(int type, String trigName, String tabName, Object[] oldRow, Object[] newRow) {
        String s = schema;
        if (s == null) {
            String[] parts = trigName.split(":", 4);
            int len = Integer.parseInt(parts[2]);
            s = parts[3].substring(0, len);
            schema = s;
        }
        try {
            CaptureContext.fire(s, tabName, portable(oldRow), portable(newRow));
        } catch (SQLException e) {
            // HSQLDB's trigger interface has no checked exceptions; it turns a runtime exception into
            // a failed statement.
            throw new CaptureRefusal(e);
        }
    }

    /**
     * The row with HSQLDB's internal date, time and binary objects replaced by values that mean the
     * same outside the engine (the trigger's array is the engine's own: it is copied, not changed).
     * Anything else (intervals, LOB handles, arrays) is left as it is, and MacroDB reads such a row
     * back through JDBC instead.
     */
    static Object[] portable(Object[] row) {
        if (row == null) return null;
        Object[] out = row;
        for (int i = 0; i < row.length; i++) {
            Object v = row[i];
            Object w;
            if (v instanceof org.hsqldb.types.TimestampData t) {
                w = new EngineTemporal(t.getSeconds(), t.getNanos(), t.getZone(), false);
            } else if (v instanceof org.hsqldb.types.TimeData t) {
                w = new EngineTemporal(t.getSeconds(), t.getNanos(), t.getZone(), true);
            } else if (v instanceof org.hsqldb.types.BinaryData b) { // BINARY, VARBINARY (a BLOB is a BlobDataID)
                w = b.getBytes();
            } else {
                continue;
            }
            if (out == row) out = row.clone();
            out[i] = w;
        }
        return out;
    }
}
