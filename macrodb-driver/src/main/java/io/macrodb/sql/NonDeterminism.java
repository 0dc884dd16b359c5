package io.macrodb.sql;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Finds what would make a statement compute different values on different replicas when it is
 * replayed as text: random and time functions and sequence calls, in DDL (a column added with such
 * a default fills existing rows differently on each replica) and in column defaults (which an
 * INSERT that omits the column evaluates on each replica).
 */
public final class NonDeterminism {
    private static final Pattern ADD_COLUMN = Pattern.compile("(?is)\\s*ALTER\\s+TABLE\\b.*\\bADD\\b.*");
    private static final Pattern CREATE_AS = Pattern.compile("(?is)\\s*CREATE\\s+(?:\\w+\\s+)*TABLE\\b.*\\bAS\\b.*\\bSELECT\\b.*");
    private static final Pattern TEMPORARY = Pattern.compile(
            "(?is)\\s*(CREATE\\s+(?:(?:LOCAL|GLOBAL|CACHED|MEMORY)\\s+)*TEMPORARY\\s+TABLE|DECLARE\\s+LOCAL\\s+TEMPORARY\\s+TABLE)\\b.*");

    private NonDeterminism() {}

    /** The first random, time or sequence function {@code sql} calls, outside literals and comments; null if none. */
    public static String firstCall(String sql) {
        if (sql == null) return null;
        SqlLexer.Lexed lexed = SqlLexer.lex(sql);
        List<SqlLexer.Token> ts = lexed.tokens();
        for (int i = 0; i < ts.size(); i++) {
            SqlLexer.Token t = ts.get(i);
            if (t.type() != SqlLexer.Type.WORD) continue;
            String w = t.norm();
            if (SqlFunctions.RANDOM_FUNCTIONS.contains(w) || SqlFunctions.TIME_FUNCTIONS.contains(w)
                    || SqlFunctions.BARE_TIME_WORDS.contains(w) || SqlFunctions.SEQUENCE_WORDS.contains(w)) {
                return w;
            }
            if (w.equals("NEXT") && i + 2 < ts.size() && ts.get(i + 1).isWord("VALUE") && ts.get(i + 2).isWord("FOR")) {
                return "NEXT VALUE FOR";
            }
            if (i + 1 < ts.size() && ts.get(i + 1).isSymbol('(') && sqliteCall(w, i + 2 < ts.size() ? ts.get(i + 2) : null)) return w;
        }
        return null;
    }

    /** SQLite's date and time functions (which read the clock for 'now' or no argument), and randomblob. */
    private static final java.util.Set<String> SQLITE_CALLS = java.util.Set.of("DATETIME", "JULIANDAY", "UNIXEPOCH", "STRFTIME",
            "TIMEDIFF", "RANDOMBLOB");

    /**
     * Whether {@code w(} calls one of SQLite's functions that may read the clock or draw random bytes,
     * counted as such whatever its arguments. {@code DATE(} and {@code TIME(} count unless a number
     * follows: {@code TIME(6)} is a type with its precision in H2 and HSQLDB.
     */
    private static boolean sqliteCall(String w, SqlLexer.Token afterParen) {
        if (SQLITE_CALLS.contains(w)) return true;
        return (w.equals("DATE") || w.equals("TIME")) && (afterParen == null || afterParen.type() != SqlLexer.Type.NUMBER);
    }

    /**
     * Why this schema change would make replicas differ, or null if it is safe: a generated or ON
     * UPDATE column computed with a non-deterministic function (in any propagation mode), adding
     * columns with a non-deterministic default to existing rows, or creating a table from a query
     * that calls non-deterministic functions (replayed as text).
     */
    public static String unsafeSchemaChange(String sql) {
        if (sql == null) return null;
        String computed = ColumnExpressions.nonDeterministic(sql);
        if (computed != null) {
            return "it declares a column that every replica computes for itself with " + computed + ", so each would hold"
                    + " a different value; compute the value in the application (or give the column a DEFAULT) and write it";
        }
        if (ADD_COLUMN.matcher(sql).matches() || CREATE_AS.matcher(sql).matches()) {
            String f = firstCall(sql);
            if (f != null) {
                return "it evaluates " + f + " for existing rows on each replica separately; add the column (or create"
                        + " the table) without it, then set the values with an UPDATE (or INSERT ... SELECT)";
            }
        }
        return null;
    }

    /**
     * For an {@code ALTER TABLE <name> ADD ...} whose only hazard is what its non-deterministic
     * default (or expression) computes for the table's existing rows: the table's name as written
     * (qualified and quoted as in the text), since on an empty table the statement is as safe as a
     * CREATE TABLE with that default. Null for every other statement, and for an ADD that would be
     * unsafe on an empty table too (a generated or ON UPDATE column every replica computes itself).
     */
    public static String tableWhoseRowsMakeItUnsafe(String sql) {
        if (sql == null || !ADD_COLUMN.matcher(sql).matches() || ColumnExpressions.nonDeterministic(sql) != null
                || firstCall(sql) == null) {
            return null;
        }
        List<SqlLexer.Token> ts = SqlLexer.lex(sql).tokens();
        int i = 0;
        if (!word(ts, i++, "ALTER") || !word(ts, i++, "TABLE")) return null;
        if (word(ts, i, "IF") && word(ts, i + 1, "EXISTS")) i += 2;
        int first = i;
        while (i < ts.size() && (ts.get(i).type() == SqlLexer.Type.WORD || ts.get(i).type() == SqlLexer.Type.QUOTED)) {
            if (i + 1 < ts.size() && ts.get(i + 1).isSymbol('.')) i += 2;
            else { i++; break; }
        }
        if (i == first || !word(ts, i, "ADD")) return null;
        return nameAt(sql, ts, first);
    }

    /**
     * For a {@code CREATE TABLE <name> ... AS SELECT ...} whose only hazard is what its query's
     * random, time or sequence functions compute: the new table's name as written (qualified and
     * quoted as in the text), since the primary's rows can be shipped in place of each replica's own.
     * Null for every other statement, for a temporary table, and for a table that declares a column
     * every replica computes for itself (a generated or ON UPDATE column).
     */
    public static String tableCreatedFromQuery(String sql) {
        if (sql == null || !CREATE_AS.matcher(sql).matches() || TEMPORARY.matcher(sql).matches()
                || ColumnExpressions.nonDeterministic(sql) != null || firstCall(sql) == null) {
            return null;
        }
        List<SqlLexer.Token> ts = SqlLexer.lex(sql).tokens();
        int i = 0;
        if (!word(ts, i++, "CREATE")) return null;
        while (i < ts.size() && !word(ts, i, "TABLE")) {
            if (!(word(ts, i, "MEMORY") || word(ts, i, "CACHED") || word(ts, i, "TEXT"))) return null;
            i++;
        }
        if (!word(ts, i++, "TABLE")) return null;
        if (word(ts, i, "IF") && word(ts, i + 1, "NOT") && word(ts, i + 2, "EXISTS")) i += 3;
        return nameAt(sql, ts, i);
    }

    /** The (possibly qualified) name that starts at token {@code first}, as written; null if none. */
    private static String nameAt(String sql, List<SqlLexer.Token> ts, int first) {
        int i = first;
        while (i < ts.size() && (ts.get(i).type() == SqlLexer.Type.WORD || ts.get(i).type() == SqlLexer.Type.QUOTED)) {
            if (i + 1 < ts.size() && ts.get(i + 1).isSymbol('.')) i += 2;
            else { i++; break; }
        }
        return i == first ? null : sql.substring(ts.get(first).start(), ts.get(i - 1).end());
    }

    private static boolean word(List<SqlLexer.Token> ts, int i, String w) {
        return i < ts.size() && ts.get(i).isWord(w);
    }

    /** Whether the statement creates a temporary table. */
    public static boolean createsTemporaryTable(String sql) {
        return sql != null && TEMPORARY.matcher(sql).matches();
    }
}
