package io.macrodb.differential;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link Scenario}'s counterpart for SQLite: a generated schema and workload written in SQLite's own
 * SQL, kept as small numbers that jqwik shrinks one by one (statements refer to tables, columns and
 * values by seeds taken modulo what exists, so any shrunk script still renders).
 *
 * <p>What it covers: declared types and their affinity (a value's storage class is what a table
 * keeps, so {@code '12'} into an INTEGER column is the integer 12, {@code 3.0} into NUMERIC the
 * integer 3, text longer than {@code VARCHAR(10)} stays whole, a DATE is text or a number), every
 * key SQLite has ({@code INTEGER PRIMARY KEY} as the rowid, {@code AUTOINCREMENT}, a declared
 * {@code INT PRIMARY KEY} that is not the rowid and admits NULL keys, text and composite keys,
 * {@code WITHOUT ROWID}, no key at all), UNIQUE, NOT NULL and CHECK constraints, unique indexes of
 * every kind REPLACE removes rows by (NOT NULL DEFAULT, NOCASE, an expression, partial), defaults, generated
 * columns (VIRTUAL and STORED), foreign keys with cascades, an application trigger writing another
 * table (on DELETE too, with REPLACE), conflict clauses ({@code INSERT OR REPLACE/IGNORE/FAIL/ABORT}, {@code REPLACE},
 * {@code UPDATE OR REPLACE}), upserts ({@code ON CONFLICT DO UPDATE/NOTHING}), {@code UPDATE ... FROM},
 * key-moving updates, statements that name the rowid, multi-row statements, JDBC and SQL transactions, savepoints, failing statements
 * mid-transaction, {@code ALTER TABLE ADD COLUMN}, NULLs, big integers, floats (infinities; NaN, which
 * SQLite stores as NULL), unicode text and blobs, bound as literals or parameters.
 *
 * <p>Nothing non-deterministic ({@code random()}, the clock): the plain engine must compute what
 * MacroDB's primary computes.
 */
public record SqliteScenario(DiffConfig config, List<TableSpec> tables, List<Op> ops) {

    /** Declared types; NONE declares none (BLOB affinity, "any"). */
    public enum ColType { INTEGER, TEXT, REAL, BLOB, NUMERIC, VARCHAR, DATE, BOOLEAN, NONE }

    /**
     * ROWID: {@code K INTEGER PRIMARY KEY}, the rowid itself; AUTOINCREMENT: the same, counted in
     * sqlite_sequence; INT: {@code K INT PRIMARY KEY}, not the rowid, NULL keys allowed (as SQLite
     * does for compatibility); TEXT; COMPOSITE: (K INT, K2 TEXT); WITHOUT_ROWID: (K INTEGER, K2 TEXT)
     * in a WITHOUT ROWID table; NONE: a plain column K, no key, duplicate rows allowed.
     */
    public enum KeyShape { ROWID, AUTOINCREMENT, INT, TEXT, COMPOSITE, WITHOUT_ROWID, NONE }

    /**
     * UNIQUE, NOT_NULL and CHECKED are constraints a statement can violate; VIRTUAL and STORED are generated.
     * The other UNIQUE kinds are the unique indexes REPLACE may remove rows by, each a probe of its own in
     * MacroDB's capture: NOT NULL DEFAULT (REPLACE writes the default for a NULL), COLLATE NOCASE, an expression
     * index ({@code lower(C)}) and a partial one ({@code WHERE C > 0}).
     */
    public enum ColKind { PLAIN, DEFAULTED, UNIQUE, NOT_NULL, CHECKED, VIRTUAL, STORED, UNIQUE_NOT_NULL, UNIQUE_NOCASE, UNIQUE_EXPR, UNIQUE_PARTIAL }

    public record ColumnSpec(ColType type, ColKind kind, int seed) {}

    /**
     * fk: 0 none, 1 a foreign key to the previous table's K, 2 ... ON DELETE CASCADE, 3 ... ON UPDATE
     * CASCADE ON DELETE SET NULL; trigger: 0 none, else an application trigger AFTER INSERT (1),
     * UPDATE (2) or DELETE (3) that writes a row into table AUDIT.
     */
    public record TableSpec(KeyShape key, List<ColumnSpec> columns, int fk, int trigger) {}

    public enum Kind {
        INSERT, INSERT_AUTO_KEY, CONFLICT_INSERT, UPSERT, UPDATE, UPDATE_OR_REPLACE, UPDATE_FROM, KEY_SHIFT, KEY_SWAP, DELETE,
        INSERT_SELECT, ADD_COLUMN,
        /** A statement that names the rowid (of a table that has one): moves one, moves all (OR REPLACE), inserts at one. */
        ROWID,
        BEGIN, COMMIT, ROLLBACK, SAVEPOINT, ROLLBACK_TO_SAVEPOINT, RELEASE, REOPEN,
        /** A statement meant to fail: a key twice in one multi-row insert, NOT NULL or CHECK violated, no such table. */
        FAIL
    }

    /** One statement, as seeds: which table, which variant, which columns, which values. */
    public record Op(Kind kind, int table, int variant, List<Integer> seeds) {}

    /**
     * Whether transactions are begun with SQL's {@code BEGIN} too (on; {@code
     * -Dmacrodb.differential.sqliteSqlTransactions=false} turns it off): see
     * SqliteDifferentialExamplesTest.autocommitReturnsAfterASqlBeginAndCommit.
     */
    static final boolean SQL_TRANSACTIONS = !"false".equals(System.getProperty("macrodb.differential.sqliteSqlTransactions"));

    static String tableName(int i) { return "T" + i; }

    private static String colName(int j) { return "C" + j; }

    private int tableIndex(int seed) { return Math.floorMod(seed, tables.size()); }

    static String sqlType(ColType t) {
        return switch (t) {
            case VARCHAR -> "VARCHAR(10)";
            case NONE -> "";
            default -> t.name();
        };
    }

    /** The key columns' types as values go (an integer or a text domain). */
    private static List<ColType> keyTypes(KeyShape k) {
        return switch (k) {
            case TEXT -> List.of(ColType.TEXT);
            case COMPOSITE, WITHOUT_ROWID -> List.of(ColType.INTEGER, ColType.TEXT);
            default -> List.of(ColType.INTEGER);
        };
    }

    private static List<String> keyNames(KeyShape k) {
        return k == KeyShape.COMPOSITE || k == KeyShape.WITHOUT_ROWID ? List.of("K", "K2") : List.of("K");
    }

    /** Whether the table's K is a rowid SQLite picks when an insert leaves it out. */
    private static boolean autoKey(KeyShape k) {
        return k == KeyShape.ROWID || k == KeyShape.AUTOINCREMENT;
    }

    private boolean hasFk(int i) {
        if (i == 0 || tables.get(i).fk() == 0) return false;
        KeyShape parent = tables.get(i - 1).key();
        return keyNames(parent).size() == 1 && parent != KeyShape.NONE;
    }

    private static boolean generated(ColumnSpec c) {
        return c.kind() == ColKind.VIRTUAL || c.kind() == ColKind.STORED;
    }

    private boolean anyTrigger() {
        return tables.stream().anyMatch(t -> t.trigger() != 0);
    }

    // ------------------------------------------------------------------ schema

    private String createTable(int i) {
        TableSpec t = tables.get(i);
        List<String> defs = new ArrayList<>();
        switch (t.key()) {
            case ROWID -> defs.add("K INTEGER PRIMARY KEY");
            case AUTOINCREMENT -> defs.add("K INTEGER PRIMARY KEY AUTOINCREMENT");
            case INT -> defs.add("K INT PRIMARY KEY");
            case TEXT -> defs.add("K TEXT PRIMARY KEY");
            case COMPOSITE -> defs.addAll(List.of("K INT", "K2 TEXT"));
            case WITHOUT_ROWID -> defs.addAll(List.of("K INTEGER", "K2 TEXT NOT NULL"));
            case NONE -> defs.add("K INT");
        }
        if (hasFk(i)) {
            defs.add("P " + (keyTypes(tables.get(i - 1).key()).get(0) == ColType.TEXT ? "TEXT" : "INTEGER") + " REFERENCES "
                    + tableName(i - 1) + " (K)" + switch (t.fk()) {
                        case 2 -> " ON DELETE CASCADE";
                        case 3 -> " ON UPDATE CASCADE ON DELETE SET NULL";
                        default -> "";
                    });
        }
        for (int j = 0; j < t.columns().size(); j++) {
            ColumnSpec c = t.columns().get(j);
            String def = colName(j) + (c.type() == ColType.NONE ? "" : " " + sqlType(c.type()));
            defs.add(def + switch (c.kind()) {
                case PLAIN -> "";
                case DEFAULTED -> " DEFAULT " + defaultValue(c.type(), c.seed(), c.seed() % 3 == 0);
                case UNIQUE -> " UNIQUE";
                case NOT_NULL -> " NOT NULL DEFAULT " + defaultValue(c.type(), c.seed() | 1, false);
                case UNIQUE_NOT_NULL -> " NOT NULL DEFAULT " + defaultValue(c.type(), c.seed() | 1, false) + " UNIQUE";
                case UNIQUE_NOCASE -> " COLLATE NOCASE UNIQUE";
                case UNIQUE_EXPR, UNIQUE_PARTIAL -> ""; // an index of its own (indexes)
                case CHECKED -> " CHECK (" + colName(j) + " IS NULL OR length(" + colName(j) + ") < 8)";
                case VIRTUAL, STORED -> " GENERATED ALWAYS AS (" + generatedExpression(t, j) + ") " + c.kind();
            });
        }
        if (t.key() == KeyShape.COMPOSITE || t.key() == KeyShape.WITHOUT_ROWID) defs.add("PRIMARY KEY (K, K2)");
        return "CREATE TABLE " + tableName(i) + " (" + String.join(", ", defs) + ")" + (t.key() == KeyShape.WITHOUT_ROWID ? " WITHOUT ROWID" : "");
    }

    /** The unique indexes on an expression and partial ones, after the table. */
    private List<String> indexes(int i) {
        List<String> out = new ArrayList<>();
        TableSpec t = tables.get(i);
        for (int j = 0; j < t.columns().size(); j++) {
            ColKind kind = t.columns().get(j).kind();
            String index = "CREATE UNIQUE INDEX " + tableName(i) + "_" + colName(j) + " ON " + tableName(i);
            if (kind == ColKind.UNIQUE_EXPR) out.add(index + " (lower(" + colName(j) + "))");
            if (kind == ColKind.UNIQUE_PARTIAL) out.add(index + " (" + colName(j) + ") WHERE " + colName(j) + " > 0");
        }
        return out;
    }

    /** A DEFAULT's value: a literal, or an expression in parentheses (always so for a function call). */
    private static String defaultValue(ColType t, int seed, boolean parenthesised) {
        String lit = literal(t, seed, false);
        return parenthesised || lit.contains("(") ? "(" + lit + ")" : lit;
    }

    /** Deterministic: from the key, or from an earlier column that is not generated. */
    private static String generatedExpression(TableSpec t, int j) {
        int seed = t.columns().get(j).seed();
        if (seed % 2 == 1) {
            for (int p = j - 1; p >= 0; p--) {
                if (generated(t.columns().get(p))) continue;
                String src = colName(p);
                return switch (seed % 3) {
                    case 0 -> src + " * 2";
                    case 1 -> "typeof(" + src + ")";
                    default -> src + " || '!'";
                };
            }
        }
        return keyTypes(t.key()).get(0) == ColType.TEXT ? "K || '!'" : "K * 2 + 1";
    }

    /** The application's trigger on table {@code i}: an audit row per inserted, updated or deleted row. */
    private String createTrigger(int i) {
        TableSpec t = tables.get(i);
        String event = switch (t.trigger()) {
            case 1 -> "INSERT";
            case 2 -> "UPDATE";
            default -> "DELETE";
        };
        String row = event.equals("DELETE") ? "OLD" : "NEW";
        return "CREATE TRIGGER AUDIT_" + tableName(i) + " AFTER " + event + " ON " + tableName(i) + " BEGIN INSERT INTO AUDIT (T, E, K) VALUES ('"
                + tableName(i) + "', '" + event.charAt(0) + "', " + row + ".K); END";
    }

    // ------------------------------------------------------------------ values

    private static final String[] INTEGERS = {"0", "1", "-1", "42", "9223372036854775807", "-9223372036854775808", "2147483648",
        "9007199254740993"};
    private static final String[] REALS = {"0.0", "1.5", "-2.25", "1e308", "4.9e-324", "-0.0", "0.1", "1e999", "-1e999", "3.0",
        "9223372036854775808.0", "1e20"};
    private static final String[] TEXTS = {"''", "'a'", "'it''s'", "'Grüße'", "'€𝄞'", "'12'", "'12.50'", "' 7'", "'0x10'", "'1e3'",
        "'NULL'", "'trail  '", "'abcdefghijklmno'", "'-0'"};
    private static final String[] BLOBS = {"x''", "x'00'", "x'00ff'", "x'DEADBEEF'", "CAST('abc' AS BLOB)"};
    private static final String[] DATES = {"'2024-02-29'", "'0001-01-01'", "'1582-10-10'", "'9999-12-31 23:59:59.999'",
        "date('2000-01-31', '+1 month')", "julianday('2000-01-01')", "1700000000", "'2021-03-28T02:30:00+01:00'"};
    private static final String[] BOOLEANS = {"TRUE", "FALSE", "'yes'", "2"};

    private static String[] pool(ColType t) {
        return switch (t) {
            case INTEGER -> INTEGERS;
            case TEXT, VARCHAR -> TEXTS;
            case REAL -> REALS;
            case BLOB -> BLOBS;
            case NUMERIC -> new String[] {"'12.50'", "3.0", "'1e3'", "12345678901234567890", "'abc'", "0.1", "'  5 '"};
            case DATE -> DATES;
            case BOOLEAN -> BOOLEANS;
            case NONE -> new String[] {"1", "1.0", "'1'", "x'01'", "'Grüße'"};
        };
    }

    private static final String[][] ANY = {INTEGERS, REALS, TEXTS, BLOBS};

    private static boolean isNull(int seed) { return seed % 11 == 10; }

    /** A literal of the column's type, now and then one of another class (affinity converts it, or keeps it). */
    static String literal(ColType t, int seed, boolean nullable) {
        seed = Math.abs(seed);
        if (nullable && isNull(seed)) return "NULL";
        String[] pool = seed % 5 == 4 ? ANY[seed / 5 % ANY.length] : pool(t);
        return pool[seed / 3 % pool.length];
    }

    /** A value to bind with {@code setObject}, as applications do: boxed numbers, strings, bytes, BigDecimal, booleans, dates. */
    static Object param(ColType t, int seed, boolean nullable) {
        seed = Math.abs(seed);
        if (nullable && isNull(seed)) return null;
        int pick = seed / 3;
        ColType as = seed % 5 == 4 ? ColType.values()[pick % ColType.values().length] : t;
        return switch (as) {
            case INTEGER -> new Object[] {0, 1, -1, 42, Long.MAX_VALUE, Long.MIN_VALUE, 2_147_483_648L, (short) 7}[pick % 8];
            case REAL -> new Object[] {0.0, 1.5, -2.25, 1e308, Double.MIN_VALUE, -0.0, 0.1, Double.POSITIVE_INFINITY, Double.NaN,
                3.0f, 1e20}[pick % 11];
            case TEXT, VARCHAR -> new String[] {"", "a", "it's", "Grüße", "€𝄞", "12", "12.50", " 7", "abcdefghijklmno"}[pick % 9];
            case BLOB -> new byte[][] {{}, {0}, {0, (byte) 0xff}, {(byte) 0xde, (byte) 0xad}}[pick % 4];
            case NUMERIC -> new Object[] {new BigDecimal("12.50"), new BigDecimal("3"), new BigDecimal("0.1"), "12.50", 3.0}[pick % 5];
            case DATE -> new Object[] {java.time.LocalDate.of(2024, 2, 29), "2024-02-29", 1_700_000_000L, java.time.LocalDate.of(1, 1, 1)}[pick % 4];
            case BOOLEAN -> pick % 2 == 0;
            case NONE -> new Object[] {1, 1.0, "1", new byte[] {1}}[pick % 4];
        };
    }

    /** Key values come from a small domain so that inserts, shifts and swaps collide; a non-rowid key is now and then NULL or text. */
    private static String keyLiteral(ColType t, int seed, boolean nullable) {
        seed = Math.abs(seed);
        if (nullable && seed % 13 == 12 && !Scenario.without("NULL_KEY")) return "NULL";
        if (t == ColType.TEXT) return "'k" + seed % 6 + "'";
        return switch (seed % 17) {
            case 15 -> "'" + (1 + seed % 6) + "'";   // text an integer column's affinity turns into the integer
            case 16 -> (1 + seed % 6) + ".0";        // a real that is an integer
            default -> Integer.toString(1 + seed % 6);
        };
    }

    private static Object keyParam(ColType t, int seed, boolean nullable) {
        seed = Math.abs(seed);
        if (nullable && seed % 13 == 12 && !Scenario.without("NULL_KEY")) return null;
        if (t == ColType.TEXT) return "k" + seed % 6;
        return seed % 17 == 15 ? (Object) Long.valueOf(1 + seed % 6) : (Object) (1 + seed % 6);
    }

    /** Whether the key column at {@code k} admits NULL: SQLite's rowid tables allow NULL in a PRIMARY KEY that is not the rowid. */
    private static boolean keyNullable(KeyShape shape, int k) {
        return switch (shape) {
            case INT, TEXT, COMPOSITE, NONE -> true;
            case WITHOUT_ROWID -> false;
            default -> false; // the rowid: NULL means "pick one"
        };
    }

    // ------------------------------------------------------------------ statements

    /** Renders the script: schema first, then the operations, skipping those that make no sense where they fall. */
    public List<Step> steps() {
        List<Step> out = new ArrayList<>();
        if (anyTrigger()) out.add(Step.sql("CREATE TABLE AUDIT (ID INTEGER PRIMARY KEY, T TEXT, E TEXT, K)"));
        for (int i = 0; i < tables.size(); i++) {
            out.add(Step.sql(createTable(i)));
            for (String index : indexes(i)) out.add(Step.sql(index));
            if (tables.get(i).trigger() != 0) out.add(Step.sql(createTrigger(i)));
        }
        boolean inTx = false;
        boolean sqlTx = false; // a transaction begun with SQL's BEGIN (the driver stays in autocommit)
        int added = 0;
        Set<String> savepoints = new HashSet<>();
        for (Op op : ops) {
            int s0 = seed(op, 0);
            int v = Math.abs(op.variant());
            switch (op.kind()) {
                case BEGIN -> {
                    if (inTx) continue;
                    sqlTx = SQL_TRANSACTIONS && v % 3 == 2;
                    out.add(sqlTx ? Step.sql(s0 % 2 == 0 ? "BEGIN" : "BEGIN IMMEDIATE") : Step.begin());
                    inTx = true;
                    savepoints.clear();
                }
                case COMMIT, ROLLBACK -> {
                    if (!inTx) continue;
                    boolean commit = op.kind() == Kind.COMMIT;
                    out.add(sqlTx ? Step.sql(commit ? (s0 % 2 == 0 ? "COMMIT" : "END") : "ROLLBACK") : commit ? Step.commit() : Step.rollback());
                    inTx = false;
                }
                case SAVEPOINT -> {
                    if (!inTx) continue;
                    String sp = "SP" + (s0 % 2);
                    out.add(Step.sql("SAVEPOINT " + sp));
                    savepoints.add(sp);
                }
                case ROLLBACK_TO_SAVEPOINT, RELEASE -> {
                    String sp = "SP" + (s0 % 2);
                    if (!inTx || !savepoints.contains(sp)) continue;
                    if (op.kind() == Kind.RELEASE) {
                        out.add(Step.sql("RELEASE SAVEPOINT " + sp));
                        savepoints.remove(sp); // and every later one, which a script of two names does not track: SP names are reused freely
                    } else {
                        out.add(Step.sql("ROLLBACK TO SAVEPOINT " + sp));
                    }
                }
                case REOPEN -> {
                    if (!config.reopens()) continue;
                    if (inTx) {
                        out.add(sqlTx ? Step.sql("COMMIT") : Step.commit());
                        inTx = false;
                    }
                    out.add(Step.reopen());
                }
                case ADD_COLUMN -> {
                    // inside transactions too (SqliteDifferentialExamplesTest.aSchemaChangeInsideATransactionIs*); MacroDB
                    // refuses to roll back to a savepoint set before it (0AM00), so none is rolled back to or released after it
                    if (inTx) savepoints.clear();
                    int ti = tableIndex(op.table());
                    ColType t = ColType.values()[v % ColType.values().length];
                    out.add(Step.sql("ALTER TABLE " + tableName(ti) + " ADD COLUMN X" + (added++) + " " + sqlType(t)
                            + (s0 % 2 == 0 ? " DEFAULT " + defaultValue(t, seed(op, 1), false) : "")));
                }
                default -> {
                    Step step = dml(op);
                    if (step == null) continue;
                    out.add(step);
                }
            }
        }
        if (inTx) out.add(sqlTx ? Step.sql("COMMIT") : Step.commit());
        return out;
    }

    private static int seed(Op op, int i) {
        return Math.abs(op.seeds().isEmpty() ? 0 : op.seeds().get(i % op.seeds().size()));
    }

    /** Columns an INSERT or UPDATE may name: everything but generated columns. */
    private static List<Integer> writable(TableSpec t) {
        List<Integer> out = new ArrayList<>();
        for (int j = 0; j < t.columns().size(); j++) if (!generated(t.columns().get(j))) out.add(j);
        return out;
    }

    private static String where(List<ColType> kt, List<String> kn, int variant, int seed) {
        return switch (variant % 4) {
            case 0, 1 -> " WHERE " + kn.get(0) + " = " + keyLiteral(kt.get(0), seed, false);
            case 2 -> " WHERE " + kn.get(0) + " >= " + keyLiteral(kt.get(0), seed, false);
            default -> ""; // every row
        };
    }

    private Step dml(Op op) {
        int ti = tableIndex(op.table());
        TableSpec t = tables.get(ti);
        String name = tableName(ti);
        List<ColType> kt = keyTypes(t.key());
        List<String> kn = keyNames(t.key());
        List<Integer> writable = writable(t);
        int v = Math.abs(op.variant());
        return switch (op.kind()) {
            case INSERT -> insert(op, ti, "INSERT", false, "");
            case INSERT_AUTO_KEY -> {
                if (!autoKey(t.key())) yield insert(op, ti, "INSERT", false, "");
                // the rowid left to SQLite: no key named, a NULL key, or DEFAULT VALUES
                if (v % 3 == 2 && !hasFk(ti)) yield Step.sql("INSERT INTO " + name + " DEFAULT VALUES");
                yield insert(op, ti, "INSERT", v % 3 == 0, "");
            }
            case CONFLICT_INSERT -> {
                // not INSERT OR ROLLBACK: SqliteDifferentialExamplesTest.insertOrRollbackThatFailsLeavesThePrimarySessionWithoutATransaction
                String[] verbs = {"INSERT OR REPLACE", "REPLACE", "INSERT OR IGNORE", "INSERT OR FAIL", "INSERT OR ABORT"};
                yield insert(op, ti, verbs[v % verbs.length], false, "");
            }
            case UPSERT -> {
                String target = t.key() == KeyShape.NONE ? "" : " (" + String.join(", ", kn) + ")";
                String action;
                if (writable.isEmpty() || seed(op, 0) % 4 == 3 || target.isEmpty()) {
                    action = "DO NOTHING";
                } else {
                    int j = writable.get(seed(op, 0) % writable.size());
                    ColumnSpec c = t.columns().get(j);
                    String value = switch (seed(op, 1) % 3) {
                        case 0 -> "excluded." + colName(j);
                        case 1 -> literal(c.type(), seed(op, 2), true);
                        default -> colName(j) + " || excluded." + colName(j);
                    };
                    action = "DO UPDATE SET " + colName(j) + " = " + value + (seed(op, 1) % 4 == 3 ? " WHERE " + colName(j) + " IS NOT NULL" : "");
                }
                yield insert(op, ti, "INSERT", false, " ON CONFLICT" + target + " " + action);
            }
            case UPDATE, UPDATE_OR_REPLACE -> {
                String set;
                if (writable.isEmpty() || seed(op, 1) % 4 == 3) {
                    set = hasFk(ti) ? "P = " + keyLiteral(keyTypes(tables.get(ti - 1).key()).get(0), seed(op, 2), true) : "K = K";
                } else {
                    int j = writable.get(seed(op, 1) % writable.size());
                    set = colName(j) + " = " + (seed(op, 4) % 4 == 3 ? colName(j) + " || 'u'" : literal(t.columns().get(j).type(), seed(op, 2), true));
                }
                yield Step.sql((op.kind() == Kind.UPDATE ? "UPDATE " : "UPDATE OR REPLACE ") + name + " SET " + set + where(kt, kn, v, seed(op, 3)));
            }
            case UPDATE_FROM -> {
                // values from a subquery of rows matched by key (SQLite 3.33's UPDATE ... FROM)
                if (writable.isEmpty()) yield null;
                int j = writable.get(seed(op, 1) % writable.size());
                ColType type = t.columns().get(j).type();
                List<String> rows = new ArrayList<>();
                for (int r = 0; r < 1 + v % 3; r++) {
                    rows.add("SELECT " + keyLiteral(kt.get(0), seed(op, 2 + 2 * r), false) + " AS k, " + literal(type, seed(op, 3 + 2 * r), true) + " AS v");
                }
                yield Step.sql("UPDATE " + name + " AS t SET " + colName(j) + " = s.v FROM (" + String.join(" UNION ALL ", rows)
                        + ") AS s WHERE t.K = s.k");
            }
            case KEY_SHIFT -> {
                String expr = switch (kt.get(0)) {
                    case TEXT -> "'k' || ((CAST(substr(K, 2) AS INTEGER) + " + (1 + v % 2) + ") % 6)";
                    default -> v % 3 == 2 ? "K - 1" : v % 3 == 1 ? "-K" : "K + 1";
                };
                String verb = seed(op, 2) % 3 == 2 ? "UPDATE OR REPLACE " : "UPDATE ";
                yield Step.sql(verb + name + " SET K = " + expr + (seed(op, 1) % 3 == 2 ? where(kt, kn, 1, seed(op, 2)) : ""));
            }
            case KEY_SWAP -> {
                String a = keyLiteral(kt.get(0), seed(op, 1), false);
                String b = keyLiteral(kt.get(0), seed(op, 2), false);
                yield Step.sql("UPDATE " + name + " SET K = CASE WHEN K = " + a + " THEN " + b + " ELSE " + a + " END WHERE K IN (" + a + ", " + b + ")");
            }
            case DELETE -> Step.sql("DELETE FROM " + name + where(kt, kn, v, seed(op, 1)));
            case ROWID -> {
                if (t.key() == KeyShape.WITHOUT_ROWID) yield null;
                int by = 1 + seed(op, 1) % 3;
                yield switch (v % 3) {
                    case 0 -> Step.sql("UPDATE " + name + " SET rowid = rowid + " + by + where(kt, kn, 0, seed(op, 2)));
                    case 1 -> Step.sql("UPDATE OR REPLACE " + name + " SET rowid = rowid " + (seed(op, 2) % 2 == 0 ? "+ " : "- ") + by);
                    default -> Step.sql((seed(op, 2) % 2 == 0 ? "INSERT OR REPLACE" : "INSERT OR IGNORE") + " INTO " + name + " (rowid, "
                            + String.join(", ", kn) + ") VALUES (" + by + ", "
                            + String.join(", ", kt.stream().map(x -> keyLiteral(x, seed(op, 3), false)).toList()) + ")");
                };
            }
            case INSERT_SELECT -> {
                // duplicates every row (fails on a keyed table with rows, doubles a table without a key), or copies a row to a shifted key
                String cols = String.join(", ", kn) + (hasFk(ti) ? ", P" : "");
                String verb = seed(op, 2) % 3 == 2 ? "INSERT OR IGNORE" : "INSERT";
                yield Step.sql(v % 2 == 0 ? verb + " INTO " + name + " (" + cols + ") SELECT " + cols + " FROM " + name
                        : verb + " INTO " + name + " (" + cols + ") SELECT " + (kt.get(0) == ColType.TEXT ? "K || 'x'" : "K + 10")
                        + cols.substring(1) + " FROM " + name + " WHERE K = " + keyLiteral(kt.get(0), seed(op, 1), false));
            }
            case FAIL -> switch (v % 4) {
                case 0 -> {
                    String k = String.join(", ", kt.stream().map(x -> keyLiteral(x, seed(op, 1), false)).toList());
                    yield Step.sql("INSERT INTO " + name + " (" + String.join(", ", kn) + ") VALUES (" + k + "), (" + k + ")");
                }
                case 1 -> {
                    // NOT NULL or CHECK, where the table has one; else a NULL key (fails on a rowid or WITHOUT ROWID table only)
                    for (int j : writable) {
                        ColKind kind = t.columns().get(j).kind();
                        if (kind == ColKind.NOT_NULL || kind == ColKind.CHECKED) {
                            String k = String.join(", ", kt.stream().map(x -> keyLiteral(x, seed(op, 2), false)).toList());
                            yield Step.sql("INSERT INTO " + name + " (" + String.join(", ", kn) + ", " + colName(j) + ") VALUES (" + k + ", "
                                    + (kind == ColKind.NOT_NULL ? "NULL" : "'abcdefghijklmno'") + ")");
                        }
                    }
                    if (Scenario.without("NULL_KEY") && keyNullable(t.key(), 0)) yield Step.sql("INSERT INTO NO_SUCH_TABLE VALUES (1)");
                    yield Step.sql("INSERT INTO " + name + " (" + String.join(", ", kn) + ") VALUES (" + String.join(", ", kn.stream().map(x -> "NULL").toList())
                            + ")");
                }
                case 2 -> Scenario.without("NULL_KEY") && keyNullable(t.key(), 0) ? Step.sql("INSERT INTO NO_SUCH_TABLE VALUES (1)")
                        : Step.sql("UPDATE " + name + " SET K = NULL" + where(kt, kn, 0, seed(op, 1)));
                default -> Step.sql("INSERT INTO NO_SUCH_TABLE VALUES (1)");
            };
            default -> throw new IllegalStateException(op.toString());
        };
    }

    /**
     * An INSERT of 1-3 rows: {@code verb} (INSERT, INSERT OR REPLACE...), the key left to SQLite when
     * {@code autoKey}, {@code tail} an ON CONFLICT clause; literals, or parameters for a third of them.
     */
    private Step insert(Op op, int ti, String verb, boolean autoKey, String tail) {
        TableSpec t = tables.get(ti);
        List<ColType> kt = keyTypes(t.key());
        List<String> names = new ArrayList<>();
        List<ColType> types = new ArrayList<>();
        List<Integer> keyAt = new ArrayList<>(); // for each named column: its place in the key, -1 for the parent key, -2 for a value
        if (!autoKey) {
            names.addAll(keyNames(t.key()));
            types.addAll(kt);
            for (int k = 0; k < kt.size(); k++) keyAt.add(k);
        }
        if (hasFk(ti)) {
            names.add("P");
            types.add(keyTypes(tables.get(ti - 1).key()).get(0));
            keyAt.add(-1);
        }
        int mask = seed(op, 1);
        for (int j : writable(t)) {
            ColumnSpec c = t.columns().get(j);
            if (c.kind() != ColKind.PLAIN && c.kind() != ColKind.UNIQUE && (mask >> j & 1) == 0) continue; // left to its default
            names.add(colName(j));
            types.add(c.type());
            keyAt.add(-2);
        }
        if (names.isEmpty()) return Step.sql(verb + " INTO " + tableName(ti) + " DEFAULT VALUES");
        int rows = 1 + Math.abs(op.variant()) % 3;
        boolean params = seed(op, 2) % 3 == 0;
        List<String> tuples = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        int n = 3;
        for (int r = 0; r < rows; r++) {
            List<String> lits = new ArrayList<>();
            for (int c = 0; c < names.size(); c++) {
                int s = seed(op, n++);
                int at = keyAt.get(c);
                boolean nullable = at >= 0 ? keyNullable(t.key(), at) : true;
                if (params) {
                    lits.add("?");
                    values.add(at != -2 ? keyParam(types.get(c), s, nullable) : param(types.get(c), s, true));
                } else {
                    lits.add(at != -2 ? keyLiteral(types.get(c), s, nullable) : literal(types.get(c), s, true));
                }
            }
            tuples.add("(" + String.join(", ", lits) + ")");
        }
        // an upsert's VALUES needs a WHERE before ON CONFLICT when it is a SELECT; VALUES needs none
        String sql = verb + " INTO " + tableName(ti) + " (" + String.join(", ", names) + ") VALUES " + String.join(", ", tuples) + tail;
        return Step.sql(sql, values);
    }

    @Override public String toString() {
        return "\n-- " + config + "\n" + Differential.script(steps());
    }
}
