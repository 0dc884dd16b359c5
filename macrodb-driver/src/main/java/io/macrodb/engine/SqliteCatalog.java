package io.macrodb.engine;

import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * What {@link Catalog} reads, on SQLite: from {@code sqlite_schema} and {@code PRAGMA table_xinfo},
 * since SQLite has no INFORMATION_SCHEMA and its driver's metadata knows no schemas. Every column's
 * type is {@link java.sql.Types#OTHER}: a SQLite value carries its storage class, not the declared
 * type, and it is shipped and compared as that class.
 */
final class SqliteCatalog {
    private SqliteCatalog() {}

    static boolean is(Connection c) {
        return c.getClass().getName().startsWith("org.sqlite.");
    }

    /** The tables of the main database, without SQLite's own ({@code sqlite_%}), by name. */
    static List<String> tableNames(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT name FROM main.sqlite_schema WHERE type = 'table'"
                     + " AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name")) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    /** Every column by 1-based position, generated ones (hidden 2 and 3) included. */
    static TreeMap<Integer, Catalog.Column> columns(Connection c, String table) throws SQLException {
        TreeMap<Integer, Catalog.Column> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name, dflt_value, hidden FROM pragma_table_xinfo(?, 'main')")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                int i = 0;
                while (rs.next()) {
                    int hidden = rs.getInt(3);
                    if (hidden == 1) continue; // a virtual table's hidden column: not stored
                    out.put(++i, new Catalog.Column(rs.getString(1), java.sql.Types.OTHER, hidden == 2 || hidden == 3, false,
                            rs.getString(2)));
                }
            }
        }
        return out;
    }

    /** The primary key's columns by their position in the key. */
    static TreeMap<Short, String> primaryKey(Connection c, String table) throws SQLException {
        TreeMap<Short, String> out = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name, pk FROM pragma_table_xinfo(?, 'main') WHERE pk > 0")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.put(rs.getShort(2), rs.getString(1));
            }
        }
        return out;
    }

    /**
     * The primary key's columns that may hold NULL: SQLite enforces NOT NULL on a key only in a
     * {@code WITHOUT ROWID} table and on the rowid itself ({@code INTEGER PRIMARY KEY}, where NULL means
     * "pick the next rowid"); any other key column of a rowid table admits NULL, "for compatibility",
     * as SQLite documents, unless it is declared NOT NULL. Empty for a table without a key.
     */
    static List<String> nullableKeyColumns(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT wr FROM pragma_table_list(?) WHERE schema = 'main'")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getInt(1) == 1) return List.of();
            }
        }
        List<String> key = new ArrayList<>();
        List<String> nullable = new ArrayList<>();
        String onlyType = null;
        try (PreparedStatement ps = c.prepareStatement("SELECT name, type, \"notnull\" FROM pragma_table_xinfo(?, 'main') WHERE pk > 0 ORDER BY pk")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    key.add(rs.getString(1));
                    onlyType = rs.getString(2);
                    if (rs.getInt(3) == 0) nullable.add(rs.getString(1));
                }
            }
        }
        if (key.size() == 1 && onlyType != null && onlyType.equalsIgnoreCase("INTEGER") && isRowidAlias(c, table, key.get(0))) return List.of();
        return nullable;
    }

    /**
     * The name under which a table's rowid is replicated, or null where it is not: a rowid table whose
     * key is not the rowid ({@code INT PRIMARY KEY}, a text or composite key, {@code INTEGER PRIMARY KEY
     * DESC}, no key at all) still has one, which SQLite visits rows in, picks a new row's by, and lets
     * statements read and write. A secondary or a recovered primary that re-inserts a row by its key
     * gives it a rowid of its own choosing: an {@code UPDATE OR REPLACE} then removes different rows
     * there than on the primary. So the rowid travels as a column ({@code rowid}, else {@code _rowid_},
     * else {@code oid}: whichever no declared column hides) and every replica writes the primary's.
     * Null for a {@code WITHOUT ROWID} table, for an {@code INTEGER PRIMARY KEY} (the key is the rowid,
     * replicated already), and where declared columns hide all three names (the rowid cannot be named).
     */
    static String replicatedRowid(Connection c, String table, List<String> columns) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT wr FROM pragma_table_list(?) WHERE schema = 'main'")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getInt(1) == 1) return null;
            }
        }
        TreeMap<Short, String> key = primaryKey(c, table);
        if (key.size() == 1 && isRowidAlias(c, table, key.firstEntry().getValue())) return null;
        return SqliteReplaceProbes.rowidName(columns);
    }

    /**
     * Whether a rowid table's INTEGER key column is the rowid itself (it is not when declared
     * {@code INTEGER PRIMARY KEY DESC}, SQLite's documented quirk): the rowid and the column read the
     * same in every row then, which an empty table cannot tell; SQLite's own answer is its query plan
     * for a lookup by the column, a search by rowid ("INTEGER PRIMARY KEY") rather than by an index.
     */
    private static boolean isRowidAlias(Connection c, String table, String column) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("EXPLAIN QUERY PLAN SELECT 1 FROM main." + TableShape.quote(table) + " WHERE "
                     + TableShape.quote(column) + " = 1")) {
            while (rs.next()) {
                if (rs.getString("detail").contains("INTEGER PRIMARY KEY")) return true;
            }
        }
        return false;
    }

    /**
     * The rowid column of an {@code AUTOINCREMENT} table, whose counter in {@code sqlite_sequence} a
     * commit must record like a sequence's position (a promoted primary restarts it past every value
     * handed out, even of rows deleted since); empty for any other table.
     */
    static List<String> autoincrementColumns(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getString(1) == null || !rs.getString(1).toUpperCase(Locale.ROOT).contains("AUTOINCREMENT")) {
                    return List.of();
                }
            }
        }
        TreeMap<Short, String> key = primaryKey(c, table);
        return key.size() == 1 ? List.of(key.firstEntry().getValue()) : List.of();
    }

    /** Whether the main database has a trigger that is not MacroDB's. */
    static boolean hasApplicationTriggers(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT name FROM main.sqlite_schema WHERE type = 'trigger'")) {
            while (rs.next()) {
                if (!rs.getString(1).startsWith(SqliteEngine.TRIGGER_PREFIX)) return true;
            }
        }
        return false;
    }

    static String quoted(String table) {
        return TableShape.quote(SqliteEngine.SCHEMA) + "." + TableShape.quote(table);
    }
}
