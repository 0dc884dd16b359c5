package io.macrodb.sql;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.UnsupportedStatement;

/** Parses one statement with JSqlParser on a shared daemon pool (JSqlParser enforces its timeout that way). */
final class JSqlParsing {
    private static final long TIMEOUT_MS = 3000;
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "macrodb-sqlparse-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    private JSqlParsing() {}

    /** Returns the parsed statement, or null when JSqlParser cannot parse it (never throws). */
    static Statement parseOrNull(String sql) {
        try {
            Statement st = CCJSqlParserUtil.parse(sql, POOL,
                    p -> p.withTimeOut(TIMEOUT_MS).withUnsupportedStatements(false).withSquareBracketQuotation(false));
            if (st == null || st instanceof UnsupportedStatement) {
                return null;
            }
            return st;
        } catch (Throwable e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }
}
