package io.macrodb.engine;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL's statements that refuse a transaction block (25001), through MacroDB, which ran every schema change in a
 * transaction of its own and so failed them all, in autocommit too:
 * <ul>
 *   <li>{@code VACUUM} (any form), {@code REINDEX SCHEMA | DATABASE | SYSTEM} and a bare {@code CLUSTER} change no row:
 *   they run on the primary, in autocommit, outside the update gate, and are not logged (each secondary's autovacuum
 *   keeps its own storage);</li>
 *   <li>{@code REINDEX ... CONCURRENTLY} runs on the primary in autocommit and every secondary rebuilds the index plainly,
 *   as {@code CREATE INDEX CONCURRENTLY} does ({@link PostgresConcurrentIndexTest});</li>
 *   <li>{@code DISCARD ALL} and {@code RESET ALL} would reset MacroDB's own session settings: refused with 0AM00, naming
 *   what to run instead.</li>
 * </ul>
 * Inside an update transaction the first two are refused with 25001 as on PostgreSQL, and the transaction stays open.
 */
class PostgresMaintenanceTest {

    private static void exec(Connection c, String... sqls) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : sqls) s.execute(sql);
        }
    }

    /** Per replica, whether PostgreSQL has vacuumed table t by hand ({@code t} or {@code f}), and its indexes' validity. */
    private static List<String> vacuumedAndIndexes(MacroConnection mc) throws SQLException {
        return TestDb.onEveryReplica(mc, "SELECT (SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE relname = 't'),"
                + " (SELECT string_agg(c.relname || (CASE WHEN i.indisvalid THEN '' ELSE ' invalid' END), ',' ORDER BY c.relname)"
                + " FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 't'::regclass)");
    }

    @Test
    void vacuumRunsOnThePrimaryAloneAndIsNotLogged() throws Exception {
        PgCluster.assumeAvailable();
        try (Connection c = TestDb.open(TestDb.url("postgresql", ""))) {
            MacroConnection mc = TestDb.macro(c);
            exec(c, "CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t SELECT g, g FROM generate_series(1, 200) g",
                    "DELETE FROM t WHERE k > 100");
            long version = mc.admin().version();
            exec(c, "VACUUM t", "/* nightly */ vacuum (analyze, verbose false) t", "VACUUM", "REINDEX (verbose) SCHEMA public", "CLUSTER");
            assertEquals(version, mc.admin().version(), "VACUUM takes no version: it is not logged");
            List<String> after = vacuumedAndIndexes(mc);
            assertTrue(after.get(0).startsWith("primary:t|"), () -> "the primary was vacuumed: " + after);
            // autocommit off, no transaction open: it runs too, and the connection's next transaction is a transaction
            c.setAutoCommit(false);
            exec(c, "VACUUM ANALYZE t");
            exec(c, "INSERT INTO t VALUES (500, 5)");
            c.rollback();
            // inside an update transaction: refused as on PostgreSQL, the transaction still open
            exec(c, "INSERT INTO t VALUES (501, 5)");
            for (String sql : new String[] {"VACUUM t", "REINDEX SCHEMA public", "CLUSTER"}) {
                SQLException e = assertThrows(SQLException.class, () -> exec(c, sql), sql);
                assertEquals("25001", e.getSQLState(), sql + ": " + e.getMessage());
            }
            exec(c, "CLUSTER t USING t_pkey"); // with a table it runs in a transaction block: a schema change, as before
            exec(c, "INSERT INTO t VALUES (502, 5)");
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t WHERE k >= 500")) {
                rs.next();
                assertEquals(2, rs.getInt(1), "501 and 502 committed, 500 rolled back");
            }
            TestDb.assertConverged(c);
        }
    }

    @Test
    void reindexConcurrentlyRebuildsTheIndexOnEveryReplica() throws Exception {
        PgCluster.assumeAvailable();
        try (Connection c = TestDb.open(TestDb.url("postgresql", ""))) {
            MacroConnection mc = TestDb.macro(c);
            exec(c, "CREATE TABLE t (k int PRIMARY KEY, v int)", "CREATE INDEX t_v ON t (v)", "INSERT INTO t SELECT g, g FROM generate_series(1, 100) g");
            exec(c, "REINDEX TABLE CONCURRENTLY t", "reindex (verbose) index concurrently t_v");
            List<String> after = vacuumedAndIndexes(mc);
            for (String r : after) assertTrue(r.endsWith("|t_pkey,t_v"), () -> "every replica has both indexes, valid: " + after);
            c.setAutoCommit(false);
            exec(c, "UPDATE t SET v = v + 1 WHERE k = 1");
            SQLException e = assertThrows(SQLException.class, () -> exec(c, "REINDEX INDEX CONCURRENTLY t_v"));
            assertEquals("25001", e.getSQLState(), e.getMessage());
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
        }
    }

    /**
     * MacroDB's sessions carry {@code macrodb.capture} and {@code session_replication_role}: {@code DISCARD ALL} and
     * {@code RESET ALL} would take them away (a primary session's next write was then refused as made outside MacroDB,
     * and a {@code RESET ALL}, logged as a schema change, reset every secondary's apply session too), and so would setting
     * them by hand. Each is refused with 0AM00 naming what to run instead, before it runs; a plain {@code RESET} of one
     * setting and {@code DISCARD PLANS} run.
     */
    @Test
    void whatWouldResetMacroDbsSessionSettingsIsRefused() throws Exception {
        PgCluster.assumeAvailable();
        try (Connection c = TestDb.open(TestDb.url("postgresql", ""))) {
            exec(c, "CREATE TABLE t (k int PRIMARY KEY)");
            for (String sql : new String[] {"DISCARD ALL", "reset all", "/* pool */ RESET ALL", "SET session_replication_role = replica",
                    "SET LOCAL session_replication_role = origin", "RESET session_replication_role", "SET macrodb.capture = 'off'",
                    "reset macrodb.capture", "SELECT set_config('session_replication_role', 'replica', false)",
                    "select 1, SET_CONFIG('macrodb.capture', 'off', true)"}) {
                SQLException e = assertThrows(SQLException.class, () -> exec(c, sql), sql);
                assertEquals("0AM00", e.getSQLState(), sql + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("RESET the settings you changed"), e.getMessage());
            }
            exec(c, "SET work_mem = '8MB'", "RESET work_mem", "DISCARD PLANS", "INSERT INTO t VALUES (1)");
            c.setAutoCommit(false);
            exec(c, "INSERT INTO t VALUES (2)");
            assertThrows(SQLException.class, () -> exec(c, "RESET ALL"));
            exec(c, "INSERT INTO t VALUES (3)");
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
                rs.next();
                assertEquals(3, rs.getInt(1));
            }
            TestDb.assertConverged(c);
        }
    }
}
