package io.macrodb.engine;

import io.macrodb.replica.ReplicaState;
import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Event triggers on PostgreSQL: the application's, and MacroDB's guard against schema changes inside other statements.
 * The application's event triggers: MacroDB ships a schema change as its statement, and a secondary runs
 * it as a replica, where an event trigger does not fire: what one wrote on the primary was there only. Before
 * 2026-11-28 such rows were lost on every secondary, with either capture, and so were the rows an event trigger wrote
 * for MacroDB's own capture statements (a function and a trigger per table, made afresh after every schema change);
 * and a copy left event triggers out, so a promoted secondary enforced none of them.
 */
class PostgresEventTriggerTest {

    private static final String EVENT_TRIGGERS = "SELECT evtname, evtevent, evtenabled, coalesce(array_to_string(evttags, ','), '')"
            + " FROM pg_event_trigger WHERE evtname NOT LIKE 'macrodb\\_%' ORDER BY evtname";

    /**
     * A copy carries the event triggers, disabled where they are. A schema change an event trigger wrote rows for (or a
     * TRUNCATE a trigger wrote rows for) is refused with {@code 0AM00} and rolled back, in autocommit and in a
     * transaction, which goes on; once that event trigger is disabled the change runs. An event trigger that fires for
     * MacroDB's own capture statements writes nothing for them. One that forbids a drop forbids it through MacroDB, and
     * one enabled always is refused, as it would fire on the secondaries. Every replica ends with the same rows, and a
     * set opened again keeps its secondaries.
     */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"triggers", "decoding"})
    void eventTriggersAreCopiedAndASchemaChangeOneWritesRowsForIsRefused(String capture) throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=" + capture);
        pg.onPrimary(url,
                "CREATE TABLE ddl_log (n int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, tag text)",
                "CREATE TABLE keep (k int PRIMARY KEY)",
                "CREATE FUNCTION log_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ddl_log (tag) VALUES (tg_tag); END $$",
                "CREATE FUNCTION no_drop() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN IF EXISTS (SELECT 1 FROM"
                        + " pg_event_trigger_dropped_objects() WHERE object_name = 'keep') THEN RAISE EXCEPTION 'keep stays'; END IF; END $$",
                "CREATE FUNCTION log_truncate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ddl_log (tag) VALUES ('TRUNCATE');"
                        + " RETURN NULL; END $$",
                "CREATE TRIGGER log_truncate AFTER TRUNCATE ON keep FOR EACH STATEMENT EXECUTE FUNCTION log_truncate()",
                "CREATE EVENT TRIGGER log_ddl ON ddl_command_end WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION log_ddl()",
                // the tags of MacroDB's own capture statements
                "CREATE EVENT TRIGGER log_capture ON ddl_command_end WHEN TAG IN ('CREATE FUNCTION', 'CREATE TRIGGER', 'ALTER TABLE')"
                        + " EXECUTE FUNCTION log_ddl()",
                "CREATE EVENT TRIGGER no_drop ON sql_drop EXECUTE FUNCTION no_drop()",
                "CREATE EVENT TRIGGER quiet ON ddl_command_start WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION log_ddl()",
                "ALTER EVENT TRIGGER quiet DISABLE");
        List<String> copied = List.of("log_capture|ddl_command_end|O|CREATE FUNCTION,CREATE TRIGGER,ALTER TABLE",
                "log_ddl|ddl_command_end|O|CREATE TABLE", "no_drop|sql_drop|O|", "quiet|ddl_command_start|D|CREATE INDEX");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            for (var r : TestDb.macro(c).replicaStatus()) assertEquals(ReplicaState.ACTIVE, r.state(), r::toString);
            TestDb.assertOnEveryReplica(c, 3, EVENT_TRIGGERS, copied);
            TestDb.assertOnEveryReplica(c, 3, "SELECT count(*) FROM ddl_log", List.of("0")); // MacroDB's capture made quietly

            SQLException e = assertThrows(SQLException.class, () -> s.execute("CREATE TABLE t (k int PRIMARY KEY)"));
            assertEquals("0AM00", e.getSQLState(), e::getMessage);
            assertTrue(e.getMessage().contains("wrote rows of public.ddl_log") && e.getMessage().contains("Nothing was changed"),
                    e::getMessage);
            c.setAutoCommit(false);
            s.execute("INSERT INTO keep VALUES (1)");
            e = assertThrows(SQLException.class, () -> s.execute("CREATE TABLE t (k int PRIMARY KEY)"));
            assertEquals("0AM00", e.getSQLState(), e::getMessage);
            e = assertThrows(SQLException.class, () -> s.execute("TRUNCATE keep"));
            assertEquals("0AM00", e.getSQLState(), e::getMessage);
            s.execute("INSERT INTO keep VALUES (2)");
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertOnEveryReplica(c, 3, "SELECT (SELECT count(*) FROM ddl_log), (SELECT string_agg(k::text, ',' ORDER BY k)"
                    + " FROM keep), to_regclass('t') IS NULL", List.of("0|1,2|t"));

            s.execute("ALTER EVENT TRIGGER log_ddl DISABLE");
            s.execute("CREATE TABLE t (k int PRIMARY KEY)");
            s.execute("CREATE INDEX keep_k ON keep (k DESC)"); // MacroDB's capture statements follow: no row for them
            s.execute("INSERT INTO t VALUES (1)");
            e = assertThrows(SQLException.class, () -> s.execute("DROP TABLE keep"));
            assertEquals("P0001", e.getSQLState(), e::getMessage); // the application's own event trigger forbids it
            e = assertThrows(SQLException.class, () -> s.execute("ALTER EVENT TRIGGER no_drop ENABLE ALWAYS"));
            assertEquals("0AM00", e.getSQLState(), e::getMessage);
            assertTrue(e.getMessage().contains("event trigger no_drop (enabled always)"), e::getMessage);
            TestDb.assertOnEveryReplica(c, 3, "SELECT (SELECT count(*) FROM ddl_log), (SELECT count(*) FROM t), to_regclass('keep')"
                    + " IS NOT NULL, to_regclass('keep_k') IS NOT NULL", List.of("0|1|t|t"));
            TestDb.assertOnEveryReplica(c, 3, EVENT_TRIGGERS, List.of(copied.get(0),
                    "log_ddl|ddl_command_end|D|CREATE TABLE", copied.get(2), copied.get(3)));
            TestDb.assertConverged(c);
        }
        try (Connection c = TestDb.open(url)) { // opened again: the secondaries hold what a copy would, and are kept
            for (var r : TestDb.macro(c).replicaStatus()) {
                assertTrue(r.index() == 0 || r.stateReason().startsWith("kept at open"), r::toString);
            }
            TestDb.assertOnEveryReplica(c, 3, "SELECT count(*) FROM ddl_log", List.of("0"));
        }
    }

    /**
     * A schema change made inside a statement that is not one (a {@code DO} block, a {@code CALL}, a function a query
     * calls) is refused with {@code 0AM00} by MacroDB's guard, and nothing changes. Before 2026-11-28 it ran on the
     * primary alone: the secondaries lacked the tables it made, and after a function added a column, the next insert
     * into that table made MacroDB fail the primary over. Rows written inside such statements, and temporary tables
     * made there, go on as before. Every replica has the guard; closing the set removes it. A {@code TRUNCATE} inside
     * such a statement is refused the same way (by a trigger on each table), and one from a session outside MacroDB
     * with {@code 55000}: under {@code capture=triggers} the secondaries kept the rows, and under {@code capture=decoding}
     * MacroDB failed the primary over after the commit.
     */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"triggers", "decoding"})
    void aSchemaChangeOrATruncateInsideADoBlockACallOrAFunctionIsRefused(String capture) throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "closeDelay=0&capture=" + capture);
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY)");
            s.execute("CREATE PROCEDURE make_v() LANGUAGE plpgsql AS $$ BEGIN CREATE TABLE v (k int PRIMARY KEY); END $$");
            s.execute("CREATE FUNCTION widen() RETURNS int LANGUAGE plpgsql AS $$ BEGIN ALTER TABLE t ADD COLUMN x int; RETURN 1; END $$");
            s.execute("CREATE FUNCTION drop_t() RETURNS int LANGUAGE plpgsql AS $$ BEGIN DROP TABLE t; RETURN 1; END $$");
            s.execute("CREATE FUNCTION scratch() RETURNS int LANGUAGE plpgsql AS $$ DECLARE n int; BEGIN CREATE TEMP TABLE s (k int);"
                    + " INSERT INTO s VALUES (1), (2); SELECT count(*) INTO n FROM s; DROP TABLE s; INSERT INTO t VALUES (10 + n);"
                    + " RETURN n; END $$");
            s.execute("CREATE FUNCTION empty_t() RETURNS int LANGUAGE plpgsql AS $$ BEGIN TRUNCATE t; RETURN 1; END $$");
            s.execute("INSERT INTO t VALUES (0)");
            for (String sql : List.of("DO $$ BEGIN CREATE TABLE u (k int PRIMARY KEY); END $$", "CALL make_v()", "SELECT widen()",
                    "/* a comment first */ SELECT drop_t()", "SELECT empty_t()", "DO $$ BEGIN TRUNCATE t; END $$")) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(sql), sql);
                assertEquals("0AM00", e.getSQLState(), () -> sql + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("as a statement of its own"), e::getMessage);
            }
            try (Connection outside = pg.server(0).connect(PgCluster.primaryDatabase(url)); Statement o = outside.createStatement()) {
                SQLException e = assertThrows(SQLException.class, () -> o.execute("TRUNCATE t"));
                assertEquals("55000", e.getSQLState(), e::getMessage);
            }
            TestDb.assertOnEveryReplica(c, 3, "SELECT string_agg(k::text, ',' ORDER BY k) FROM t", List.of("0"));
            s.execute("TRUNCATE t"); // as a statement of its own
            s.execute("DO $$ BEGIN INSERT INTO t VALUES (1); END $$");
            s.execute("SELECT scratch()");
            s.execute("INSERT INTO t VALUES (2)");
            TestDb.assertOnEveryReplica(c, 3, "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname ="
                    + " 'public'", List.of("t"));
            TestDb.assertOnEveryReplica(c, 3, "SELECT string_agg(k::text, ',' ORDER BY k) FROM t", List.of("1,2,12"));
            TestDb.assertOnEveryReplica(c, 3, "SELECT count(*) FROM pg_event_trigger WHERE evtname LIKE 'macrodb\\_guard%'",
                    List.of("2"));
            TestDb.assertConverged(c);
        }
        try (Connection p = pg.server(0).connect(PgCluster.primaryDatabase(url))) { // the set closed with its last connection
            assertEquals(List.of("0|t"), TestDb.rows(p, "SELECT (SELECT count(*) FROM pg_event_trigger), to_regnamespace('macrodb')"
                    + " IS NULL", "|"));
        }
    }
}
