package io.macrodb.engine;

import io.macrodb.log.TableShape;
import io.macrodb.sql.SqliteIndexSql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The BEFORE INSERT and BEFORE UPDATE triggers that report, for each row a statement writes, the rows
 * it collides with: the rows SQLite's REPLACE conflict resolution ({@code INSERT OR REPLACE},
 * {@code REPLACE}, {@code UPDATE OR REPLACE}, a constraint's {@code ON CONFLICT REPLACE}) removes
 * without firing any delete trigger while {@code recursive_triggers} is off. A trigger does not know
 * the statement's conflict resolution, and an application trigger may still move rows after it, so
 * what it reports is a superset: each reported row is "removed if gone", and the commit reads it back
 * ({@code TransactionChanges}). A row it cannot report is one that came to collide after it ran, and
 * that took a write the capture saw.
 *
 * <p>Per unique index (a {@code UNIQUE} constraint, the primary key of a {@code WITHOUT ROWID} table or
 * one that is not the rowid, {@code CREATE UNIQUE INDEX}), one {@code SELECT} over the table for the
 * rows equal to the new row in every key column, under the index's collation, as the index compares
 * them: the column against the new value (SQLite has applied the column's affinity to it already, as
 * in the stored rows), an expression against the same expression over the new row's values. What the
 * probe leaves out makes it wider, never narrower: a partial index's WHERE; an expression it cannot
 * read. In a rowid table one more looks the new rowid up. Where SQLite puts a column's DEFAULT in
 * place of a NULL a NOT NULL column is given (REPLACE does that), the probe takes every row when the
 * new value is NULL: rare, and exact. An UPDATE probes only an index whose values it changes (compared
 * byte by byte), and never reports the row it updates. A generated column's new value in a BEFORE
 * UPDATE trigger is NULL where the update leaves the columns it depends on alone (SQLite computes it
 * only when they change): the old value stands for it then.
 */
final class SqliteReplaceProbes {
    private SqliteReplaceProbes() {}

    /** One column of the table as {@code PRAGMA table_xinfo} gives it. */
    private record Col(String name, boolean notNull, boolean hasDefault, boolean generated, int pk) {}

    /** A key column of a unique index: a column ({@code cid >= 0}), the rowid (-1) or an expression (-2, its text or null). */
    private record KeyCol(int cid, String column, String collation, String expression) {}

    /**
     * The name that reaches a rowid table's rowid: {@code rowid}, else {@code _rowid_}, else {@code oid},
     * whichever no column of the table hides; null where columns hide all three.
     */
    static String rowidName(List<String> columns) {
        for (String n : new String[] {"rowid", "_rowid_", "oid"}) {
            boolean hidden = false;
            for (String col : columns) hidden |= col.equalsIgnoreCase(n);
            if (!hidden) return n;
        }
        return null;
    }

    /**
     * {@code CREATE TRIGGER name BEFORE INSERT|UPDATE ON table ...} reporting each row the new row
     * collides with, or null where the table can collide on nothing.
     */
    static String trigger(Connection c, TableShape t, List<String> all, boolean update, String name) throws SQLException {
        List<Col> cols = new ArrayList<>();
        Map<String, Col> byName = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name, \"notnull\", dflt_value, hidden, pk FROM pragma_table_xinfo(?, 'main')")) {
            ps.setString(1, t.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int hidden = rs.getInt(4);
                    if (hidden == 1) continue;
                    Col col = new Col(rs.getString(1), rs.getInt(2) == 1, rs.getString(3) != null && !rs.getString(3).equalsIgnoreCase("NULL"),
                            hidden == 2 || hidden == 3, rs.getInt(5));
                    cols.add(col);
                    byName.put(col.name.toLowerCase(Locale.ROOT), col);
                }
            }
        }
        boolean withoutRowid;
        try (PreparedStatement ps = c.prepareStatement("SELECT wr FROM pragma_table_list(?) WHERE schema = 'main'")) {
            ps.setString(1, t.table());
            try (ResultSet rs = ps.executeQuery()) {
                withoutRowid = rs.next() && rs.getInt(1) == 1;
            }
        }
        String rowid = withoutRowid ? null : rowidName(all);
        String r = "\"macrodb_row\"";
        List<String> probes = new ArrayList<>();
        // the row the UPDATE writes is no collision of its own
        String self = null;
        if (update) {
            if (rowid != null) {
                self = r + "." + rowid + " <> OLD." + rowid;
            } else {
                List<String> same = new ArrayList<>();
                for (Col col : cols) {
                    if (col.pk > 0) same.add(r + "." + q(col.name) + " IS OLD." + q(col.name) + " COLLATE BINARY");
                }
                self = same.isEmpty() ? null : "NOT (" + String.join(" AND ", same) + ")";
            }
        }
        if (rowid != null) {
            // an INTEGER PRIMARY KEY is the rowid; in any other rowid table a statement may name the rowid itself
            probes.add((update ? "NEW." + rowid + " <> OLD." + rowid + " AND " : "") + r + "." + rowid + " = NEW." + rowid);
        }
        List<String> defaulted = new ArrayList<>(); // NOT NULL with a DEFAULT: REPLACE writes the default for a NULL
        for (Col col : cols) {
            if (col.notNull && col.hasDefault && !col.generated) defaulted.add(col.name);
        }
        for (List<KeyCol> index : uniqueIndexes(c, t.table())) {
            List<String> terms = new ArrayList<>();
            List<String> changed = new ArrayList<>();
            boolean expression = false;
            boolean anyDefaulted = false;
            for (KeyCol k : index) {
                String coll = " COLLATE " + q(k.collation == null ? "BINARY" : k.collation);
                if (k.cid >= 0) {
                    Col col = byName.get(k.column.toLowerCase(Locale.ROOT));
                    String value = newValue(col, update);
                    terms.add(r + "." + q(k.column) + coll + " = " + value);
                    changed.add(value + " IS NOT OLD." + q(k.column) + " COLLATE BINARY");
                    if (defaulted.contains(k.column)) anyDefaulted = true;
                } else if (k.cid == -1) {
                    if (rowid == null) continue;
                    terms.add(r + "." + rowid + " = NEW." + rowid);
                    changed.add("NEW." + rowid + " <> OLD." + rowid);
                } else {
                    expression = true;
                    if (k.expression == null) continue; // left out: the probe takes more rows, never fewer
                    StringBuilder row = new StringBuilder();
                    StringBuilder nulls = new StringBuilder();
                    for (Col col : cols) {
                        row.append(row.length() == 0 ? "" : ", ").append(newValue(col, update)).append(" AS ").append(q(col.name));
                        nulls.append(nulls.length() == 0 ? "" : ", ").append("NULL AS ").append(q(col.name));
                    }
                    String term = "(" + k.expression + ")" + coll + " = (SELECT (" + k.expression + ") FROM (SELECT ";
                    // SQLite resolves a trigger's names when a statement fires it: one that does not
                    // compile here would fail the application's writes, so it is left out instead
                    try (PreparedStatement check = c.prepareStatement("SELECT 1 FROM " + q(t.table()) + " AS " + r + " WHERE "
                            + term + nulls + "))")) {
                        terms.add(term + row + "))");
                    } catch (SQLException unreadable) {
                        // left out: wider
                    }
                }
            }
            if (expression) {
                // an expression reads any column: compare them all, and any defaulted one may stand in it
                changed.clear();
                for (Col col : cols) {
                    if (!col.generated) changed.add("NEW." + q(col.name) + " IS NOT OLD." + q(col.name) + " COLLATE BINARY");
                }
                if (rowid != null) changed.add("NEW." + rowid + " <> OLD." + rowid);
                anyDefaulted = !defaulted.isEmpty();
            }
            String guard = update && !changed.isEmpty() ? "(" + String.join(" OR ", changed) + ") AND " : "";
            probes.add(guard + (terms.isEmpty() ? "1" : String.join(" AND ", terms)));
            if (anyDefaulted) {
                List<String> nulls = new ArrayList<>();
                for (String d : defaulted) nulls.add("NEW." + q(d) + " IS NULL");
                probes.add("(" + String.join(" OR ", nulls) + ")");
            }
        }
        if (probes.isEmpty()) return null;
        StringBuilder args = new StringBuilder();
        args.append(lit(t.schema())).append(", ").append(lit(t.table())).append(", '").append(t.hasKey() ? "" : "K")
                .append(SqliteCapture.REMOVABLE).append('\'');
        if (!t.hasKey()) args.append(", ").append(r).append('.').append(rowid);
        for (String col : all) args.append(", ").append(r).append('.').append(q(col));
        if (t.rowidColumn() != null) args.append(", ").append(r).append('.').append(t.rowidColumn());
        StringBuilder body = new StringBuilder();
        for (String probe : probes) {
            body.append(" SELECT ").append(SqliteCapture.NAME).append('(').append(args).append(") FROM ").append(q(t.table()))
                    .append(" AS ").append(r).append(" WHERE ").append(probe).append(self == null ? "" : " AND " + self).append(';');
        }
        return "CREATE TRIGGER " + name + " BEFORE " + (update ? "UPDATE" : "INSERT") + " ON " + q(t.table()) + " BEGIN" + body + " END";
    }

    /** The new value of a column in the trigger: in an UPDATE, a generated column SQLite did not compute is the old one. */
    private static String newValue(Col col, boolean update) {
        String n = q(col.name);
        return update && col.generated ? "COALESCE(NEW." + n + ", OLD." + n + ")" : "NEW." + n;
    }

    /** The key columns of each unique index of the table (partial ones too: their WHERE is left out). */
    private static List<List<KeyCol>> uniqueIndexes(Connection c, String table) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name FROM pragma_index_list(?, 'main') WHERE \"unique\" = 1 ORDER BY name")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) names.add(rs.getString(1));
            }
        }
        List<List<KeyCol>> out = new ArrayList<>();
        for (String index : names) {
            List<KeyCol> keys = new ArrayList<>();
            boolean expressions = false;
            try (PreparedStatement ps = c.prepareStatement("SELECT cid, name, coll FROM pragma_index_xinfo(?, 'main') WHERE key = 1 ORDER BY seqno")) {
                ps.setString(1, index);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        keys.add(new KeyCol(rs.getInt(1), rs.getString(2), rs.getString(3), null));
                        expressions |= rs.getInt(1) == -2;
                    }
                }
            }
            if (expressions) {
                List<String> texts = null;
                try (PreparedStatement ps = c.prepareStatement("SELECT sql FROM main.sqlite_schema WHERE type = 'index' AND name = ?")) {
                    ps.setString(1, index);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) texts = SqliteIndexSql.keyExpressions(rs.getString(1));
                    }
                }
                if (texts != null && texts.size() == keys.size()) {
                    for (int i = 0; i < keys.size(); i++) {
                        KeyCol k = keys.get(i);
                        if (k.cid == -2) keys.set(i, new KeyCol(k.cid, k.column, k.collation, texts.get(i)));
                    }
                }
            }
            out.add(keys);
        }
        return out;
    }

    private static String q(String identifier) {
        return TableShape.quote(identifier);
    }

    private static String lit(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
