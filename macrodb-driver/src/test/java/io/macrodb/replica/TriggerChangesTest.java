package io.macrodb.replica;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which schema changes a row-propagation secondary leaves out because they change only the application's triggers,
 * which it does not carry ({@link ReplicaSet#changesOnlyATrigger}): anything more, and it must run them.
 */
class TriggerChangesTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "CREATE TRIGGER a AFTER INSERT ON t FOR EACH ROW CALL \"x.Y\"",
            "create or replace trigger a after insert on t for each row execute function f()",
            "CREATE CONSTRAINT TRIGGER a AFTER INSERT ON t DEFERRABLE FOR EACH ROW EXECUTE FUNCTION f()",
            "-- the audit\nCREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; END",
            "DROP TRIGGER a",
            "DROP TRIGGER IF EXISTS s.a",
            "DROP TRIGGER a ON t CASCADE",
            "ALTER TRIGGER a ON t RENAME TO b",
            "ALTER TABLE t DISABLE TRIGGER a",
            "ALTER TABLE IF EXISTS ONLY \"My Table\" ENABLE ALWAYS TRIGGER a;",
            "alter table s.t enable replica trigger all"})
    void aChangeOfTriggersAloneIsLeftOut(String sql) {
        assertTrue(ReplicaSet.changesOnlyATrigger(sql), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "ALTER TABLE t DISABLE TRIGGER a, ADD COLUMN c INT",
            "ALTER TABLE t ADD COLUMN c INT",
            "CREATE TABLE trigger_log (id INT)",
            "DROP TABLE t",
            "CREATE INDEX trigger_idx ON t (a)",
            "ALTER TABLE t RENAME COLUMN trigger TO fired"})
    void anyOtherChangeIsRun(String sql) {
        assertFalse(ReplicaSet.changesOnlyATrigger(sql), sql);
    }
}
