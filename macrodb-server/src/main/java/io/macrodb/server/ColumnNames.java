package io.macrodb.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The names PostgreSQL gives a query's result columns, read from the query's text as PostgreSQL's FigureColname
 * reads its parse tree. The engines name an unaliased expression otherwise (H2 in PostgreSQL mode says
 * {@code ?column?} for {@code count(*)}, HSQLDB C1, C2 ...), and clients that read columns by name (node-postgres'
 * row objects, psycopg's dict rows, pgjdbc's {@code getInt("count")}) expect PostgreSQL's:
 * <ul>
 *   <li>an alias as written (folded to lower case unless quoted); a column reference by its column;</li>
 *   <li>a function or aggregate call by the function ({@code count(*)} is count, {@code sum(x)} sum,
 *   {@code coalesce(a, b)} coalesce, {@code count(*) OVER ()} count); TRIM by the function it stands for (btrim,
 *   ltrim, rtrim); {@code x AT TIME ZONE z} timezone; CURRENT_DATE and the like by their keyword;</li>
 *   <li>a cast by what it casts when that has a name, else by the type's internal name ({@code CAST(x AS int)} x,
 *   {@code CAST(1 AS int)} int4, {@code DATE '2024-01-02'} date);</li>
 *   <li>CASE by its ELSE when that has a name, else case; a scalar subquery by its column; EXISTS, ARRAY and ROW by
 *   their keyword; VALUES' columns column1, column2 ...;</li>
 *   <li>anything else (operators, literals, TRUE and FALSE as PostgreSQL 15 has them, parameters) {@code ?column?}.</li>
 * </ul>
 * Only SELECT (also under WITH, and the first SELECT of a UNION) and VALUES are read; a select list with {@code *}
 * is left to the engine's labels, and so is an item this reader does not follow.
 */
final class ColumnNames {
    private enum Kind { WORD, QUOTED, STRING, NUMBER, PARAM, OP }

    private record Token(Kind kind, String text) {
        boolean is(String word) { return (kind == Kind.WORD || kind == Kind.OP) && text.equalsIgnoreCase(word); }
    }

    /** A name and how sure PostgreSQL is of it: 2 a real name, 1 a fallback (a type, "case"), 0 none (?column?). */
    private record Name(String name, int strength) {
        static final Name NONE = new Name("?column?", 0);
    }

    private static final Set<String> END_OF_SELECT_LIST = Set.of("FROM", "INTO", "WHERE", "GROUP", "HAVING", "WINDOW", "UNION",
            "INTERSECT", "EXCEPT", "ORDER", "LIMIT", "OFFSET", "FETCH", "FOR", ";");
    /** Words that, at the top level of an item, make it an operator expression (PostgreSQL's A_Expr and the like). */
    private static final Set<String> OPERATOR_WORDS = Set.of("AND", "OR", "NOT", "IS", "IN", "LIKE", "ILIKE", "BETWEEN", "SIMILAR",
            "ISNULL", "NOTNULL", "OVERLAPS", "ESCAPE");
    /** Words that cannot be a bare alias (PostgreSQL's reserved words that end expressions). */
    private static final Set<String> NOT_AN_ALIAS = Set.of("END", "NULL", "TRUE", "FALSE", "AND", "OR", "NOT", "IS", "IN", "LIKE",
            "ILIKE", "BETWEEN", "THEN", "ELSE", "WHEN", "CASE", "DISTINCT", "ALL", "ASC", "DESC", "ZONE", "UNKNOWN");
    /** Words after which a name is part of the expression, not a bare alias (x COLLATE "C", OVER w, ::double precision). */
    private static final Set<String> BEFORE_A_NAME = Set.of("AS", "AT", "TIME", "WITH", "WITHOUT", "DOUBLE", "CHARACTER", "CHAR", "BIT",
            "COLLATE", "OVER");
    /** Type names as PostgreSQL's grammar turns them into its internal names (a cast is named after the last). */
    private static final Map<String, String> TYPE_NAMES = Map.ofEntries(
            Map.entry("INT", "int4"), Map.entry("INTEGER", "int4"), Map.entry("SMALLINT", "int2"), Map.entry("BIGINT", "int8"),
            Map.entry("REAL", "float4"), Map.entry("FLOAT", "float8"), Map.entry("DOUBLE PRECISION", "float8"),
            Map.entry("BOOLEAN", "bool"), Map.entry("DECIMAL", "numeric"), Map.entry("DEC", "numeric"), Map.entry("NUMERIC", "numeric"),
            Map.entry("VARCHAR", "varchar"), Map.entry("CHARACTER VARYING", "varchar"), Map.entry("CHAR VARYING", "varchar"),
            Map.entry("CHAR", "bpchar"), Map.entry("CHARACTER", "bpchar"), Map.entry("TIME", "time"),
            Map.entry("TIME WITHOUT TIME ZONE", "time"), Map.entry("TIME WITH TIME ZONE", "timetz"), Map.entry("TIMESTAMP", "timestamp"),
            Map.entry("TIMESTAMP WITHOUT TIME ZONE", "timestamp"), Map.entry("TIMESTAMP WITH TIME ZONE", "timestamptz"),
            Map.entry("BIT VARYING", "varbit"), Map.entry("INTERVAL", "interval"));

    private ColumnNames() { }

    /**
     * PostgreSQL's name for each result column of {@code sql}, null for an item whose name is left to the engine; null
     * when the statement is not a query whose select list this class reads (or has a {@code *}).
     */
    static List<String> of(String sql) {
        try {
            return names(tokens(sql), 0);
        } catch (RuntimeException e) {
            return null; // text this reader does not follow: the engine's labels stand
        }
    }

    // ---- tokens -------------------------------------------------------------------------------------------------

    static List<Token> tokens(String s) {
        List<Token> l = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) { i++; continue; }
            int skip = SqlText.skipQuoted(s, i);
            if (skip > i) {
                if (c == '"') l.add(new Token(Kind.QUOTED, s.substring(i + 1, Math.max(i + 1, skip - 1)).replace("\"\"", "\"")));
                else if (c == '\'' || c == '$') l.add(new Token(Kind.STRING, s.substring(i, skip)));
                i = skip; // a comment adds nothing
                continue;
            }
            if (Character.isLetter(c) || c == '_') {
                int j = i + 1;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '$')) j++;
                if (j < n && s.charAt(j) == '\'' && j - i == 1 && "EeBbXxNn".indexOf(c) >= 0) {
                    int end = SqlText.skipQuoted(s, j);
                    l.add(new Token(Kind.STRING, s.substring(i, end)));
                    i = end;
                    continue;
                }
                l.add(new Token(Kind.WORD, s.substring(i, j)));
                i = j;
                continue;
            }
            if (Character.isDigit(c) || c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1))) {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '.'
                        || (s.charAt(j) == '+' || s.charAt(j) == '-') && (s.charAt(j - 1) == 'e' || s.charAt(j - 1) == 'E'))) j++;
                l.add(new Token(Kind.NUMBER, s.substring(i, j)));
                i = j;
                continue;
            }
            if (c == '$' && i + 1 < n && Character.isDigit(s.charAt(i + 1))) {
                int j = i + 1;
                while (j < n && Character.isDigit(s.charAt(j))) j++;
                l.add(new Token(Kind.PARAM, s.substring(i, j)));
                i = j;
                continue;
            }
            if (s.startsWith("::", i)) { l.add(new Token(Kind.OP, "::")); i += 2; continue; }
            if ("()[],;.".indexOf(c) >= 0) { l.add(new Token(Kind.OP, Character.toString(c))); i++; continue; }
            int j = i;
            while (j < n && "+-*/<>=~!@#%^&|`?:".indexOf(s.charAt(j)) >= 0 && !s.startsWith("::", j)
                    && !(j > i && (s.startsWith("--", j) || s.startsWith("/*", j)))) j++;
            if (j == i) j++;
            l.add(new Token(Kind.OP, s.substring(i, j)));
            i = j;
        }
        return l;
    }

    /** The index just after the parenthesis or bracket closing the one at {@code open}. */
    private static int closing(List<Token> t, int open) {
        int depth = 0;
        for (int i = open; i < t.size(); i++) {
            Token k = t.get(i);
            if (k.is("(") || k.is("[")) depth++;
            else if (k.is(")") || k.is("]")) {
                if (--depth == 0) return i + 1;
            }
        }
        throw new IllegalArgumentException("unbalanced");
    }

    // ---- statements ---------------------------------------------------------------------------------------------

    private static List<String> names(List<Token> t, int i) {
        if (i >= t.size()) return null;
        if (t.get(i).is("WITH")) {
            i++;
            if (i < t.size() && t.get(i).is("RECURSIVE")) i++;
            while (true) {
                i++; // the name
                if (t.get(i).is("(")) i = closing(t, i);
                if (!t.get(i).is("AS")) return null;
                i++;
                if (t.get(i).is("NOT")) i++;
                if (t.get(i).is("MATERIALIZED")) i++;
                if (!t.get(i).is("(")) return null;
                i = closing(t, i);
                if (!t.get(i).is(",")) break;
                i++;
            }
        }
        Token first = t.get(i);
        if (first.is("VALUES")) {
            if (!t.get(i + 1).is("(")) return null;
            int n = items(t, i + 2, closing(t, i + 1) - 1).size();
            List<String> l = new ArrayList<>();
            for (int k = 1; k <= n; k++) l.add("column" + k);
            return l;
        }
        if (!first.is("SELECT")) return null;
        i++;
        if (i < t.size() && t.get(i).is("ALL")) i++;
        else if (i < t.size() && t.get(i).is("DISTINCT")) {
            i++;
            if (i < t.size() && t.get(i).is("ON")) i = closing(t, i + 1);
        }
        int end = i;
        int depth = 0;
        for (; end < t.size(); end++) {
            Token k = t.get(end);
            if (k.is("(") || k.is("[")) depth++;
            else if (k.is(")") || k.is("]")) depth--;
            else if (depth == 0 && (k.kind == Kind.WORD || k.kind == Kind.OP) && END_OF_SELECT_LIST.contains(k.text.toUpperCase(Locale.ROOT))
                    && !(k.is("FROM") && t.get(end - 1).is("DISTINCT")) && !(k.is("GROUP") && t.get(end - 1).is("WITHIN"))) break;
        }
        List<String> l = new ArrayList<>();
        for (List<Token> item : items(t, i, end)) {
            Token last = item.get(item.size() - 1);
            if (last.is("*") && (item.size() == 1 || item.get(item.size() - 2).is("."))) return null;
            l.add(itemName(item));
        }
        return l.isEmpty() ? null : l;
    }

    /** The comma-separated items of t[from, to). */
    private static List<List<Token>> items(List<Token> t, int from, int to) {
        List<List<Token>> l = new ArrayList<>();
        int depth = 0;
        int start = from;
        for (int i = from; i < to; i++) {
            Token k = t.get(i);
            if (k.is("(") || k.is("[")) depth++;
            else if (k.is(")") || k.is("]")) depth--;
            else if (depth == 0 && k.is(",")) {
                l.add(t.subList(start, i));
                start = i + 1;
            }
        }
        if (to > start) l.add(t.subList(start, to));
        return l;
    }

    // ---- items --------------------------------------------------------------------------------------------------

    /** An item's name: its alias, or what PostgreSQL figures from its expression; null to leave it to the engine. */
    private static String itemName(List<Token> item) {
        int n = item.size();
        if (n == 0) return null;
        Token last = item.get(n - 1);
        boolean identifier = last.kind == Kind.QUOTED || last.kind == Kind.WORD && !NOT_AN_ALIAS.contains(last.text.toUpperCase(Locale.ROOT));
        if (n >= 2 && identifier && item.get(n - 2).is("AS")) return ident(last);
        if (n >= 2 && item.get(0).is("INTERVAL") && item.get(1).kind == Kind.STRING) return "interval"; // INTERVAL '1' DAY
        if (n >= 2 && identifier && endsOperand(item.get(n - 2)) && !isTypedLiteral(item) && !isKeywordPhrase(item)) return ident(last);
        Name name = figure(item);
        return name == null ? null : name.name;
    }

    /** Whether a token can end an expression, so that an identifier after it is a bare alias. */
    private static boolean endsOperand(Token k) {
        return k.is(")") || k.is("]") || k.kind == Kind.STRING || k.kind == Kind.NUMBER || k.kind == Kind.PARAM || k.kind == Kind.QUOTED
                || k.kind == Kind.WORD && !OPERATOR_WORDS.contains(k.text.toUpperCase(Locale.ROOT))
                        && !BEFORE_A_NAME.contains(k.text.toUpperCase(Locale.ROOT));
    }

    /** Phrases of keywords that end in a word that is not an alias: DOUBLE PRECISION, ... WITH TIME ZONE. */
    private static boolean isKeywordPhrase(List<Token> item) {
        String last = item.get(item.size() - 1).text.toUpperCase(Locale.ROOT);
        return last.equals("PRECISION") || last.equals("VARYING") || last.equals("ZONE");
    }

    private static String ident(Token k) {
        return k.kind == Kind.QUOTED ? k.text : k.text.toLowerCase(Locale.ROOT);
    }

    /** DATE '...', TIMESTAMP WITH TIME ZONE '...', INTERVAL '...': a type name and a string. */
    private static boolean isTypedLiteral(List<Token> item) {
        if (item.size() < 2 || item.get(item.size() - 1).kind != Kind.STRING) return false;
        for (int i = 0; i < item.size() - 1; i++) if (item.get(i).kind != Kind.WORD) return false;
        return true;
    }

    /** PostgreSQL's FigureColnameInternal over an expression's tokens; null when this reader cannot tell. */
    private static Name figure(List<Token> e) {
        int n = e.size();
        if (n == 0) return null;
        // COLLATE applies to the expression before it
        for (int i = n - 2; i > 0; i--) {
            if (e.get(i).is("COLLATE") && topLevel(e, i)) return figure(e.subList(0, i));
        }
        // an operator at the top level: A_Expr (a + b, -x, a || b, x IS NULL, NOT x ...), unnamed; AT TIME ZONE: timezone()
        for (int i = 0; i < n; i++) {
            Token k = e.get(i);
            if (!topLevel(e, i)) continue;
            if (k.is("AT") && i + 2 < n && e.get(i + 1).is("TIME") && e.get(i + 2).is("ZONE")) return new Name("timezone", 2);
            if (k.kind == Kind.OP && !k.is("::") && !k.is(".") && !k.is("(") && !k.is(")") && !k.is("[") && !k.is("]")) return Name.NONE;
            if (k.kind == Kind.WORD && OPERATOR_WORDS.contains(k.text.toUpperCase(Locale.ROOT))) return Name.NONE;
        }
        // casts: x::type (left to right), named after x, else after the last type
        int cast = -1;
        for (int i = n - 1; i > 0; i--) {
            if (e.get(i).is("::") && topLevel(e, i)) { cast = i; break; }
        }
        if (cast > 0) {
            Name inner = figure(e.subList(0, cast));
            if (inner != null && inner.strength > 1) return inner;
            return new Name(typeName(e.subList(cast + 1, n)), 1);
        }
        Token first = e.get(0);
        // a subscript: named after what it subscripts
        if (e.get(n - 1).is("]") && !first.is("ARRAY")) {
            int open = openOf(e, n - 1);
            if (open > 0) return figure(e.subList(0, open));
        }
        if (n == 1) {
            switch (first.kind) {
                case QUOTED: return new Name(first.text, 2);
                case WORD: {
                    String w = first.text.toUpperCase(Locale.ROOT);
                    // PostgreSQL 15 makes TRUE and FALSE constants (14 made them casts to bool, named bool)
                    if (w.equals("TRUE") || w.equals("FALSE") || w.equals("NULL")) return Name.NONE;
                    return new Name(first.text.toLowerCase(Locale.ROOT), 2); // a column, or CURRENT_DATE and the like
                }
                default: return Name.NONE; // a literal or a parameter
            }
        }
        if (first.is("(") && closing(e, 0) == n) {
            List<Token> inner = e.subList(1, n - 1);
            if (!inner.isEmpty() && (inner.get(0).is("SELECT") || inner.get(0).is("WITH") || inner.get(0).is("VALUES"))) {
                List<String> sub = names(inner, 0);
                return sub == null || sub.get(0) == null ? null : new Name(sub.get(0), 2);
            }
            return figure(inner);
        }
        if (first.is("CASE") && e.get(n - 1).is("END")) {
            int depth = 0;
            for (int i = 1; i < n - 1; i++) {
                Token k = e.get(i);
                if (k.is("(") || k.is("[") || k.is("CASE")) depth++;
                else if (k.is(")") || k.is("]") || k.is("END")) depth--;
                else if (depth == 0 && k.is("ELSE")) {
                    Name r = figure(e.subList(i + 1, n - 1));
                    if (r != null && r.strength > 1) return r;
                    break;
                }
            }
            return new Name("case", 1);
        }
        if (first.is("ARRAY") && (e.get(1).is("[") || e.get(1).is("(")) && closing(e, 1) == n) return new Name("array", 2);
        if (isTypedLiteral(e)) return new Name(typeName(e.subList(0, n - 1)), 1);
        // a dotted name: a column, table.column, schema.table.column
        boolean dotted = n % 2 == 1;
        for (int i = 0; i < n && dotted; i++) {
            Token k = e.get(i);
            dotted = i % 2 == 1 ? k.is(".") : k.kind == Kind.WORD || k.kind == Kind.QUOTED;
        }
        if (dotted) return new Name(ident(e.get(n - 1)), 2);
        return call(e);
    }

    /** A function call, possibly qualified, with FILTER, WITHIN GROUP and OVER after it. */
    private static Name call(List<Token> e) {
        int n = e.size();
        int i = 0;
        while (i + 2 < n && (e.get(i).kind == Kind.WORD || e.get(i).kind == Kind.QUOTED) && e.get(i + 1).is(".")) i += 2;
        Token fn = e.get(i);
        if (fn.kind != Kind.WORD && fn.kind != Kind.QUOTED || i + 1 >= n || !e.get(i + 1).is("(")) return null;
        int after = closing(e, i + 1);
        // what may follow a call: FILTER (...), WITHIN GROUP (...), OVER (...) or OVER name
        int j = after;
        while (j < n) {
            if (e.get(j).is("FILTER") && j + 1 < n && e.get(j + 1).is("(")) j = closing(e, j + 1);
            else if (e.get(j).is("WITHIN") && j + 2 < n && e.get(j + 1).is("GROUP") && e.get(j + 2).is("(")) j = closing(e, j + 2);
            else if (e.get(j).is("OVER") && j + 1 < n) j = e.get(j + 1).is("(") ? closing(e, j + 1) : j + 2;
            else return null;
        }
        if (fn.kind == Kind.QUOTED) return new Name(fn.text, 2);
        String name = fn.text.toUpperCase(Locale.ROOT);
        List<Token> args = e.subList(i + 2, after - 1);
        switch (name) {
            case "CAST": {
                int as = -1;
                int depth = 0;
                for (int k = 0; k < args.size(); k++) {
                    Token a = args.get(k);
                    if (a.is("(") || a.is("[")) depth++;
                    else if (a.is(")") || a.is("]")) depth--;
                    else if (depth == 0 && a.is("AS")) as = k;
                }
                if (as < 0) return null;
                Name inner = figure(args.subList(0, as));
                if (inner != null && inner.strength > 1) return inner;
                return new Name(typeName(args.subList(as + 1, args.size())), 1);
            }
            case "TRIM": {
                String w = args.isEmpty() ? "" : args.get(0).text.toUpperCase(Locale.ROOT);
                return new Name(w.equals("LEADING") ? "ltrim" : w.equals("TRAILING") ? "rtrim" : "btrim", 2);
            }
            default: return new Name(fn.text.toLowerCase(Locale.ROOT), 2);
        }
    }

    /** Whether e[i] is outside any parentheses, brackets and CASE. */
    private static boolean topLevel(List<Token> e, int i) {
        int depth = 0;
        for (int k = 0; k < i; k++) {
            Token t = e.get(k);
            if (t.is("(") || t.is("[") || t.is("CASE")) depth++;
            else if (t.is(")") || t.is("]") || t.is("END")) depth--;
        }
        return depth == 0 && !e.get(i).is("CASE");
    }

    /** The index of the bracket or parenthesis that the one at {@code close} closes. */
    private static int openOf(List<Token> e, int close) {
        int depth = 0;
        for (int i = close; i >= 0; i--) {
            Token k = e.get(i);
            if (k.is(")") || k.is("]")) depth++;
            else if ((k.is("(") || k.is("[")) && --depth == 0) return i;
        }
        return -1;
    }

    /** A type's internal name as PostgreSQL's grammar makes it (int4, varchar, timestamptz ...). */
    private static String typeName(List<Token> type) {
        List<String> words = new ArrayList<>();
        Token lastName = null;
        for (Token k : type) {
            if (k.is("(") || k.is("[")) break;
            if (k.kind == Kind.WORD) words.add(k.text.toUpperCase(Locale.ROOT));
            if (k.kind == Kind.WORD || k.kind == Kind.QUOTED) lastName = k;
        }
        String internal = TYPE_NAMES.get(String.join(" ", words));
        if (internal != null) return internal;
        return lastName == null ? "?column?" : ident(lastName);
    }
}
