package io.macrodb.server;

import java.util.ArrayList;
import java.util.List;

/**
 * The little SQL lexing the server needs: splitting a simple query into statements at top-level semicolons, and
 * turning PostgreSQL's {@code $n} placeholders into JDBC's {@code ?}. Both skip string literals ('...', E'...'),
 * quoted identifiers, dollar-quoted strings and comments, so a semicolon or {@code $1} inside them is left alone.
 */
final class SqlText {
    /** The statement with {@code ?} for each {@code $n}, and {@code order[j]} = the n of the j-th {@code ?}. */
    record Placeholders(String sql, int[] order) { }

    private SqlText() { }

    /** The statements of a simple query, without their semicolons; blank statements are dropped. */
    static List<String> split(String sql) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        int i = 0;
        int depth = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            int skip = skipQuoted(sql, i);
            if (skip > i) { i = skip; continue; }
            if (c == '(') depth++;
            else if (c == ')') depth = Math.max(0, depth - 1);
            else if (c == ';' && depth == 0) {
                add(parts, sql.substring(start, i));
                start = i + 1;
            }
            i++;
        }
        add(parts, sql.substring(start));
        return parts;
    }

    private static void add(List<String> parts, String s) {
        if (!stripForClassification(s).isEmpty()) parts.add(s.strip());
    }

    /**
     * If a literal, quoted identifier or comment starts at {@code i}, the index just after it; otherwise {@code i}.
     * An unterminated one runs to the end of the text (the engine then reports the error).
     */
    static int skipQuoted(String s, int i) {
        char c = s.charAt(i);
        int n = s.length();
        if (c == '\'' || c == '"') {
            boolean backslashes = c == '\'' && i > 0 && (s.charAt(i - 1) == 'E' || s.charAt(i - 1) == 'e')
                    && (i < 2 || !Character.isLetterOrDigit(s.charAt(i - 2)));
            int j = i + 1;
            while (j < n) {
                char d = s.charAt(j);
                if (backslashes && d == '\\') { j += 2; continue; }
                if (d == c) {
                    if (j + 1 < n && s.charAt(j + 1) == c) { j += 2; continue; }
                    return j + 1;
                }
                j++;
            }
            return n;
        }
        if (c == '-' && i + 1 < n && s.charAt(i + 1) == '-') {
            int j = s.indexOf('\n', i);
            return j < 0 ? n : j + 1;
        }
        if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
            int depth = 1;
            int j = i + 2;
            while (j < n && depth > 0) {
                if (s.startsWith("/*", j)) { depth++; j += 2; } else if (s.startsWith("*/", j)) { depth--; j += 2; } else j++;
            }
            return j;
        }
        if (c == '$' && (i == 0 || !Character.isLetterOrDigit(s.charAt(i - 1)) && s.charAt(i - 1) != '_')) {
            int j = i + 1;
            while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_') && !Character.isDigit(s.charAt(i + 1))) j++;
            if (j < n && s.charAt(j) == '$') {
                String tag = s.substring(i, j + 1);
                int end = s.indexOf(tag, j + 1);
                return end < 0 ? n : end + tag.length();
            }
        }
        return i;
    }

    /** Replaces {@code $n} outside literals with {@code ?}. */
    static Placeholders placeholders(String sql) {
        StringBuilder b = new StringBuilder(sql.length());
        List<Integer> order = new ArrayList<>();
        int i = 0;
        while (i < sql.length()) {
            int skip = skipQuoted(sql, i);
            if (skip > i) { b.append(sql, i, skip); i = skip; continue; }
            char c = sql.charAt(i);
            if (c == '$' && i + 1 < sql.length() && Character.isDigit(sql.charAt(i + 1))) {
                int j = i + 1;
                while (j < sql.length() && Character.isDigit(sql.charAt(j))) j++;
                order.add(Integer.parseInt(sql.substring(i + 1, Math.min(j, i + 6))));
                b.append('?');
                i = j;
                continue;
            }
            b.append(c);
            i++;
        }
        return new Placeholders(b.toString(), order.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The statement without leading comments and whitespace and without trailing semicolons and whitespace. */
    static String stripForClassification(String sql) {
        int i = 0;
        while (i < sql.length()) {
            if (Character.isWhitespace(sql.charAt(i))) { i++; continue; }
            if (sql.startsWith("--", i) || sql.startsWith("/*", i)) { i = skipQuoted(sql, i); continue; }
            break;
        }
        int e = sql.length();
        while (e > i && (Character.isWhitespace(sql.charAt(e - 1)) || sql.charAt(e - 1) == ';')) e--;
        return sql.substring(i, e);
    }
}
