package io.macrodb.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StatementRewriterTest {
    private static final AtomicInteger DB = new AtomicInteger();

    private static Slot p(int i) {
        return new Slot.Param(i);
    }

    private static Slot e(String x) {
        return new Slot.Evaluate(x);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void timeFunctionsReplacedAnywhereInOrder(Dialect d) throws SQLException {
        StatementRewriter rw = new StatementRewriter(d);
        Rewrite r = rw.rewrite("INSERT INTO t VALUES (?, CURRENT_TIMESTAMP, ?)");
        assertEquals(List.of(p(1), e("CURRENT_TIMESTAMP"), p(2)), r.slots());
        assertEquals("INSERT INTO t VALUES (?, CAST(? AS TIMESTAMP WITH TIME ZONE), ?)", r.sql());
        assertEquals(new InsertShape("T", List.of(), 1, false), r.insert());

        r = rw.rewrite("update t set ts = localtimestamp, d = current_date where id = ? and ts < now()");
        assertEquals(List.of(e("localtimestamp"), e("current_date"), p(1), e("now()")), r.slots());
        assertNull(r.insert());

        r = rw.rewrite("INSERT INTO t(id, ts) SELECT id + ?, CURRENT_TIMESTAMP(3) FROM u WHERE x < LOCALTIME");
        assertEquals(List.of(p(1), e("CURRENT_TIMESTAMP(3)"), e("LOCALTIME")), r.slots());
        assertTrue(r.sql().contains("CAST(? AS TIMESTAMP(3) WITH TIME ZONE)"), r.sql());
        assertEquals(new InsertShape("T", List.of("ID", "TS"), 0, true), r.insert());

        r = rw.rewrite("DELETE FROM t WHERE ts < CURRENT_TIMESTAMP AND s = 'CURRENT_TIMESTAMP' -- NOW()");
        assertEquals(List.of(e("CURRENT_TIMESTAMP")), r.slots());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void randomAndSequencesOnlyInsideInsertValues(Dialect d) throws SQLException {
        StatementRewriter rw = new StatementRewriter(d);
        String uuid = d == Dialect.H2 ? "RANDOM_UUID()" : "UUID()";
        Rewrite r = rw.rewrite("INSERT INTO t (id, r, u) VALUES (NEXT VALUE FOR PUBLIC.S, RAND(), " + uuid + "), (?, RAND() * 10, ?)");
        assertEquals(List.of(e("NEXT VALUE FOR PUBLIC.S"), e("RAND()"), e(uuid), p(1), e("RAND()"), p(2)), r.slots());
        assertEquals("INSERT INTO t (id, r, u) VALUES (?, ?, ?), (?, CAST(? AS DOUBLE PRECISION) * 10, ?)", r.sql());
        assertEquals(new InsertShape("T", List.of("ID", "R", "U"), 2, false), r.insert());

        for (String bad : List.of(
                "UPDATE t SET r = RAND()",
                "UPDATE t SET n = NEXT VALUE FOR s WHERE id = ?",
                "DELETE FROM t WHERE r < RAND()",
                "INSERT INTO t(id, r) SELECT id, RAND() FROM u",
                "INSERT INTO t(id) SELECT NEXT VALUE FOR s FROM u",
                "INSERT INTO t(id, r) VALUES (1, (SELECT MAX(RAND()) FROM u))",
                "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN UPDATE SET r = RAND()",
                "UPDATE t SET u = " + uuid,
                "UPDATE t SET n = NEXTVAL('s')",
                "UPDATE t SET n = s.NEXTVAL")) {
            SQLException ex = assertThrows(SQLException.class, () -> rw.rewrite(bad), bad);
            assertEquals("0AM01", ex.getSQLState(), bad);
            assertTrue(ex.getMessage().contains("use propagation=row"), ex.getMessage());
        }
        SQLException ex = assertThrows(SQLException.class, () -> rw.rewrite("UPDATE t SET r = RAND() WHERE id = 1"));
        assertTrue(ex.getMessage().contains("RAND"), ex.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void limitsWithoutOrderAndUnknownFunctionsRefused(Dialect d) throws SQLException {
        StatementRewriter rw = new StatementRewriter(d);
        for (String bad : List.of(
                "DELETE FROM t LIMIT 10",
                "UPDATE t SET a = 1 LIMIT 5",
                "DELETE FROM t WHERE id IN (SELECT id FROM t FETCH FIRST 3 ROWS ONLY)",
                "UPDATE t SET a = my_func(a)",
                "INSERT INTO t VALUES (PUBLIC.f(1))",
                "INSERT INTO t VALUES (TRANSACTION_ID())",
                "UPDATE t SET a = @x",
                "UPDATE t SET a = RAND() WHERE 'unterminated",
                "MERGE INTO t KEY(id) VALUES (1, RAND())",
                "INSERT INTO t VALUES (1); UPDATE t SET ts = NOW()")) {
            SQLException ex = assertThrows(SQLException.class, () -> rw.rewrite(bad), bad);
            assertEquals("0AM01", ex.getSQLState(), bad);
        }
        Rewrite r = rw.rewrite("DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id FETCH FIRST 3 ROWS ONLY)");
        assertEquals(List.of(), r.slots());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void unchangedStatements(Dialect d) throws SQLException {
        StatementRewriter rw = new StatementRewriter(d);
        for (String sql : List.of("SELECT RAND(), ? FROM t WHERE a = ?", "CREATE TABLE x(id INT DEFAULT 1, ts TIMESTAMP)",
                "UPDATE t SET s = UPPER(s) WHERE id = ? AND s <> ?", "INSERT INTO \"Quoted\".\"T\" (\"Id\", b) VALUES (?, 'NOW()')",
                "MERGE INTO t KEY(id) VALUES (?, ?)")) {
            Rewrite r = rw.rewrite(sql);
            assertSame(sql, r.sql());
            List<Slot> expected = new ArrayList<>();
            for (int i = 1; i <= sql.chars().filter(c -> c == '?').count(); i++) {
                expected.add(p(i));
            }
            assertEquals(expected, r.slots(), sql);
        }
        assertEquals(new InsertShape("Quoted.T", List.of("Id", "B"), 1, false),
                rw.rewrite("INSERT INTO \"Quoted\".\"T\" (\"Id\", b) VALUES (?, 'NOW()')").insert());
        assertEquals(new InsertShape("T", List.of(), 1, false), rw.rewrite("INSERT INTO t DEFAULT VALUES").insert());
        assertThrows(SQLException.class, () -> rw.rewrite(null));
    }

    @Test
    void h2CompatibilityWordsAreAmbiguous() {
        StatementRewriter rw = new StatementRewriter(Dialect.H2);
        assertThrows(SQLException.class, () -> rw.rewrite("UPDATE t SET d = SYSDATE"));
    }

    // ------------------------------------------------------------------ real engines

    private static Connection open(Dialect d) throws SQLException {
        int n = DB.incrementAndGet();
        Connection c = d == Dialect.H2 ? DriverManager.getConnection("jdbc:h2:mem:rw" + n)
                : DriverManager.getConnection("jdbc:hsqldb:mem:rw" + n, "SA", "");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SEQUENCE S START WITH 100");
            s.execute("CREATE TABLE T(ID BIGINT PRIMARY KEY, TS TIMESTAMP, TSTZ TIMESTAMP WITH TIME ZONE, D DATE, "
                    + "R DOUBLE PRECISION, U UUID, S VARCHAR(100), N BIGINT)");
            s.execute("CREATE TABLE U(ID BIGINT PRIMARY KEY, X INT)");
            for (int i = 1; i <= 5; i++) {
                s.execute("INSERT INTO U VALUES (" + i + ", " + (i * 10) + ")");
                s.execute("INSERT INTO T(ID, S, N) VALUES (" + (1000 + i) + ", 'row" + i + "', " + i + ")");
            }
        }
        return c;
    }

    private static Object evaluate(Connection c, Dialect d, String expr) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(d == Dialect.H2 ? "SELECT " + expr : "VALUES(" + expr + ")")) {
            rs.next();
            return rs.getObject(1);
        }
    }

    private static int execute(Connection c, String sql, List<Object> values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.size(); i++) {
                ps.setObject(i + 1, values.get(i));
            }
            return ps.executeUpdate();
        }
    }

    private static String dump(Connection c) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM T ORDER BY ID")) {
            int cols = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= cols; i++) {
                    sb.append(rs.getString(i)).append('|');
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    /** Rewrites, evaluates on the primary, replays on both; returns the primary's table dump. */
    private static String replicate(Dialect d, Connection primary, Connection replica, String sql, Object... params)
            throws SQLException {
        Rewrite r = new StatementRewriter(d).rewrite(sql);
        assertEquals(r.sql().chars().filter(ch -> ch == '?').count(), r.slots().size(), r.sql());
        List<Object> values = new ArrayList<>();
        for (Slot s : r.slots()) {
            values.add(s instanceof Slot.Param p ? params[p.originalIndex() - 1]
                    : evaluate(primary, d, ((Slot.Evaluate) s).expression()));
        }
        int n1 = execute(primary, r.sql(), values);
        int n2 = execute(replica, r.sql(), values);
        assertEquals(n1, n2, sql);
        String a = dump(primary);
        assertEquals(a, dump(replica), sql + " -> " + r.sql());
        return a;
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void rewrittenStatementsExecuteAndReplicasAgree(Dialect d) throws Exception {
        String uuid = d == Dialect.H2 ? "RANDOM_UUID()" : "UUID()";
        try (Connection primary = open(d); Connection replica = open(d)) {
            long before = System.currentTimeMillis();
            replicate(d, primary, replica,
                    "INSERT INTO T(ID, TS, TSTZ, D, R, U, S, N) VALUES (?, LOCALTIMESTAMP, CURRENT_TIMESTAMP, CURRENT_DATE, RAND(), "
                            + uuid + ", ?, NEXT VALUE FOR S)", 1L, "a");
            replicate(d, primary, replica,
                    "INSERT INTO T(ID, R, S, N) VALUES (NEXT VALUE FOR S, RAND() * 10, 'b' || ?, 7), (?, RAND() + 1, 'c', NEXT VALUE FOR S)",
                    "x", 3L);
            replicate(d, primary, replica, "UPDATE T SET TS = LOCALTIMESTAMP, S = S || 'u' WHERE ID = ? AND TS < NOW()", 1L);
            replicate(d, primary, replica,
                    "UPDATE T SET TSTZ = CURRENT_TIMESTAMP(3), D = CURRENT_DATE WHERE TS IS NULL AND N < ?", 5L);
            replicate(d, primary, replica,
                    "INSERT INTO T(ID, TS, S) SELECT ID + 2000, LOCALTIMESTAMP, 'copy' FROM U WHERE X > ? ORDER BY ID", 20);
            replicate(d, primary, replica, "DELETE FROM T WHERE TS < LOCALTIMESTAMP AND ID > ?", 3000L);
            String last = replicate(d, primary, replica, "UPDATE T SET S = CURRENT_USER WHERE ID = ?", 1001L);
            long after = System.currentTimeMillis();
            assertTrue(last.contains("SA|") || last.contains("|"), last);
            // semantics the original would give: timestamp within the statement window, RAND in [0, 1)
            try (Statement s = primary.createStatement();
                 ResultSet rs = s.executeQuery("SELECT TS, TSTZ, R, U, N FROM T WHERE ID = 1")) {
                assertTrue(rs.next());
                long ts = rs.getTimestamp(1).getTime();
                assertTrue(ts >= before - 1000 && ts <= after + 1000, "ts " + ts);
                double r = rs.getDouble(3);
                assertTrue(r >= 0 && r < 1, "rand " + r);
                assertTrue(rs.getObject(4) != null);
                assertEquals(100L, rs.getLong(5));
            }
            // the replica never advanced its own sequence (the caller must ship sequence state separately)
            assertNotEquals(evaluate(primary, d, "NEXT VALUE FOR S"), evaluate(replica, d, "NEXT VALUE FOR S"));
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void unchangedDeterministicStatementsGiveSameResultAsOriginal(Dialect d) throws Exception {
        try (Connection a = open(d); Connection b = open(d)) {
            String[] stmts = {"UPDATE T SET S = UPPER(S) || ? WHERE N > ?", "DELETE FROM T WHERE N = ?",
                "INSERT INTO T(ID, S) SELECT ID, CAST(X AS VARCHAR(10)) FROM U WHERE X > ?"};
            Object[][] params = {{"!", 2}, {4}, {25}};
            for (int i = 0; i < stmts.length; i++) {
                Rewrite r = new StatementRewriter(d).rewrite(stmts[i]);
                assertEquals(stmts[i], r.sql());
                execute(a, stmts[i], List.of(params[i]));
                List<Object> vals = new ArrayList<>();
                for (Slot s : r.slots()) {
                    vals.add(params[i][((Slot.Param) s).originalIndex() - 1]);
                }
                execute(b, r.sql(), vals);
            }
            assertEquals(dump(a), dump(b));
        }
    }
}
