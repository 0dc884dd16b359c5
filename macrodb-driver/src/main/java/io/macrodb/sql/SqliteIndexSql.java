package io.macrodb.sql;

import io.macrodb.sql.SqlLexer.Lexed;
import io.macrodb.sql.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;

/**
 * The key expressions of a SQLite {@code CREATE [UNIQUE] INDEX} statement as SQLite keeps it in
 * {@code sqlite_schema.sql}: what {@code PRAGMA index_xinfo} does not give for a column that is an
 * expression ({@code cid = -2}, no name).
 */
public final class SqliteIndexSql {
    private SqliteIndexSql() {}

    /**
     * The text of each key column of the index, in order, without its {@code COLLATE} name and its
     * {@code ASC}/{@code DESC}; null where the statement cannot be read (MacroDB then probes without
     * the expression).
     */
    public static List<String> keyExpressions(String createIndex) {
        if (createIndex == null) return null;
        Lexed lx = SqlLexer.lex(createIndex);
        if (lx.error() != null) return null;
        List<Token> ts = lx.tokens();
        int on = -1;
        for (int i = 0; i < ts.size(); i++) {
            if (ts.get(i).depth() == 0 && ts.get(i).isWord("ON")) {
                on = i;
                break;
            }
        }
        if (on < 0) return null;
        int open = -1;
        for (int i = on + 1; i < ts.size(); i++) {
            if (ts.get(i).isSymbol('(')) {
                open = i;
                break;
            }
        }
        if (open < 0 || ts.get(open).match() < 0) return null;
        int close = ts.get(open).match();
        List<String> out = new ArrayList<>();
        int from = open + 1;
        for (int i = open + 1; i <= close; i++) {
            Token t = ts.get(i);
            boolean separator = i == close || t.isSymbol(',') && t.depth() == ts.get(open).depth() + 1;
            if (!separator) continue;
            int to = i - 1; // inclusive
            if (to >= from && (ts.get(to).isWord("ASC") || ts.get(to).isWord("DESC"))) to--;
            if (to - 1 >= from && ts.get(to - 1).isWord("COLLATE")) to -= 2;
            if (to < from) return null;
            out.add(createIndex.substring(ts.get(from).start(), ts.get(to).end()));
            from = i + 1;
        }
        return out;
    }
}
