package io.macrodb.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Batched inserts for the data generators, flushed every 1000 rows (HSQLDB refuses an empty batch, so none is sent). */
public final class Batch implements AutoCloseable {
    private final PreparedStatement ps;
    private int pending;

    public Batch(Connection c, String sql) throws SQLException { ps = c.prepareStatement(sql); }

    public void add(Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) ps.setObject(i + 1, values[i]);
        ps.addBatch();
        if (++pending == 1000) flush();
    }

    private void flush() throws SQLException {
        if (pending > 0) ps.executeBatch();
        pending = 0;
    }

    @Override public void close() throws SQLException {
        try {
            flush();
        } finally {
            ps.close();
        }
    }
}
