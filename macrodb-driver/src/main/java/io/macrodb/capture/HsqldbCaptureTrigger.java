package io.macrodb.capture;

/**
 * The HSQLDB capture trigger's former class name, kept so that databases, snapshots and scripts
 * written before the trigger moved to {@code io.macrodb.engine} (2026-11-24) still open: HSQLDB
 * stores a trigger's class name with the trigger. New triggers name
 * {@link io.macrodb.engine.HsqldbCaptureTrigger}.
 */
@Deprecated
public final class HsqldbCaptureTrigger implements org.hsqldb.trigger.Trigger {
    private final io.macrodb.engine.HsqldbCaptureTrigger trigger = new io.macrodb.engine.HsqldbCaptureTrigger();

    @Override public void fire(int type, String trigName, String tabName, Object[] oldRow, Object[] newRow) {
        trigger.fire(type, trigName, tabName, oldRow, newRow);
    }
}
