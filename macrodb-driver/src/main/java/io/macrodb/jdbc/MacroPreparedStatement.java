package io.macrodb.jdbc;

import io.macrodb.replica.Session;

import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import io.macrodb.engine.Values;
import io.macrodb.sql.SqlState;

/**
 * A prepared statement that is not bound to a replica. Parameters are kept here ({@link Bindings})
 * and bound on the physical statement of whichever session the execution is routed to; physical
 * statements are taken from and given back to that session's cache, so a hot statement is prepared
 * once per session, not once per execution.
 */
class MacroPreparedStatement extends MacroStatement implements PreparedStatement {
    final String sql;
    private final GeneratedKeys keys;
    private final String cacheKey;
    private Bindings bindings = new Bindings();
    /** Which bindings were last applied to which physical statement, reaching which index (see {@link #run}). */
    private PreparedStatement boundPhysical;
    private Bindings boundBy;
    private int boundCount;
    private PreparedStatement describer;
    private final List<Bindings> batch = new ArrayList<>();

    MacroPreparedStatement(MacroConnection conn, String sql, int type, int concurrency, int holdability, GeneratedKeys keys)
            throws SQLException {
        super(conn, type, concurrency, holdability);
        if (sql == null) throw new SQLException("MacroDB: the SQL of a prepared statement cannot be null", SqlState.INVALID_ARGUMENT.getState());
        this.sql = sql;
        this.keys = keys;
        this.cacheKey = type + "/" + concurrency + "/" + holdability + "/" + keys.mode() + "/" + Arrays.toString(keys.indexes())
                + "/" + Arrays.toString(keys.names()) + "/" + sql;
    }

    @Override Statement physicalFor(Session s, String ignored) throws SQLException {
        dropOwnPhysical();
        if (physical == null) {
            PreparedStatement p = s.takePrepared(cacheKey);
            if (p == null) p = keys.prepare(s.connection(), sql, type, concurrency, holdability);
            applyOptions(p);
            physical = p;
        }
        return physical;
    }

    @Override void releasePhysical(Statement p) {
        Session s = session;
        if (s != null && !s.isBroken() && !physicalIsOwn) {
            try {
                ((PreparedStatement) p).clearParameters();
                s.returnPrepared(cacheKey, (PreparedStatement) p);
                return;
            } catch (SQLException ignored) {
                // fall through to closing it
            }
        }
        super.releasePhysical(p);
    }

    private boolean run(Expect expect) throws SQLException {
        Bindings b = bindings;
        return executeRouted(sql, b.values(), b, keys, expect, (p, q, e) -> {
            PreparedStatement ps = (PreparedStatement) p;
            // Clearing the physical statement's parameters on every execution cost a few percent of a
            // point read. It is skipped when every value it holds is about to be overwritten: these
            // same bindings were the last applied to it, they skip no index, and they reach at least
            // as far as then. (A physical statement that went back to its session's cache in between
            // was cleared there.)
            boolean clear = ps != boundPhysical || b != boundBy || !b.complete() || b.count() < boundCount;
            boundPhysical = null; // unknown if binding fails half-way
            b.applyTo(ps, clear);
            boundPhysical = ps;
            boundBy = b;
            boundCount = b.count();
            return switch (e) {
                case QUERY -> new Outcome(ps.executeQuery(), -1);
                case UPDATE -> new Outcome(null, ps.executeLargeUpdate());
                case ANY -> Outcome.of(ps, ps.execute());
            };
        });
    }

    @Override void checkNotPrepared() throws SQLException {
        throw new SQLException("MacroDB: a PreparedStatement runs its own SQL; call execute(), executeQuery() or"
                + " executeUpdate() without a SQL argument", SqlState.DYNAMIC_SQL_ERROR.getState());
    }

    @Override public ResultSet executeQuery() throws SQLException {
        run(Expect.QUERY);
        return getResultSet();
    }

    @Override public int executeUpdate() throws SQLException {
        return toInt(executeLargeUpdate());
    }

    @Override public long executeLargeUpdate() throws SQLException {
        run(Expect.UPDATE);
        return Math.max(getLargeUpdateCount(), 0);
    }

    @Override public boolean execute() throws SQLException {
        return run(Expect.ANY);
    }

    @Override public void addBatch() throws SQLException {
        checkOpen();
        batch.add(bindings.copy());
    }

    @Override public void clearBatch() throws SQLException {
        checkOpen();
        batch.clear();
    }

    /** One execution per parameter set, with the same failure semantics as {@link MacroStatement#executeLargeBatch}. */
    @Override public long[] executeLargeBatch() throws SQLException {
        checkOpen();
        List<Bindings> todo = new ArrayList<>(batch);
        batch.clear();
        Bindings saved = bindings;
        long[] counts = new long[todo.size()];
        try {
            for (int i = 0; i < todo.size(); i++) {
                bindings = todo.get(i);
                try {
                    counts[i] = executeLargeUpdate();
                } catch (SQLException e) {
                    throw batchFailure(Arrays.copyOf(counts, i), e);
                }
            }
        } finally {
            bindings = saved;
        }
        return counts;
    }

    @Override public void clearParameters() throws SQLException {
        checkOpen();
        bindings.clear();
    }

    /** Metadata comes from a statement prepared on the primary, kept open as long as this one (engines tie them). */
    private PreparedStatement describer() throws SQLException {
        if (describer == null || describer.isClosed()) describer = transaction.onPrimary(c -> c.prepareStatement(sql));
        return describer;
    }

    @Override public ResultSetMetaData getMetaData() throws SQLException {
        checkOpen();
        return describer().getMetaData();
    }

    @Override public ParameterMetaData getParameterMetaData() throws SQLException {
        checkOpen();
        return describer().getParameterMetaData();
    }

    @Override public void close() throws SQLException {
        try {
            super.close();
        } finally {
            if (describer != null) {
                PreparedStatement d = describer;
                describer = null;
                d.close();
            }
        }
    }

    private void bind(int index, Object value, Bindings.Binder binder) throws SQLException {
        checkOpen();
        bindings.set(index, value, binder);
    }

    // ---- parameter setters (generated from java.sql.PreparedStatement; each keeps the value and how to bind it) ----

    @Override public void setArray(int index, java.sql.Array a1) throws SQLException {
        Object v = Values.detach(a1);
        bind(index, v, (p, i) -> p.setObject(i, v));
    }

    @Override public void setAsciiStream(int index, java.io.InputStream a1, int a2) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setAsciiStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setAsciiStream(int index, java.io.InputStream a1, long a2) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setAsciiStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setAsciiStream(int index, java.io.InputStream a1) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setAsciiStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setBigDecimal(int index, java.math.BigDecimal a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setBigDecimal(i, a1));
    }

    @Override public void setBinaryStream(int index, java.io.InputStream a1, int a2) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setBinaryStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setBinaryStream(int index, java.io.InputStream a1, long a2) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setBinaryStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setBinaryStream(int index, java.io.InputStream a1) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setBinaryStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setBlob(int index, java.io.InputStream a1, long a2) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setBinaryStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setBlob(int index, java.io.InputStream a1) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setBinaryStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }

    @Override public void setBlob(int index, java.sql.Blob a1) throws SQLException {
        Object v = Values.detach(a1);
        bind(index, v, (p, i) -> p.setObject(i, v));
    }

    @Override public void setBoolean(int index, boolean a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setBoolean(i, a1));
    }

    @Override public void setByte(int index, byte a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setByte(i, a1));
    }

    @Override public void setBytes(int index, byte[] a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setBytes(i, a1));
    }

    @Override public void setCharacterStream(int index, java.io.Reader a1, int a2) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setCharacterStream(int index, java.io.Reader a1, long a2) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setCharacterStream(int index, java.io.Reader a1) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setClob(int index, java.io.Reader a1, long a2) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setClob(int index, java.io.Reader a1) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setClob(int index, java.sql.Clob a1) throws SQLException {
        Object v = Values.detach(a1);
        bind(index, v, (p, i) -> p.setObject(i, v));
    }

    @Override public void setDate(int index, java.sql.Date a1, java.util.Calendar a2) throws SQLException {
        bind(index, a1, (p, i) -> p.setDate(i, a1, a2));
    }

    @Override public void setDate(int index, java.sql.Date a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setDate(i, a1));
    }

    @Override public void setDouble(int index, double a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setDouble(i, a1));
    }

    @Override public void setFloat(int index, float a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setFloat(i, a1));
    }

    @Override public void setInt(int index, int a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setInt(i, a1));
    }

    @Override public void setLong(int index, long a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setLong(i, a1));
    }

    @Override public void setNCharacterStream(int index, java.io.Reader a1, long a2) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setNCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setNCharacterStream(int index, java.io.Reader a1) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setNCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setNClob(int index, java.io.Reader a1, long a2) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setNCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setNClob(int index, java.io.Reader a1) throws SQLException {
        String v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setNCharacterStream(i, v == null ? null : new java.io.StringReader(v), v == null ? 0 : v.length()));
    }

    @Override public void setNClob(int index, java.sql.NClob a1) throws SQLException {
        Object v = Values.detach(a1);
        bind(index, v, (p, i) -> p.setObject(i, v));
    }

    @Override public void setNString(int index, String a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setNString(i, a1));
    }

    @Override public void setNull(int index, int a1, String a2) throws SQLException {
        bind(index, null, (p, i) -> p.setNull(i, a1, a2));
    }

    @Override public void setNull(int index, int a1) throws SQLException {
        bind(index, null, (p, i) -> p.setNull(i, a1));
    }

    @Override public void setObject(int index, Object a1, int a2, int a3) throws SQLException {
        Object v = Bindings.plain(a1);
        bind(index, v, (p, i) -> p.setObject(i, v, a2, a3));
    }

    @Override public void setObject(int index, Object a1, int a2) throws SQLException {
        Object v = Bindings.plain(a1);
        bind(index, v, (p, i) -> p.setObject(i, v, a2));
    }

    @Override public void setObject(int index, Object a1, java.sql.SQLType a2, int a3) throws SQLException {
        Object v = Bindings.plain(a1);
        bind(index, v, (p, i) -> p.setObject(i, v, a2, a3));
    }

    @Override public void setObject(int index, Object a1, java.sql.SQLType a2) throws SQLException {
        Object v = Bindings.plain(a1);
        bind(index, v, (p, i) -> p.setObject(i, v, a2));
    }

    @Override public void setObject(int index, Object a1) throws SQLException {
        Object v = Bindings.plain(a1);
        bind(index, v, (p, i) -> p.setObject(i, v));
    }

    @Override public void setRef(int index, java.sql.Ref a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setRef(i, a1));
    }

    @Override public void setRowId(int index, java.sql.RowId a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setRowId(i, a1));
    }

    @Override public void setSQLXML(int index, java.sql.SQLXML a1) throws SQLException {
        Object v = Values.detach(a1);
        bind(index, v, (p, i) -> p.setObject(i, v));
    }

    @Override public void setShort(int index, short a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setShort(i, a1));
    }

    @Override public void setString(int index, String a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setString(i, a1));
    }

    @Override public void setTime(int index, java.sql.Time a1, java.util.Calendar a2) throws SQLException {
        bind(index, a1, (p, i) -> p.setTime(i, a1, a2));
    }

    @Override public void setTime(int index, java.sql.Time a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setTime(i, a1));
    }

    @Override public void setTimestamp(int index, java.sql.Timestamp a1, java.util.Calendar a2) throws SQLException {
        bind(index, a1, (p, i) -> p.setTimestamp(i, a1, a2));
    }

    @Override public void setTimestamp(int index, java.sql.Timestamp a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setTimestamp(i, a1));
    }

    @Override public void setURL(int index, java.net.URL a1) throws SQLException {
        bind(index, a1, (p, i) -> p.setURL(i, a1));
    }

    @Deprecated
    @Override public void setUnicodeStream(int index, java.io.InputStream a1, int a2) throws SQLException {
        byte[] v = Bindings.read(a1);
        bind(index, v, (p, i) -> p.setBinaryStream(i, v == null ? null : new java.io.ByteArrayInputStream(v), v == null ? 0 : v.length));
    }
}
