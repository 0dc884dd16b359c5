package io.macrodb.jdbc;

import java.sql.*;

/**
 * A CallableStatement that forwards to a statement on the primary.
 * Generated from {@link java.sql.CallableStatement}: every method hands straight to the delegate;
 * subclasses override the few that matter to MacroDB.
 */
@SuppressWarnings({"deprecation", "unchecked"})
abstract class DelegatingCallableStatement implements java.sql.CallableStatement {
    protected final java.sql.CallableStatement delegate;

    protected DelegatingCallableStatement(java.sql.CallableStatement delegate) {
        this.delegate = delegate;
    }

    @Override public void cancel() throws SQLException {
        delegate.cancel();
    }

    @Override public void clearBatch() throws SQLException {
        delegate.clearBatch();
    }

    @Override public void clearParameters() throws SQLException {
        delegate.clearParameters();
    }

    @Override public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override public String enquoteIdentifier(String a0, boolean a1) throws SQLException {
        return delegate.enquoteIdentifier(a0, a1);
    }

    @Override public String enquoteLiteral(String a0) throws SQLException {
        return delegate.enquoteLiteral(a0);
    }

    @Override public String enquoteNCharLiteral(String a0) throws SQLException {
        return delegate.enquoteNCharLiteral(a0);
    }

    @Override public java.sql.Array getArray(String a0) throws SQLException {
        return delegate.getArray(a0);
    }

    @Override public java.sql.Array getArray(int a0) throws SQLException {
        return delegate.getArray(a0);
    }

    @Override public java.math.BigDecimal getBigDecimal(String a0) throws SQLException {
        return delegate.getBigDecimal(a0);
    }

    @Override public java.math.BigDecimal getBigDecimal(int a0, int a1) throws SQLException {
        return delegate.getBigDecimal(a0, a1);
    }

    @Override public java.math.BigDecimal getBigDecimal(int a0) throws SQLException {
        return delegate.getBigDecimal(a0);
    }

    @Override public java.sql.Blob getBlob(String a0) throws SQLException {
        return delegate.getBlob(a0);
    }

    @Override public java.sql.Blob getBlob(int a0) throws SQLException {
        return delegate.getBlob(a0);
    }

    @Override public boolean getBoolean(String a0) throws SQLException {
        return delegate.getBoolean(a0);
    }

    @Override public boolean getBoolean(int a0) throws SQLException {
        return delegate.getBoolean(a0);
    }

    @Override public byte getByte(String a0) throws SQLException {
        return delegate.getByte(a0);
    }

    @Override public byte getByte(int a0) throws SQLException {
        return delegate.getByte(a0);
    }

    @Override public byte[] getBytes(String a0) throws SQLException {
        return delegate.getBytes(a0);
    }

    @Override public byte[] getBytes(int a0) throws SQLException {
        return delegate.getBytes(a0);
    }

    @Override public java.io.Reader getCharacterStream(String a0) throws SQLException {
        return delegate.getCharacterStream(a0);
    }

    @Override public java.io.Reader getCharacterStream(int a0) throws SQLException {
        return delegate.getCharacterStream(a0);
    }

    @Override public java.sql.Clob getClob(String a0) throws SQLException {
        return delegate.getClob(a0);
    }

    @Override public java.sql.Clob getClob(int a0) throws SQLException {
        return delegate.getClob(a0);
    }

    @Override public java.sql.Date getDate(String a0, java.util.Calendar a1) throws SQLException {
        return delegate.getDate(a0, a1);
    }

    @Override public java.sql.Date getDate(String a0) throws SQLException {
        return delegate.getDate(a0);
    }

    @Override public java.sql.Date getDate(int a0, java.util.Calendar a1) throws SQLException {
        return delegate.getDate(a0, a1);
    }

    @Override public java.sql.Date getDate(int a0) throws SQLException {
        return delegate.getDate(a0);
    }

    @Override public double getDouble(String a0) throws SQLException {
        return delegate.getDouble(a0);
    }

    @Override public double getDouble(int a0) throws SQLException {
        return delegate.getDouble(a0);
    }

    @Override public int getFetchDirection() throws SQLException {
        return delegate.getFetchDirection();
    }

    @Override public int getFetchSize() throws SQLException {
        return delegate.getFetchSize();
    }

    @Override public float getFloat(String a0) throws SQLException {
        return delegate.getFloat(a0);
    }

    @Override public float getFloat(int a0) throws SQLException {
        return delegate.getFloat(a0);
    }

    @Override public int getInt(String a0) throws SQLException {
        return delegate.getInt(a0);
    }

    @Override public int getInt(int a0) throws SQLException {
        return delegate.getInt(a0);
    }

    @Override public long getLargeMaxRows() throws SQLException {
        return delegate.getLargeMaxRows();
    }

    @Override public long getLargeUpdateCount() throws SQLException {
        return delegate.getLargeUpdateCount();
    }

    @Override public long getLong(String a0) throws SQLException {
        return delegate.getLong(a0);
    }

    @Override public long getLong(int a0) throws SQLException {
        return delegate.getLong(a0);
    }

    @Override public int getMaxFieldSize() throws SQLException {
        return delegate.getMaxFieldSize();
    }

    @Override public int getMaxRows() throws SQLException {
        return delegate.getMaxRows();
    }

    @Override public java.sql.ResultSetMetaData getMetaData() throws SQLException {
        return delegate.getMetaData();
    }

    @Override public java.io.Reader getNCharacterStream(String a0) throws SQLException {
        return delegate.getNCharacterStream(a0);
    }

    @Override public java.io.Reader getNCharacterStream(int a0) throws SQLException {
        return delegate.getNCharacterStream(a0);
    }

    @Override public java.sql.NClob getNClob(String a0) throws SQLException {
        return delegate.getNClob(a0);
    }

    @Override public java.sql.NClob getNClob(int a0) throws SQLException {
        return delegate.getNClob(a0);
    }

    @Override public String getNString(String a0) throws SQLException {
        return delegate.getNString(a0);
    }

    @Override public String getNString(int a0) throws SQLException {
        return delegate.getNString(a0);
    }

    @Override public <T> T getObject(String a0, Class<T> a1) throws SQLException {
        return delegate.getObject(a0, a1);
    }

    @Override public Object getObject(String a0, java.util.Map<String, Class<?>> a1) throws SQLException {
        return delegate.getObject(a0, a1);
    }

    @Override public Object getObject(String a0) throws SQLException {
        return delegate.getObject(a0);
    }

    @Override public <T> T getObject(int a0, Class<T> a1) throws SQLException {
        return delegate.getObject(a0, a1);
    }

    @Override public Object getObject(int a0, java.util.Map<String, Class<?>> a1) throws SQLException {
        return delegate.getObject(a0, a1);
    }

    @Override public Object getObject(int a0) throws SQLException {
        return delegate.getObject(a0);
    }

    @Override public java.sql.ParameterMetaData getParameterMetaData() throws SQLException {
        return delegate.getParameterMetaData();
    }

    @Override public int getQueryTimeout() throws SQLException {
        return delegate.getQueryTimeout();
    }

    @Override public java.sql.Ref getRef(String a0) throws SQLException {
        return delegate.getRef(a0);
    }

    @Override public java.sql.Ref getRef(int a0) throws SQLException {
        return delegate.getRef(a0);
    }

    @Override public int getResultSetConcurrency() throws SQLException {
        return delegate.getResultSetConcurrency();
    }

    @Override public int getResultSetHoldability() throws SQLException {
        return delegate.getResultSetHoldability();
    }

    @Override public int getResultSetType() throws SQLException {
        return delegate.getResultSetType();
    }

    @Override public java.sql.RowId getRowId(String a0) throws SQLException {
        return delegate.getRowId(a0);
    }

    @Override public java.sql.RowId getRowId(int a0) throws SQLException {
        return delegate.getRowId(a0);
    }

    @Override public java.sql.SQLXML getSQLXML(String a0) throws SQLException {
        return delegate.getSQLXML(a0);
    }

    @Override public java.sql.SQLXML getSQLXML(int a0) throws SQLException {
        return delegate.getSQLXML(a0);
    }

    @Override public short getShort(String a0) throws SQLException {
        return delegate.getShort(a0);
    }

    @Override public short getShort(int a0) throws SQLException {
        return delegate.getShort(a0);
    }

    @Override public String getString(String a0) throws SQLException {
        return delegate.getString(a0);
    }

    @Override public String getString(int a0) throws SQLException {
        return delegate.getString(a0);
    }

    @Override public java.sql.Time getTime(String a0, java.util.Calendar a1) throws SQLException {
        return delegate.getTime(a0, a1);
    }

    @Override public java.sql.Time getTime(String a0) throws SQLException {
        return delegate.getTime(a0);
    }

    @Override public java.sql.Time getTime(int a0, java.util.Calendar a1) throws SQLException {
        return delegate.getTime(a0, a1);
    }

    @Override public java.sql.Time getTime(int a0) throws SQLException {
        return delegate.getTime(a0);
    }

    @Override public java.sql.Timestamp getTimestamp(String a0, java.util.Calendar a1) throws SQLException {
        return delegate.getTimestamp(a0, a1);
    }

    @Override public java.sql.Timestamp getTimestamp(String a0) throws SQLException {
        return delegate.getTimestamp(a0);
    }

    @Override public java.sql.Timestamp getTimestamp(int a0, java.util.Calendar a1) throws SQLException {
        return delegate.getTimestamp(a0, a1);
    }

    @Override public java.sql.Timestamp getTimestamp(int a0) throws SQLException {
        return delegate.getTimestamp(a0);
    }

    @Override public java.net.URL getURL(String a0) throws SQLException {
        return delegate.getURL(a0);
    }

    @Override public java.net.URL getURL(int a0) throws SQLException {
        return delegate.getURL(a0);
    }

    @Override public int getUpdateCount() throws SQLException {
        return delegate.getUpdateCount();
    }

    @Override public java.sql.SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override public boolean isPoolable() throws SQLException {
        return delegate.isPoolable();
    }

    @Override public boolean isSimpleIdentifier(String a0) throws SQLException {
        return delegate.isSimpleIdentifier(a0);
    }

    @Override public void registerOutParameter(String a0, int a1, String a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(String a0, int a1, int a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(String a0, int a1) throws SQLException {
        delegate.registerOutParameter(a0, a1);
    }

    @Override public void registerOutParameter(String a0, java.sql.SQLType a1, String a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(String a0, java.sql.SQLType a1, int a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(String a0, java.sql.SQLType a1) throws SQLException {
        delegate.registerOutParameter(a0, a1);
    }

    @Override public void registerOutParameter(int a0, int a1, String a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(int a0, int a1, int a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(int a0, int a1) throws SQLException {
        delegate.registerOutParameter(a0, a1);
    }

    @Override public void registerOutParameter(int a0, java.sql.SQLType a1, String a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(int a0, java.sql.SQLType a1, int a2) throws SQLException {
        delegate.registerOutParameter(a0, a1, a2);
    }

    @Override public void registerOutParameter(int a0, java.sql.SQLType a1) throws SQLException {
        delegate.registerOutParameter(a0, a1);
    }

    @Override public void setArray(int a0, java.sql.Array a1) throws SQLException {
        delegate.setArray(a0, a1);
    }

    @Override public void setAsciiStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.setAsciiStream(a0, a1, a2);
    }

    @Override public void setAsciiStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.setAsciiStream(a0, a1, a2);
    }

    @Override public void setAsciiStream(String a0, java.io.InputStream a1) throws SQLException {
        delegate.setAsciiStream(a0, a1);
    }

    @Override public void setAsciiStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.setAsciiStream(a0, a1, a2);
    }

    @Override public void setAsciiStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.setAsciiStream(a0, a1, a2);
    }

    @Override public void setAsciiStream(int a0, java.io.InputStream a1) throws SQLException {
        delegate.setAsciiStream(a0, a1);
    }

    @Override public void setBigDecimal(String a0, java.math.BigDecimal a1) throws SQLException {
        delegate.setBigDecimal(a0, a1);
    }

    @Override public void setBigDecimal(int a0, java.math.BigDecimal a1) throws SQLException {
        delegate.setBigDecimal(a0, a1);
    }

    @Override public void setBinaryStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.setBinaryStream(a0, a1, a2);
    }

    @Override public void setBinaryStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.setBinaryStream(a0, a1, a2);
    }

    @Override public void setBinaryStream(String a0, java.io.InputStream a1) throws SQLException {
        delegate.setBinaryStream(a0, a1);
    }

    @Override public void setBinaryStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.setBinaryStream(a0, a1, a2);
    }

    @Override public void setBinaryStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.setBinaryStream(a0, a1, a2);
    }

    @Override public void setBinaryStream(int a0, java.io.InputStream a1) throws SQLException {
        delegate.setBinaryStream(a0, a1);
    }

    @Override public void setBlob(String a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.setBlob(a0, a1, a2);
    }

    @Override public void setBlob(String a0, java.io.InputStream a1) throws SQLException {
        delegate.setBlob(a0, a1);
    }

    @Override public void setBlob(String a0, java.sql.Blob a1) throws SQLException {
        delegate.setBlob(a0, a1);
    }

    @Override public void setBlob(int a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.setBlob(a0, a1, a2);
    }

    @Override public void setBlob(int a0, java.io.InputStream a1) throws SQLException {
        delegate.setBlob(a0, a1);
    }

    @Override public void setBlob(int a0, java.sql.Blob a1) throws SQLException {
        delegate.setBlob(a0, a1);
    }

    @Override public void setBoolean(String a0, boolean a1) throws SQLException {
        delegate.setBoolean(a0, a1);
    }

    @Override public void setBoolean(int a0, boolean a1) throws SQLException {
        delegate.setBoolean(a0, a1);
    }

    @Override public void setByte(String a0, byte a1) throws SQLException {
        delegate.setByte(a0, a1);
    }

    @Override public void setByte(int a0, byte a1) throws SQLException {
        delegate.setByte(a0, a1);
    }

    @Override public void setBytes(String a0, byte[] a1) throws SQLException {
        delegate.setBytes(a0, a1);
    }

    @Override public void setBytes(int a0, byte[] a1) throws SQLException {
        delegate.setBytes(a0, a1);
    }

    @Override public void setCharacterStream(String a0, java.io.Reader a1, int a2) throws SQLException {
        delegate.setCharacterStream(a0, a1, a2);
    }

    @Override public void setCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setCharacterStream(a0, a1, a2);
    }

    @Override public void setCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        delegate.setCharacterStream(a0, a1);
    }

    @Override public void setCharacterStream(int a0, java.io.Reader a1, int a2) throws SQLException {
        delegate.setCharacterStream(a0, a1, a2);
    }

    @Override public void setCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setCharacterStream(a0, a1, a2);
    }

    @Override public void setCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        delegate.setCharacterStream(a0, a1);
    }

    @Override public void setClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setClob(a0, a1, a2);
    }

    @Override public void setClob(String a0, java.io.Reader a1) throws SQLException {
        delegate.setClob(a0, a1);
    }

    @Override public void setClob(String a0, java.sql.Clob a1) throws SQLException {
        delegate.setClob(a0, a1);
    }

    @Override public void setClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setClob(a0, a1, a2);
    }

    @Override public void setClob(int a0, java.io.Reader a1) throws SQLException {
        delegate.setClob(a0, a1);
    }

    @Override public void setClob(int a0, java.sql.Clob a1) throws SQLException {
        delegate.setClob(a0, a1);
    }

    @Override public void setCursorName(String a0) throws SQLException {
        delegate.setCursorName(a0);
    }

    @Override public void setDate(String a0, java.sql.Date a1, java.util.Calendar a2) throws SQLException {
        delegate.setDate(a0, a1, a2);
    }

    @Override public void setDate(String a0, java.sql.Date a1) throws SQLException {
        delegate.setDate(a0, a1);
    }

    @Override public void setDate(int a0, java.sql.Date a1, java.util.Calendar a2) throws SQLException {
        delegate.setDate(a0, a1, a2);
    }

    @Override public void setDate(int a0, java.sql.Date a1) throws SQLException {
        delegate.setDate(a0, a1);
    }

    @Override public void setDouble(String a0, double a1) throws SQLException {
        delegate.setDouble(a0, a1);
    }

    @Override public void setDouble(int a0, double a1) throws SQLException {
        delegate.setDouble(a0, a1);
    }

    @Override public void setEscapeProcessing(boolean a0) throws SQLException {
        delegate.setEscapeProcessing(a0);
    }

    @Override public void setFetchDirection(int a0) throws SQLException {
        delegate.setFetchDirection(a0);
    }

    @Override public void setFetchSize(int a0) throws SQLException {
        delegate.setFetchSize(a0);
    }

    @Override public void setFloat(String a0, float a1) throws SQLException {
        delegate.setFloat(a0, a1);
    }

    @Override public void setFloat(int a0, float a1) throws SQLException {
        delegate.setFloat(a0, a1);
    }

    @Override public void setInt(String a0, int a1) throws SQLException {
        delegate.setInt(a0, a1);
    }

    @Override public void setInt(int a0, int a1) throws SQLException {
        delegate.setInt(a0, a1);
    }

    @Override public void setLargeMaxRows(long a0) throws SQLException {
        delegate.setLargeMaxRows(a0);
    }

    @Override public void setLong(String a0, long a1) throws SQLException {
        delegate.setLong(a0, a1);
    }

    @Override public void setLong(int a0, long a1) throws SQLException {
        delegate.setLong(a0, a1);
    }

    @Override public void setMaxFieldSize(int a0) throws SQLException {
        delegate.setMaxFieldSize(a0);
    }

    @Override public void setMaxRows(int a0) throws SQLException {
        delegate.setMaxRows(a0);
    }

    @Override public void setNCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setNCharacterStream(a0, a1, a2);
    }

    @Override public void setNCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        delegate.setNCharacterStream(a0, a1);
    }

    @Override public void setNCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setNCharacterStream(a0, a1, a2);
    }

    @Override public void setNCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        delegate.setNCharacterStream(a0, a1);
    }

    @Override public void setNClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setNClob(a0, a1, a2);
    }

    @Override public void setNClob(String a0, java.io.Reader a1) throws SQLException {
        delegate.setNClob(a0, a1);
    }

    @Override public void setNClob(String a0, java.sql.NClob a1) throws SQLException {
        delegate.setNClob(a0, a1);
    }

    @Override public void setNClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.setNClob(a0, a1, a2);
    }

    @Override public void setNClob(int a0, java.io.Reader a1) throws SQLException {
        delegate.setNClob(a0, a1);
    }

    @Override public void setNClob(int a0, java.sql.NClob a1) throws SQLException {
        delegate.setNClob(a0, a1);
    }

    @Override public void setNString(String a0, String a1) throws SQLException {
        delegate.setNString(a0, a1);
    }

    @Override public void setNString(int a0, String a1) throws SQLException {
        delegate.setNString(a0, a1);
    }

    @Override public void setNull(String a0, int a1, String a2) throws SQLException {
        delegate.setNull(a0, a1, a2);
    }

    @Override public void setNull(String a0, int a1) throws SQLException {
        delegate.setNull(a0, a1);
    }

    @Override public void setNull(int a0, int a1, String a2) throws SQLException {
        delegate.setNull(a0, a1, a2);
    }

    @Override public void setNull(int a0, int a1) throws SQLException {
        delegate.setNull(a0, a1);
    }

    @Override public void setObject(String a0, Object a1, int a2, int a3) throws SQLException {
        delegate.setObject(a0, a1, a2, a3);
    }

    @Override public void setObject(String a0, Object a1, int a2) throws SQLException {
        delegate.setObject(a0, a1, a2);
    }

    @Override public void setObject(String a0, Object a1, java.sql.SQLType a2, int a3) throws SQLException {
        delegate.setObject(a0, a1, a2, a3);
    }

    @Override public void setObject(String a0, Object a1, java.sql.SQLType a2) throws SQLException {
        delegate.setObject(a0, a1, a2);
    }

    @Override public void setObject(String a0, Object a1) throws SQLException {
        delegate.setObject(a0, a1);
    }

    @Override public void setObject(int a0, Object a1, int a2, int a3) throws SQLException {
        delegate.setObject(a0, a1, a2, a3);
    }

    @Override public void setObject(int a0, Object a1, int a2) throws SQLException {
        delegate.setObject(a0, a1, a2);
    }

    @Override public void setObject(int a0, Object a1, java.sql.SQLType a2, int a3) throws SQLException {
        delegate.setObject(a0, a1, a2, a3);
    }

    @Override public void setObject(int a0, Object a1, java.sql.SQLType a2) throws SQLException {
        delegate.setObject(a0, a1, a2);
    }

    @Override public void setObject(int a0, Object a1) throws SQLException {
        delegate.setObject(a0, a1);
    }

    @Override public void setPoolable(boolean a0) throws SQLException {
        delegate.setPoolable(a0);
    }

    @Override public void setQueryTimeout(int a0) throws SQLException {
        delegate.setQueryTimeout(a0);
    }

    @Override public void setRef(int a0, java.sql.Ref a1) throws SQLException {
        delegate.setRef(a0, a1);
    }

    @Override public void setRowId(String a0, java.sql.RowId a1) throws SQLException {
        delegate.setRowId(a0, a1);
    }

    @Override public void setRowId(int a0, java.sql.RowId a1) throws SQLException {
        delegate.setRowId(a0, a1);
    }

    @Override public void setSQLXML(String a0, java.sql.SQLXML a1) throws SQLException {
        delegate.setSQLXML(a0, a1);
    }

    @Override public void setSQLXML(int a0, java.sql.SQLXML a1) throws SQLException {
        delegate.setSQLXML(a0, a1);
    }

    @Override public void setShort(String a0, short a1) throws SQLException {
        delegate.setShort(a0, a1);
    }

    @Override public void setShort(int a0, short a1) throws SQLException {
        delegate.setShort(a0, a1);
    }

    @Override public void setString(String a0, String a1) throws SQLException {
        delegate.setString(a0, a1);
    }

    @Override public void setString(int a0, String a1) throws SQLException {
        delegate.setString(a0, a1);
    }

    @Override public void setTime(String a0, java.sql.Time a1, java.util.Calendar a2) throws SQLException {
        delegate.setTime(a0, a1, a2);
    }

    @Override public void setTime(String a0, java.sql.Time a1) throws SQLException {
        delegate.setTime(a0, a1);
    }

    @Override public void setTime(int a0, java.sql.Time a1, java.util.Calendar a2) throws SQLException {
        delegate.setTime(a0, a1, a2);
    }

    @Override public void setTime(int a0, java.sql.Time a1) throws SQLException {
        delegate.setTime(a0, a1);
    }

    @Override public void setTimestamp(String a0, java.sql.Timestamp a1, java.util.Calendar a2) throws SQLException {
        delegate.setTimestamp(a0, a1, a2);
    }

    @Override public void setTimestamp(String a0, java.sql.Timestamp a1) throws SQLException {
        delegate.setTimestamp(a0, a1);
    }

    @Override public void setTimestamp(int a0, java.sql.Timestamp a1, java.util.Calendar a2) throws SQLException {
        delegate.setTimestamp(a0, a1, a2);
    }

    @Override public void setTimestamp(int a0, java.sql.Timestamp a1) throws SQLException {
        delegate.setTimestamp(a0, a1);
    }

    @Override public void setURL(String a0, java.net.URL a1) throws SQLException {
        delegate.setURL(a0, a1);
    }

    @Override public void setURL(int a0, java.net.URL a1) throws SQLException {
        delegate.setURL(a0, a1);
    }

    @Override public void setUnicodeStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.setUnicodeStream(a0, a1, a2);
    }

    @Override public boolean wasNull() throws SQLException {
        return delegate.wasNull();
    }
}
