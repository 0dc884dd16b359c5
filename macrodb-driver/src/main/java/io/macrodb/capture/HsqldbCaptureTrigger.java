package io.macrodb.capture;

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
            CaptureContext.fire(s, tabName, oldRow, newRow);
        } catch (SQLException e) {
            // HSQLDB's trigger interface has no checked exceptions; it turns a runtime exception into
            // a failed statement.
            throw new CaptureRefusal(e);
        }
    }
}
