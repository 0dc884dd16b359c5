package io.macrodb.sql;

import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.macrodb.sql.SqlLexer.Lexed;
import io.macrodb.sql.SqlLexer.Token;
import io.macrodb.sql.SqlLexer.Type;

/**
 * Makes a data-change statement deterministic for statement-mode replication by replacing each
 * non-deterministic expression with a '?' whose value the caller evaluates once on the primary.
 *
 * <p>Works by splicing the original text at token positions (see {@link SqlLexer}); JSqlParser is used only
 * as a gate (a statement it cannot parse is never rewritten). Placeholders for time values and for
 * values nested inside expressions are wrapped in a CAST to the type the engine gives the original
 * expression, so that engines which need a typed parameter (HSQLDB) accept the rewritten text.
 *
 * <p>Thread-safe.
 */
public final class StatementRewriter {
    private static final String ROW_HINT = "; use propagation=row";

    private final Dialect dialect;
    private final SqlClassifier classifier;

    public StatementRewriter(Dialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.classifier = new SqlClassifier(dialect);
    }

    /**
     * Rewrites a WRITE statement so that replaying it on another replica gives the same result.
     *
     * @param sql the statement, possibly with '?' parameters
     * @throws SQLException SQLState "0AM01" ({@link SqlState#STATEMENT_NOT_REPLICABLE}) when the statement cannot be made deterministic
     */
    public Rewrite rewrite(String sql) throws SQLException {
        if (sql == null) {
            throw new SQLException("SQL is null", SqlState.INVALID_USE_OF_NULL.getState());
        }
        Lexed lx = SqlLexer.lex(sql);
        if (lx.error() != null) {
            refuseIfNonDeterministicName(lx.tokens(), "statement cannot be tokenised (" + lx.error() + ")");
            return unchanged(sql, lx.tokens(), null);
        }
        List<List<Token>> stmts = SqlLexer.splitStatements(lx.tokens());
        if (stmts.size() != 1) {
            refuseIfNonDeterministicName(lx.tokens(), "multiple statements");
            return unchanged(sql, lx.tokens(), null);
        }
        List<Token> ts = stmts.get(0);
        Classification c = classifier.classify(sql);
        if (c.kind() != StatementKind.WRITE) {
            return unchanged(sql, ts, null);
        }
        int first = SqlClassifier.firstWordIndex(ts);
        InsertShape shape = null;
        Rows rows = Rows.NONE;
        if (first >= 0 && Set.of("INSERT", "REPLACE", "UPSERT").contains(ts.get(first).norm())) {
            rows = findRows(ts, first);
            shape = rows.shape;
        }
        String text = sql.substring(ts.get(0).start(), ts.get(ts.size() - 1).end());
        if (JSqlParsing.parseOrNull(text) == null) {
            refuseIfNonDeterministicName(ts, "statement cannot be parsed");
            return unchanged(sql, ts, shape);
        }
        return splice(sql, ts, rows, shape);
    }

    // ------------------------------------------------------------------ INSERT shape

    /** Token range [from, to) of the VALUES rows of an INSERT, and the shape. */
    private record Rows(int from, int to, InsertShape shape) {
        static final Rows NONE = new Rows(-1, -1, null);

        boolean contains(int i) {
            return i >= from && i < to;
        }
    }

    private static Rows findRows(List<Token> ts, int insertIdx) {
        int k = insertIdx + 1;
        while (k < ts.size() && ts.get(k).type() == Type.WORD && !ts.get(k).isWord("INTO")
                && Set.of("IGNORE", "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY").contains(ts.get(k).norm())) {
            k++;
        }
        if (k < ts.size() && ts.get(k).isWord("INTO")) {
            k++;
        }
        StringBuilder table = new StringBuilder();
        int afterName = SqlLexer.readQualifiedName(ts, k, table);
        if (afterName == k) {
            return Rows.NONE;
        }
        k = afterName;
        List<String> columns = new ArrayList<>();
        if (k < ts.size() && ts.get(k).isSymbol('(') && !isQueryStart(ts, k + 1)) {
            int close = ts.get(k).match();
            for (int j = k + 1; j < close; j++) {
                Token t = ts.get(j);
                if (t.isName() && !(j + 1 < close && ts.get(j + 1).isSymbol('.'))) {
                    columns.add(SqlLexer.normName(t));
                }
            }
            k = close + 1;
        }
        int depth = ts.get(insertIdx).depth();
        // skip modifiers (H2 DIRECT, SORTED, OVERRIDING ... VALUE, KEY (...) for MERGE-like syntax)
        while (k < ts.size()) {
            Token t = ts.get(k);
            if (t.type() == Type.WORD && Set.of("DIRECT", "SORTED", "OVERRIDING", "SYSTEM", "USER").contains(t.norm())) {
                k++;
            } else if (t.isWord("VALUE") && k > 0 && (ts.get(k - 1).isWord("SYSTEM") || ts.get(k - 1).isWord("USER"))) {
                k++;
            } else {
                break;
            }
        }
        if (k >= ts.size()) {
            return new Rows(-1, -1, new InsertShape(table.toString(), columns, 0, false));
        }
        Token t = ts.get(k);
        if (t.isWord("DEFAULT") && k + 1 < ts.size() && ts.get(k + 1).isWord("VALUES")) {
            return new Rows(-1, -1, new InsertShape(table.toString(), columns, 1, false));
        }
        if (t.isWord("VALUES") || t.isWord("VALUE")) {
            int from = k + 1;
            int rowsCount = 0;
            boolean expectRow = true;
            int j = from;
            for (; j < ts.size(); j++) {
                Token x = ts.get(j);
                if (x.depth() != depth) {
                    continue;
                }
                if (x.isSymbol(',')) {
                    expectRow = true;
                    continue;
                }
                if (x.type() == Type.WORD && !expectRow) {
                    break; // ON DUPLICATE KEY ..., RETURNING ...
                }
                if (expectRow) {
                    rowsCount++;
                    expectRow = false;
                }
                if (x.isSymbol('(')) {
                    j = x.match();
                }
            }
            return new Rows(from, j, new InsertShape(table.toString(), columns, rowsCount, false));
        }
        boolean query = isQueryStart(ts, k);
        return new Rows(-1, -1, new InsertShape(table.toString(), columns, 0, query));
    }

    private static boolean isQueryStart(List<Token> ts, int k) {
        while (k < ts.size() && ts.get(k).isSymbol('(')) {
            k++;
        }
        return k < ts.size() && ts.get(k).type() == Type.WORD
                && Set.of("SELECT", "WITH", "TABLE", "VALUES").contains(ts.get(k).norm());
    }

    // ------------------------------------------------------------------ splicing

    private enum Category { TIME, RANDOM, IDENTITY, SESSION }

    private Rewrite splice(String sql, List<Token> ts, Rows rows, InsertShape shape) throws SQLException {
        int n = ts.size();
        // enclosing '(' for each token, and whether it opens a subquery
        int[] enclosing = new int[n];
        boolean[] subqueryParen = new boolean[n];
        int[] stack = new int[n + 1];
        int sp = 0;
        for (int i = 0; i < n; i++) {
            Token t = ts.get(i);
            if (t.isSymbol(')')) {
                sp = Math.max(0, sp - 1);
            }
            enclosing[i] = sp == 0 ? -1 : stack[sp - 1];
            if (t.isSymbol('(')) {
                subqueryParen[i] = isQueryStart(ts, i + 1);
                stack[sp++] = i;
            }
        }
        boolean hasSequenceNext = false;
        for (int i = 0; i < n; i++) {
            if (isNextValueFor(ts, i) || ts.get(i).isWord("NEXTVAL")) {
                hasSequenceNext = true;
            }
        }
        checkLimits(ts, enclosing);

        StringBuilder out = new StringBuilder(sql.length() + 16);
        List<Slot> slots = new ArrayList<>();
        int copied = 0;
        int param = 0;
        for (int i = 0; i < n; i++) {
            Token t = ts.get(i);
            if (t.type() == Type.PARAM) {
                slots.add(new Slot.Param(++param));
                continue;
            }
            if (t.isSymbol('@')) {
                throw refuse("session variable reference (@...) is not replicated" + ROW_HINT);
            }
            if (t.type() == Type.QUOTED && next(ts, i).isSymbol('(') && !isNotACall(ts, i)) {
                throw refuse("function " + t.text() + " is not known to be deterministic" + ROW_HINT);
            }
            if (t.type() != Type.WORD) {
                continue;
            }
            String w = t.norm();
            boolean qualified = i > 0 && ts.get(i - 1).isSymbol('.');
            boolean qualifier = next(ts, i).isSymbol('.');
            boolean call = next(ts, i).isSymbol('(');

            int spanStart = -1;
            int spanEnd = -1; // inclusive token indexes
            Category cat = null;
            String castType = null;

            if (!qualified && (w.equals("NEXT") || w.equals("CURRENT")) && isNextValueFor(ts, i)) {
                StringBuilder seq = new StringBuilder();
                int end = SqlLexer.readQualifiedName(ts, i + 3, seq);
                if (end == i + 3) {
                    throw refuse(w + " VALUE FOR without sequence name" + ROW_HINT);
                }
                spanStart = i;
                spanEnd = end - 1;
                cat = w.equals("NEXT") ? Category.RANDOM : Category.IDENTITY;
                castType = "BIGINT";
            } else if ((w.equals("NEXTVAL") || w.equals("CURRVAL")) && qualified) {
                // H2 / Oracle style seq.NEXTVAL
                int s = i;
                while (s - 2 >= 0 && ts.get(s - 1).isSymbol('.') && ts.get(s - 2).isName()) {
                    s -= 2;
                }
                spanStart = s;
                spanEnd = i;
                cat = w.equals("NEXTVAL") ? Category.RANDOM : Category.IDENTITY;
                castType = "BIGINT";
            } else if (qualifier || qualified) {
                if (call && qualified && !isNotACall(ts, i)) { // INTO s.t (columns) is no call
                    throw refuse("schema-qualified function " + w + " is not known to be deterministic" + ROW_HINT);
                }
                continue;
            } else if (call && isNotACall(ts, i)) {
                continue;
            } else if (SqlFunctions.TIME_FUNCTIONS.contains(w) && (call || SqlFunctions.BARE_TIME_WORDS.contains(w))) {
                String type = timeType(w, call ? ts.subList(i + 2, ts.get(i + 1).match()) : List.of());
                if (type == null) {
                    if (dialect == Dialect.H2) {
                        throw refuse(w + " is a time function in some H2 compatibility modes and a column name in"
                                + " others" + ROW_HINT);
                    }
                    continue; // not a function in this dialect (HSQLDB SYSTIMESTAMP is an identifier)
                }
                spanStart = i;
                spanEnd = call ? ts.get(i + 1).match() : i;
                cat = Category.TIME;
                castType = type;
            } else if (call && SqlFunctions.RANDOM_FUNCTIONS.contains(w)) {
                boolean noArgs = ts.get(i + 1).match() == i + 2;
                if (w.equals("UUID") && dialect == Dialect.HSQLDB && !noArgs) {
                    continue; // HSQLDB UUID(string) is a deterministic conversion
                }
                spanStart = i;
                spanEnd = ts.get(i + 1).match();
                cat = Category.RANDOM;
                castType = switch (w) {
                    case "RAND", "RANDOM" -> "DOUBLE PRECISION";
                    case "RANDOM_UUID", "UUID", "GEN_RANDOM_UUID", "NEWID", "SYS_GUID" -> "UUID";
                    default -> null;
                };
            } else if (w.equals("NEXTVAL") || w.equals("CURRVAL") || (call && SqlFunctions.IDENTITY_FUNCTIONS.contains(w))) {
                if (!call) {
                    throw refuse(w + " accesses a sequence" + ROW_HINT);
                }
                spanStart = i;
                spanEnd = ts.get(i + 1).match();
                cat = w.equals("NEXTVAL") ? Category.RANDOM : Category.IDENTITY;
                castType = "BIGINT";
            } else if ((call && SqlFunctions.SESSION_CONSTANT_FUNCTIONS.contains(w))
                    || (!call && SqlFunctions.SESSION_WORDS.contains(w))) {
                spanStart = i;
                spanEnd = call ? ts.get(i + 1).match() : i;
                cat = Category.SESSION;
                castType = w.equals("SESSION_ID") ? "BIGINT" : "VARCHAR(32768)";
            } else if (call) {
                if (SqlFunctions.SESSION_FUNCTIONS.contains(w)) {
                    throw refuse("function " + w + " depends on session or server state" + ROW_HINT);
                }
                if (!deterministicBuiltin(ts, i, w)) {
                    throw refuse("function " + w + " is not known to be deterministic" + ROW_HINT);
                }
                continue;
            } else {
                continue;
            }

            // a replaceable expression [spanStart, spanEnd]
            for (int j = spanStart; j <= spanEnd; j++) {
                if (ts.get(j).type() == Type.PARAM) {
                    throw refuse("parameter inside non-deterministic expression " + w + ROW_HINT);
                }
            }
            boolean inRows = rows.contains(spanStart) && !insideSubquery(spanStart, enclosing, subqueryParen);
            if (cat == Category.RANDOM && !inRows) {
                throw refuse("non-deterministic function " + w + " may be evaluated per row here" + ROW_HINT);
            }
            if (cat == Category.IDENTITY && (!inRows || shape.valuesRows() != 1 || hasSequenceNext)) {
                throw refuse(w + " depends on values generated while the statement runs" + ROW_HINT);
            }
            String expr = sql.substring(ts.get(spanStart).start(), ts.get(spanEnd).end());
            boolean wholeItem = inRows && wholeRowItem(ts, spanStart, spanEnd, rows);
            String placeholder = (castType == null || (wholeItem && cat != Category.TIME))
                    ? "?" : "CAST(? AS " + castType + ")";
            out.append(sql, copied, ts.get(spanStart).start()).append(placeholder);
            copied = ts.get(spanEnd).end();
            slots.add(new Slot.Evaluate(expr));
            i = spanEnd;
        }
        if (slots.stream().noneMatch(s -> s instanceof Slot.Evaluate)) {
            return new Rewrite(sql, slots, shape);
        }
        out.append(sql, copied, sql.length());
        return new Rewrite(out.toString(), slots, shape);
    }

    private boolean deterministicBuiltin(List<Token> ts, int i, String w) {
        if (SqlFunctions.SYNTAX_BEFORE_PAREN.contains(w) || SqlFunctions.DML_SYNTAX_BEFORE_PAREN.contains(w)) {
            return true;
        }
        if (SqlFunctions.TIME_FUNCTIONS.contains(w) || SqlFunctions.RANDOM_FUNCTIONS.contains(w)) {
            return false; // handled by the caller; reaching here means "not usable"
        }
        boolean builtin = SqlFunctions.PURE_COMMON.contains(w)
                && !(dialect == Dialect.HSQLDB ? SqlFunctions.NOT_IN_HSQLDB : SqlFunctions.NOT_IN_H2).contains(w);
        if (builtin) {
            return true;
        }
        Token prev = i > 0 ? ts.get(i - 1) : null;
        if (SqlFunctions.TYPE_WORDS.contains(w) && prev != null && (prev.isSymbol(',') || (prev.type() == Type.WORD
                && Set.of("CHARACTER", "CHAR", "BINARY", "NATIONAL", "LARGE", "NCHAR").contains(prev.norm())))) {
            return true;
        }
        return SqlFunctions.TABLE_FUNCTIONS.contains(w) && (w.equals("UNNEST") || dialect == Dialect.H2)
                && prev != null && (prev.isSymbol(',') || prev.isWord("FROM") || prev.isWord("JOIN")
                || prev.isWord("LATERAL"));
    }

    /** name( that is not a function call: alias/CTE column list, or the target table's column list. */
    private static boolean isNotACall(List<Token> ts, int i) {
        if (SqlClassifier.isAliasOrCteColumnList(ts, i, 0, ts.size())) {
            return true;
        }
        // MERGE ... WHEN NOT MATCHED THEN INSERT (columns)
        if (ts.get(i).isWord("INSERT") && i > 0 && ts.get(i - 1).isWord("THEN")) {
            return true;
        }
        // walk back over a dotted name: INTO s.t( / MERGE INTO t( / REPLACE INTO t(
        int s = i;
        while (s - 2 >= 0 && ts.get(s - 1).isSymbol('.') && ts.get(s - 2).isName()) {
            s -= 2;
        }
        return s > 0 && (ts.get(s - 1).isWord("INTO") || ts.get(s - 1).isWord("TABLE"));
    }

    private static boolean isNextValueFor(List<Token> ts, int i) {
        return i + 3 < ts.size() && (ts.get(i).isWord("NEXT") || ts.get(i).isWord("CURRENT"))
                && ts.get(i + 1).isWord("VALUE") && ts.get(i + 2).isWord("FOR");
    }

    private static Token next(List<Token> ts, int i) {
        return i + 1 < ts.size() ? ts.get(i + 1) : new Token(Type.SYMBOL, "", "", -1, -1, 0, -1);
    }

    private static boolean insideSubquery(int i, int[] enclosing, boolean[] subqueryParen) {
        for (int p = enclosing[i]; p >= 0; p = enclosing[p]) {
            if (subqueryParen[p]) {
                return true;
            }
        }
        return false;
    }

    /** True if [s, e] is a complete item of a VALUES row: directly inside the row's parentheses. */
    private static boolean wholeRowItem(List<Token> ts, int s, int e, Rows rows) {
        if (s - 1 < rows.from() || e + 1 >= rows.to()) {
            return false;
        }
        int rowDepth = ts.get(rows.from() - 1).depth() + 1;
        Token before = ts.get(s - 1);
        Token after = ts.get(e + 1);
        boolean okBefore = (before.isSymbol('(') && before.depth() == rowDepth - 1)
                || (before.isSymbol(',') && before.depth() == rowDepth);
        boolean okAfter = (after.isSymbol(')') && after.depth() == rowDepth - 1)
                || (after.isSymbol(',') && after.depth() == rowDepth);
        return okBefore && okAfter && ts.get(s).depth() == rowDepth;
    }

    /** Type of the value a time function returns in this dialect, or null when it is not a function here. */
    private String timeType(String w, List<Token> args) throws SQLException {
        String p = "";
        if (!args.isEmpty()) {
            if (args.size() == 1 && args.get(0).type() == Type.NUMBER && args.get(0).text().matches("\\d")) {
                p = "(" + args.get(0).text() + ")";
            } else {
                throw refuse("unsupported arguments to " + w + ROW_HINT);
            }
        }
        boolean h2 = dialect == Dialect.H2;
        return switch (w) {
            case "CURRENT_TIMESTAMP" -> "TIMESTAMP" + p + " WITH TIME ZONE";
            case "CURRENT_TIME" -> "TIME" + p + " WITH TIME ZONE";
            case "LOCALTIMESTAMP", "NOW" -> "TIMESTAMP" + p;
            case "LOCALTIME", "CURTIME" -> "TIME" + p;
            case "CURRENT_DATE", "CURDATE" -> "DATE";
            case "SYSDATE" -> h2 ? null : "TIMESTAMP(0)";
            case "TODAY" -> h2 ? null : "DATE";
            default -> null; // SYSTIMESTAMP: not a built-in of HSQLDB; H2 handled by the caller
        };
    }

    /** UPDATE/DELETE/INSERT-SELECT row limits without ORDER BY in the same query block pick arbitrary rows. */
    private static void checkLimits(List<Token> ts, int[] enclosing) throws SQLException {
        for (int i = 0; i < ts.size(); i++) {
            Token t = ts.get(i);
            if (t.type() != Type.WORD || (i > 0 && ts.get(i - 1).isSymbol('.')) || next(ts, i).isSymbol('.')) {
                continue;
            }
            String w = t.norm();
            if (w.equals("ROWNUM")) {
                throw refuse("ROWNUM depends on row order" + ROW_HINT);
            }
            boolean limit = w.equals("LIMIT") || w.equals("TOP") || w.equals("OFFSET")
                    || (w.equals("FETCH") && (next(ts, i).isWord("FIRST") || next(ts, i).isWord("NEXT")));
            if (!limit) {
                continue;
            }
            boolean ordered = false;
            for (int j = 0; j + 1 < ts.size(); j++) {
                if (enclosing[j] == enclosing[i] && ts.get(j).isWord("ORDER") && ts.get(j + 1).isWord("BY")) {
                    ordered = true;
                    break;
                }
            }
            if (!ordered) {
                throw refuse(w + " without ORDER BY affects an arbitrary set of rows" + ROW_HINT);
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private void refuseIfNonDeterministicName(List<Token> tokens, String why) throws SQLException {
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.type() == Type.WORD && SqlFunctions.isNonDeterministicName(t.norm())) {
                throw new Unparsed(MESSAGE_PREFIX + why + " and contains non-deterministic function " + t.norm() + ROW_HINT);
            }
            if (t.type() == Type.WORD && t.norm().equals("NEXT") && isNextValueFor(tokens, i)) {
                throw new Unparsed(MESSAGE_PREFIX + why + " and contains NEXT VALUE FOR" + ROW_HINT);
            }
        }
    }

    private static Rewrite unchanged(String sql, List<Token> tokens, InsertShape shape) {
        List<Slot> slots = new ArrayList<>();
        int p = 0;
        for (Token t : tokens) {
            if (t.type() == Type.PARAM) {
                slots.add(new Slot.Param(++p));
            }
        }
        return new Rewrite(sql, slots, shape);
    }

    private static final String MESSAGE_PREFIX = "statement-mode replication impossible: ";

    private static SQLException refuse(String message) {
        return new SQLFeatureNotSupportedException(MESSAGE_PREFIX + message, SqlState.STATEMENT_NOT_REPLICABLE.getState());
    }

    /**
     * A refusal (0AM01) of a statement the rewriter could not tokenise or parse: it may be a plain
     * syntax error, which the engine should report in its own words.
     */
    public static final class Unparsed extends SQLFeatureNotSupportedException {
        Unparsed(String message) {
            super(message, SqlState.STATEMENT_NOT_REPLICABLE.getState());
        }
    }
}
