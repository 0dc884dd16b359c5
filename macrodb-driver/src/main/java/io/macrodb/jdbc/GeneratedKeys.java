package io.macrodb.jdbc;

import io.macrodb.sql.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/** Which generated keys a statement asked for: none, all, or named or numbered columns. */
record GeneratedKeys(int mode, int[] indexes, String[] names) {
    static final GeneratedKeys NONE = new GeneratedKeys(0, null, null);
    static final GeneratedKeys ALL = new GeneratedKeys(1, null, null);

    static GeneratedKeys of(int[] indexes) throws SQLException {
        if (indexes == null || indexes.length == 0) throw new SQLException("MacroDB: give at least one column index", SqlState.INVALID_ARGUMENT.getState());
        return new GeneratedKeys(2, indexes.clone(), null);
    }

    static GeneratedKeys of(String[] names) throws SQLException {
        if (names == null || names.length == 0) throw new SQLException("MacroDB: give at least one column name", SqlState.INVALID_ARGUMENT.getState());
        return new GeneratedKeys(3, null, names.clone());
    }

    boolean wanted() { return mode != 0; }

    PreparedStatement prepare(Connection c, String sql, int type, int concurrency, int holdability) throws SQLException {
        return switch (mode) {
            case 1 -> c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS);
            case 2 -> c.prepareStatement(sql, indexes);
            case 3 -> c.prepareStatement(sql, names);
            default -> c.prepareStatement(sql, type, concurrency, holdability);
        };
    }

    boolean execute(Statement s, String sql) throws SQLException {
        return switch (mode) {
            case 1 -> s.execute(sql, Statement.RETURN_GENERATED_KEYS);
            case 2 -> s.execute(sql, indexes);
            case 3 -> s.execute(sql, names);
            default -> s.execute(sql);
        };
    }

    long executeLargeUpdate(Statement s, String sql) throws SQLException {
        return switch (mode) {
            case 1 -> s.executeLargeUpdate(sql, Statement.RETURN_GENERATED_KEYS);
            case 2 -> s.executeLargeUpdate(sql, indexes);
            case 3 -> s.executeLargeUpdate(sql, names);
            default -> s.executeLargeUpdate(sql);
        };
    }
}
