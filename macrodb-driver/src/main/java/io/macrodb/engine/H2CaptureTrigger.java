package io.macrodb.engine;

import java.sql.Connection;
import java.sql.SQLException;

/** The row trigger MacroDB installs on every table of an H2 replica. Public for H2 to instantiate. */
public final class H2CaptureTrigger implements org.h2.api.Trigger {
    private String schema;
    private String table;

    @Override public void init(Connection conn, String schemaName, String triggerName, String tableName,
                               boolean before, int type) {
        this.schema = schemaName;
        this.table = tableName;
    }

    @Override public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
        CaptureContext.fire(schema, table, oldRow, newRow);
    }
}
