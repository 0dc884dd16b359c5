package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ColumnNames} over the forms PostgreSQL names; each expected list is what PostgreSQL 15 answered for the same
 * query (psql against Debian's postgresql-15, table t (id int, v int, s text, arr int[], d date)). The engines'
 * side is {@code WireTranscriptTest}'s column-name case over H2 and HSQLDB.
 */
class ColumnNamesTest {
    private static void names(String sql, String... expected) {
        assertEquals(Arrays.asList(expected), ColumnNames.of(sql), sql);
    }

    @Test
    void aggregatesAndFunctionsAreNamedAfterTheFunction() {
        names("SELECT count(*), sum(v), max(v), min(s), avg(v), count(DISTINCT v) FROM t", "count", "sum", "max", "min", "avg", "count");
        names("SELECT count(*) OVER (), row_number() OVER w, sum(v) FILTER (WHERE v > 0) OVER () FROM t WINDOW w AS (ORDER BY v)",
                "count", "row_number", "sum");
        names("SELECT string_agg(s, ',' ORDER BY s), percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM t", "string_agg", "percentile_cont");
        names("SELECT pg_catalog.lower(s), public.t.v, t.v FROM t", "lower", "v", "v");
        names("SELECT greatest(1, 2), least(1, 2), ARRAY[1, 2], ARRAY(SELECT 1), ROW(1, 2), NOT true, -v, +v FROM t",
                "greatest", "least", "array", "array", "row", "?column?", "?column?", "?column?");
        names("SELECT trim(both 'x' from s), trim(leading from s), trim(trailing 'y' from s), substring(s from 1 for 2), position('a' in s),"
                + " extract(year from d), overlay(s placing 'x' from 1) FROM t", "btrim", "ltrim", "rtrim", "substring", "position", "extract", "overlay");
        names("SELECT current_timestamp, current_user, session_user, user, localtimestamp(2), current_schema, current_catalog FROM t",
                "current_timestamp", "current_user", "session_user", "user", "localtimestamp", "current_schema", "current_catalog");
        names("SELECT exists(select 1), nullif(1, 2), cast(null as int), cast(s as varchar(3)), 'a' || s FROM t", "exists", "nullif", "int4", "s", "?column?");
    }

    @Test
    void aliasesAsWrittenFoldedUnlessQuoted() {
        names("SELECT count(*) n, max(v) val, max(t.s) x FROM t", "n", "val", "x");
        names("SELECT count(DISTINCT v) AS \"Count\", sum(v) AS Total FROM t", "Count", "total");
    }

    @Test
    void castsAreNamedAfterWhatTheyCastElseTheType() {
        names("SELECT v::int, 1::int, '1'::text, v::numeric(10,2), now()::date, 1::double precision, d::timestamp with time zone,"
                + " v::int::text, 1::int::text FROM t", "v", "int4", "text", "v", "now", "float8", "d", "v", "text");
        names("SELECT true, false, null, $1::int FROM t", "?column?", "?column?", "?column?", "int4");
        names("SELECT /* c, d */ v -- x\n, E'a\\'b', $$x$$, INTERVAL '1 day', INTERVAL '1' DAY, TIMESTAMP WITH TIME ZONE '2024-01-01 00:00+00' FROM t",
                "v", "?column?", "?column?", "interval", "interval", "timestamptz");
    }

    @Test
    void caseSubqueriesParenthesesAndOperators() {
        names("SELECT CASE v WHEN 1 THEN 'a' END, CASE WHEN true THEN v ELSE v + 1 END, CASE WHEN true THEN 'x' ELSE CAST(v AS TEXT) END,"
                + " CASE WHEN true THEN 'x' ELSE s END FROM t", "case", "case", "v", "s");
        names("SELECT (SELECT s FROM t LIMIT 1), (SELECT count(*) FROM t), (SELECT 1) FROM t", "s", "count", "?column?");
        names("SELECT coalesce(v, 0) + 1, (v + 1), (count(*)) FROM t GROUP BY v", "?column?", "?column?", "count");
        names("SELECT arr[1], (arr)[1], s COLLATE \"C\", now() AT TIME ZONE 'UTC', v IS DISTINCT FROM 1, v IS NULL FROM t",
                "arr", "arr", "s", "timezone", "?column?", "?column?");
    }

    @Test
    void statementsAroundTheSelectList() {
        names("SELECT DISTINCT ON (v) v, s FROM t", "v", "s");
        names("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2) SELECT max(n), min(n) FROM r", "max", "min");
        names("VALUES (1, 2, 3)", "column1", "column2", "column3");
        names("SELECT 1 UNION SELECT 2", "?column?");
        names("SELECT v FROM t UNION ALL SELECT count(*) FROM t", "v");
        names("SELECT count(*) FROM t;", "count");
    }

    @Test
    void whatIsNotReadIsLeftToTheEngine() {
        assertNull(ColumnNames.of("SELECT * FROM t"), "a star: the engine's columns");
        assertNull(ColumnNames.of("SELECT x.*, count(*) FROM t x"));
        assertNull(ColumnNames.of("INSERT INTO t VALUES (1)"));
        assertNull(ColumnNames.of("TABLE t"));
        assertNull(ColumnNames.of("SELECT count(*"), "unbalanced");
        assertEquals(List.of("?column?"), ColumnNames.of("SELECT 'unterminated"));
    }
}
