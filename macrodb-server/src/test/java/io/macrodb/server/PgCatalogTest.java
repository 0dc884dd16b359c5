package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Types;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pieces {@link PgCatalog} reads queries and spells answers with; the answers themselves are tested through psql and pgjdbc. */
class PgCatalogTest {
    @Test
    void selectListsAreSplitAtTopLevelCommasOnly() {
        assertEquals(List.of("c.relchecks", "CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END",
                "(SELECT a, b FROM t WHERE x = 'a,b')", "pg_catalog.format_type(a.atttypid, a.atttypmod)", "'x, y' AS \"Name, too\""),
                PgCatalog.selectItems("SELECT c.relchecks, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END,"
                        + " (SELECT a, b FROM t WHERE x = 'a,b'), pg_catalog.format_type(a.atttypid, a.atttypmod), 'x, y' AS \"Name, too\""
                        + " FROM pg_catalog.pg_class c WHERE c.oid = '1'"));
    }

    @Test
    void itemsAreNamedAsPostgresNamesThem() {
        assertEquals("Name, too", PgCatalog.itemName("'x' AS \"Name, too\""));
        assertEquals("relhasoids", PgCatalog.itemName("false AS relhasoids"));
        assertEquals("relname", PgCatalog.itemName("c2.relname"));
        assertEquals("format_type", PgCatalog.itemName("pg_catalog.format_type(a.atttypid, a.atttypmod)"));
        assertEquals("?column?", PgCatalog.itemName("''"));
    }

    @Test
    void likePatternsBecomeRegexes() {
        assertTrue(PgCatalog.like("ord%").matcher("orders").matches());
        assertTrue(PgCatalog.like("o_ders").matcher("orders").matches());
        assertFalse(PgCatalog.like("o\\_ders").matcher("orders").matches());
        assertTrue(PgCatalog.like("a.b").matcher("a.b").matches());
        assertFalse(PgCatalog.like("a.b").matcher("axb").matches(), "a dot is no wildcard");
        assertTrue(PgCatalog.like(null).matcher("anything").matches());
    }

    @Test
    void typesAreSpelledAsFormatTypeSpellsThem() {
        assertEquals("character varying(40)", PgCatalog.formatType(PgTypes.VARCHAR, Types.VARCHAR, "CHARACTER VARYING", 40, 0));
        assertEquals("character varying", PgCatalog.formatType(PgTypes.VARCHAR, Types.VARCHAR, "CHARACTER VARYING", 1_000_000_000, 0));
        assertEquals("numeric(10,2)", PgCatalog.formatType(PgTypes.NUMERIC, Types.NUMERIC, "NUMERIC", 10, 2));
        assertEquals("timestamp with time zone", PgCatalog.formatType(PgTypes.TIMESTAMPTZ, Types.TIMESTAMP_WITH_TIMEZONE, "TIMESTAMP WITH TIME ZONE", 0, 0));
        assertEquals(14, PgCatalog.typmod(PgTypes.VARCHAR, 10, 0));
        assertEquals((10 << 16 | 2) + 4, PgCatalog.typmod(PgTypes.NUMERIC, 10, 2));
        assertEquals("orders", PgCatalog.quoteIdent("orders"));
        assertEquals("\"Mixed\"", PgCatalog.quoteIdent("Mixed"));
    }

    @Test
    void informationSchemaTypeNamesAreSpelledAsFormatTypeSpellsThemWithoutATypmod() {
        assertEquals("integer", PgCatalog.standardType("integer"), "H2's spelling");
        assertEquals("integer", PgCatalog.standardType("INTEGER"), "HSQLDB's");
        assertEquals("character varying", PgCatalog.standardType("CHARACTER VARYING"));
        assertEquals("character varying", PgCatalog.standardType("VARCHAR"));
        assertEquals("numeric", PgCatalog.standardType("NUMERIC(10,2)"));
        assertEquals("double precision", PgCatalog.standardType("DOUBLE PRECISION"));
        assertEquals("timestamp with time zone", PgCatalog.standardType("timestamp with time zone"));
        assertEquals("character", PgCatalog.standardType("CHARACTER"));
        assertEquals("uuid", PgCatalog.standardType("UUID"));
        assertEquals("enum", PgCatalog.standardType("ENUM"), "a type PostgreSQL has no name for keeps the engine's");
        assertEquals(PgTypes.INT8, PgCatalog.standardOid("BIGINT"));
    }

    @Test
    void onlyTheKnownShapesAreTakenFromTheEngine() {
        assertTrue(PgCatalog.recognizes("SELECT c.oid,\n  n.nspname,\n  c.relname\nFROM pg_catalog.pg_class c\n"
                + "     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace\nWHERE c.relname OPERATOR(pg_catalog.~) '^(t)$'"));
        assertTrue(PgCatalog.recognizes("SELECT n.nspname as \"Schema\",\n  p.proname as \"Name\",\n  pg_catalog.pg_get_function_result(p.oid) as \"Result data type\"\n"
                + "FROM pg_catalog.pg_proc p\n     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"), "psql's \\df");
        assertTrue(PgCatalog.recognizes("SELECT n.nspname as \"Schema\",\n  pg_catalog.format_type(t.oid, NULL) AS \"Name\"\n"
                + "FROM pg_catalog.pg_type t\n     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace"), "psql's \\dT");
        assertFalse(PgCatalog.recognizes("SELECT relname FROM pg_catalog.pg_class"), "other catalog queries go to the engine");
        assertFalse(PgCatalog.recognizes("SELECT * FROM orders"));
    }
}
