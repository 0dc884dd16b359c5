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

    /** How often a parse interrupted by the caller's interrupt status is tried again. */
    private static final int INTERRUPTED_TRIES = 5;

    /**
     * Returns the parsed statement, or null when JSqlParser cannot parse it (never throws).
     *
     * <p>The parse waits for the pool, and a wait ends at once in a thread whose interrupt status is
     * set (after {@code Future.cancel(true)}, say): that says nothing about the statement, and taking
     * it for unparseable would refuse a valid write, and the classification of its text is cached. So
     * the interrupt status is cleared for the parse and set again afterwards, for the caller's code to see.
     */
    static Statement parseOrNull(String sql) {
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    Statement st = CCJSqlParserUtil.parse(sql, POOL,
                            p -> p.withTimeOut(TIMEOUT_MS).withUnsupportedStatements(false).withSquareBracketQuotation(false));
                    if (st == null || st instanceof UnsupportedStatement) {
                        return null;
                    }
                    return st;
                } catch (Throwable e) {
                    boolean byInterrupt = e instanceof InterruptedException || e.getCause() instanceof InterruptedException
                            || Thread.currentThread().isInterrupted();
                    if (!byInterrupt || attempt >= INTERRUPTED_TRIES) return null;
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
