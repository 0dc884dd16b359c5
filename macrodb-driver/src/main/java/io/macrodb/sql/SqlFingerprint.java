package io.macrodb.sql;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The shape of a statement: its text with literals replaced by {@code ?}, comments dropped,
 * keywords upper-cased and whitespace collapsed. {@code SELECT * FROM t WHERE id = 7} and
 * {@code select *  from t where id=?} have the same shape. Used to learn, per shape, where
 * transactions that start with it end up running.
 */
public final class SqlFingerprint {
    private static final int CACHE_LIMIT = 10_000;
    private static final ConcurrentHashMap<String, String> CACHE = new ConcurrentHashMap<>();

    private SqlFingerprint() {}

    public static String of(String sql) {
        if (sql == null) return "";
        String cached = CACHE.get(sql);
        if (cached != null) return cached;
        SqlLexer.Lexed lexed = SqlLexer.lex(sql);
        String fp;
        if (lexed.error() != null) {
            fp = sql.strip().replaceAll("\\s+", " ");
        } else {
            StringBuilder sb = new StringBuilder(sql.length());
            for (SqlLexer.Token t : lexed.tokens()) {
                if (sb.length() > 0) sb.append(' ');
                switch (t.type()) {
                    case STRING, NUMBER, PARAM -> sb.append('?');
                    case WORD -> sb.append(t.norm());
                    default -> sb.append(t.text());
                }
            }
            fp = sb.toString();
        }
        if (CACHE.size() >= CACHE_LIMIT) CACHE.clear();
        if (sql.length() <= 16_384) CACHE.put(sql, fp);
        return fp;
    }
}
