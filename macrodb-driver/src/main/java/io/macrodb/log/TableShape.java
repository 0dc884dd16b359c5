package io.macrodb.log;

import java.util.List;
import java.util.Objects;

/**
 * The replicated shape of one table: its qualified name, the columns a change record carries (in
 * the engine's ordinal order, generated columns excluded) and which of them form the primary key.
 * Immutable; a DDL statement produces a new shape rather than changing an old one, so records that
 * were captured before the DDL keep describing what they were captured against.
 */
public final class TableShape {
    private final String schema;
    private final String table;
    private final List<String> columns;
    private final int[] keyIndexes;
    private final boolean alwaysIdentity;
    private final int ordinalCount;
    private final int[] keyOrdinals;
    private final String identityColumn;
    private final List<String> volatileDefaults;
    private final int[] columnOrdinals;
    private final int[] columnTypes;
    private final boolean lastIsRowid;
    /** {@link #selectByKeySql(int, boolean)}'s statements, built once per shape: every H2 update commit reads by them. */
    private final java.util.concurrent.ConcurrentHashMap<Integer, String> selectByKey = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param columns        replicated (non-generated) columns in ordinal order
     * @param keyIndexes     positions in {@code columns} of the primary key columns (empty if none)
     * @param keyOrdinals    0-based positions of the key columns in the engine's full row, as a
     *                       trigger sees it
     * @param ordinalCount   number of columns in the engine's full row
     * @param alwaysIdentity whether an identity column is GENERATED ALWAYS (inserts then need
     *                       {@code OVERRIDING SYSTEM VALUE})
     * @param identityColumn the identity (auto-increment) column, or null
     * @param volatileDefaults columns whose default calls a random, time or sequence function
     * @param columnOrdinals 0-based position of each of {@code columns} in the engine's full row,
     *                       or null when only applying (a shape read from the log)
     * @param columnTypes    the {@link java.sql.Types} code of each of {@code columns}, or null
     *                       when unknown (every column is then {@link java.sql.Types#OTHER})
     */
    public TableShape(String schema, String table, List<String> columns, int[] keyIndexes,
                      int[] keyOrdinals, int ordinalCount, boolean alwaysIdentity, String identityColumn,
                      List<String> volatileDefaults, int[] columnOrdinals, int[] columnTypes) {
        this(schema, table, columns, keyIndexes, keyOrdinals, ordinalCount, alwaysIdentity, identityColumn, volatileDefaults,
                columnOrdinals, columnTypes, false);
    }

    /**
     * @param lastIsRowid whether the last of {@code columns} is the engine's hidden row id rather than a
     *                    declared column (SQLite's rowid of a table whose key is not the rowid): it is
     *                    replicated like a column, and the capture triggers pass it after the declared
     *                    columns, at ordinal {@code ordinalCount - 1}
     */
    public TableShape(String schema, String table, List<String> columns, int[] keyIndexes,
                      int[] keyOrdinals, int ordinalCount, boolean alwaysIdentity, String identityColumn,
                      List<String> volatileDefaults, int[] columnOrdinals, int[] columnTypes, boolean lastIsRowid) {
        this.lastIsRowid = lastIsRowid;
        this.schema = Objects.requireNonNull(schema);
        this.table = Objects.requireNonNull(table);
        this.columns = List.copyOf(columns);
        this.keyIndexes = keyIndexes.clone();
        this.keyOrdinals = keyOrdinals.clone();
        this.ordinalCount = ordinalCount;
        this.alwaysIdentity = alwaysIdentity;
        this.identityColumn = identityColumn;
        this.volatileDefaults = List.copyOf(volatileDefaults);
        if (columnOrdinals == null) {
            columnOrdinals = new int[this.columns.size()];
            for (int i = 0; i < columnOrdinals.length; i++) columnOrdinals[i] = i;
        }
        if (columnTypes == null) {
            columnTypes = new int[this.columns.size()];
            java.util.Arrays.fill(columnTypes, java.sql.Types.OTHER);
        }
        if (columnOrdinals.length != this.columns.size() || columnTypes.length != this.columns.size()) {
            throw new IllegalArgumentException("one ordinal and one type per replicated column of " + schema + "." + table);
        }
        this.columnOrdinals = columnOrdinals.clone();
        this.columnTypes = columnTypes.clone();
    }

    /**
     * The name by which the engine's hidden row id is replicated as the last of {@link #columns()} (SQLite's
     * {@code rowid}, or {@code _rowid_} or {@code oid} where a column hides it), or null where the shape
     * carries none. Known only where the shape was read from the engine's catalog; a shape read from the
     * log applies it as the column it names.
     */
    public String rowidColumn() { return lastIsRowid ? columns.get(columns.size() - 1) : null; }

    /** 0-based position of replicated column {@code i} in the engine's full row, as a trigger sees it. */
    public int columnOrdinal(int i) { return columnOrdinals[i]; }

    /** The {@link java.sql.Types} code of replicated column {@code i} ({@code OTHER} when unknown). */
    public int columnType(int i) { return columnTypes[i]; }

    /** Columns whose default differs per evaluation (RAND(), CURRENT_TIMESTAMP, NEXT VALUE FOR...). */
    public List<String> volatileDefaults() { return volatileDefaults; }

    public String schema() { return schema; }
    public String table() { return table; }
    public List<String> columns() { return columns; }
    public int[] keyIndexes() { return keyIndexes.clone(); }
    public int keyCount() { return keyIndexes.length; }
    public int keyIndex(int i) { return keyIndexes[i]; }
    public int keyOrdinal(int i) { return keyOrdinals[i]; }
    public int ordinalCount() { return ordinalCount; }
    public boolean hasKey() { return keyIndexes.length > 0; }

    /** The key values of {@code row}, an image with one value per {@link #columns()} entry, in key order. */
    public Object[] keyOf(Object[] row) {
        Object[] k = new Object[keyIndexes.length];
        for (int i = 0; i < k.length; i++) k[i] = row[keyIndexes[i]];
        return k;
    }
    public boolean alwaysIdentity() { return alwaysIdentity; }
    /** The identity (auto-increment) column, or null if the table has none. */
    public String identityColumn() { return identityColumn; }

    /** {@code "SCHEMA"."TABLE"} with SQL-standard quoting, usable on every supported engine. */
    public String qualifiedName() { return quote(schema) + "." + quote(table); }

    public static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /**
     * {@code SELECT <columns> FROM <table> WHERE <key> IN (?, ...)} with {@code chunk} placeholders
     * for a one-column key, or {@code WHERE k1 = ? AND k2 = ?} for a composite key.
     */
    public String selectByKeySql(int chunk) {
        return selectByKeySql(chunk, false);
    }

    /**
     * As {@link #selectByKeySql(int)}; with {@code rowValues} a composite key too is read {@code chunk} keys at a time,
     * {@code WHERE (k1, k2) IN ((?, ?), ...)}, its placeholders key by key (for an engine whose plan reads such a list
     * through the key's index).
     */
    public String selectByKeySql(int chunk, boolean rowValues) {
        boolean rows = rowValues && keyIndexes.length > 1 && chunk > 1;
        return selectByKey.computeIfAbsent(chunk * 2 + (rows ? 1 : 0), k -> buildSelectByKey(chunk, rows));
    }

    private String buildSelectByKey(int chunk, boolean rowValues) {
        StringBuilder sb = new StringBuilder("SELECT ");
        for (int i = 0; i < columns.size(); i++) sb.append(i == 0 ? "" : ", ").append(quote(columns.get(i)));
        sb.append(" FROM ").append(qualifiedName()).append(" WHERE ");
        if (keyIndexes.length == 1 || rowValues) {
            StringBuilder one = new StringBuilder();
            if (rowValues) {
                sb.append('(');
                one.append('(');
                for (int i = 0; i < keyIndexes.length; i++) {
                    sb.append(i == 0 ? "" : ", ").append(quote(columns.get(keyIndexes[i])));
                    one.append(i == 0 ? "?" : ", ?");
                }
                sb.append(')');
                one.append(')');
            } else {
                sb.append(quote(columns.get(keyIndexes[0])));
                one.append('?');
            }
            sb.append(" IN (");
            for (int i = 0; i < chunk; i++) sb.append(i == 0 ? "" : ", ").append(one);
            return sb.append(')').toString();
        }
        for (int i = 0; i < keyIndexes.length; i++) {
            sb.append(i == 0 ? "" : " AND ").append(quote(columns.get(keyIndexes[i]))).append(" = ?");
        }
        return sb.toString();
    }

    @Override public String toString() { return schema + "." + table; }
}
