package io.macrodb.engine;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code CREATE INDEX CONCURRENTLY} and {@code DROP INDEX CONCURRENTLY} (what migration tools run outside a transaction
 * to index a busy table without blocking its writers) work through MacroDB: the primary runs them in autocommit, as
 * PostgreSQL requires, and every secondary builds or drops the index plainly in its apply transaction. Before, they
 * failed with 25001 ("cannot run inside a transaction block").
 */
class PostgresConcurrentIndexTest {

    private static List<String> indexesEverywhere(MacroConnection mc) throws SQLException {
        return TestDb.onEveryReplica(mc, "SELECT coalesce(string_agg(indexname || (CASE WHEN i.indisvalid THEN '' ELSE ' invalid' END),"
                + " ',' ORDER BY indexname), '') FROM pg_indexes x JOIN pg_class c ON c.relname = x.indexname"
                + " JOIN pg_index i ON i.indexrelid = c.oid WHERE x.tablename = 'item'");
    }

    @Test
    void aConcurrentIndexIsBuiltAndDroppedOnEveryReplica() throws Exception {
        PgCluster.assumeAvailable();
        try (Connection c = TestDb.open(TestDb.url("postgresql", "")); Statement s = c.createStatement()) {
            MacroConnection mc = TestDb.macro(c);
            s.execute("CREATE TABLE item (id int PRIMARY KEY, name text, qty int)");
            s.execute("INSERT INTO item SELECT g, 'item ' || g, g % 7 FROM generate_series(1, 500) g");
            s.execute("/* migration V7 */ CREATE INDEX CONCURRENTLY item_qty ON item (qty)");
            s.execute("create unique index concurrently if not exists item_name on item (name)");
            List<String> built = indexesEverywhere(mc);
            for (String r : built) assertTrue(r.endsWith(":item_name,item_pkey,item_qty"), () -> "every replica has both, valid: " + built);
            s.execute("DROP INDEX CONCURRENTLY item_qty");
            List<String> dropped = indexesEverywhere(mc);
            for (String r : dropped) assertTrue(r.endsWith(":item_name,item_pkey"), () -> "dropped everywhere: " + dropped);
            // a concurrent build that fails leaves its index behind in PostgreSQL, invalid: MacroDB drops it again, since no
            // secondary has it (and a later DROP INDEX of it would fail on every secondary)
            SQLException duplicate = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> s.execute("CREATE UNIQUE INDEX CONCURRENTLY item_qty_unique ON item (qty)"));
            assertEquals("23505", duplicate.getSQLState(), duplicate::getMessage);
            List<String> after = indexesEverywhere(mc);
            for (String r : after) assertTrue(r.endsWith(":item_name,item_pkey"), () -> "nothing left behind: " + after);
            s.execute("UPDATE item SET qty = qty + 1 WHERE id <= 10"); // the database goes on
            TestDb.assertConverged(c);
        }
    }

    @Test
    void onlyTheConcurrentFormsRunOutsideATransaction() {
        PostgresEngine pg = new PostgresEngine();
        assertTrue(pg.schemaChangeOutsideTransaction("CREATE INDEX CONCURRENTLY i ON t (a)"));
        assertTrue(pg.schemaChangeOutsideTransaction("-- V2\n  create Unique index\tconcurrently i on t (a)"));
        assertTrue(pg.schemaChangeOutsideTransaction("DROP INDEX CONCURRENTLY IF EXISTS i"));
        assertFalse(pg.schemaChangeOutsideTransaction("CREATE INDEX i ON t (a)"));
        assertFalse(pg.schemaChangeOutsideTransaction("CREATE INDEX concurrently_idx ON t (a)"));
        assertFalse(pg.schemaChangeOutsideTransaction("CREATE TABLE concurrently (a int)"));
        assertEquals("-- V2\n  create Unique index i on t (a)", pg.schemaChangeOnSecondary("-- V2\n  create Unique index\tconcurrently i on t (a)"));
        assertEquals("DROP INDEX IF EXISTS i", pg.schemaChangeOnSecondary("DROP INDEX CONCURRENTLY IF EXISTS i"));
        assertEquals("CREATE INDEX i ON t (a)", pg.schemaChangeOnSecondary("CREATE INDEX i ON t (a)"));
    }
}
