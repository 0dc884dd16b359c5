package io.macrodb.replica;

import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes change records into a secondary's session: the delete-then-insert of {@link RowChanges},
 * batched per table, and replayed statements. Statements are prepared once per table shape; a new
 * shape (after DDL) gets new statements.
 */
final class RowWriter implements AutoCloseable {
    private final Connection c;
    private final Map<TableShape, PreparedStatement[]> prepared = new IdentityHashMap<>();

    RowWriter(Connection c) { this.c = c; }

    void apply(RowChanges rc) throws SQLException {
        PreparedStatement[] ps = prepared.get(rc.shape());
        if (ps == null) {
            ps = new PreparedStatement[] {c.prepareStatement(deleteSql(rc.shape())), c.prepareStatement(insertSql(rc.shape()))};
            prepared.put(rc.shape(), ps);
        }
        TableShape shape = rc.shape();
        if (!rc.deleteKeys().isEmpty()) {
            PreparedStatement del = ps[0];
            for (Object[] key : rc.deleteKeys()) {
                for (int i = 0; i < key.length; i++) del.setObject(i + 1, key[i]);
                del.addBatch();
            }
            del.executeBatch();
        }
        if (!rc.rows().isEmpty()) {
            PreparedStatement ins = ps[1];
            int n = shape.columns().size();
            for (Object[] row : rc.rows()) {
                for (int i = 0; i < n; i++) ins.setObject(i + 1, row[i]);
                ins.addBatch();
            }
            int[] counts = ins.executeBatch();
            for (int count : counts) {
                if (count != 1 && count != PreparedStatement.SUCCESS_NO_INFO) {
                    throw new SQLException("MacroDB: inserting a row image into " + shape + " affected " + count + " rows", "XX000");
                }
            }
        }
    }

    void apply(StatementChange sc) throws SQLException {
        if (sc.ddl()) prepared.clear(); // shapes change; statements prepared against the old ones may be invalid
        try (PreparedStatement ps = c.prepareStatement(sc.sql())) {
            Object[] p = sc.params();
            for (int i = 0; i < p.length; i++) ps.setObject(i + 1, p[i]);
            ps.execute();
        }
    }

    static String deleteSql(TableShape t) {
        StringBuilder sb = new StringBuilder("DELETE FROM ").append(t.qualifiedName()).append(" WHERE ");
        for (int i = 0; i < t.keyCount(); i++) {
            sb.append(i == 0 ? "" : " AND ").append(TableShape.quote(t.columns().get(t.keyIndex(i)))).append(" = ?");
        }
        return sb.toString();
    }

    static String insertSql(TableShape t) {
        StringBuilder sb = new StringBuilder("INSERT INTO ").append(t.qualifiedName()).append(" (");
        List<String> cols = t.columns();
        for (int i = 0; i < cols.size(); i++) sb.append(i == 0 ? "" : ", ").append(TableShape.quote(cols.get(i)));
        sb.append(')');
        if (t.alwaysIdentity()) sb.append(" OVERRIDING SYSTEM VALUE");
        sb.append(" VALUES (");
        for (int i = 0; i < cols.size(); i++) sb.append(i == 0 ? "?" : ", ?");
        return sb.append(')').toString();
    }

    void clear() {
        for (PreparedStatement[] ps : prepared.values()) {
            for (PreparedStatement p : ps) {
                try {
                    p.close();
                } catch (SQLException ignored) {
                    // the session may be broken already
                }
            }
        }
        prepared.clear();
    }

    @Override public void close() { clear(); }
}
