package io.macrodb.sql;

import static io.macrodb.sql.SqlLexer.word;

import io.macrodb.sql.Classification.Verb;
import io.macrodb.sql.SqlLexer.Lexed;
import io.macrodb.sql.SqlLexer.Token;

import java.util.List;
import java.util.Set;

/**
 * What SQLite's own statements are to MacroDB, on top of the common rules: {@code PRAGMA},
 * {@code ATTACH}/{@code DETACH}, {@code VACUUM}, {@code REINDEX}, virtual and temporary tables, a
 * trigger whose body holds several statements, {@code END} and {@code BEGIN IMMEDIATE}.
 *
 * <ul>
 *   <li>A pragma that reads ({@code PRAGMA table_info(t)}, {@code PRAGMA user_version}) is a read
 *       that runs on the primary: several pragmas are per connection, and the primary's sessions
 *       are the ones that carry the application's settings.</li>
 *   <li>{@code PRAGMA user_version = N} and {@code application_id}: database header fields that
 *       migration tools write; a schema change that every replica runs.</li>
 *   <li>Any other pragma that sets something is refused: it would set one of MacroDB's several
 *       connections to the replica; SQLite settings are connection properties.</li>
 *   <li>{@code ATTACH}, {@code DETACH}: per-connection databases whose writes no trigger of MacroDB's
 *       sees; refused. So are {@code VACUUM} (it cannot run inside the transaction a secondary applies
 *       the log in) and {@code CREATE VIRTUAL TABLE} (SQLite puts no triggers on a virtual table, so
 *       its rows could not be captured).</li>
 * </ul>
 */
final class SqliteRules {
    /** Pragmas that only read, with or without an argument in parentheses. */
    private static final Set<String> READING = Set.of("TABLE_INFO", "TABLE_XINFO", "TABLE_LIST", "INDEX_LIST", "INDEX_INFO",
            "INDEX_XINFO", "FOREIGN_KEY_LIST", "FOREIGN_KEY_CHECK", "DATABASE_LIST", "COLLATION_LIST", "FUNCTION_LIST",
            "MODULE_LIST", "PRAGMA_LIST", "COMPILE_OPTIONS", "INTEGRITY_CHECK", "QUICK_CHECK", "PAGE_COUNT", "FREELIST_COUNT",
            "DATA_VERSION", "SCHEMA_VERSION", "STATS");
    /** Pragmas that read a setting when written without a value. */
    private static final Set<String> SETTINGS = Set.of("USER_VERSION", "APPLICATION_ID", "FOREIGN_KEYS", "JOURNAL_MODE", "PAGE_SIZE",
            "ENCODING", "SYNCHRONOUS", "BUSY_TIMEOUT", "RECURSIVE_TRIGGERS", "CASE_SENSITIVE_LIKE", "CACHE_SIZE", "AUTO_VACUUM",
            "LOCKING_MODE", "TEMP_STORE", "AUTOMATIC_INDEX", "DEFER_FOREIGN_KEYS", "IGNORE_CHECK_CONSTRAINTS", "QUERY_ONLY",
            "READ_UNCOMMITTED", "REVERSE_UNORDERED_SELECTS", "SECURE_DELETE", "WAL_AUTOCHECKPOINT", "MMAP_SIZE", "CELL_SIZE_CHECK",
            "TRUSTED_SCHEMA", "LEGACY_ALTER_TABLE", "MAX_PAGE_COUNT", "THREADS", "HARD_HEAP_LIMIT", "SOFT_HEAP_LIMIT",
            "ANALYSIS_LIMIT", "CHECKPOINT_FULLFSYNC", "FULLFSYNC", "JOURNAL_SIZE_LIMIT");
    /** Settings kept in the database file itself, which every replica must hold alike. */
    private static final Set<String> IN_THE_FILE = Set.of("USER_VERSION", "APPLICATION_ID");

    private SqliteRules() {}

    /** {@code c} adjusted for SQLite's statements; {@code c} itself where the common rules stand. */
    static Classification adjust(Classification c, Lexed lx) {
        List<Token> ts = lx.tokens();
        if (lx.error() != null || ts.isEmpty()) return c;
        int end = SqlLexer.end(ts);
        String w0 = word(ts, 0);
        switch (w0) {
            case "PRAGMA":
                return pragma(c, ts, end);
            case "ATTACH", "DETACH":
                return refused(c, StatementKind.DDL, w0 + " changes the databases of one SQLite connection, and MacroDB runs several"
                        + " per replica and captures no write to an attached database; keep the data in the main database");
            case "VACUUM":
                return refused(c, StatementKind.DDL, "VACUUM cannot run inside a transaction, as a secondary applies the log;"
                        + " vacuum the file while no MacroDB connection has it open");
            case "REINDEX":
                return schemaChange(c, "REINDEX rebuilds indexes on every replica");
            case "END":
                return end == 1 || end == 2 && word(ts, 1).equals("TRANSACTION") ? transaction(c, "transaction control (END)") : c;
            case "BEGIN":
                return transaction(c, "transaction control (BEGIN)");
            case "CREATE":
                return create(c, ts);
            default:
                return c;
        }
    }

    private static Classification create(Classification c, List<Token> ts) {
        int k = 1;
        boolean temporary = word(ts, k).equals("TEMP") || word(ts, k).equals("TEMPORARY");
        if (temporary) k++;
        String what = word(ts, k);
        if (what.equals("VIRTUAL")) {
            return refused(c, StatementKind.DDL, "SQLite puts no triggers on a virtual table, so MacroDB could not capture its"
                    + " rows; keep the data in a regular table (a full-text index can be an external-content FTS table"
                    + " the application fills in each replica's own process, which MacroDB does not offer yet)");
        }
        if (temporary && (what.equals("TABLE") || what.equals("VIEW") || what.equals("TRIGGER"))) {
            return new Classification(StatementKind.DDL, false, c.tables(), "DDL (CREATE TEMP " + what + ")", false, c.verb(),
                    c.argument(), false, true, null, false);
        }
        if (what.equals("TRIGGER")) {
            // BEGIN ... ; ... ; END is one statement: the common splitter saw several
            return new Classification(StatementKind.DDL, false, c.tables(), "DDL (CREATE TRIGGER)", false, Verb.CREATE_TRIGGER,
                    c.argument(), c.drawsFromSequence(), false, null, false);
        }
        return c;
    }

    private static Classification pragma(Classification c, List<Token> ts, int end) {
        int k = 1;
        if (k + 2 < end && ts.get(k).isName() && ts.get(k + 1).isSymbol('.')) k += 2; // schema.name
        String name = word(ts, k);
        boolean assigns = k + 1 < end && ts.get(k + 1).isSymbol('=');
        boolean argument = k + 1 < end && ts.get(k + 1).isSymbol('(');
        if (!assigns && (READING.contains(name) || SETTINGS.contains(name) && !argument)) {
            return new Classification(StatementKind.READ, false, Set.of(), "PRAGMA " + name.toLowerCase(java.util.Locale.ROOT)
                    + " reads the primary's settings");
        }
        if (IN_THE_FILE.contains(name) && (assigns || argument)) {
            return schemaChange(c, "PRAGMA " + name.toLowerCase(java.util.Locale.ROOT) + " is kept in the database file");
        }
        return refused(c, StatementKind.DDL, "PRAGMA " + name.toLowerCase(java.util.Locale.ROOT) + " sets something for one"
                + " SQLite connection (or does work MacroDB cannot replay), and MacroDB runs several per replica; give SQLite"
                + " settings as connection properties (e.g. foreign_keys=true, journal_mode=WAL)");
    }

    private static Classification transaction(Classification c, String reason) {
        return new Classification(StatementKind.TRANSACTION, false, Set.of(), reason, false, c.verb(), c.argument(), false, false,
                null, false);
    }

    private static Classification schemaChange(Classification c, String reason) {
        return new Classification(StatementKind.DDL, false, c.tables(), reason, false, Verb.OTHER, null, false, false, null, false);
    }

    /** Refused when it runs: a schema change whose replication is unsafe, with {@code why} as the reason. */
    private static Classification refused(Classification c, StatementKind kind, String why) {
        return new Classification(kind, false, c.tables(), why, false, Verb.OTHER, null, false, false, why, false);
    }

}
