package io.macrodb.jdbc;

import java.sql.*;

/**
 * A ResultSet that forwards to an engine's result set.
 * Generated from {@link java.sql.ResultSet}: every method hands straight to the delegate;
 * subclasses override the few that matter to MacroDB.
 */
@SuppressWarnings({"deprecation", "unchecked"})
abstract class DelegatingResultSet implements java.sql.ResultSet {
    protected java.sql.ResultSet delegate;

    protected DelegatingResultSet(java.sql.ResultSet delegate) {
        this.delegate = delegate;
    }

    /** What an engine exception becomes on its way to the application (itself by default). */
    protected SQLException failure(SQLException e) {
        return e;
    }

    @Override public boolean absolute(int a0) throws SQLException {
        try {
            return delegate.absolute(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void afterLast() throws SQLException {
        try {
            delegate.afterLast();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void beforeFirst() throws SQLException {
        try {
            delegate.beforeFirst();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void cancelRowUpdates() throws SQLException {
        try {
            delegate.cancelRowUpdates();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void clearWarnings() throws SQLException {
        try {
            delegate.clearWarnings();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int findColumn(String a0) throws SQLException {
        try {
            return delegate.findColumn(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean first() throws SQLException {
        try {
            return delegate.first();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Array getArray(String a0) throws SQLException {
        try {
            return delegate.getArray(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Array getArray(int a0) throws SQLException {
        try {
            return delegate.getArray(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.InputStream getAsciiStream(String a0) throws SQLException {
        try {
            return delegate.getAsciiStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.InputStream getAsciiStream(int a0) throws SQLException {
        try {
            return delegate.getAsciiStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.math.BigDecimal getBigDecimal(String a0, int a1) throws SQLException {
        try {
            return delegate.getBigDecimal(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.math.BigDecimal getBigDecimal(String a0) throws SQLException {
        try {
            return delegate.getBigDecimal(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.math.BigDecimal getBigDecimal(int a0, int a1) throws SQLException {
        try {
            return delegate.getBigDecimal(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.math.BigDecimal getBigDecimal(int a0) throws SQLException {
        try {
            return delegate.getBigDecimal(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.InputStream getBinaryStream(String a0) throws SQLException {
        try {
            return delegate.getBinaryStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.InputStream getBinaryStream(int a0) throws SQLException {
        try {
            return delegate.getBinaryStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Blob getBlob(String a0) throws SQLException {
        try {
            return delegate.getBlob(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Blob getBlob(int a0) throws SQLException {
        try {
            return delegate.getBlob(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean getBoolean(String a0) throws SQLException {
        try {
            return delegate.getBoolean(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean getBoolean(int a0) throws SQLException {
        try {
            return delegate.getBoolean(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public byte getByte(String a0) throws SQLException {
        try {
            return delegate.getByte(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public byte getByte(int a0) throws SQLException {
        try {
            return delegate.getByte(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public byte[] getBytes(String a0) throws SQLException {
        try {
            return delegate.getBytes(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public byte[] getBytes(int a0) throws SQLException {
        try {
            return delegate.getBytes(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.Reader getCharacterStream(String a0) throws SQLException {
        try {
            return delegate.getCharacterStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.Reader getCharacterStream(int a0) throws SQLException {
        try {
            return delegate.getCharacterStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Clob getClob(String a0) throws SQLException {
        try {
            return delegate.getClob(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Clob getClob(int a0) throws SQLException {
        try {
            return delegate.getClob(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getConcurrency() throws SQLException {
        try {
            return delegate.getConcurrency();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public String getCursorName() throws SQLException {
        try {
            return delegate.getCursorName();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Date getDate(String a0, java.util.Calendar a1) throws SQLException {
        try {
            return delegate.getDate(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Date getDate(String a0) throws SQLException {
        try {
            return delegate.getDate(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Date getDate(int a0, java.util.Calendar a1) throws SQLException {
        try {
            return delegate.getDate(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Date getDate(int a0) throws SQLException {
        try {
            return delegate.getDate(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public double getDouble(String a0) throws SQLException {
        try {
            return delegate.getDouble(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public double getDouble(int a0) throws SQLException {
        try {
            return delegate.getDouble(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getFetchDirection() throws SQLException {
        try {
            return delegate.getFetchDirection();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getFetchSize() throws SQLException {
        try {
            return delegate.getFetchSize();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public float getFloat(String a0) throws SQLException {
        try {
            return delegate.getFloat(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public float getFloat(int a0) throws SQLException {
        try {
            return delegate.getFloat(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getHoldability() throws SQLException {
        try {
            return delegate.getHoldability();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getInt(String a0) throws SQLException {
        try {
            return delegate.getInt(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getInt(int a0) throws SQLException {
        try {
            return delegate.getInt(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public long getLong(String a0) throws SQLException {
        try {
            return delegate.getLong(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public long getLong(int a0) throws SQLException {
        try {
            return delegate.getLong(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.ResultSetMetaData getMetaData() throws SQLException {
        try {
            return delegate.getMetaData();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.Reader getNCharacterStream(String a0) throws SQLException {
        try {
            return delegate.getNCharacterStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.Reader getNCharacterStream(int a0) throws SQLException {
        try {
            return delegate.getNCharacterStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.NClob getNClob(String a0) throws SQLException {
        try {
            return delegate.getNClob(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.NClob getNClob(int a0) throws SQLException {
        try {
            return delegate.getNClob(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public String getNString(String a0) throws SQLException {
        try {
            return delegate.getNString(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public String getNString(int a0) throws SQLException {
        try {
            return delegate.getNString(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public <T> T getObject(String a0, Class<T> a1) throws SQLException {
        try {
            return delegate.getObject(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public Object getObject(String a0, java.util.Map<String, Class<?>> a1) throws SQLException {
        try {
            return delegate.getObject(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public Object getObject(String a0) throws SQLException {
        try {
            return delegate.getObject(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public <T> T getObject(int a0, Class<T> a1) throws SQLException {
        try {
            return delegate.getObject(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public Object getObject(int a0, java.util.Map<String, Class<?>> a1) throws SQLException {
        try {
            return delegate.getObject(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public Object getObject(int a0) throws SQLException {
        try {
            return delegate.getObject(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Ref getRef(String a0) throws SQLException {
        try {
            return delegate.getRef(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Ref getRef(int a0) throws SQLException {
        try {
            return delegate.getRef(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getRow() throws SQLException {
        try {
            return delegate.getRow();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.RowId getRowId(String a0) throws SQLException {
        try {
            return delegate.getRowId(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.RowId getRowId(int a0) throws SQLException {
        try {
            return delegate.getRowId(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.SQLXML getSQLXML(String a0) throws SQLException {
        try {
            return delegate.getSQLXML(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.SQLXML getSQLXML(int a0) throws SQLException {
        try {
            return delegate.getSQLXML(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public short getShort(String a0) throws SQLException {
        try {
            return delegate.getShort(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public short getShort(int a0) throws SQLException {
        try {
            return delegate.getShort(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public String getString(String a0) throws SQLException {
        try {
            return delegate.getString(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public String getString(int a0) throws SQLException {
        try {
            return delegate.getString(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Time getTime(String a0, java.util.Calendar a1) throws SQLException {
        try {
            return delegate.getTime(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Time getTime(String a0) throws SQLException {
        try {
            return delegate.getTime(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Time getTime(int a0, java.util.Calendar a1) throws SQLException {
        try {
            return delegate.getTime(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Time getTime(int a0) throws SQLException {
        try {
            return delegate.getTime(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Timestamp getTimestamp(String a0, java.util.Calendar a1) throws SQLException {
        try {
            return delegate.getTimestamp(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Timestamp getTimestamp(String a0) throws SQLException {
        try {
            return delegate.getTimestamp(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Timestamp getTimestamp(int a0, java.util.Calendar a1) throws SQLException {
        try {
            return delegate.getTimestamp(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.Timestamp getTimestamp(int a0) throws SQLException {
        try {
            return delegate.getTimestamp(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public int getType() throws SQLException {
        try {
            return delegate.getType();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.net.URL getURL(String a0) throws SQLException {
        try {
            return delegate.getURL(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.net.URL getURL(int a0) throws SQLException {
        try {
            return delegate.getURL(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.InputStream getUnicodeStream(String a0) throws SQLException {
        try {
            return delegate.getUnicodeStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.io.InputStream getUnicodeStream(int a0) throws SQLException {
        try {
            return delegate.getUnicodeStream(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public java.sql.SQLWarning getWarnings() throws SQLException {
        try {
            return delegate.getWarnings();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean isAfterLast() throws SQLException {
        try {
            return delegate.isAfterLast();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean isBeforeFirst() throws SQLException {
        try {
            return delegate.isBeforeFirst();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean isClosed() throws SQLException {
        try {
            return delegate.isClosed();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean isFirst() throws SQLException {
        try {
            return delegate.isFirst();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean isLast() throws SQLException {
        try {
            return delegate.isLast();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean last() throws SQLException {
        try {
            return delegate.last();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void moveToCurrentRow() throws SQLException {
        try {
            delegate.moveToCurrentRow();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void moveToInsertRow() throws SQLException {
        try {
            delegate.moveToInsertRow();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean next() throws SQLException {
        try {
            return delegate.next();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean previous() throws SQLException {
        try {
            return delegate.previous();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void refreshRow() throws SQLException {
        try {
            delegate.refreshRow();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean relative(int a0) throws SQLException {
        try {
            return delegate.relative(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean rowDeleted() throws SQLException {
        try {
            return delegate.rowDeleted();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean rowInserted() throws SQLException {
        try {
            return delegate.rowInserted();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean rowUpdated() throws SQLException {
        try {
            return delegate.rowUpdated();
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void setFetchDirection(int a0) throws SQLException {
        try {
            delegate.setFetchDirection(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void setFetchSize(int a0) throws SQLException {
        try {
            delegate.setFetchSize(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateArray(String a0, java.sql.Array a1) throws SQLException {
        try {
            delegate.updateArray(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateArray(int a0, java.sql.Array a1) throws SQLException {
        try {
            delegate.updateArray(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateAsciiStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        try {
            delegate.updateAsciiStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateAsciiStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        try {
            delegate.updateAsciiStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateAsciiStream(String a0, java.io.InputStream a1) throws SQLException {
        try {
            delegate.updateAsciiStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateAsciiStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        try {
            delegate.updateAsciiStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateAsciiStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        try {
            delegate.updateAsciiStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateAsciiStream(int a0, java.io.InputStream a1) throws SQLException {
        try {
            delegate.updateAsciiStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBigDecimal(String a0, java.math.BigDecimal a1) throws SQLException {
        try {
            delegate.updateBigDecimal(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBigDecimal(int a0, java.math.BigDecimal a1) throws SQLException {
        try {
            delegate.updateBigDecimal(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBinaryStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        try {
            delegate.updateBinaryStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBinaryStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        try {
            delegate.updateBinaryStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBinaryStream(String a0, java.io.InputStream a1) throws SQLException {
        try {
            delegate.updateBinaryStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBinaryStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        try {
            delegate.updateBinaryStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBinaryStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        try {
            delegate.updateBinaryStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBinaryStream(int a0, java.io.InputStream a1) throws SQLException {
        try {
            delegate.updateBinaryStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBlob(String a0, java.io.InputStream a1, long a2) throws SQLException {
        try {
            delegate.updateBlob(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBlob(String a0, java.io.InputStream a1) throws SQLException {
        try {
            delegate.updateBlob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBlob(String a0, java.sql.Blob a1) throws SQLException {
        try {
            delegate.updateBlob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBlob(int a0, java.io.InputStream a1, long a2) throws SQLException {
        try {
            delegate.updateBlob(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBlob(int a0, java.io.InputStream a1) throws SQLException {
        try {
            delegate.updateBlob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBlob(int a0, java.sql.Blob a1) throws SQLException {
        try {
            delegate.updateBlob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBoolean(String a0, boolean a1) throws SQLException {
        try {
            delegate.updateBoolean(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBoolean(int a0, boolean a1) throws SQLException {
        try {
            delegate.updateBoolean(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateByte(String a0, byte a1) throws SQLException {
        try {
            delegate.updateByte(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateByte(int a0, byte a1) throws SQLException {
        try {
            delegate.updateByte(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBytes(String a0, byte[] a1) throws SQLException {
        try {
            delegate.updateBytes(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateBytes(int a0, byte[] a1) throws SQLException {
        try {
            delegate.updateBytes(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateCharacterStream(String a0, java.io.Reader a1, int a2) throws SQLException {
        try {
            delegate.updateCharacterStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateCharacterStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateCharacterStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateCharacterStream(int a0, java.io.Reader a1, int a2) throws SQLException {
        try {
            delegate.updateCharacterStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateCharacterStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateCharacterStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateClob(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateClob(String a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateClob(String a0, java.sql.Clob a1) throws SQLException {
        try {
            delegate.updateClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateClob(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateClob(int a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateClob(int a0, java.sql.Clob a1) throws SQLException {
        try {
            delegate.updateClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateDate(String a0, java.sql.Date a1) throws SQLException {
        try {
            delegate.updateDate(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateDate(int a0, java.sql.Date a1) throws SQLException {
        try {
            delegate.updateDate(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateDouble(String a0, double a1) throws SQLException {
        try {
            delegate.updateDouble(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateDouble(int a0, double a1) throws SQLException {
        try {
            delegate.updateDouble(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateFloat(String a0, float a1) throws SQLException {
        try {
            delegate.updateFloat(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateFloat(int a0, float a1) throws SQLException {
        try {
            delegate.updateFloat(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateInt(String a0, int a1) throws SQLException {
        try {
            delegate.updateInt(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateInt(int a0, int a1) throws SQLException {
        try {
            delegate.updateInt(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateLong(String a0, long a1) throws SQLException {
        try {
            delegate.updateLong(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateLong(int a0, long a1) throws SQLException {
        try {
            delegate.updateLong(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateNCharacterStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateNCharacterStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateNCharacterStream(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateNCharacterStream(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateNClob(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNClob(String a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateNClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNClob(String a0, java.sql.NClob a1) throws SQLException {
        try {
            delegate.updateNClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        try {
            delegate.updateNClob(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNClob(int a0, java.io.Reader a1) throws SQLException {
        try {
            delegate.updateNClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNClob(int a0, java.sql.NClob a1) throws SQLException {
        try {
            delegate.updateNClob(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNString(String a0, String a1) throws SQLException {
        try {
            delegate.updateNString(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNString(int a0, String a1) throws SQLException {
        try {
            delegate.updateNString(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNull(String a0) throws SQLException {
        try {
            delegate.updateNull(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateNull(int a0) throws SQLException {
        try {
            delegate.updateNull(a0);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(String a0, Object a1, int a2) throws SQLException {
        try {
            delegate.updateObject(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(String a0, Object a1, java.sql.SQLType a2, int a3) throws SQLException {
        try {
            delegate.updateObject(a0, a1, a2, a3);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(String a0, Object a1, java.sql.SQLType a2) throws SQLException {
        try {
            delegate.updateObject(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(String a0, Object a1) throws SQLException {
        try {
            delegate.updateObject(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(int a0, Object a1, int a2) throws SQLException {
        try {
            delegate.updateObject(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(int a0, Object a1, java.sql.SQLType a2, int a3) throws SQLException {
        try {
            delegate.updateObject(a0, a1, a2, a3);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(int a0, Object a1, java.sql.SQLType a2) throws SQLException {
        try {
            delegate.updateObject(a0, a1, a2);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateObject(int a0, Object a1) throws SQLException {
        try {
            delegate.updateObject(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateRef(String a0, java.sql.Ref a1) throws SQLException {
        try {
            delegate.updateRef(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateRef(int a0, java.sql.Ref a1) throws SQLException {
        try {
            delegate.updateRef(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateRowId(String a0, java.sql.RowId a1) throws SQLException {
        try {
            delegate.updateRowId(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateRowId(int a0, java.sql.RowId a1) throws SQLException {
        try {
            delegate.updateRowId(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateSQLXML(String a0, java.sql.SQLXML a1) throws SQLException {
        try {
            delegate.updateSQLXML(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateSQLXML(int a0, java.sql.SQLXML a1) throws SQLException {
        try {
            delegate.updateSQLXML(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateShort(String a0, short a1) throws SQLException {
        try {
            delegate.updateShort(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateShort(int a0, short a1) throws SQLException {
        try {
            delegate.updateShort(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateString(String a0, String a1) throws SQLException {
        try {
            delegate.updateString(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateString(int a0, String a1) throws SQLException {
        try {
            delegate.updateString(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateTime(String a0, java.sql.Time a1) throws SQLException {
        try {
            delegate.updateTime(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateTime(int a0, java.sql.Time a1) throws SQLException {
        try {
            delegate.updateTime(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateTimestamp(String a0, java.sql.Timestamp a1) throws SQLException {
        try {
            delegate.updateTimestamp(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public void updateTimestamp(int a0, java.sql.Timestamp a1) throws SQLException {
        try {
            delegate.updateTimestamp(a0, a1);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override public boolean wasNull() throws SQLException {
        try {
            return delegate.wasNull();
        } catch (SQLException e) {
            throw failure(e);
        }
    }
}
