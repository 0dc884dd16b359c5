package io.macrodb.sql;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Finds column definitions whose value every replica computes for itself: a generated column's
 * expression ({@code GENERATED ALWAYS AS (...)}, H2's {@code AS (...)}) and H2's {@code ON UPDATE}
 * expression. Such an expression that calls a random, time or sequence function gives each replica
 * a different value (in row mode too: generated columns are computed on each replica, not shipped),
 * so the schema change that declares it is refused.
 */
final class ColumnExpressions {
    private static final Pattern TABLE_DDL = Pattern.compile("(?is)\\s*(CREATE\\s+(?:\\w+\\s+)*TABLE|ALTER\\s+TABLE)\\b.*");
    /** Words that begin the next clause of a column definition after its ON UPDATE expression. */
    private static final java.util.Set<String> COLUMN_CLAUSES = java.util.Set.of("DEFAULT", "NOT", "NULL", "PRIMARY",
            "UNIQUE", "CHECK", "REFERENCES", "CONSTRAINT", "SELECTIVITY", "COMMENT", "SEQUENCE", "INVISIBLE", "VISIBLE");

    /** Words after ON UPDATE that make it a foreign key's action, not a column's expression. */
    private static final List<String> REFERENTIAL_ACTIONS = List.of("CASCADE", "SET", "RESTRICT", "NO");

    private ColumnExpressions() {}

    /**
     * The first non-deterministic call in a generated-column or ON UPDATE expression that {@code
     * sql} declares, as {@code "<function> in <clause>"}; null if none.
     */
    static String nonDeterministic(String sql) {
        if (sql == null || !TABLE_DDL.matcher(sql).matches()) return null;
        SqlLexer.Lexed lexed = SqlLexer.lex(sql);
        List<SqlLexer.Token> ts = lexed.tokens();
        for (int i = 0; i + 1 < ts.size(); i++) {
            SqlLexer.Token t = ts.get(i);
            if (t.isWord("AS") && ts.get(i + 1).isSymbol('(') && ts.get(i + 1).match() > i + 1 && !followedBySelect(ts, i + 1)) {
                String f = NonDeterminism.firstCall(sql.substring(ts.get(i + 1).start(), ts.get(ts.get(i + 1).match()).end()));
                if (f != null) return f + " in a generated column (AS (...))";
            } else if (t.isWord("ON") && ts.get(i + 1).isWord("UPDATE") && i + 2 < ts.size()
                    && !(ts.get(i + 2).type() == SqlLexer.Type.WORD && REFERENTIAL_ACTIONS.contains(ts.get(i + 2).norm()))) {
                int end = i + 2;
                // the expression runs to the comma or closing parenthesis that ends the column definition,
                // or to the column's next clause; parentheses inside it (calls, grouping) are skipped whole
                // (an opening parenthesis and its closing one have the same depth as the words around them)
                while (end < ts.size()) {
                    SqlLexer.Token x = ts.get(end);
                    if (x.isSymbol(',') || x.isSymbol(')')
                            || end > i + 2 && x.type() == SqlLexer.Type.WORD && COLUMN_CLAUSES.contains(x.norm())) {
                        break;
                    }
                    end = x.isSymbol('(') && x.match() > end ? x.match() + 1 : end + 1;
                }
                String expr = sql.substring(ts.get(i + 2).start(), ts.get(end - 1).end());
                String f = NonDeterminism.firstCall(expr);
                if (f != null) return f + " in ON UPDATE " + expr.strip();
            }
        }
        return null;
    }

    /** Whether the parenthesis at {@code open} starts a query ({@code CREATE TABLE t AS (SELECT ...)}). */
    private static boolean followedBySelect(List<SqlLexer.Token> ts, int open) {
        return open + 1 < ts.size() && (ts.get(open + 1).isWord("SELECT") || ts.get(open + 1).isWord("WITH")
                || ts.get(open + 1).isWord("VALUES") || ts.get(open + 1).isWord("TABLE"));
    }
}
