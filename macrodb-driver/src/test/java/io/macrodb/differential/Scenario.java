package io.macrodb.differential;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A generated schema and workload, kept as small numbers (types, shapes, seeds) that jqwik can
 * shrink one by one, and rendered to SQL for one engine: {@link #steps()} is what runs,
 * {@link #toString()} the script a failure report shows. Statements refer to tables, columns, keys
 * and values by seeds taken modulo what exists, so removing a table, a column or a statement while
 * shrinking always leaves a script that still renders.
 */
public record Scenario(DiffConfig config, List<TableSpec> tables, List<Op> ops) {

    public enum ColType { INT, BIGINT, VARCHAR, DATE, TIME, TIMESTAMP, TIMESTAMP_TZ, DECIMAL, DOUBLE, BOOLEAN, VARBINARY }

    /** NONE: a plain INT column K and no key at all (duplicate rows allowed). */
    public enum KeyShape { INT, BIGINT, VARCHAR, COMPOSITE, NONE }

    /** INVISIBLE renders as DEFAULTED on HSQLDB, which has no invisible columns. */
    public enum ColKind { PLAIN, DEFAULTED, GENERATED, INVISIBLE }

    public record ColumnSpec(ColType type, ColKind kind, int seed) {}

    /** fk: 0 none, 1 a foreign key to the previous table, 2 ... ON DELETE CASCADE, 3 ... ON UPDATE CASCADE ON DELETE SET NULL. */
    public record TableSpec(KeyShape key, List<ColumnSpec> columns, int fk) {}

    public enum Kind { INSERT, UPDATE, KEY_SHIFT, KEY_SWAP, DELETE, MERGE, SET_TIME_ZONE, BEGIN, COMMIT, ROLLBACK, SAVEPOINT,
        ROLLBACK_TO_SAVEPOINT, INSERT_SELECT, REOPEN,
        /** A statement meant to fail: a key twice in one multi-row insert (after its first row went in), a NULL key, no such table. */
        FAIL }

    /** One statement, as seeds: which table, which variant, which columns, which values. */
    public record Op(Kind kind, int table, int variant, List<Integer> seeds) {}

    private static final Set<String> WITHOUT = Set.of(System.getProperty("macrodb.differential.without", "").toUpperCase(java.util.Locale.ROOT)
            .split("[,\\s]+"));

    /** Whether a feature is left out ({@code -Dmacrodb.differential.without=A,B}), to look past a known divergence. */
    static boolean without(String feature) { return WITHOUT.contains(feature); }

    // ------------------------------------------------------------------ rendering

    private boolean h2() { return config.h2(); }

    static String tableName(int i) { return "T" + i; }

    private TableSpec table(int seed) { return tables.get(Math.floorMod(seed, tables.size())); }

    private int tableIndex(int seed) { return Math.floorMod(seed, tables.size()); }

    /** The key columns a table's statements use (NONE has a K column too, with no constraint). */
    private static List<ColType> keyTypes(KeyShape k) {
        return switch (k) {
            case INT, NONE -> List.of(ColType.INT);
            case BIGINT -> List.of(ColType.BIGINT);
            case VARCHAR -> List.of(ColType.VARCHAR);
            case COMPOSITE -> List.of(ColType.INT, ColType.VARCHAR);
        };
    }

    private static List<String> keyNames(KeyShape k) {
        return k == KeyShape.COMPOSITE ? List.of("K", "K2") : List.of("K");
    }

    private boolean hasFk(int i) {
        TableSpec t = tables.get(i);
        return i > 0 && t.fk() > 0 && tables.get(i - 1).key() != KeyShape.COMPOSITE && tables.get(i - 1).key() != KeyShape.NONE;
    }

    private static String colName(int j) { return "C" + j; }

    private ColKind kind(ColumnSpec c) {
        return c.kind() == ColKind.INVISIBLE && !h2() ? ColKind.DEFAULTED : c.kind();
    }

    static String sqlType(ColType t) {
        return switch (t) {
            case INT -> "INT";
            case BIGINT -> "BIGINT";
            case VARCHAR -> "VARCHAR(20)";
            case DATE -> "DATE";
            case TIME -> "TIME";
            case TIMESTAMP -> "TIMESTAMP";
            case TIMESTAMP_TZ -> "TIMESTAMP WITH TIME ZONE";
            case DECIMAL -> "DECIMAL(15, 3)";
            case DOUBLE -> "DOUBLE";
            case BOOLEAN -> "BOOLEAN";
            case VARBINARY -> "VARBINARY(8)";
        };
    }

    private String createTable(int i) {
        TableSpec t = tables.get(i);
        List<String> defs = new ArrayList<>();
        List<ColType> kt = keyTypes(t.key());
        List<String> kn = keyNames(t.key());
        for (int k = 0; k < kn.size(); k++) defs.add(kn.get(k) + " " + sqlType(kt.get(k)) + (t.key() == KeyShape.NONE ? "" : " NOT NULL"));
        if (hasFk(i)) defs.add("P " + sqlType(keyTypes(tables.get(i - 1).key()).get(0)));
        for (int j = 0; j < t.columns().size(); j++) {
            ColumnSpec c = t.columns().get(j);
            String name = colName(j);
            switch (kind(c)) {
                case PLAIN -> defs.add(name + " " + sqlType(c.type()));
                case DEFAULTED -> defs.add(name + " " + sqlType(c.type()) + " DEFAULT " + literal(c.type(), c.seed() | 1, false));
                case INVISIBLE -> defs.add(name + " " + sqlType(c.type()) + " INVISIBLE DEFAULT " + literal(c.type(), c.seed() | 1, false));
                case GENERATED -> defs.add(generated(t, j));
            }
        }
        if (t.key() != KeyShape.NONE) defs.add("PRIMARY KEY (" + String.join(", ", kn) + ")");
        if (hasFk(i)) {
            defs.add("FOREIGN KEY (P) REFERENCES " + tableName(i - 1) + " (K)" + switch (t.fk()) {
                case 2 -> " ON DELETE CASCADE";
                case 3 -> " ON UPDATE CASCADE ON DELETE SET NULL";
                default -> "";
            });
        }
        return "CREATE TABLE " + tableName(i) + " (" + String.join(", ", defs) + ")";
    }

    /** A deterministic generated column: from the key, or from an earlier plain column. */
    private String generated(TableSpec t, int j) {
        String name = colName(j);
        if (t.columns().get(j).seed() % 2 == 1) {
            for (int p = j - 1; p >= 0; p--) {
                ColumnSpec c = t.columns().get(p);
                if (kind(c) != ColKind.PLAIN) continue;
                String src = colName(p);
                switch (c.type()) {
                    case INT, BIGINT, DECIMAL, DOUBLE: return name + " " + sqlType(c.type()) + " GENERATED ALWAYS AS (" + src + " * 2)";
                    case DATE: return name + " INT GENERATED ALWAYS AS (EXTRACT(DAY FROM " + src + "))";
                    case TIMESTAMP, TIMESTAMP_TZ: return name + " INT GENERATED ALWAYS AS (EXTRACT(HOUR FROM " + src + "))";
                    case VARCHAR: return name + " INT GENERATED ALWAYS AS (CHAR_LENGTH(" + src + "))";
                    default: break;
                }
            }
        }
        return switch (t.key()) {
            case INT, NONE, COMPOSITE -> name + " BIGINT GENERATED ALWAYS AS (K * 2 + 1)";
            case BIGINT -> name + " BIGINT GENERATED ALWAYS AS (K - 1)";
            case VARCHAR -> name + " VARCHAR(30) GENERATED ALWAYS AS (K || '!')";
        };
    }

    // ------------------------------------------------------------------ values

    private static final String[] DATES = {"2000-01-01", "1000-01-01", "1582-10-04", "1582-10-10", "1582-10-15", "0001-01-01",
        "9999-12-31", "1970-01-01", "1899-12-31", "2021-03-28", "1600-02-29", "1200-02-29"};
    private static final String[] TIMES = {"00:00:00", "02:30:00", "23:59:59", "12:34:56", "01:00:00"};
    private static final String[] TIMESTAMPS = {"2000-01-01 00:00:00", "2021-03-28 02:30:00", "2021-10-31 02:30:00",
        "1000-01-01 12:00:00", "1582-10-10 00:00:00", "1970-01-01 00:00:00.123456", "9999-12-31 23:59:59.999999",
        "0001-01-01 00:00:00", "1893-04-01 00:03:00", "2021-03-28 01:59:59.999999"};
    private static final String[] OFFSETS = {"+00:00", "+01:00", "+02:00", "-05:00", "+05:30", "+14:00", "-12:00"};
    private static final String[] DECIMALS = {"0", "1.5", "-123456789.123", "0.001", "999999999999.999", "-0.5"};
    private static final String[] DOUBLES = {"0E0", "1.5E0", "-2.25E0", "1E300", "4.9E-324", "-0E0", "0.1E0"};
    private static final String[] STRINGS = {"", "a", "it's", "Grüße", "x y", "trail  ", "€𝄞", "NULL"};
    private static final String[] BINARIES = {"", "00", "FF00", "DEADBEEF"};

    private static String string(int seed) {
        String s = STRINGS[seed % STRINGS.length];
        return without("NON_ASCII") ? s.replaceAll("[^\\x20-\\x7e]", "?") : s;
    }

    /** Seeds (0..999) below 600 pick the interesting values above, the others spread over the whole calendar (proleptic Gregorian, years 1..9999). */
    private static LocalDate date(int seed) {
        LocalDate d = seed < 600 ? LocalDate.parse(DATES[seed % DATES.length])
                : LocalDate.of(1, 1, 1).plusDays((seed * 7919L) % 3_652_058L);
        return without("PRE_GREGORIAN") && d.getYear() < 1583 ? d.plusYears(1600) : d;
    }

    private static LocalDateTime timestamp(int seed) {
        LocalDateTime t = seed < 600 ? LocalDateTime.parse(TIMESTAMPS[seed % TIMESTAMPS.length].replace(' ', 'T'))
                : date(seed).atTime(LocalTime.ofSecondOfDay((seed * 104_729L) % 86_400).withNano((seed % 7) * 100_000_000));
        if (without("PRE_GREGORIAN") && t.getYear() < 1583) t = t.plusYears(1600);
        // away from the hours around 02:00-03:00 where some zone's clocks jump
        if (without("DST_GAP") && t.getHour() >= 1 && t.getHour() <= 3) t = t.withHour(12);
        return t;
    }

    private static boolean isNull(int seed) { return seed % 11 == 10; }

    /** The SQL literal for a value; {@code sessionDependent} forms (a local timestamp into a zoned column and back) where asked. */
    String literal(ColType t, int seed, boolean nullable) {
        seed = Math.abs(seed);
        if (nullable && isNull(seed)) return "CAST(NULL AS " + sqlType(t) + ")";
        return switch (t) {
            case INT -> Integer.toString(new int[] {0, 1, -1, 7, 2147483647, -2147483648, 42}[seed % 7]);
            case BIGINT -> Long.toString(new long[] {0, 1, -1, 9_007_199_254_740_993L, Long.MAX_VALUE, Long.MIN_VALUE}[seed % 6]);
            case VARCHAR -> "'" + string(seed).replace("'", "''") + "'";
            case DATE -> "DATE '" + date(seed) + "'";
            case TIME -> "TIME '" + TIMES[seed % TIMES.length] + "'";
            case TIMESTAMP -> seed % 5 == 4 && !without("LOCAL_TO_ZONED")
                    // a zoned value converted in the session's time zone
                    ? "CAST(" + zoned(timestamp(seed / 5), OFFSETS[seed % OFFSETS.length]) + " AS TIMESTAMP)"
                    : "TIMESTAMP '" + ts(timestamp(seed)) + "'";
            case TIMESTAMP_TZ -> seed % 4 == 3 && !without("LOCAL_TO_ZONED")
                    // a local timestamp: its offset is the session's time zone
                    ? "TIMESTAMP '" + ts(timestamp(seed / 4)) + "'"
                    : zoned(timestamp(seed), OFFSETS[seed % OFFSETS.length]);
            case DECIMAL -> DECIMALS[seed % DECIMALS.length];
            case DOUBLE -> DOUBLES[seed % DOUBLES.length];
            case BOOLEAN -> seed % 2 == 0 ? "TRUE" : "FALSE";
            case VARBINARY -> "X'" + BINARIES[seed % BINARIES.length] + "'";
        };
    }

    private String zoned(LocalDateTime ldt, String offset) {
        return (h2() ? "TIMESTAMP WITH TIME ZONE '" : "TIMESTAMP '") + ts(ldt) + offset + "'";
    }

    private static String ts(LocalDateTime t) {
        String s = t.toLocalDate() + " " + t.toLocalTime();
        return t.getSecond() == 0 && t.getNano() == 0 ? s + ":00" : s;
    }

    /** The same value as a java.time / engine-native object for {@code setObject}. */
    static Object param(ColType t, int seed, boolean nullable) {
        seed = Math.abs(seed);
        if (nullable && isNull(seed)) return null;
        return switch (t) {
            case INT -> new int[] {0, 1, -1, 7, 2147483647, -2147483648, 42}[seed % 7];
            case BIGINT -> new long[] {0, 1, -1, 9_007_199_254_740_993L, Long.MAX_VALUE, Long.MIN_VALUE}[seed % 6];
            case VARCHAR -> string(seed);
            case DATE -> date(seed);
            case TIME -> LocalTime.parse(TIMES[seed % TIMES.length]);
            case TIMESTAMP -> timestamp(seed);
            case TIMESTAMP_TZ -> seed % 4 == 3 && !without("LOCAL_TO_ZONED") ? timestamp(seed / 4) // a LocalDateTime into a zoned column: session zone
                    : OffsetDateTime.of(timestamp(seed), ZoneOffset.of(OFFSETS[seed % OFFSETS.length]));
            case DECIMAL -> new BigDecimal(DECIMALS[seed % DECIMALS.length]);
            case DOUBLE -> Double.valueOf(DOUBLES[seed % DOUBLES.length]);
            case BOOLEAN -> seed % 2 == 0;
            case VARBINARY -> hexBytes(BINARIES[seed % BINARIES.length]);
        };
    }

    private static byte[] hexBytes(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    /** Key values come from a small domain so that inserts, shifts and swaps collide. */
    private static String keyLiteral(ColType t, int seed) {
        seed = Math.abs(seed);
        return switch (t) {
            case INT -> Integer.toString(1 + seed % 6);
            case BIGINT -> Long.toString(4_000_000_000L + seed % 6);
            default -> "'k" + seed % 6 + "'";
        };
    }

    private static Object keyParam(ColType t, int seed) {
        seed = Math.abs(seed);
        return switch (t) {
            case INT -> 1 + seed % 6;
            case BIGINT -> 4_000_000_000L + seed % 6;
            default -> "k" + seed % 6;
        };
    }

    // ------------------------------------------------------------------ statements

    /** Renders the script: schema first, then the operations, skipping those that make no sense where they fall. */
    public List<Step> steps() {
        List<Step> out = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) out.add(Step.sql(createTable(i)));
        boolean inTx = false;
        Set<String> savepoints = new HashSet<>();
        for (Op op : ops) {
            int s0 = seed(op, 0);
            switch (op.kind()) {
                case BEGIN -> {
                    if (inTx) continue;
                    out.add(Step.begin());
                    inTx = true;
                    savepoints.clear();
                }
                case COMMIT, ROLLBACK -> {
                    if (!inTx) continue;
                    out.add(op.kind() == Kind.COMMIT ? Step.commit() : Step.rollback());
                    inTx = false;
                }
                case SAVEPOINT -> {
                    if (!inTx) continue;
                    String sp = "SP" + (s0 % 2);
                    out.add(Step.sql("SAVEPOINT " + sp));
                    savepoints.add(sp);
                }
                case ROLLBACK_TO_SAVEPOINT -> {
                    String sp = "SP" + (s0 % 2);
                    if (!inTx || !savepoints.contains(sp)) continue;
                    out.add(Step.sql("ROLLBACK TO SAVEPOINT " + sp));
                }
                case REOPEN -> {
                    if (!config.durability()) continue;
                    if (inTx) {
                        out.add(Step.commit());
                        inTx = false;
                    }
                    out.add(Step.reopen());
                }
                case SET_TIME_ZONE -> out.add(Step.sql(timeZone(s0)));
                default -> out.add(dml(op));
            }
        }
        if (inTx) out.add(Step.commit());
        return out;
    }

    private static int seed(Op op, int i) {
        return Math.abs(op.seeds().isEmpty() ? 0 : op.seeds().get(i % op.seeds().size()));
    }

    private String timeZone(int seed) {
        String[] h2 = {"'Europe/Berlin'", "'+05:30'", "'America/New_York'", "'UTC'", "LOCAL", "'Australia/Lord_Howe'"};
        String[] hs = {"'Europe/Berlin'", "INTERVAL '+05:30' HOUR TO MINUTE", "'America/New_York'", "INTERVAL '-10:00' HOUR TO MINUTE", "LOCAL"};
        String[] zones = h2() ? h2 : hs;
        return "SET TIME ZONE " + zones[seed % zones.length];
    }

    private Step dml(Op op) {
        int ti = tableIndex(op.table());
        TableSpec t = tables.get(ti);
        String name = tableName(ti);
        List<ColType> kt = keyTypes(t.key());
        List<String> kn = keyNames(t.key());
        int v = Math.abs(op.variant());
        return switch (op.kind()) {
            case INSERT -> insert(op, ti);
            case UPDATE -> {
                List<Integer> writable = writable(t);
                StringBuilder set = new StringBuilder();
                if (writable.isEmpty() || seed(op, 1) % 4 == 3) {
                    set.append(hasFk(ti) ? "P = " + keyLiteral(keyTypes(tables.get(ti - 1).key()).get(0), seed(op, 2)) : "K = K");
                } else {
                    int j = writable.get(seed(op, 1) % writable.size());
                    set.append(colName(j)).append(" = ").append(literal(t.columns().get(j).type(), seed(op, 2), true));
                }
                yield Step.sql("UPDATE " + name + " SET " + set + where(kt, kn, v, seed(op, 3)));
            }
            case KEY_SHIFT -> {
                String k = kn.get(0);
                String expr = switch (kt.get(0)) {
                    case INT, BIGINT -> k + (v % 3 == 2 ? " - 1" : " + " + (1 + v % 2));
                    default -> "'k' || CAST(MOD(CAST(SUBSTRING(" + k + ", 2) AS INT) + " + (1 + v % 2) + ", 6) AS VARCHAR(2))";
                };
                yield Step.sql("UPDATE " + name + " SET " + k + " = " + expr + (seed(op, 1) % 3 == 2 ? where(kt, kn, 1, seed(op, 2)) : ""));
            }
            case KEY_SWAP -> {
                String k = kn.get(0);
                String a = keyLiteral(kt.get(0), seed(op, 1));
                String b = keyLiteral(kt.get(0), seed(op, 2));
                String expr = v % 2 == 1 && kt.get(0) != ColType.VARCHAR ? "(" + a + " + " + b + ") - " + k
                        : "CASE WHEN " + k + " = " + a + " THEN " + b + " ELSE " + a + " END";
                yield Step.sql("UPDATE " + name + " SET " + k + " = " + expr + " WHERE " + k + " IN (" + a + ", " + b + ")");
            }
            case DELETE -> Step.sql("DELETE FROM " + name + where(kt, kn, v, seed(op, 1)));
            case MERGE -> merge(op, ti);
            case INSERT_SELECT -> {
                // duplicates every row (fails on a keyed table with rows, doubles a table without a key), or copies keys shifted
                String cols = String.join(", ", kn) + (hasFk(ti) ? ", P" : "");
                yield Step.sql(v % 2 == 0 ? "INSERT INTO " + name + " (" + cols + ") SELECT " + cols + " FROM " + name
                        : "INSERT INTO " + name + " (" + cols + ") SELECT " + (kt.get(0) == ColType.VARCHAR ? "K || 'x'" : "K + 10")
                        + cols.substring(1) + " FROM " + name + " WHERE " + kn.get(0) + " = " + keyLiteral(kt.get(0), seed(op, 1)));
            }
            case FAIL -> switch (v % 3) {
                case 0 -> {
                    String k = String.join(", ", kt.stream().map(x -> keyLiteral(x, seed(op, 1))).toList());
                    yield Step.sql("INSERT INTO " + name + " (" + String.join(", ", kn) + ") VALUES (" + k + "), (" + k + ")");
                }
                case 1 -> Step.sql("INSERT INTO " + name + " (" + String.join(", ", kn) + ") VALUES ("
                        + String.join(", ", kn.stream().map(x -> "NULL").toList()) + ")");
                default -> Step.sql("INSERT INTO NO_SUCH_TABLE VALUES (1)");
            };
            default -> throw new IllegalStateException(op.toString());
        };
    }

    private static String where(List<ColType> kt, List<String> kn, int variant, int seed) {
        return switch (variant % 4) {
            case 0, 1 -> " WHERE " + kn.get(0) + " = " + keyLiteral(kt.get(0), seed);
            case 2 -> " WHERE " + kn.get(0) + " >= " + keyLiteral(kt.get(0), seed);
            default -> ""; // every row
        };
    }

    /** Columns an INSERT or UPDATE may name: everything but generated columns. */
    private List<Integer> writable(TableSpec t) {
        List<Integer> out = new ArrayList<>();
        for (int j = 0; j < t.columns().size(); j++) if (kind(t.columns().get(j)) != ColKind.GENERATED) out.add(j);
        return out;
    }

    private Step insert(Op op, int ti) {
        TableSpec t = tables.get(ti);
        List<ColType> kt = keyTypes(t.key());
        List<String> names = new ArrayList<>(keyNames(t.key()));
        List<ColType> types = new ArrayList<>(kt);
        List<Boolean> isKey = new ArrayList<>();
        for (int k = 0; k < kt.size(); k++) isKey.add(true);
        if (hasFk(ti)) {
            names.add("P");
            types.add(keyTypes(tables.get(ti - 1).key()).get(0));
            isKey.add(true);
        }
        int mask = seed(op, 1);
        for (int j : writable(t)) {
            ColumnSpec c = t.columns().get(j);
            if (kind(c) != ColKind.PLAIN && (mask >> j & 1) == 0) continue; // leave it to its default
            names.add(colName(j));
            types.add(c.type());
            isKey.add(false);
        }
        int rows = 1 + Math.abs(op.variant()) % 3;
        boolean params = seed(op, 2) % 3 == 0;
        List<String> tuples = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        int n = 3;
        for (int r = 0; r < rows; r++) {
            List<String> lits = new ArrayList<>();
            for (int c = 0; c < names.size(); c++) {
                int s = seed(op, n++);
                if (params) {
                    lits.add("?");
                    values.add(isKey.get(c) ? keyParam(types.get(c), s) : param(types.get(c), s, true));
                } else {
                    lits.add(isKey.get(c) ? keyLiteral(types.get(c), s) : literal(types.get(c), s, true));
                }
            }
            tuples.add("(" + String.join(", ", lits) + ")");
        }
        String sql = "INSERT INTO " + tableName(ti) + " (" + String.join(", ", names) + ") VALUES " + String.join(", ", tuples);
        return Step.sql(sql, values);
    }

    private Step merge(Op op, int ti) {
        TableSpec t = tables.get(ti);
        List<ColType> kt = keyTypes(t.key());
        List<String> kn = keyNames(t.key());
        List<Integer> writable = writable(t);
        int v = Math.abs(op.variant());
        String name = tableName(ti);
        if (h2() && v % 2 == 0) {
            // H2's MERGE ... KEY: on the key (an upsert), or on another column (then it moves that row's key)
            List<String> cols = new ArrayList<>(kn);
            List<String> vals = new ArrayList<>();
            for (int k = 0; k < kt.size(); k++) vals.add(keyLiteral(kt.get(k), seed(op, k)));
            String key = String.join(", ", kn);
            if (!writable.isEmpty()) {
                int j = writable.get(seed(op, 2) % writable.size());
                cols.add(colName(j));
                vals.add(literal(t.columns().get(j).type(), seed(op, 3), false));
                if (v % 4 == 2 && !without("KEY_MOVES")) key = colName(j);
            }
            return Step.sql("MERGE INTO " + name + " (" + String.join(", ", cols) + ") KEY (" + key + ") VALUES ("
                    + String.join(", ", vals) + ")");
        }
        // standard MERGE: update a column of the matching rows or insert
        String k = kn.get(0);
        String a = keyLiteral(kt.get(0), seed(op, 0));
        StringBuilder sql = new StringBuilder("MERGE INTO " + name + " USING (VALUES (" + a + ")) AS S (A) ON " + name + "." + k + " = S.A");
        if (!writable.isEmpty()) {
            int j = writable.get(seed(op, 2) % writable.size());
            sql.append(" WHEN MATCHED THEN UPDATE SET ").append(colName(j)).append(" = ").append(literal(t.columns().get(j).type(), seed(op, 3), true));
        } else if (kt.get(0) != ColType.VARCHAR) {
            sql.append(" WHEN MATCHED THEN UPDATE SET ").append(k).append(" = ").append(k).append(" + 1");
        }
        List<String> cols = new ArrayList<>(kn);
        List<String> vals = new ArrayList<>(List.of("S.A"));
        for (int x = 1; x < kt.size(); x++) vals.add(keyLiteral(kt.get(x), seed(op, 4)));
        sql.append(" WHEN NOT MATCHED THEN INSERT (").append(String.join(", ", cols)).append(") VALUES (").append(String.join(", ", vals)).append(")");
        return Step.sql(sql.toString());
    }

    @Override public String toString() {
        return "\n-- " + config + "\n" + Differential.script(steps());
    }
}
