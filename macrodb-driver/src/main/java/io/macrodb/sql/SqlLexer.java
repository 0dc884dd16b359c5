package io.macrodb.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small, conservative SQL tokenizer shared by the classifier and the rewriter. It knows string literals,
 * quoted identifiers, comments and JDBC '?' parameters, so that text inside literals and comments never
 * looks like a keyword. Token positions refer to the original string, which lets the rewriter splice text.
 * Anything ambiguous (unterminated literal or comment, nested block comment, unbalanced parentheses) sets
 * {@link Lexed#error()}, and callers then treat the input as unknown.
 */
final class SqlLexer {

    enum Type { WORD, QUOTED, STRING, NUMBER, PARAM, SYMBOL }

    /**
     * @param norm  upper-cased text for WORD, identifier content for QUOTED, raw text otherwise
     * @param depth parenthesis depth; an opening and its matching closing parenthesis have the same depth
     * @param match index of the matching parenthesis for '(' and ')', -1 otherwise
     */
    record Token(Type type, String text, String norm, int start, int end, int depth, int match) {
        boolean isWord(String w) {
            return type == Type.WORD && norm.equals(w);
        }

        boolean isSymbol(char c) {
            return type == Type.SYMBOL && text.length() == 1 && text.charAt(0) == c;
        }

        boolean isName() {
            return type == Type.WORD || type == Type.QUOTED;
        }
    }

    /** @param error null when the input was tokenised cleanly, otherwise a short description */
    record Lexed(String sql, List<Token> tokens, String error) {
        /**
         * The text with every comment turned into spaces, the same length, so that positions still
         * match the tokens: what a pattern over the raw text must see, since SQL reads a comment as
         * whitespace ({@code -- note\nALTER TABLE ...} is an ALTER TABLE). The text itself when it
         * did not lex cleanly (an unterminated comment: nothing to trust).
         */
        String withoutComments() {
            if (error != null || tokens.isEmpty()) return sql;
            StringBuilder out = new StringBuilder(sql.length());
            int at = 0;
            for (Token t : tokens) {
                for (; at < t.start(); at++) out.append(Character.isWhitespace(sql.charAt(at)) ? sql.charAt(at) : ' ');
                out.append(sql, t.start(), t.end());
                at = t.end();
            }
            for (; at < sql.length(); at++) out.append(Character.isWhitespace(sql.charAt(at)) ? sql.charAt(at) : ' ');
            return out.toString();
        }
    }

    private SqlLexer() {}

    static Lexed lex(String sql) {
        List<Token> raw = new ArrayList<>();
        String error = null;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            char d = i + 1 < n ? sql.charAt(i + 1) : '\0';
            if ((c == '-' && d == '-') || (c == '/' && d == '/')) {
                int eol = i;
                while (eol < n && sql.charAt(eol) != '\n' && sql.charAt(eol) != '\r') {
                    eol++;
                }
                i = eol;
                continue;
            }
            if (c == '/' && d == '*') {
                int close = sql.indexOf("*/", i + 2);
                if (close < 0) {
                    error = "unterminated comment";
                    break;
                }
                if (sql.substring(i + 2, close).contains("/*")) {
                    // engines disagree on nesting; do not guess
                    error = "nested block comment";
                    break;
                }
                i = close + 2;
                continue;
            }
            int start = i;
            if (c == '\'') {
                int end = endOfQuoted(sql, i, '\'');
                if (end < 0) {
                    error = "unterminated string literal";
                    break;
                }
                raw.add(new Token(Type.STRING, sql.substring(start, end), sql.substring(start, end), start, end, 0, -1));
                i = end;
                continue;
            }
            if (c == '"' || c == '`') {
                int end = endOfQuoted(sql, i, c);
                if (end < 0) {
                    error = "unterminated quoted identifier";
                    break;
                }
                String content = sql.substring(start + 1, end - 1).replace(String.valueOf(c) + c, String.valueOf(c));
                raw.add(new Token(Type.QUOTED, sql.substring(start, end), content, start, end, 0, -1));
                i = end;
                continue;
            }
            if (c == '$' && d == '$') {
                int close = sql.indexOf("$$", i + 2);
                if (close < 0) {
                    error = "unterminated $$ literal";
                    break;
                }
                i = close + 2;
                raw.add(new Token(Type.STRING, sql.substring(start, i), sql.substring(start, i), start, i, 0, -1));
                continue;
            }
            if (Character.isLetter(c) || c == '_') {
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
                    i++;
                }
                String text = sql.substring(start, i);
                raw.add(new Token(Type.WORD, text, text.toUpperCase(Locale.ROOT), start, i, 0, -1));
                continue;
            }
            if (Character.isDigit(c) || (c == '.' && Character.isDigit(d))) {
                while (i < n) {
                    char x = sql.charAt(i);
                    if (Character.isLetterOrDigit(x) || x == '.' || x == '_') {
                        i++;
                    } else if ((x == '+' || x == '-') && (sql.charAt(i - 1) == 'e' || sql.charAt(i - 1) == 'E')
                            && !sql.substring(start, i).toLowerCase(Locale.ROOT).startsWith("0x")) {
                        i++;
                    } else {
                        break;
                    }
                }
                String text = sql.substring(start, i);
                raw.add(new Token(Type.NUMBER, text, text, start, i, 0, -1));
                continue;
            }
            i++;
            String text = String.valueOf(c);
            raw.add(new Token(c == '?' ? Type.PARAM : Type.SYMBOL, text, text, start, i, 0, -1));
        }
        if (error != null) {
            return new Lexed(sql, List.copyOf(raw), error);
        }
        // second pass: depths and parenthesis matching
        List<Token> out = new ArrayList<>(raw.size());
        int[] stack = new int[raw.size() + 1];
        int sp = 0;
        for (int k = 0; k < raw.size(); k++) {
            Token t = raw.get(k);
            if (t.isSymbol('(')) {
                out.add(new Token(t.type, t.text, t.norm, t.start, t.end, sp, -1));
                stack[sp++] = k;
            } else if (t.isSymbol(')')) {
                if (sp == 0) {
                    error = "unbalanced parentheses";
                    out.add(t);
                    continue;
                }
                int open = stack[--sp];
                Token o = out.get(open);
                out.set(open, new Token(o.type, o.text, o.norm, o.start, o.end, o.depth, k));
                out.add(new Token(t.type, t.text, t.norm, t.start, t.end, sp, open));
            } else {
                out.add(new Token(t.type, t.text, t.norm, t.start, t.end, sp, -1));
            }
        }
        if (sp != 0 && error == null) {
            error = "unbalanced parentheses";
        }
        return new Lexed(sql, List.copyOf(out), error);
    }

    /** Returns the index just after the closing quote, or -1 when unterminated. Doubled quotes escape. */
    private static int endOfQuoted(String sql, int open, char q) {
        int i = open + 1;
        int n = sql.length();
        while (i < n) {
            if (sql.charAt(i) == q) {
                if (i + 1 < n && sql.charAt(i + 1) == q) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return -1;
    }

    /**
     * Splits the token list into statements at top-level semicolons, dropping empty statements
     * (so trailing semicolons vanish).
     */
    static List<List<Token>> splitStatements(List<Token> tokens) {
        List<List<Token>> result = new ArrayList<>();
        int from = 0;
        for (int k = 0; k <= tokens.size(); k++) {
            if (k == tokens.size() || (tokens.get(k).isSymbol(';') && tokens.get(k).depth() == 0)) {
                if (k > from) {
                    result.add(tokens.subList(from, k));
                }
                from = k + 1;
            }
        }
        return result;
    }

    /** The upper-cased word at {@code k}, or "" where there is none (another kind of token, or past the end). */
    static String word(List<Token> ts, int k) {
        return k < ts.size() && ts.get(k).type() == Type.WORD ? ts.get(k).norm() : "";
    }

    /** Where the statement's tokens end: before a final {@code ;}, if there is one. */
    static int end(List<Token> ts) {
        return !ts.isEmpty() && ts.get(ts.size() - 1).isSymbol(';') ? ts.size() - 1 : ts.size();
    }

    /** Normalises a (possibly quoted) name: unquoted upper-case, quoted verbatim. */
    static String normName(Token t) {
        return t.type() == Type.QUOTED ? t.norm() : t.norm();
    }

    /**
     * Reads a dotted name starting at {@code k}; returns the index after it, and appends the normalised
     * name to {@code out}. Returns {@code k} when there is no name at k.
     */
    static int readQualifiedName(List<Token> ts, int k, StringBuilder out) {
        if (k >= ts.size() || !ts.get(k).isName()) {
            return k;
        }
        out.append(normName(ts.get(k)));
        k++;
        while (k + 1 < ts.size() && ts.get(k).isSymbol('.') && ts.get(k + 1).isName()) {
            out.append('.').append(normName(ts.get(k + 1)));
            k += 2;
        }
        return k;
    }
}
