package io.macrodb.engine;

import io.macrodb.log.TableShape;
import io.macrodb.sql.SqlState;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Every row of one table as the primary holds it, in the representation the secondaries take
 * ({@link Values#read}): what a schema change that computed values with a random, time or sequence
 * function ships in place of the values each replica would compute for itself.
 */
public final class TableContents {
    /** A table's replicated shape and its rows, one value per {@link TableShape#columns()} entry. */
    public record Rows(TableShape shape, List<Object[]> rows) {}

    private TableContents() {}

    /**
     * The table a name written in SQL (qualified or not, quoted or not) denotes for {@code c}, resolved
     * the way the engine resolves it (through the metadata of an empty query on it); null if there is
     * no such table.
     */
    public static TableShape shapeOf(Connection c, String nameAsWritten) throws SQLException {
        String schema;
        String table;
        if (PostgresCatalog.is(c)) {
            // pgjdbc names no schema in a result's metadata: the server resolves the name itself (to_regclass: null if none)
            try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT n.nspname, r.relname FROM pg_class r"
                    + " JOIN pg_namespace n ON n.oid = r.relnamespace WHERE r.oid = to_regclass(?)")) {
                ps.setString(1, nameAsWritten);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) return null;
                    TableShape shape = Catalog.readTable(c, rs.getString(1), rs.getString(2));
                    if (shape == null) {
                        throw new SQLException("MacroDB: the engine's catalog has no table " + rs.getString(1) + "." + rs.getString(2),
                                SqlState.INTERNAL_ERROR.getState());
                    }
                    return shape;
                }
            }
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + nameAsWritten + " WHERE 1 = 0")) {
            ResultSetMetaData md = rs.getMetaData();
            schema = md.getSchemaName(1);
            table = md.getTableName(1);
            if ((schema == null || schema.isEmpty()) && SqliteCatalog.is(c)) schema = SqliteEngine.SCHEMA; // its driver names no schema
        } catch (SQLException e) {
            if (exists(c, nameAsWritten)) throw e;
            return null;
        }
        if (schema == null || schema.isEmpty() || table == null || table.isEmpty()) {
            throw new SQLException("MacroDB: the engine did not say which table " + nameAsWritten + " is", SqlState.INTERNAL_ERROR.getState());
        }
        TableShape shape = Catalog.readTable(c, schema, table);
        if (shape == null) throw new SQLException("MacroDB: the engine's catalog has no table " + schema + "." + table, SqlState.INTERNAL_ERROR.getState());
        return shape;
    }

    /**
     * Whether {@code nameAsWritten} names something {@code c} can select from. Inside a transaction the probe runs in
     * a savepoint, rolled back if it fails: on PostgreSQL a failed statement aborts the whole transaction, and the
     * schema change after the probe failed with "current transaction is aborted".
     */
    public static boolean exists(Connection c, String nameAsWritten) throws SQLException {
        java.sql.Savepoint probe = c.getAutoCommit() ? null : c.setSavepoint();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1 FROM " + nameAsWritten + " WHERE 1 = 0")) {
            return true;
        } catch (SQLException e) {
            if (probe != null) c.rollback(probe);
            return false;
        } finally {
            if (probe != null) {
                try {
                    c.releaseSavepoint(probe);
                } catch (SQLException ignored) {
                    // an engine may have released it with the rollback to it (HSQLDB); it ends with the transaction anyway
                }
            }
        }
    }

    /** Every row of the table, read on {@code c} (whose transaction sees what it must ship). */
    public static Rows read(Connection c, String nameAsWritten) throws SQLException {
        TableShape shape = shapeOf(c, nameAsWritten);
        if (shape == null) throw new SQLException("MacroDB: the table " + nameAsWritten + " is not there to read", SqlState.INTERNAL_ERROR.getState());
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < shape.columns().size(); i++) sql.append(i == 0 ? "" : ", ").append(TableShape.quote(shape.columns().get(i)));
        sql.append(" FROM ").append(shape.qualifiedName());
        int n = shape.columns().size();
        boolean hsqldb = Values.isHsqldb(c);
        List<Object[]> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.toString())) {
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) row[i] = Values.read(rs, i + 1, shape.columnType(i), hsqldb);
                rows.add(row);
            }
        }
        return new Rows(shape, rows);
    }
}
