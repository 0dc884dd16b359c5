package io.macrodb.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class SqlPropertiesTest {
    private static final SqlClassifier H2 = new SqlClassifier(Dialect.H2);
    private static final SqlClassifier HS = new SqlClassifier(Dialect.HSQLDB);

    // (1) never throws; pureRead implies READ
    @Property(tries = 500)
    void classifyNeverThrowsAndPureImpliesRead(@ForAll("sqlish") String sql) {
        for (SqlClassifier c : List.of(H2, HS)) {
            Classification r = c.classify(sql);
            assertNotNull(r);
            assertTrue(!r.pureRead() || r.kind() == StatementKind.READ, r::toString);
            assertTrue(r.pureRead() == (r.reason() == null), r::toString);
        }
    }

    @Property(tries = 300)
    void classifyNeverThrowsOnArbitraryStrings(@ForAll String sql) {
        Classification r = H2.classify(sql);
        assertTrue(!r.pureRead() || r.kind() == StatementKind.READ);
        r = HS.classify(sql);
        assertTrue(!r.pureRead() || r.kind() == StatementKind.READ);
    }

    @Provide
    Arbitrary<String> sqlish() {
        Arbitrary<String> tokens = Arbitraries.of("SELECT", "FROM", "t", "WHERE", "a", "=", "?", "(", ")", ",", ";",
                "'x'", "\"q\"", "--", "/*", "*/", "FOR", "UPDATE", "NEXT", "VALUE", "INSERT", "INTO", "VALUES", "WITH",
                "AS", "RAND()", "f(", "1", "UNION", "\n", "'", "\"", "EXPLAIN", "TABLE", "FINAL", "CALL", "SET");
        return tokens.list().ofMaxSize(25).map(l -> String.join(" ", l));
    }

    // (2) generated pure SELECTs become impure when a poison is added anywhere sensible

    @Provide
    Arbitrary<String> pureSelect() {
        Arbitrary<String> col = Arbitraries.of("a", "b", "t.a", "\"C\"", "1", "?", "'FOR UPDATE'", "'NEXT VALUE FOR s'");
        Arbitrary<String> fn = Arbitraries.of("ABS", "UPPER", "COALESCE", "LOWER", "ROUND", "LENGTH");
        Arbitrary<String> expr = Combinators.combine(col, fn, col, Arbitraries.integers().between(0, 3))
                .as((c1, f, c2, k) -> switch (k) {
                    case 0 -> c1;
                    case 1 -> f + "(" + c1 + ")";
                    case 2 -> "(" + c1 + " + " + c2 + ")";
                    default -> "CASE WHEN " + c1 + " = " + c2 + " THEN " + c1 + " ELSE " + c2 + " END";
                });
        Arbitrary<String> table = Arbitraries.of("t", "PUBLIC.t", "\"My T\"", "(SELECT a, b FROM u) t");
        Arbitrary<String> where = expr.map(e -> " WHERE " + e + " = 1").injectNull(0.3).map(w -> w == null ? "" : w);
        Arbitrary<String> select = Combinators.combine(expr.list().ofMinSize(1).ofMaxSize(3), table, where)
                .as((es, t, w) -> "SELECT " + String.join(", ", es) + " FROM " + t + w);
        return Combinators.combine(select, select, Arbitraries.integers().between(0, 3)).as((s1, s2, k) -> switch (k) {
            case 0 -> s1;
            case 1 -> s1 + " UNION " + s2;
            case 2 -> "WITH x AS (" + s2 + ") " + s1;
            default -> s1 + " ORDER BY 1";
        });
    }

    @Property(tries = 300)
    void generatedSelectsArePure(@ForAll("pureSelect") String sql) {
        assertTrue(H2.classify(sql).pureRead(), () -> sql + " -> " + H2.classify(sql));
        assertTrue(HS.classify(sql).pureRead(), () -> sql + " -> " + HS.classify(sql));
    }

    @Property(tries = 400)
    void poisonMakesItImpure(@ForAll("pureSelect") String sql,
                             @ForAll("poison") String poison,
                             @ForAll("position") int where) {
        String poisoned;
        if (poison.equals("FOR UPDATE")) {
            poisoned = sql + " FOR UPDATE";
        } else {
            // replace one occurrence of a column reference "a" or a literal 1 by the poison expression
            List<Integer> spots = new ArrayList<>();
            for (int i = sql.indexOf("SELECT "); i >= 0; i = sql.indexOf("SELECT ", i + 1)) {
                spots.add(i + "SELECT ".length());
            }
            int at = spots.get(where % spots.size());
            poisoned = sql.substring(0, at) + poison + ", " + sql.substring(at);
        }
        assertFalse(H2.classify(poisoned).pureRead(), poisoned);
        assertFalse(HS.classify(poisoned).pureRead(), poisoned);
    }

    @Provide
    Arbitrary<String> poison() {
        return Arbitraries.of("FOR UPDATE", "NEXT VALUE FOR s", "NEXT VALUE FOR PUBLIC.s", "s.NEXTVAL", "NEXTVAL('s')",
                "my_func(a)", "PUBLIC.f(1)", "\"udf\"(a)", "IDENTITY()", "SESSION_ID()", "ABS(my_func(1))",
                "(SELECT NEXT VALUE FOR s)", "CURRENT VALUE FOR s", "LASTVAL()", "TRANSACTION_ID()");
    }

    @Provide
    Arbitrary<Integer> position() {
        return Arbitraries.integers().between(0, 10);
    }

    // (3) the rewriter keeps the caller's parameters, in order
    @Property(tries = 300)
    void rewritePreservesParameterOrder(@ForAll("insertOrUpdate") String sql) throws SQLException {
        long original = params(sql);
        for (Dialect d : Dialect.values()) {
            Rewrite r;
            try {
                r = new StatementRewriter(d).rewrite(sql);
            } catch (SQLException e) {
                assertEquals("0AM01", e.getSQLState());
                continue;
            }
            assertEquals(params(r.sql()), r.slots().size(), r.sql());
            List<Integer> params = r.slots().stream().filter(s -> s instanceof Slot.Param)
                    .map(s -> ((Slot.Param) s).originalIndex()).toList();
            List<Integer> expected = new ArrayList<>();
            for (int i = 1; i <= original; i++) {
                expected.add(i);
            }
            assertEquals(expected, params, sql + " -> " + r.sql());
        }
    }

    private static long params(String sql) {
        return SqlLexer.lex(sql).tokens().stream().filter(t -> t.type() == SqlLexer.Type.PARAM).count();
    }

    @Provide
    Arbitrary<String> insertOrUpdate() {
        Arbitrary<String> val = Arbitraries.of("?", "?", "1", "'?'", "CURRENT_TIMESTAMP", "NOW()", "RAND()",
                "NEXT VALUE FOR s", "LOCALTIMESTAMP", "UPPER(?)", "? + 1", "CURRENT_DATE", "'x'");
        Arbitrary<String> row = val.list().ofSize(3).map(l -> "(" + String.join(", ", l) + ")");
        Arbitrary<String> insert = row.list().ofMinSize(1).ofMaxSize(3)
                .map(rows -> "INSERT INTO t(a, b, c) VALUES " + String.join(", ", rows));
        Arbitrary<String> update = val.list().ofSize(3)
                .map(l -> "UPDATE t SET a = " + l.get(0) + ", b = " + l.get(1) + " WHERE c = " + l.get(2));
        return Arbitraries.oneOf(insert, update);
    }
}
