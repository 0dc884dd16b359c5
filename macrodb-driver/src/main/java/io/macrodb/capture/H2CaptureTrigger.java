package io.macrodb.capture;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The H2 capture trigger's former class name, kept so that databases, snapshots and scripts written
 * before the trigger moved to {@code io.macrodb.engine} (2026-11-24) still open: H2 stores a
 * trigger's class name with the trigger. New triggers name {@link io.macrodb.engine.H2CaptureTrigger}.
 */
@Deprecated
public final class H2CaptureTrigger implements org.h2.api.Trigger {
    private final io.macrodb.engine.H2CaptureTrigger trigger = new io.macrodb.engine.H2CaptureTrigger();

    @Override public void init(Connection conn, String schemaName, String triggerName, String tableName,
                               boolean before, int type) throws SQLException {
        trigger.init(conn, schemaName, triggerName, tableName, before, type);
    }

    @Override public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
        trigger.fire(conn, oldRow, newRow);
    }
}
