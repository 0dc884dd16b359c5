package io.macrodb.sql;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import io.macrodb.sql.Classification.Verb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class SqlClassifierTest {
    private final SqlClassifier h2 = new SqlClassifier(Dialect.H2);
    private final SqlClassifier hs = new SqlClassifier(Dialect.HSQLDB);
    private final SqlClassifier lite = new SqlClassifier(Dialect.SQLITE);

    private static void pure(SqlClassifier c, String sql) {
        Classification r = c.classify(sql);
        assertEquals(StatementKind.READ, r.kind(), () -> sql + " -> " + r);
        assertTrue(r.pureRead(), () -> sql + " -> " + r);
        assertNull(r.reason(), sql);
    }

    private static Classification notPure(SqlClassifier c, String sql, StatementKind kind) {
        Classification r = c.classify(sql);
        assertEquals(kind, r.kind(), () -> sql + " -> " + r);
        assertFalse(r.pureRead(), () -> sql + " -> " + r);
        assertNotNull(r.reason(), sql);
        return r;
    }

    private SqlClassifier of(Dialect d) {
        return switch (d) {
            case H2 -> h2;
            case HSQLDB -> hs;
            case SQLITE -> lite;
            case DERBY -> new SqlClassifier(Dialect.DERBY);
            case POSTGRESQL -> new SqlClassifier(Dialect.POSTGRESQL);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT * FROM t WHERE a = ?",
        "select a, count(*) from public.t group by a having count(*) > ?",
        "/* leading */ -- comment\n  SELECT 1;",
        "SELECT 1;;  ",
        "SELECT 'FOR UPDATE', 'NEXT VALUE FOR s', 'x; DELETE FROM t' FROM t",
        "SELECT 1 FROM t -- FOR UPDATE\n",
        "SELECT 1 /* INTO x FOR UPDATE */ FROM t",
        "SELECT \"FOR UPDATE\" FROM \"NEXTVAL_TABLE\"",
        "WITH x(a) AS (SELECT 1) SELECT a FROM x",
        "WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x WHERE n < 3) SELECT n FROM x",
        "SELECT * FROM \"My Table\" m JOIN t2 ON m.id = t2.id",
        "VALUES (1, 2)",
        "TABLE t",
        "SELECT * FROM t1 UNION SELECT * FROM t2 EXCEPT SELECT * FROM t3",
        "(SELECT 1) UNION (SELECT 2)",
        "SELECT CAST(a AS VARCHAR(10)), CAST(b AS DECIMAL(10,2)), CAST(c AS CHARACTER VARYING(5)) FROM t",
        "SELECT CURRENT_TIMESTAMP, NOW(), RAND(), CURRENT_DATE, LOCALTIMESTAMP, CURRENT_TIMESTAMP(3) FROM t",
        "SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b), SUM(x) OVER w FROM t WINDOW w AS (ORDER BY b)",
        "SELECT COALESCE(a, b), NULLIF(a, 0), CASE WHEN a > 0 THEN UPPER(b) ELSE LOWER(b) END FROM t",
        "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id) AND a IN (?, ?)",
        "SELECT * FROM t WHERE x > (SELECT MAX(y) FROM u)",
        "SELECT * FROM t AS x(a, b)",
        "SELECT * FROM t ORDER BY a LIMIT 10 OFFSET 5",
        "SELECT * FROM t FETCH FIRST 10 ROWS ONLY",
        "EXPLAIN SELECT * FROM t",
        "EXPLAIN PLAN FOR SELECT * FROM t",
        "SELECT * FROM INFORMATION_SCHEMA_COPY.TABLES",
        "SELECT EXTRACT(YEAR FROM d), TRIM(BOTH ' ' FROM s), POSITION('a' IN s), SUBSTRING(s FROM 1 FOR 2) FROM t",
        "SELECT * FROM UNNEST(ARRAY[1, 2])",
    })
    void pureReadsBothDialects(String sql) {
        pure(h2, sql);
        pure(hs, sql);
    }

    @Test
    void h2Specific() {
        pure(h2, "SHOW TABLES");
        pure(h2, "SHOW SCHEMAS");
        pure(h2, "SHOW COLUMNS FROM t");
        pure(h2, "SELECT * FROM SYSTEM_RANGE(1, 10)");
        pure(h2, "SELECT LISTAGG(a, ',') WITHIN GROUP (ORDER BY a) FROM t");
        pure(h2, "SELECT COUNT(*) FILTER (WHERE a > 1) FROM t");
        pure(h2, "SELECT RANDOM_UUID(), RANDOM(), SECURE_RAND(8)");
        // HSQLDB has no SYSTEM_RANGE / RANDOM_UUID built-ins: a function of that name is a user function there
        notPure(hs, "SELECT * FROM SYSTEM_RANGE(1, 10)", StatementKind.READ);
        notPure(hs, "SELECT RANDOM_UUID()", StatementKind.READ);
        notPure(hs, "SHOW TABLES", StatementKind.UNKNOWN);
    }

    @Test
    void dataChangeDeltaTableIsWrite() {
        Classification r = notPure(h2, "SELECT * FROM FINAL TABLE (INSERT INTO t VALUES (1))", StatementKind.WRITE);
        assertTrue(r.tables().contains("T"), r.toString());
        notPure(h2, "SELECT ID FROM OLD TABLE (DELETE FROM t WHERE a = ?)", StatementKind.WRITE);
        notPure(h2, "SELECT * FROM NEW TABLE (UPDATE t SET a = 1)", StatementKind.WRITE);
        notPure(h2, "SELECT * FROM FINAL TABLE (MERGE INTO t KEY(id) VALUES (1, 2))", StatementKind.WRITE);
        notPure(h2, "WITH x AS (SELECT 1 AS a) INSERT INTO t SELECT a FROM x", StatementKind.WRITE);
        notPure(h2, "SELECT a INTO b FROM t", StatementKind.WRITE);
    }

    /**
     * PostgreSQL's own dialect: its side-effect-free built-ins (JSON, arrays, text search, {@code generate_series}), its
     * operators with {@code @} and {@code ::type(n)} casts make pure reads, which went to the primary with H2's dialect;
     * H2's and HSQLDB's function names do not (a PostgreSQL database may hold functions of the application's own under
     * those names), nor session and server state, nor a function called inside an array slice.
     */
    /**
     * PostgreSQL's {@code SET} and {@code RESET} of one setting for the session are session settings, keyed so that a later
     * statement of the same setting replaces an earlier one (aliases alike: {@code SET SCHEMA} and {@code search_path},
     * {@code TIME ZONE} and {@code timezone}); {@code SET LOCAL} and {@code SET CONSTRAINTS} are settings of the
     * transaction; {@code SET TRANSACTION} and {@code RESET ALL} are neither ({@code SET SESSION CHARACTERISTICS} stays a
     * session statement under the common rules' key).
     */
    @Test
    void postgresqlsSessionSettings() {
        SqlClassifier c = new SqlClassifier(Dialect.POSTGRESQL);
        String[][] settings = {
                {"SET search_path TO app, public", "SET search_path"}, {"set SESSION Search_Path = app", "SET search_path"},
                {"RESET search_path;", "SET search_path"}, {"SET SCHEMA 'app'", "SET search_path"},
                {"SET TIME ZONE 'UTC'", "SET TIME ZONE"}, {"SET timezone = 'UTC'", "SET TIME ZONE"}, {"RESET TIME ZONE", "SET TIME ZONE"},
                {"SET myapp.tenant = 'a'", "SET myapp.tenant"}, {"RESET myapp.tenant", "SET myapp.tenant"},
                {"SET ROLE reader", "SET role"}, {"RESET ROLE", "SET role"}, {"SET SESSION AUTHORIZATION DEFAULT", "SET role"},
                {"SET work_mem TO '8MB'", "SET work_mem"}};
        for (String[] t : settings) {
            Classification k = c.classify(t[0]);
            assertEquals(Verb.SESSION_SET, k.verb(), t[0]);
            assertEquals(t[1], k.argument(), t[0]);
        }
        for (String sql : new String[] {"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "RESET ALL", "RESET work_mem x"}) {
            assertNotEquals(Verb.SESSION_SET, c.classify(sql).verb(), sql);
        }
        for (String sql : new String[] {"SET LOCAL search_path TO app", "set local statement_timeout = '5s'", "SET CONSTRAINTS ALL DEFERRED"}) {
            assertEquals(Verb.TRANSACTION_SET, c.classify(sql).verb(), sql);
        }
        assertEquals(Verb.OTHER, new SqlClassifier(Dialect.H2).classify("RESET search_path").verb(), "PostgreSQL's only");
        String[][] calls = {{"SELECT set_config('search_path', ?, false)", "SET search_path"},
                {"select SET_CONFIG('TimeZone', 'UTC', FALSE) AS tz;", "SET TIME ZONE"},
                {"SELECT set_config('myapp.tenant', lower(?), false) t", "SET myapp.tenant"}};
        for (String[] t : calls) {
            Classification k = c.classify(t[0]);
            assertEquals(Verb.SESSION_SET_CALL, k.verb(), t[0]);
            assertEquals(t[1], k.argument(), t[0]);
            assertEquals(StatementKind.READ, k.kind(), t[0]);
            assertFalse(k.pureRead(), t[0]); // it runs on the primary
        }
        for (String sql : new String[] {"SELECT set_config('search_path', 'a', true)", "SELECT set_config('a', 'b', false), 1",
                "SELECT set_config('a', 'b', false) FROM t", "SELECT set_config(?, 'b', false)", "SELECT f(set_config('a', 'b', false))"}) {
            assertEquals(Verb.OTHER, c.classify(sql).verb(), sql);
        }
    }

    @Test
    void postgresqlsOwnFunctionsAndOperators() {
        SqlClassifier c = new SqlClassifier(Dialect.POSTGRESQL);
        for (String sql : new String[] {
                "SELECT data->>'name' FROM t WHERE data @> '{\"a\":1}'::jsonb", "SELECT * FROM t WHERE doc @@ to_tsquery('a')",
                "SELECT jsonb_build_object('a', id), to_jsonb(t), row_to_json(t) FROM t", "SELECT * FROM generate_series(1, 10) g",
                "SELECT * FROM t TABLESAMPLE BERNOULLI (5) REPEATABLE (42)", "SELECT split_part(n, ' ', 1), strpos(n, 'a'), md5(n) FROM t",
                "SELECT gen_random_uuid(), random(), clock_timestamp()", "SELECT x::text, y::numeric(10,2), z::varchar(5) FROM t",
                "SELECT * FROM jsonb_to_recordset(?::jsonb) AS x(a int)", "SELECT jsonb_path_query(data, '$.a') FROM t",
                "SELECT date_part('year', ts), age(ts), make_date(2020, 1, 1) FROM t", "SELECT array_to_string(tags, ',') FROM t"}) {
            pure(c, sql);
        }
        StatementKind r = StatementKind.READ;
        for (String f : new String[] {"version()", "current_setting('x')", "set_config('a', 'b', false)", "pg_sleep(1)",
                "txid_current()", "setseed(0.5)", "query_to_xml('delete from t', true, true, '')", "casewhen(1, 2, 3)",
                "formatdatetime(now(), 'yyyy')", "rand()", "pg_backend_pid()", "lo_import('/etc/passwd')"}) {
            notPure(c, "SELECT " + f, r);
        }
        notPure(c, "SELECT tags[1:my_fn(2)] FROM t", r);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void lockingSequencesSessionAndUnknownFunctionsAreNotPure(Dialect d) {
        SqlClassifier c = of(d);
        StatementKind r = StatementKind.READ;
        notPure(c, "SELECT * FROM t FOR UPDATE", r);
        notPure(c, "select * from t where a = ? for update of a nowait", r);
        notPure(c, "SELECT * FROM t FOR SHARE", r);
        notPure(c, "SELECT * FROM t WITH (UPDLOCK)", r);
        notPure(c, "SELECT * FROM t FOR NO KEY UPDATE", r);
        notPure(c, "SELECT NEXT VALUE FOR s", r);
        notPure(c, "SELECT CURRENT VALUE FOR s", r);
        notPure(c, "SELECT s.NEXTVAL FROM dual", r);
        notPure(c, "SELECT PUBLIC.s.CURRVAL FROM dual", r);
        notPure(c, "SELECT NEXTVAL('s')", r);
        notPure(c, "SELECT a FROM t WHERE b IN (SELECT NEXT VALUE FOR s FROM dual)", r);
        notPure(c, "WITH x AS (SELECT NEXT VALUE FOR s AS v) SELECT v FROM x", r);
        notPure(c, "SELECT 1 UNION SELECT NEXT VALUE FOR s", r);
        for (String f : new String[] {"IDENTITY()", "SCOPE_IDENTITY()", "LASTVAL()", "LAST_INSERT_ID()", "SESSION_ID()",
                "LOCK_MODE()", "DISK_SPACE_USED('T')", "TRANSACTION_ID()", "DATABASE()", "USER()", "MEMORY_FREE()",
                "CSVREAD('x.csv')", "FILE_READ('x')", "LOCK_TIMEOUT()", "RAND(42)"}) {
            notPure(c, "SELECT " + f, r);
            notPure(c, "SELECT a FROM t WHERE b = (SELECT " + f + " FROM dual)", r);
        }
        notPure(c, "SELECT CURRENT_USER", r);
        notPure(c, "SELECT CURRENT_SCHEMA FROM t", r);
        notPure(c, "SELECT myfunc(a) FROM t", r);
        notPure(c, "SELECT PUBLIC.ABS(a) FROM t", r);
        notPure(c, "SELECT \"ABS\"(a) FROM t", r);
        if (d != Dialect.POSTGRESQL) notPure(c, "SELECT * FROM t WHERE a = @v", r); // PostgreSQL: @ is absolute value
        notPure(c, "SELECT * FROM INFORMATION_SCHEMA.SESSIONS", r);
        notPure(c, "SELECT 1; SELECT 2", r);
        notPure(c, "EXPLAIN SELECT NEXT VALUE FOR s", r);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void kinds(Dialect d) {
        SqlClassifier c = of(d);
        notPure(c, "INSERT INTO t VALUES (?, CURRENT_TIMESTAMP, ?)", StatementKind.WRITE);
        notPure(c, "update t set a = 1", StatementKind.WRITE);
        notPure(c, "DELETE FROM t WHERE a = ?", StatementKind.WRITE);
        notPure(c, "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = s.a", StatementKind.WRITE);
        notPure(c, "MERGE INTO t KEY(id) VALUES (1, 2)", StatementKind.WRITE);
        notPure(c, "TRUNCATE TABLE t", StatementKind.WRITE);
        notPure(c, "REPLACE INTO t VALUES (1)", StatementKind.WRITE);
        notPure(c, "CREATE TABLE t(id INT PRIMARY KEY)", StatementKind.DDL);
        notPure(c, "ALTER TABLE t ADD COLUMN b INT", StatementKind.DDL);
        notPure(c, "DROP TABLE t", StatementKind.DDL);
        notPure(c, "COMMENT ON TABLE t IS 'x'", StatementKind.DDL);
        notPure(c, "GRANT SELECT ON t TO u", StatementKind.DDL);
        notPure(c, "REVOKE SELECT ON t FROM u", StatementKind.DDL);
        notPure(c, "CREATE ALIAS f FOR \"java.lang.Math.abs\"", StatementKind.DDL);
        notPure(c, "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW CALL \"x.Y\"", StatementKind.DDL);
        notPure(c, "ANALYZE", StatementKind.DDL);
        notPure(c, "CHECKPOINT", StatementKind.DDL);
        notPure(c, "CHECKPOINT DEFRAG", StatementKind.DDL);
        notPure(c, "SET DATABASE SQL SYNTAX ORA TRUE", d == Dialect.HSQLDB ? StatementKind.DDL : StatementKind.DDL);
        notPure(c, "COMMIT", StatementKind.TRANSACTION);
        notPure(c, "ROLLBACK TO SAVEPOINT sp", StatementKind.TRANSACTION);
        notPure(c, "SAVEPOINT sp", StatementKind.TRANSACTION);
        notPure(c, "RELEASE SAVEPOINT sp", StatementKind.TRANSACTION);
        notPure(c, "START TRANSACTION", StatementKind.TRANSACTION);
        notPure(c, "BEGIN", StatementKind.TRANSACTION);
        notPure(c, "SET SCHEMA s", StatementKind.SESSION);
        notPure(c, "SET AUTOCOMMIT FALSE", StatementKind.SESSION);
        notPure(c, "USE s", StatementKind.SESSION);
        notPure(c, "CALL abs(1)", StatementKind.CALL);
        notPure(c, "CALL my_proc(?, ?)", StatementKind.CALL);
        notPure(c, "{call my_proc(?)}", StatementKind.CALL);
        notPure(c, "{?= call my_func(?)}", StatementKind.CALL);
        notPure(c, "EXEC my_proc", StatementKind.CALL);
        notPure(c, "FROBNICATE everything", StatementKind.UNKNOWN);
        notPure(c, "", StatementKind.UNKNOWN);
        notPure(c, "   ;  -- nothing", StatementKind.UNKNOWN);
        notPure(c, "SELECT 'unterminated", StatementKind.READ);
        notPure(c, "SELECT * FROM t WHERE (a = 1", StatementKind.READ);
        notPure(c, "SELECT FROM WHERE", StatementKind.READ);
        notPure(c, "INSERT INTO t VALUES (1); SELECT 1", StatementKind.UNKNOWN);
        notPure(c, "EXPLAIN ANALYZE INSERT INTO t VALUES (1)", StatementKind.WRITE);
        assertEquals(StatementKind.UNKNOWN, c.classify(null).kind());
    }

    private static void verb(SqlClassifier c, String sql, Classification.Verb verb, String argument) {
        Classification r = c.classify(sql);
        assertEquals(verb, r.verb(), () -> sql + " -> " + r);
        assertEquals(argument, r.argument(), () -> sql + " -> " + r);
    }

    /** What the driver does with a statement beyond its kind comes from the classification alone. */
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void verbsAndTheirArguments(Dialect d) {
        SqlClassifier c = of(d);
        verb(c, "COMMIT", Classification.Verb.COMMIT, null);
        verb(c, " commit work ;", Classification.Verb.COMMIT, null);
        verb(c, "/* done */ COMMIT TRANSACTION", Classification.Verb.COMMIT, null);
        verb(c, "COMMIT AND CHAIN", Classification.Verb.OTHER, null);
        verb(c, "COMMIT; COMMIT", Classification.Verb.OTHER, null);
        verb(c, "ROLLBACK", Classification.Verb.ROLLBACK, null);
        verb(c, "rollback work", Classification.Verb.ROLLBACK, null);
        verb(c, "BEGIN", Classification.Verb.BEGIN, null);
        verb(c, "START TRANSACTION", Classification.Verb.BEGIN, null);
        verb(c, "START TRANSACTION READ ONLY", Classification.Verb.OTHER, null);
        verb(c, "SET AUTOCOMMIT FALSE", Classification.Verb.AUTOCOMMIT_OFF, null);
        verb(c, "set autocommit = on;", Classification.Verb.AUTOCOMMIT_ON, null);
        verb(c, "SET AUTOCOMMIT TO 0", Classification.Verb.AUTOCOMMIT_OFF, null);
        verb(c, "SET AUTOCOMMIT 1", Classification.Verb.AUTOCOMMIT_ON, null);
        verb(c, "SET AUTOCOMMIT MAYBE", Classification.Verb.OTHER, null);
        verb(c, "SAVEPOINT sp1", Classification.Verb.SAVEPOINT, "sp1");
        verb(c, "SAVEPOINT \"My Point\";", Classification.Verb.SAVEPOINT, "\"My Point\"");
        verb(c, "RELEASE SAVEPOINT sp1", Classification.Verb.RELEASE_SAVEPOINT, "sp1");
        verb(c, "RELEASE sp1", Classification.Verb.RELEASE_SAVEPOINT, "sp1");
        verb(c, "ROLLBACK TO SAVEPOINT sp1", Classification.Verb.ROLLBACK_TO_SAVEPOINT, "sp1");
        verb(c, "ROLLBACK WORK TO sp1", Classification.Verb.ROLLBACK_TO_SAVEPOINT, "sp1");
        verb(c, "ROLLBACK TO SAVEPOINT", Classification.Verb.ROLLBACK_TO_SAVEPOINT, "SAVEPOINT");
        verb(c, "SAVEPOINT a b", Classification.Verb.OTHER, null);
        verb(c, "SET SCHEMA s", Classification.Verb.SET_SCHEMA, "S");
        verb(c, "USE \"Mixed\"\"Case\"", Classification.Verb.SET_SCHEMA, "Mixed\"Case");
        verb(c, "USE a.b", Classification.Verb.SESSION_SET, null);
        verb(c, "SET SCHEMA = s", Classification.Verb.SESSION_SET, d == Dialect.POSTGRESQL ? "SET search_path" : "SET SCHEMA");
        verb(c, "SET LOCK_TIMEOUT 100", Classification.Verb.SESSION_SET, "SET LOCK_TIMEOUT");
        verb(c, "set time zone 'UTC'", Classification.Verb.SESSION_SET, "SET TIME ZONE");
        verb(c, "SET @x = 1", Classification.Verb.SESSION_SET, "SET @X");
        verb(c, "SET VARIABLE v 1", Classification.Verb.SESSION_SET, "SET VARIABLE V");
        verb(c, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", Classification.Verb.SESSION_SET,
                "SET SESSION CHARACTERISTICS");
        verb(c, "SET SCHEMAX 1", Classification.Verb.OTHER, null);
        verb(c, "SET EXCLUSIVE 1", Classification.Verb.PRIMARY_ONLY_SET, null);
        verb(c, "SET DATABASE TRANSACTION CONTROL MVCC", Classification.Verb.PRIMARY_ONLY_SET, null);
        verb(c, "SET REFERENTIAL_INTEGRITY FALSE", Classification.Verb.ROW_MODE_PRIMARY_ONLY_SET, null);
        verb(c, "SET DATABASE REFERENTIAL INTEGRITY FALSE", Classification.Verb.ROW_MODE_PRIMARY_ONLY_SET, null);
        verb(c, "CREATE OR REPLACE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW CALL \"x.Y\"", Classification.Verb.CREATE_TRIGGER, null);
        verb(c, "CREATE TABLE trigger_log(a INT)", Classification.Verb.OTHER, null);
        verb(c, "SELECT 1", Classification.Verb.OTHER, null);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void factsOfTheText(Dialect d) {
        SqlClassifier c = of(d);
        assertTrue(c.classify("INSERT INTO t VALUES (NEXT VALUE FOR s)").drawsFromSequence());
        assertTrue(c.classify("UPDATE t SET a = nextval('s')").drawsFromSequence());
        assertFalse(c.classify("INSERT INTO t VALUES ('NEXT VALUE FOR s')").drawsFromSequence());
        assertTrue(c.classify("-- empty it\nTRUNCATE TABLE t").runsAsSchemaChange());
        assertTrue(c.classify("EXECUTE IMMEDIATE 'DROP TABLE t'").runsAsSchemaChange());
        assertFalse(c.classify("DELETE FROM t").runsAsSchemaChange());
        assertTrue(c.classify("CREATE LOCAL TEMPORARY TABLE tmp(a INT)").temporaryTable());
        assertFalse(c.classify("CREATE TABLE t2(a INT)").temporaryTable());
        assertNotNull(c.classify("ALTER TABLE t ADD COLUMN b DOUBLE DEFAULT RAND()").unsafeSchemaChange());
        assertNull(c.classify("ALTER TABLE t ADD COLUMN b INT DEFAULT 0").unsafeSchemaChange());
        Classification filled = c.classify("ALTER TABLE \"My Schema\".\"T 1\" ADD COLUMN b TIMESTAMP DEFAULT CURRENT_TIMESTAMP");
        assertEquals(Classification.Verb.FILLS_EXISTING_ROWS, filled.verb());
        assertEquals("\"My Schema\".\"T 1\"", filled.argument());
        assertNotNull(filled.unsafeSchemaChange());
        assertEquals("public.t", c.classify("alter table public.t add b double default rand()").argument());
        assertEquals("t", c.classify("ALTER TABLE IF EXISTS t ADD COLUMN b DOUBLE DEFAULT RAND()").argument());
        Classification generated = c.classify("ALTER TABLE t ADD COLUMN g DOUBLE GENERATED ALWAYS AS (RAND())");
        assertEquals(Classification.Verb.OTHER, generated.verb(), "a generated column is unsafe on an empty table too");
        assertNotNull(generated.unsafeSchemaChange());
        Classification created = c.classify("CREATE TABLE IF NOT EXISTS \"PUBLIC\".\"h\" (a INT, ts TIMESTAMP) AS SELECT 1, CURRENT_TIMESTAMP");
        assertEquals(Classification.Verb.CREATES_FROM_QUERY, created.verb());
        assertEquals("\"PUBLIC\".\"h\"", created.argument());
        assertNotNull(created.unsafeSchemaChange());
        assertEquals("t2", c.classify("create memory table t2 as (select rand() r from t) with data").argument());
        assertEquals(Classification.Verb.OTHER, c.classify("CREATE TABLE t2 AS SELECT a FROM t").verb(), "nothing computed");
        assertEquals(Classification.Verb.OTHER, c.classify("CREATE LOCAL TEMPORARY TABLE t2 AS SELECT RAND() r").verb());
        assertEquals(Classification.Verb.OTHER,
                c.classify("CREATE TABLE t2 (a INT, g DOUBLE GENERATED ALWAYS AS (RAND())) AS SELECT 1").verb());
        assertEquals(Classification.Verb.OTHER, c.classify("ALTER TABLE t ADD COLUMN b INT DEFAULT 0").verb());
    }

    /**
     * A comment is whitespace to SQL, so it hides nothing: a migration tool sends a script's header
     * comment with the statement (Flyway's V3 of the shop app diverged the secondaries before this).
     */
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void commentsDoNotHideWhatAStatementComputes(Dialect d) {
        SqlClassifier c = of(d);
        Classification filled = c.classify("-- an audit column\nALTER TABLE product ADD COLUMN at TIMESTAMP DEFAULT CURRENT_TIMESTAMP");
        assertEquals(Classification.Verb.FILLS_EXISTING_ROWS, filled.verb());
        assertEquals("product", filled.argument());
        assertNotNull(filled.unsafeSchemaChange());
        Classification inside = c.classify("ALTER /* x */ TABLE /* y */ product ADD /* z */ COLUMN r DOUBLE DEFAULT RAND()");
        assertEquals(Classification.Verb.FILLS_EXISTING_ROWS, inside.verb());
        assertEquals("product", inside.argument());
        Classification created = c.classify("/* history */ CREATE TABLE h (a INT, ts TIMESTAMP) AS SELECT 1, CURRENT_TIMESTAMP");
        assertEquals(Classification.Verb.CREATES_FROM_QUERY, created.verb());
        assertEquals("h", created.argument());
        assertNotNull(c.classify("-- generated\nCREATE TABLE t (a INT, g DOUBLE GENERATED ALWAYS AS (RAND()))").unsafeSchemaChange());
        assertTrue(c.classify("-- scratch\nCREATE LOCAL TEMPORARY TABLE tmp(a INT)").temporaryTable());
        // and what is inside a literal is not a comment
        assertEquals(Classification.Verb.OTHER, c.classify("ALTER TABLE t ADD COLUMN b VARCHAR(9) DEFAULT '-- RAND()'").verb());
        assertEquals("ALTER   TABLE t", SqlClassifier.withoutComments("ALTER/**/TABLE t").replace("    ", "   "));
        assertEquals("a '--x'  ", SqlClassifier.withoutComments("a '--x'--"));
    }

    /**
     * A locking read and LOCK TABLE change nothing (so they run before an update transaction enters the
     * update gate); a locking query that may also write, through a sequence or an unknown function, may write.
     */
    /**
     * A query of the engine's catalog, of any engine (PostgreSQL's queries are classified with H2's dialect), is not
     * a pure read (the secondaries' catalogs differ from the primary's) and changes nothing; a query that also does
     * something else keeps that classification, and names that only look alike stay pure reads.
     */
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void readsOfTheCatalog(Dialect d) {
        SqlClassifier c = of(d);
        for (String sql : new String[] {"SELECT TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS",
                "select * from information_schema.columns where table_name = ?", "SELECT * FROM \"INFORMATION_SCHEMA\".\"TABLES\"",
                "SELECT COUNT(*) FROM t JOIN INFORMATION_SCHEMA.COLUMNS c ON c.TABLE_NAME = t.n", "SELECT * FROM SYS.SYSTRIGGERS",
                "SELECT name FROM sqlite_master WHERE type = 'trigger'", "SELECT sql FROM main.sqlite_schema", "SELECT * FROM sqlite_sequence",
                "SELECT relname FROM pg_class", "SELECT * FROM pg_catalog.pg_trigger t WHERE t.tgname = 'x'",
                "SELECT * FROM t WHERE n IN (SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES)"}) {
            Classification k = c.classify(sql);
            assertTrue(k.readsCatalog(), sql);
            assertFalse(k.pureRead(), sql);
            assertFalse(k.mayWrite(), sql);
            assertEquals(StatementKind.READ, k.kind(), sql);
            assertTrue(k.reason().startsWith("reads the catalog ("), k::reason);
        }
        for (String sql : new String[] {"SELECT * FROM INFORMATION_SCHEMA.SESSIONS", "SELECT NEXTVAL('s') FROM INFORMATION_SCHEMA.TABLES",
                "SELECT myfunc(a) FROM INFORMATION_SCHEMA.TABLES"}) {
            Classification k = c.classify(sql);
            assertFalse(k.readsCatalog(), sql);
            assertTrue(k.mayWrite(), sql);
        }
        assertTrue(c.classify("SELECT * FROM INFORMATION_SCHEMA.TABLES FOR UPDATE").locksOnly());
        for (String sql : new String[] {"SELECT 1 FROM SYSIBM.SYSDUMMY1", "SELECT t.pg_size FROM t", "SELECT * FROM sys_items",
                "SELECT information_schema FROM t"}) {
            Classification k = c.classify(sql);
            assertTrue(k.pureRead(), sql);
            assertFalse(k.readsCatalog(), sql);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void statementsThatOnlyLock(Dialect d) {
        SqlClassifier c = of(d);
        for (String sql : new String[] {"SELECT * FROM t FOR UPDATE", "select * from t where a = ? for update of a nowait",
                "SELECT * FROM t FOR SHARE", "SELECT a FROM t WHERE a IN (SELECT a FROM u) FOR UPDATE"}) {
            Classification k = c.classify(sql);
            assertTrue(k.locksOnly(), sql);
            assertFalse(k.pureRead(), sql);
            assertFalse(k.mayWrite(), sql);
        }
        for (String sql : new String[] {"SELECT NEXT VALUE FOR s FROM t FOR UPDATE", "SELECT myfunc(a) FROM t FOR UPDATE",
                "SELECT NEXTVAL('s') FROM t FOR UPDATE", d == Dialect.POSTGRESQL ? "SELECT setseed(0.5) FROM t FOR UPDATE"
                        : "SELECT * FROM t WHERE a = @v FOR UPDATE", "UPDATE t SET a = 1",
                "SELECT NEXT VALUE FOR s", "SELECT 1; SELECT 2 FOR UPDATE", "CALL f()"}) {
            Classification k = c.classify(sql);
            assertFalse(k.locksOnly(), sql);
            assertTrue(k.mayWrite(), sql);
        }
        Classification lock = c.classify("LOCK TABLE \"PUBLIC\".\"flyway_schema_history\" WRITE");
        assertEquals(Classification.Verb.LOCK_TABLE, lock.verb());
        assertEquals(StatementKind.TRANSACTION, lock.kind());
        assertTrue(lock.locksOnly());
        assertFalse(lock.mayWrite());
        assertEquals(Classification.Verb.LOCK_TABLE, c.classify("lock table a read, b write;").verb());
        assertFalse(c.classify("SELECT * FROM t").mayWrite());
        assertFalse(c.classify("SELECT * FROM t").locksOnly());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void scriptDumps(Dialect d) {
        SqlClassifier c = of(d);
        Classification result = c.classify("SCRIPT");
        assertEquals(Classification.Verb.SCRIPT, result.verb());
        assertNull(result.argument(), "a dump as a result names no file");
        assertEquals(Classification.Verb.SCRIPT, c.classify("script nodata").verb());
        assertEquals("/tmp/it's.sql", c.classify("SCRIPT TO '/tmp/it''s.sql'").argument());
        assertEquals("d.sql", c.classify("SCRIPT 'd.sql'").argument());
        assertEquals(Classification.Verb.OTHER, c.classify("SCRIPT TO 'd.zip' COMPRESSION ZIP").verb());
        assertEquals(Classification.Verb.OTHER, c.classify("SCRIPT TO 'd.sql' CIPHER AES PASSWORD 'p'").verb());
        assertEquals(Classification.Verb.OTHER, c.classify("SCRIPT TO ?").verb());
        assertEquals(Classification.Verb.OTHER, c.classify("SELECT 'SCRIPT'").verb());
    }

    @Test
    void tables() {
        assertEquals(Set.of("PUBLIC.T", "U"), h2.classify("select * from public.t join u on t.a = u.a").tables());
        assertEquals(Set.of("My Table", "T2"), hs.classify("SELECT * FROM \"My Table\", t2").tables());
        assertEquals(Set.of("T"), h2.classify("UPDATE t SET a = 1").tables());
        assertTrue(h2.classify("WITH x(a) AS (SELECT 1) SELECT a FROM x").tables().isEmpty());
    }

    @Test
    void cacheIsUsedAndBounded() {
        SqlClassifier c = new SqlClassifier(Dialect.H2);
        Classification a = c.classify("SELECT 1 FROM t");
        assertSame(a, c.classify("SELECT 1 FROM t"));
        for (int i = 0; i < SqlClassifier.CACHE_MAX_ENTRIES + 50; i++) {
            c.classify("SELECT " + i);
        }
        assertTrue(c.cacheSize() <= SqlClassifier.CACHE_MAX_ENTRIES);
    }

    @Test
    void neverThrowsOnNastyInput() {
        String deep = "SELECT " + "(".repeat(5000) + "1" + ")".repeat(5000);
        assertFalse(h2.classify(deep).pureRead() && h2.classify(deep).kind() != StatementKind.READ);
        notPure(h2, "SELECT /* unterminated", StatementKind.READ);
        notPure(h2, "SELECT /* a /* nested */ */ 1", StatementKind.READ);
        notPure(h2, "SELECT \"unterminated", StatementKind.READ);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void truncateAndDynamicSqlRunAsSchemaChangesAndNothingElseDoes(Dialect d) {
        SqlClassifier c = of(d);
        for (String sql : new String[] {"TRUNCATE TABLE t", "/* why */ -- now\n truncate table t", "EXECUTE IMMEDIATE 'CREATE TABLE x (a INT)'"}) {
            assertTrue(c.classify(sql).runsAsSchemaChange(), sql);
            assertTrue(c.classify(sql).runsAsSchemaChange(), () -> sql + " (cached)");
        }
        for (String sql : new String[] {"UPDATE t SET a = 1", "DELETE FROM truncated", "SELECT 'TRUNCATE TABLE t' FROM t", "CREATE TABLE y (a INT)"}) {
            assertFalse(c.classify(sql).runsAsSchemaChange(), sql);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PRAGMA table_info(t)", "PRAGMA main.table_info('t')", "PRAGMA user_version", "PRAGMA foreign_keys",
        "PRAGMA integrity_check", "pragma index_list(t);"})
    void sqlitePragmasThatReadRunOnThePrimary(String sql) {
        Classification c = lite.classify(sql);
        assertEquals(StatementKind.READ, c.kind(), sql);
        assertFalse(c.pureRead(), sql + ": per-connection settings are read where the application's are set");
        assertNull(c.unsafeSchemaChange(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"PRAGMA foreign_keys = ON", "PRAGMA journal_mode=DELETE", "PRAGMA main.synchronous = 0",
        "PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA optimize", "ATTACH DATABASE 'x.db' AS x", "DETACH x", "VACUUM",
        "VACUUM INTO '/tmp/copy.db'", "CREATE VIRTUAL TABLE f USING fts5(body)", "-- note\nattach ':memory:' as m"})
    void sqliteStatementsMacroDbCannotReplicateAreRefused(String sql) {
        Classification c = lite.classify(sql);
        assertEquals(StatementKind.DDL, c.kind(), sql);
        assertNotNull(c.unsafeSchemaChange(), sql + " is refused when it runs");
    }

    @Test
    void sqliteStatementsOfItsOwnThatReplicate() {
        Classification version = lite.classify("PRAGMA user_version = 3");
        assertEquals(StatementKind.DDL, version.kind());
        assertNull(version.unsafeSchemaChange(), "the database header field runs on every replica");
        Classification trigger = lite.classify("CREATE TRIGGER a AFTER INSERT ON t BEGIN INSERT INTO l VALUES (1); DELETE FROM m; END");
        assertEquals(StatementKind.DDL, trigger.kind(), "a trigger body's statements are one statement");
        assertEquals(Classification.Verb.CREATE_TRIGGER, trigger.verb());
        assertTrue(lite.classify("CREATE TEMP TABLE s (a)").temporaryTable());
        assertEquals(Classification.Verb.BEGIN, lite.classify("BEGIN IMMEDIATE TRANSACTION").verb());
        assertEquals(Classification.Verb.COMMIT, lite.classify("END").verb());
        assertEquals(StatementKind.TRANSACTION, lite.classify("END TRANSACTION").kind());
        assertEquals(StatementKind.DDL, lite.classify("REINDEX").kind());
    }

    @ParameterizedTest
    @ValueSource(strings = {"CREATE TABLE c AS SELECT datetime('now') AS t", "CREATE TABLE c AS SELECT date() AS d",
        "CREATE TABLE c AS SELECT time('now', 'localtime') AS t", "CREATE TABLE c AS SELECT hex(randomblob(8)) AS r",
        "CREATE TABLE c AS SELECT strftime('%s', 'now') AS s", "CREATE TABLE c AS SELECT unixepoch() AS s"})
    void sqliteTimeAndRandomFunctionsMakeACreatedTableShipItsRows(String sql) {
        Classification c = lite.classify(sql);
        assertEquals(Classification.Verb.CREATES_FROM_QUERY, c.verb(), sql);
        assertNotNull(c.unsafeSchemaChange(), sql);
    }

    @Test
    void aTimeTypeWithPrecisionIsNotATimeFunction() {
        assertNull(h2.classify("CREATE TABLE c (t TIME(6), d DATE)").unsafeSchemaChange());
        assertNull(hs.classify("ALTER TABLE c ADD COLUMN t TIME(3) DEFAULT TIME '10:00:00'").unsafeSchemaChange());
    }
}
