package io.macrodb.sql;

import static io.macrodb.sql.SqlLexer.word;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.macrodb.sql.Classification.Verb;
import io.macrodb.sql.SqlLexer.Lexed;
import io.macrodb.sql.SqlLexer.Token;
import io.macrodb.sql.SqlLexer.Type;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.show.ShowTablesStatement;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * Classifies SQL text for routing. A statement is a pure read only if JSqlParser parses it as a query AND a
 * token-level scan of the whole text finds nothing that writes, locks, touches a sequence, reads session
 * state, or calls a function outside the whitelist in {@link SqlFunctions}. Both checks must agree; anything
 * unknown is not a pure read. The same tokens give the rest of the {@link Classification} (the verb, its
 * argument, sequence use, what a schema change would do), so a text is lexed once and its classification
 * cached: executing it again examines nothing. Thread-safe; never throws.
 */
public final class SqlClassifier {
    static final int CACHE_MAX_ENTRIES = 10_000;
    private static final int CACHE_MAX_SQL_LENGTH = 16 * 1024;

    /** What follows {@code SET} in a SET that changes only the session it runs in. */
    private static final Set<String> SESSION_SETTINGS = Set.of("SCHEMA", "SCHEMA_SEARCH_PATH", "PATH", "LOCK_TIMEOUT",
            "QUERY_TIMEOUT", "VARIABLE", "TIME_ZONE", "THROTTLE", "LAZY_QUERY_EXECUTION", "NON_KEYWORDS",
            "BUILTIN_ALIAS_OVERRIDE", "SESSION", "ROLE", "CATALOG", "MAXROWS", "IGNORECASE", "VARIABLE_BINARY",
            "QUERY_STATISTICS");

    private final Dialect dialect;
    private final ConcurrentHashMap<String, Classification> cache = new ConcurrentHashMap<>();

    public SqlClassifier(Dialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
    }

    public Dialect dialect() {
        return dialect;
    }

    /** Classifies {@code sql}; thread-safe, never throws (null gives UNKNOWN). */
    /**
     * {@code sql} with every comment turned into spaces (same length; the text itself if it does not
     * lex cleanly): for a pattern that must read the text as SQL does, where a comment is whitespace.
     */
    public static String withoutComments(String sql) {
        return SqlLexer.lex(sql).withoutComments();
    }

    public Classification classify(String sql) {
        if (sql == null) {
            return Classification.notPure(StatementKind.UNKNOWN, Set.of(), "null SQL");
        }
        Classification c = cache.get(sql);
        if (c != null) {
            return c;
        }
        try {
            Lexed lx = SqlLexer.lex(sql);
            c = withFacts(compute(sql, lx), sql, lx);
            if (dialect == Dialect.SQLITE) c = SqliteRules.adjust(c, lx);
            if (dialect == Dialect.POSTGRESQL) c = PostgresRules.adjust(c, lx);
        } catch (Throwable t) { // StackOverflowError on absurd nesting, parser bugs, ...
            // drawing from a sequence assumed: recording sequence positions at commit is only extra work
            c = Classification.notPure(StatementKind.UNKNOWN, Set.of(), "classification failed: " + t.getClass().getSimpleName())
                    .with(false, Verb.OTHER, null, true, false, null);
        }
        if (sql.length() <= CACHE_MAX_SQL_LENGTH) {
            if (cache.size() >= CACHE_MAX_ENTRIES) {
                cache.clear();
            }
            cache.put(sql, c);
        }
        return c;
    }

    int cacheSize() {
        return cache.size();
    }

    private Classification compute(String sql, Lexed lx) {
        if (lx.error() != null) {
            return Classification.notPure(keywordKind(lx.tokens(), dialect), Set.of(), "cannot tokenise: " + lx.error());
        }
        List<List<Token>> stmts = SqlLexer.splitStatements(lx.tokens());
        if (stmts.isEmpty()) {
            return Classification.notPure(StatementKind.UNKNOWN, Set.of(), "empty statement");
        }
        if (stmts.size() > 1) {
            Set<StatementKind> kinds = EnumSet.noneOf(StatementKind.class);
            Set<String> tables = new LinkedHashSet<>();
            for (List<Token> ts : stmts) {
                Classification part = classifyOne(sql, ts);
                kinds.add(part.kind());
                tables.addAll(part.tables());
            }
            StatementKind kind = kinds.size() == 1 ? kinds.iterator().next() : StatementKind.UNKNOWN;
            return Classification.notPure(kind, tables, "multiple statements (" + stmts.size() + ")");
        }
        return classifyOne(sql, stmts.get(0));
    }

    private Classification classifyOne(String sql, List<Token> ts) {
        String text = sql.substring(ts.get(0).start(), ts.get(ts.size() - 1).end());
        StatementKind kind = keywordKind(ts, dialect);
        int first = firstWordIndex(ts);
        String firstWord = first < 0 ? "" : ts.get(first).norm();
        if (kind != StatementKind.READ) {
            Statement st = JSqlParsing.parseOrNull(text);
            Set<String> tables = st != null ? tablesOf(st) : heuristicTables(ts);
            return Classification.notPure(kind, tables, describe(kind, firstWord));
        }
        if (firstWord.equals("EXPLAIN")) {
            return classifyExplain(sql, ts, first);
        }
        ScanResult scan = scanQuery(ts, 0, ts.size());
        Statement st = JSqlParsing.parseOrNull(text);
        Set<String> tables = st != null ? tablesOf(st) : heuristicTables(ts);
        if (scan.write) {
            return Classification.notPure(StatementKind.WRITE, tables, scan.reason);
        }
        if (st == null) {
            return Classification.notPure(StatementKind.READ, tables,
                    scan.reason != null ? scan.reason : "not parseable by JSqlParser; treated as not pure");
        }
        if (st instanceof PlainSelect ps && ps.getIntoTables() != null && !ps.getIntoTables().isEmpty()) {
            return Classification.notPure(StatementKind.WRITE, tables, "SELECT ... INTO");
        }
        if (scan.locksOnly && st instanceof Select) {
            return Classification.locking(tables, scan.reason);
        }
        if (scan.catalogOnly && st instanceof Select) {
            return Classification.catalogRead(tables, scan.reason);
        }
        if (scan.reason != null) {
            return Classification.notPure(StatementKind.READ, tables, scan.reason);
        }
        if (firstWord.equals("SHOW")) {
            if (dialect == Dialect.H2 && isKnownShow(ts, first)) {
                return Classification.pure(tables);
            }
            return Classification.notPure(StatementKind.READ, tables, "unrecognised SHOW statement");
        }
        if (!(st instanceof Select)) {
            return Classification.notPure(StatementKind.READ, tables,
                    "parsed as " + st.getClass().getSimpleName() + ", not a query");
        }
        return Classification.pure(tables);
    }

    private Classification classifyExplain(String sql, List<Token> ts, int explainIdx) {
        int k = explainIdx + 1;
        boolean analyze = false;
        while (k < ts.size() && ts.get(k).type() == Type.WORD
                && Set.of("ANALYZE", "PLAN", "FOR", "ANALYSE").contains(ts.get(k).norm())) {
            analyze |= ts.get(k).norm().startsWith("ANALY");
            k++;
        }
        if (k >= ts.size()) {
            return Classification.notPure(StatementKind.UNKNOWN, Set.of(), "EXPLAIN without statement");
        }
        List<Token> inner = ts.subList(k, ts.size());
        StatementKind innerKind = keywordKind(inner, dialect);
        if (innerKind != StatementKind.READ) {
            StatementKind kind = analyze ? innerKind : StatementKind.READ;
            return Classification.notPure(kind, heuristicTables(inner), "EXPLAIN of a non-query statement");
        }
        Classification c = classifyOne(sql, inner);
        return c;
    }

    private static boolean isKnownShow(List<Token> ts, int showIdx) {
        List<String> words = new ArrayList<>();
        for (int k = showIdx + 1; k < ts.size(); k++) {
            words.add(ts.get(k).type() == Type.WORD ? ts.get(k).norm() : "?");
        }
        if (words.equals(List.of("SCHEMAS")) || words.equals(List.of("TABLES"))) {
            return true;
        }
        if (words.size() == 3 && words.get(0).equals("TABLES") && words.get(1).equals("FROM")) {
            return ts.get(showIdx + 3).isName();
        }
        if (words.size() >= 3 && words.get(0).equals("COLUMNS") && words.get(1).equals("FROM")) {
            // SHOW COLUMNS FROM t [FROM schema]: only names and FROM allowed
            for (int k = showIdx + 3; k < ts.size(); k++) {
                Token t = ts.get(k);
                if (!(t.isName() || t.isSymbol('.') || t.isWord("FROM"))) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ the facts beside the kind

    /**
     * Adds what the tokens show beside kind and purity. Whole-statement forms (transaction control,
     * {@code SET AUTOCOMMIT}, {@code SET SCHEMA}) need text that lexed cleanly; the others are
     * recognised by how the text starts, whatever follows.
     */
    private static Classification withFacts(Classification c, String sql, Lexed lx) {
        List<Token> ts = lx.tokens();
        boolean schemaChange = c.kind() != StatementKind.READ
                && (word(ts, 0).equals("TRUNCATE") || word(ts, 0).equals("EXECUTE") && word(ts, 1).equals("IMMEDIATE"));
        Verb verb = Verb.OTHER;
        String argument = null;
        int end = SqlLexer.end(ts);
        if (lx.error() == null) {
            verb = controlVerb(ts, end);
            if (verb == Verb.SAVEPOINT || verb == Verb.RELEASE_SAVEPOINT || verb == Verb.ROLLBACK_TO_SAVEPOINT) {
                argument = ts.get(end - 1).text();
            }
            int name = word(ts, 0).equals("USE") ? 1 : word(ts, 0).equals("SET") && word(ts, 1).equals("SCHEMA") ? 2 : -1;
            if (name > 0 && name == end - 1 && schemaName(ts.get(name)) != null) {
                verb = Verb.SET_SCHEMA;
                argument = schemaName(ts.get(name));
            }
        }
        if (verb == Verb.OTHER) {
            verb = setVerb(ts, end);
            if (verb == Verb.SESSION_SET) argument = settingName(ts);
        }
        if (verb == Verb.OTHER && word(ts, 0).equals("LOCK") && (word(ts, 1).equals("TABLE") || word(ts, 1).equals("TABLES"))
                && lx.error() == null) {
            verb = Verb.LOCK_TABLE;
        }
        if (verb == Verb.OTHER && word(ts, 0).equals("SHUTDOWN") && lx.error() == null && end <= 2) {
            verb = Verb.SHUTDOWN; // SHUTDOWN [IMMEDIATELY | COMPACT | DEFRAG | SCRIPT]: the argument is the mode
            argument = end == 2 ? word(ts, 1) : null;
        }
        if (verb == Verb.OTHER && word(ts, 0).equals("SCRIPT") && lx.error() == null) {
            String file = scriptFile(ts, end);
            if (file != null) {
                verb = Verb.SCRIPT;
                argument = file.isEmpty() ? null : file;
            }
        }
        boolean temporary = false;
        String unsafe = null;
        if (c.kind() == StatementKind.DDL || c.kind() == StatementKind.SESSION || schemaChange) {
            // the patterns below look at the text as SQL reads it: a comment (a migration tool's header) is blank
            String text = lx.withoutComments();
            try {
                temporary = NonDeterminism.createsTemporaryTable(text);
                unsafe = NonDeterminism.unsafeSchemaChange(text);
                String filled = unsafe == null || verb != Verb.OTHER ? null : NonDeterminism.tableWhoseRowsMakeItUnsafe(text);
                if (filled != null) {
                    verb = Verb.FILLS_EXISTING_ROWS;
                    argument = filled;
                }
                String created = unsafe == null || verb != Verb.OTHER ? null : NonDeterminism.tableCreatedFromQuery(text);
                if (created != null) {
                    verb = Verb.CREATES_FROM_QUERY;
                    argument = created;
                }
            } catch (RuntimeException | StackOverflowError e) {
                unsafe = "MacroDB could not analyse it (" + e.getClass().getSimpleName() + ")";
            }
        }
        return c.with(schemaChange, verb, argument, drawsFromSequence(ts), temporary, unsafe);
    }

    /** Transaction control and {@code SET AUTOCOMMIT}, as whole statements ending at {@code end}. */
    private static Verb controlVerb(List<Token> ts, int end) {
        String w0 = word(ts, 0);
        boolean workOrTransaction = word(ts, 1).equals("WORK") || word(ts, 1).equals("TRANSACTION");
        if ((w0.equals("COMMIT") || w0.equals("END")) && (end == 1 || end == 2 && workOrTransaction)) return Verb.COMMIT;
        if (w0.equals("ROLLBACK") && (end == 1 || end == 2 && workOrTransaction)) return Verb.ROLLBACK;
        int k = w0.equals("BEGIN") ? 1 : w0.equals("START") && word(ts, 1).equals("TRANSACTION") ? 2 : -1;
        // SQLite's BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE [TRANSACTION]: MacroDB's writer turn is what orders writers
        if (k == 1 && Set.of("DEFERRED", "IMMEDIATE", "EXCLUSIVE").contains(word(ts, 1))) k = 2;
        if (k > 0 && (end == k || end == k + 1 && (word(ts, k).equals("WORK") || word(ts, k).equals("TRANSACTION")))) {
            return Verb.BEGIN;
        }
        if (w0.equals("SET") && word(ts, 1).equals("AUTOCOMMIT")) {
            k = 2;
            if (k < end && (ts.get(k).isSymbol('=') || ts.get(k).isWord("TO"))) k++;
            if (k == end - 1) {
                Token v = ts.get(k);
                String value = v.type() == Type.WORD || v.type() == Type.NUMBER ? v.norm() : "";
                if (value.equals("TRUE") || value.equals("ON") || value.equals("1")) return Verb.AUTOCOMMIT_ON;
                if (value.equals("FALSE") || value.equals("OFF") || value.equals("0")) return Verb.AUTOCOMMIT_OFF;
            }
            return Verb.OTHER;
        }
        Verb savepoint = null;
        k = -1;
        if (w0.equals("SAVEPOINT")) {
            savepoint = Verb.SAVEPOINT;
            k = 1;
        } else if (w0.equals("RELEASE")) {
            savepoint = Verb.RELEASE_SAVEPOINT;
            k = word(ts, 1).equals("SAVEPOINT") && end > 2 ? 2 : 1;
        } else if (w0.equals("ROLLBACK")) {
            k = word(ts, 1).equals("WORK") ? 2 : 1;
            if (word(ts, k).equals("TO")) {
                savepoint = Verb.ROLLBACK_TO_SAVEPOINT;
                k++;
                if (word(ts, k).equals("SAVEPOINT") && end > k + 1) k++;
            }
        }
        return savepoint != null && k == end - 1 && isSavepointName(ts.get(k)) ? savepoint : Verb.OTHER;
    }

    /** A savepoint name MacroDB keeps by its text: a plain word, or a double-quoted name without quotes inside. */
    private static boolean isSavepointName(Token t) {
        String x = t.text();
        if (t.type() == Type.QUOTED) return x.startsWith("\"") && x.length() > 2 && x.indexOf('"', 1) == x.length() - 1;
        return (t.type() == Type.WORD || t.type() == Type.NUMBER) && x.chars().allMatch(ch -> ch < 128 && (Character.isLetterOrDigit(ch) || ch == '_'));
    }

    /** The schema {@code SET SCHEMA}/{@code USE} names: a double-quoted name as written inside, a plain one upper-cased. */
    private static String schemaName(Token t) {
        if (t.type() == Type.QUOTED) return t.text().startsWith("\"") && !t.norm().isEmpty() ? t.norm() : null;
        if (t.type() != Type.WORD) return null;
        String x = t.text();
        boolean plain = x.chars().allMatch(ch -> ch < 128 && (Character.isLetterOrDigit(ch) || ch == '_' || ch == '$'))
                && !Character.isDigit(x.charAt(0)) && x.charAt(0) != '$';
        return plain ? x.toUpperCase(java.util.Locale.ROOT) : null;
    }

    /**
     * For a {@code SCRIPT} statement: "" if it returns the dump as a result, the file name if it
     * writes plain text to a file named by a literal ({@code TO 'f'} in H2, {@code SCRIPT 'f'} in
     * HSQLDB), null for any other form (compressed, encrypted, a parameter, a charset).
     */
    private static String scriptFile(List<Token> ts, int end) {
        String file = "";
        for (int i = 1; i < end; i++) {
            Token t = ts.get(i);
            if (t.isWord("COMPRESSION") || t.isWord("CIPHER") || t.isWord("CHARSET") || t.type() == SqlLexer.Type.PARAM) return null;
            boolean named = t.type() == SqlLexer.Type.STRING && t.text().startsWith("'") && (i == 1 || ts.get(i - 1).isWord("TO"));
            if (named) file = t.text().substring(1, t.text().length() - 1).replace("''", "'");
        }
        return file;
    }

    /** The {@code SET}s (and {@code USE}) that are not control statements, by how the text starts. */
    private static Verb setVerb(List<Token> ts, int end) {
        String w0 = word(ts, 0);
        String w1 = word(ts, 1);
        if (w0.equals("USE") && end > 1 && SqlLexer.readQualifiedName(ts, 1, new StringBuilder()) == end) return Verb.SESSION_SET;
        if (!w0.equals("SET")) {
            boolean trigger = w0.equals("CREATE") && (w1.equals("TRIGGER")
                    || w1.equals("OR") && word(ts, 2).equals("REPLACE") && word(ts, 3).equals("TRIGGER"));
            return trigger ? Verb.CREATE_TRIGGER : Verb.OTHER;
        }
        if (SESSION_SETTINGS.contains(w1) || w1.equals("TIME") && word(ts, 2).equals("ZONE") || variableAt(ts, 1)) {
            return Verb.SESSION_SET;
        }
        if (w1.equals("EXCLUSIVE") || w1.equals("DATABASE") && word(ts, 2).equals("TRANSACTION")
                && (word(ts, 3).equals("CONTROL") || word(ts, 3).equals("ROLLBACK"))) {
            return Verb.PRIMARY_ONLY_SET;
        }
        if (w1.equals("REFERENTIAL_INTEGRITY") || w1.equals("DATABASE") && word(ts, 2).equals("REFERENTIAL")
                && word(ts, 3).equals("INTEGRITY")) {
            return Verb.ROW_MODE_PRIMARY_ONLY_SET;
        }
        return Verb.OTHER;
    }

    /** {@code @name} at {@code k}, written together: a session variable. */
    private static boolean variableAt(List<Token> ts, int k) {
        if (k + 1 >= ts.size() || !ts.get(k).isSymbol('@')) return false;
        Token name = ts.get(k + 1);
        return (name.type() == Type.WORD || name.type() == Type.NUMBER) && name.start() == ts.get(k).end();
    }

    /**
     * The setting a session-level SET changes, so that a later SET of the same setting replaces it:
     * {@code SET SESSION x}, {@code SET TIME ZONE}, {@code SET @x}, {@code SET VARIABLE x} or
     * {@code SET x}, upper-cased; null when the statement names none ({@code USE}): then its whole text is the setting.
     */
    private static String settingName(List<Token> ts) {
        if (!word(ts, 0).equals("SET")) return null;
        String w1 = word(ts, 1);
        if ((w1.equals("SESSION") || w1.equals("VARIABLE")) && !word(ts, 2).isEmpty()) return "SET " + w1 + " " + word(ts, 2);
        if (w1.equals("TIME") && word(ts, 2).equals("ZONE")) return "SET TIME ZONE";
        if (variableAt(ts, 1)) return "SET @" + ts.get(2).norm();
        return w1.isEmpty() ? null : "SET " + w1;
    }

    /** Whether the text draws from a sequence: a sequence function, or NEXT VALUE FOR. */
    private static boolean drawsFromSequence(List<Token> ts) {
        for (int i = 0; i < ts.size(); i++) {
            Token t = ts.get(i);
            if (t.type() != Type.WORD) continue;
            if (SqlFunctions.SEQUENCE_WORDS.contains(t.norm())) return true;
            if (t.norm().equals("NEXT") && i + 2 < ts.size() && ts.get(i + 1).isWord("VALUE") && ts.get(i + 2).isWord("FOR")) return true;
        }
        return false;
    }


    // ------------------------------------------------------------------ token scan

    /**
     * @param reason     the first thing found that makes the query not a pure read, or null
     * @param write      the query changes data (a data-change statement inside it)
     * @param locksOnly  every such thing found is a locking clause: the query locks rows and changes none
     * @param catalogOnly every such thing found is a table of the engine's catalog: the query reads it and changes
     *                   nothing ({@link Classification#readsCatalog})
     */
    record ScanResult(String reason, boolean write, boolean locksOnly, boolean catalogOnly) {
        ScanResult(String reason, boolean write, boolean locksOnly) {
            this(reason, write, locksOnly, false);
        }
    }

    /**
     * Schemas of the engines' catalogs, upper-cased: the SQL standard's, PostgreSQL's and Derby's (its
     * {@code SYSIBM} holds only {@code SYSDUMMY1}, the same on every replica, and is left out).
     */
    private static final Set<String> CATALOG_SCHEMAS = Set.of("INFORMATION_SCHEMA", "PG_CATALOG", "SYS");

    /** SQLite's catalog tables, upper-cased. */
    private static final Set<String> CATALOG_TABLES = Set.of("SQLITE_MASTER", "SQLITE_SCHEMA", "SQLITE_TEMP_MASTER",
            "SQLITE_TEMP_SCHEMA", "SQLITE_SEQUENCE");

    /**
     * Whether the name token at {@code i} names a catalog table: a table of one of {@link #CATALOG_SCHEMAS}
     * ({@code INFORMATION_SCHEMA.TABLES}, quoted or not), one of SQLite's {@link #CATALOG_TABLES}, or an unqualified
     * {@code pg_...} relation (PostgreSQL's catalog is on the search path). A column of the application named so
     * only sends its query to the primary.
     */
    private static boolean namesCatalog(String name, boolean qualifier, boolean qualified, boolean call, Token next2) {
        if (call) return false;
        if (qualifier) return CATALOG_SCHEMAS.contains(name) && next2 != null && next2.isName();
        return CATALOG_TABLES.contains(name) || !qualified && name.startsWith("PG_") && name.length() > 3;
    }

    /** What a scan found that makes a query not a pure read: the first, and whether only locking clauses or catalog tables. */
    private static final class Findings {
        String first;
        boolean locks;
        boolean catalog;
        boolean others;

        void lock(String what) {
            if (first == null) first = what;
            locks = true;
        }

        void catalog(String what) {
            if (first == null) first = what;
            catalog = true;
        }

        void other(String what) {
            if (first == null) first = what;
            others = true;
        }
    }

    /** Scans a query for anything that makes it not a pure read. */
    private ScanResult scanQuery(List<Token> ts, int from, int to) {
        Findings found = new Findings();
        for (int i = from; i < to; i++) {
            Token t = ts.get(i);
            Token prev = i > from ? ts.get(i - 1) : null;
            Token next = i + 1 < to ? ts.get(i + 1) : null;
            Token next2 = i + 2 < to ? ts.get(i + 2) : null;
            boolean call = next != null && next.isSymbol('(');
            boolean qualified = prev != null && prev.isSymbol('.');
            boolean qualifier = next != null && next.isSymbol('.');
            if (t.isSymbol('@')) {
                // PostgreSQL has no session variables: @>, <@, @@, @? and @ (absolute value) are operators
                if (dialect != Dialect.POSTGRESQL) found.other("reads a session variable (@...)");
                continue;
            }
            if (t.type() == Type.QUOTED) {
                if (call && !isAliasOrCteColumnList(ts, i, from, to)) {
                    found.other("calls quoted function " + t.text() + " (not on the whitelist)");
                } else if (namesCatalog(t.norm().toUpperCase(java.util.Locale.ROOT), qualifier, qualified, call, next2)) {
                    found.catalog("reads the catalog (" + t.text() + (qualifier && next2 != null ? "." + next2.text() : "")
                            + "), which differs between replicas");
                }
                continue;
            }
            if (t.type() != Type.WORD) {
                continue;
            }
            String w = t.norm();
            // data change inside a query: H2 delta tables, data-modifying CTEs, SELECT INTO
            if ((w.equals("FINAL") || w.equals("OLD") || w.equals("NEW")) && next != null && next.isWord("TABLE")) {
                return new ScanResult("data change delta table (" + w + " TABLE)", true, false);
            }
            if (!qualified && !qualifier && !call
                    && (w.equals("INSERT") || w.equals("DELETE") || w.equals("MERGE") || w.equals("UPSERT"))) {
                return new ScanResult("contains a data change statement (" + w + ")", true, false);
            }
            if (w.equals("UPDATE") && !qualified && !qualifier) {
                boolean lock = prev != null && (prev.isWord("FOR") || prev.isWord("KEY") || prev.isWord("NO"));
                if (!lock) {
                    return new ScanResult("contains a data change statement (UPDATE)", true, false);
                }
                found.lock("FOR UPDATE locks rows");
                continue;
            }
            if (w.equals("INTO") && !qualified && !qualifier) {
                found.other("SELECT ... INTO");
                continue;
            }
            if (w.equals("FOR") && next != null && next.type() == Type.WORD
                    && Set.of("UPDATE", "SHARE", "NO", "KEY").contains(next.norm())) {
                found.lock("FOR " + next.norm() + " locks rows");
                continue;
            }
            if (SqlFunctions.LOCK_WORDS.contains(w) && !call && !qualified && !qualifier) {
                found.lock("locking clause (" + w + ")");
                continue;
            }
            if ((w.equals("NEXT") || w.equals("CURRENT")) && next != null && next.isWord("VALUE")
                    && next2 != null && next2.isWord("FOR")) {
                found.other(w + " VALUE FOR accesses a sequence");
                continue;
            }
            if (SqlFunctions.SEQUENCE_WORDS.contains(w)) {
                found.other(w + " accesses a sequence");
                continue;
            }
            if (w.equals("INFORMATION_SCHEMA") && qualifier && next2 != null && next2.isName()
                    && SqlFunctions.SESSION_TABLES.contains(next2.norm().toUpperCase(java.util.Locale.ROOT))) {
                found.other("reads per-session system table INFORMATION_SCHEMA." + next2.norm());
                continue;
            }
            if (namesCatalog(w, qualifier, qualified, call, next2)) {
                found.catalog("reads the catalog (" + t.text() + (qualifier && next2 != null ? "." + next2.text() : "")
                        + "), which differs between replicas");
                continue;
            }
            if (!call) {
                if (SqlFunctions.SESSION_WORDS.contains(w) && !qualified && !qualifier) {
                    found.other(w + " is session-specific");
                }
                continue;
            }
            // w is followed by '('
            if (qualified) {
                found.other("calls schema-qualified function " + w + " (user-defined)");
                continue;
            }
            if (isAliasOrCteColumnList(ts, i, from, to)) {
                continue;
            }
            if (SqlFunctions.SESSION_FUNCTIONS.contains(w)) {
                found.other(w + "() is session-specific or has side effects");
                continue;
            }
            if ((w.equals("RAND") || w.equals("RANDOM")) && i + 2 < to && !ts.get(i + 2).isSymbol(')')) {
                found.other(w + "(seed) changes the session's random generator");
                continue;
            }
            if (SqlFunctions.SYNTAX_BEFORE_PAREN.contains(w) || pureFunction(w)) {
                continue;
            }
            if (dialect == Dialect.POSTGRESQL && prev != null && (prev.isSymbol(':') && i - 2 >= from && ts.get(i - 2).isSymbol(':')
                    && ts.get(i - 2).end() == prev.start() // x::numeric(10, 2), a type (not a[1:f(x)], an array slice)
                    || prev.isWord("TABLESAMPLE") || w.equals("REPEATABLE") && prev.isSymbol(')'))) { // TABLESAMPLE SYSTEM (10) REPEATABLE (1)
                continue;
            }
            if (SqlFunctions.TYPE_WORDS.contains(w) && prev != null
                    && (prev.isSymbol(',') || (prev.type() == Type.WORD
                        && Set.of("CHARACTER", "CHAR", "BINARY", "NATIONAL", "LARGE", "NCHAR").contains(prev.norm())))) {
                continue; // CONVERT(x, VARCHAR(10)), CHARACTER VARYING(10)
            }
            if (SqlFunctions.TABLE_FUNCTIONS.contains(w) && (w.equals("UNNEST") || dialect == Dialect.H2) && prev != null && (prev.isSymbol(',') || prev.isWord("FROM")
                    || prev.isWord("JOIN") || prev.isWord("LATERAL"))) {
                continue; // FROM UNNEST(...), FROM SYSTEM_RANGE(1, 10)
            }
            found.other("function " + w + " is not on the side-effect-free whitelist");
        }
        return new ScanResult(found.first, false, found.locks && !found.others, found.catalog && !found.locks && !found.others);
    }

    private boolean pureFunction(String w) {
        if (dialect == Dialect.POSTGRESQL) return SqlFunctions.PURE_POSTGRES.contains(w);
        return SqlFunctions.PURE_COMMON.contains(w)
                && !(dialect == Dialect.HSQLDB ? SqlFunctions.NOT_IN_HSQLDB : SqlFunctions.NOT_IN_H2).contains(w);
    }

    /** name( after AS (alias column list or type), or CTE "name(cols) AS (". */
    static boolean isAliasOrCteColumnList(List<Token> ts, int i, int from, int to) {
        if (i > from && ts.get(i - 1).isWord("AS")) {
            return true;
        }
        int close = ts.get(i + 1).match();
        return close > 0 && close + 2 < to && ts.get(close + 1).isWord("AS") && ts.get(close + 2).isSymbol('(');
    }

    // ------------------------------------------------------------------ keyword kind

    static int firstWordIndex(List<Token> ts) {
        int k = 0;
        while (k < ts.size() && (ts.get(k).isSymbol('(') || ts.get(k).isSymbol('{')
                || ts.get(k).type() == Type.PARAM || ts.get(k).isSymbol('='))) {
            k++;
        }
        return k < ts.size() && ts.get(k).type() == Type.WORD ? k : -1;
    }

    /** Conservative kind from the leading keyword(s); works on unparseable text. */
    static StatementKind keywordKind(List<Token> ts, Dialect dialect) {
        int k = firstWordIndex(ts);
        if (k < 0) {
            return StatementKind.UNKNOWN;
        }
        String w = ts.get(k).norm();
        String next = k + 1 < ts.size() && ts.get(k + 1).type() == Type.WORD ? ts.get(k + 1).norm() : "";
        switch (w) {
            case "SELECT": case "VALUES": case "TABLE": case "EXPLAIN":
                return StatementKind.READ;
            case "SHOW":
                return dialect == Dialect.H2 || dialect == Dialect.POSTGRESQL ? StatementKind.READ : StatementKind.UNKNOWN;
            case "WITH":
                return withIsDataChange(ts, k) ? StatementKind.WRITE : StatementKind.READ;
            case "INSERT": case "UPDATE": case "DELETE": case "MERGE": case "REPLACE": case "UPSERT": case "TRUNCATE":
                return StatementKind.WRITE;
            case "CREATE": case "ALTER": case "DROP": case "COMMENT": case "GRANT": case "REVOKE": case "ANALYZE":
            case "CHECKPOINT": case "RENAME": case "RUNSCRIPT": case "PERFORM":
                return StatementKind.DDL;
            case "COMMIT": case "ROLLBACK": case "SAVEPOINT": case "RELEASE": case "LOCK":
                return StatementKind.TRANSACTION;
            case "START":
                return next.equals("TRANSACTION") ? StatementKind.TRANSACTION : StatementKind.UNKNOWN;
            case "BEGIN":
                return next.equals("ATOMIC") || next.equals("NOT") ? StatementKind.UNKNOWN : StatementKind.TRANSACTION;
            case "PREPARE":
                return next.equals("COMMIT") ? StatementKind.TRANSACTION : StatementKind.UNKNOWN;
            case "SET":
                return Set.of("DATABASE", "TABLE", "FILES", "PASSWORD", "SALT", "INITIAL").contains(next)
                        ? StatementKind.DDL : StatementKind.SESSION;
            case "USE": case "RESET": case "DECLARE": case "CONNECT": case "DISCONNECT":
                return StatementKind.SESSION;
            case "CALL": case "EXEC": case "EXECUTE":
                return StatementKind.CALL;
            default:
                return StatementKind.UNKNOWN;
        }
    }

    /** True when the main statement after a WITH clause changes data (depth-0 DML keyword). */
    private static boolean withIsDataChange(List<Token> ts, int withIdx) {
        int depth0 = ts.get(withIdx).depth();
        for (int k = withIdx + 1; k < ts.size(); k++) {
            Token t = ts.get(k);
            if (t.type() != Type.WORD || t.depth() != depth0) {
                continue;
            }
            Token prev = ts.get(k - 1);
            if (prev.isSymbol('.')) {
                continue;
            }
            switch (t.norm()) {
                case "INSERT": case "DELETE": case "MERGE": case "UPSERT": case "REPLACE":
                    if (k + 1 < ts.size() && ts.get(k + 1).isSymbol('(')) {
                        break; // function call
                    }
                    return true;
                case "UPDATE":
                    if (!(prev.isWord("FOR") || prev.isWord("KEY") || prev.isWord("NO"))) {
                        return true;
                    }
                    break;
                default:
                    break;
            }
        }
        return false;
    }

    private static String describe(StatementKind kind, String firstWord) {
        return switch (kind) {
            case WRITE -> "data change (" + firstWord + ")";
            case DDL -> "DDL (" + firstWord + ")";
            case TRANSACTION -> "transaction control (" + firstWord + ")";
            case SESSION -> "session statement (" + firstWord + ")";
            case CALL -> "procedure call (" + firstWord + ")";
            case UNKNOWN -> "unrecognised statement" + (firstWord.isEmpty() ? "" : " (" + firstWord + ")");
            case READ -> "not a pure read";
        };
    }

    // ------------------------------------------------------------------ tables

    static Set<String> tablesOf(Statement st) {
        try {
            Set<String> raw = new TablesNamesFinder<Void>().getTables(st);
            Set<String> out = new LinkedHashSet<>();
            for (String name : raw) {
                String n = normaliseQualified(name);
                if (n != null) {
                    out.add(n);
                }
            }
            return out;
        } catch (Throwable e) {
            return Set.of();
        }
    }

    /** Normalises a dotted name as JSqlParser prints it: unquoted parts upper-cased, quotes stripped. */
    static String normaliseQualified(String name) {
        SqlLexer.Lexed lx = SqlLexer.lex(name);
        if (lx.error() != null || lx.tokens().isEmpty()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        int end = SqlLexer.readQualifiedName(lx.tokens(), 0, sb);
        return end == lx.tokens().size() ? sb.toString() : null;
    }

    /** Best-effort table names for statements JSqlParser cannot parse. */
    static Set<String> heuristicTables(List<Token> ts) {
        Set<String> out = new LinkedHashSet<>();
        for (int k = 0; k + 1 < ts.size(); k++) {
            Token t = ts.get(k);
            if (t.type() != Type.WORD) {
                continue;
            }
            if (Set.of("FROM", "JOIN", "INTO", "UPDATE", "TABLE").contains(t.norm())) {
                if (k > 0 && (ts.get(k - 1).isSymbol('.'))) {
                    continue;
                }
                Token n = ts.get(k + 1);
                if (n.type() == Type.WORD && Set.of("SELECT", "TABLE", "VALUES", "LATERAL", "UNNEST", "ONLY", "IF", "FINAL", "OLD", "NEW")
                        .contains(n.norm())) {
                    continue;
                }
                StringBuilder sb = new StringBuilder();
                int end = SqlLexer.readQualifiedName(ts, k + 1, sb);
                if (end > k + 1 && !(end < ts.size() && ts.get(end).isSymbol('(') && !t.isWord("INTO"))) {
                    out.add(sb.toString());
                }
            }
        }
        return out;
    }
}
