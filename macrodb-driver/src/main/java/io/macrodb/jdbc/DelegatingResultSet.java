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

    @Override public boolean absolute(int a0) throws SQLException {
        return delegate.absolute(a0);
    }

    @Override public void afterLast() throws SQLException {
        delegate.afterLast();
    }

    @Override public void beforeFirst() throws SQLException {
        delegate.beforeFirst();
    }

    @Override public void cancelRowUpdates() throws SQLException {
        delegate.cancelRowUpdates();
    }

    @Override public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override public int findColumn(String a0) throws SQLException {
        return delegate.findColumn(a0);
    }

    @Override public boolean first() throws SQLException {
        return delegate.first();
    }

    @Override public java.sql.Array getArray(String a0) throws SQLException {
        return delegate.getArray(a0);
    }

    @Override public java.sql.Array getArray(int a0) throws SQLException {
        return delegate.getArray(a0);
    }

    @Override public java.io.InputStream getAsciiStream(String a0) throws SQLException {
        return delegate.getAsciiStream(a0);
    }

    @Override public java.io.InputStream getAsciiStream(int a0) throws SQLException {
        return delegate.getAsciiStream(a0);
    }

    @Override public java.math.BigDecimal getBigDecimal(String a0, int a1) throws SQLException {
        return delegate.getBigDecimal(a0, a1);
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

    @Override public java.io.InputStream getBinaryStream(String a0) throws SQLException {
        return delegate.getBinaryStream(a0);
    }

    @Override public java.io.InputStream getBinaryStream(int a0) throws SQLException {
        return delegate.getBinaryStream(a0);
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

    @Override public int getConcurrency() throws SQLException {
        return delegate.getConcurrency();
    }

    @Override public String getCursorName() throws SQLException {
        return delegate.getCursorName();
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

    @Override public int getHoldability() throws SQLException {
        return delegate.getHoldability();
    }

    @Override public int getInt(String a0) throws SQLException {
        return delegate.getInt(a0);
    }

    @Override public int getInt(int a0) throws SQLException {
        return delegate.getInt(a0);
    }

    @Override public long getLong(String a0) throws SQLException {
        return delegate.getLong(a0);
    }

    @Override public long getLong(int a0) throws SQLException {
        return delegate.getLong(a0);
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

    @Override public java.sql.Ref getRef(String a0) throws SQLException {
        return delegate.getRef(a0);
    }

    @Override public java.sql.Ref getRef(int a0) throws SQLException {
        return delegate.getRef(a0);
    }

    @Override public int getRow() throws SQLException {
        return delegate.getRow();
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

    @Override public int getType() throws SQLException {
        return delegate.getType();
    }

    @Override public java.net.URL getURL(String a0) throws SQLException {
        return delegate.getURL(a0);
    }

    @Override public java.net.URL getURL(int a0) throws SQLException {
        return delegate.getURL(a0);
    }

    @Override public java.io.InputStream getUnicodeStream(String a0) throws SQLException {
        return delegate.getUnicodeStream(a0);
    }

    @Override public java.io.InputStream getUnicodeStream(int a0) throws SQLException {
        return delegate.getUnicodeStream(a0);
    }

    @Override public java.sql.SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override public boolean isAfterLast() throws SQLException {
        return delegate.isAfterLast();
    }

    @Override public boolean isBeforeFirst() throws SQLException {
        return delegate.isBeforeFirst();
    }

    @Override public boolean isClosed() throws SQLException {
        return delegate.isClosed();
    }

    @Override public boolean isFirst() throws SQLException {
        return delegate.isFirst();
    }

    @Override public boolean isLast() throws SQLException {
        return delegate.isLast();
    }

    @Override public boolean last() throws SQLException {
        return delegate.last();
    }

    @Override public void moveToCurrentRow() throws SQLException {
        delegate.moveToCurrentRow();
    }

    @Override public void moveToInsertRow() throws SQLException {
        delegate.moveToInsertRow();
    }

    @Override public boolean next() throws SQLException {
        return delegate.next();
    }

    @Override public boolean previous() throws SQLException {
        return delegate.previous();
    }

    @Override public void refreshRow() throws SQLException {
        delegate.refreshRow();
    }

    @Override public boolean relative(int a0) throws SQLException {
        return delegate.relative(a0);
    }

    @Override public boolean rowDeleted() throws SQLException {
        return delegate.rowDeleted();
    }

    @Override public boolean rowInserted() throws SQLException {
        return delegate.rowInserted();
    }

    @Override public boolean rowUpdated() throws SQLException {
        return delegate.rowUpdated();
    }

    @Override public void setFetchDirection(int a0) throws SQLException {
        delegate.setFetchDirection(a0);
    }

    @Override public void setFetchSize(int a0) throws SQLException {
        delegate.setFetchSize(a0);
    }

    @Override public void updateArray(String a0, java.sql.Array a1) throws SQLException {
        delegate.updateArray(a0, a1);
    }

    @Override public void updateArray(int a0, java.sql.Array a1) throws SQLException {
        delegate.updateArray(a0, a1);
    }

    @Override public void updateAsciiStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.updateAsciiStream(a0, a1, a2);
    }

    @Override public void updateAsciiStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.updateAsciiStream(a0, a1, a2);
    }

    @Override public void updateAsciiStream(String a0, java.io.InputStream a1) throws SQLException {
        delegate.updateAsciiStream(a0, a1);
    }

    @Override public void updateAsciiStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.updateAsciiStream(a0, a1, a2);
    }

    @Override public void updateAsciiStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.updateAsciiStream(a0, a1, a2);
    }

    @Override public void updateAsciiStream(int a0, java.io.InputStream a1) throws SQLException {
        delegate.updateAsciiStream(a0, a1);
    }

    @Override public void updateBigDecimal(String a0, java.math.BigDecimal a1) throws SQLException {
        delegate.updateBigDecimal(a0, a1);
    }

    @Override public void updateBigDecimal(int a0, java.math.BigDecimal a1) throws SQLException {
        delegate.updateBigDecimal(a0, a1);
    }

    @Override public void updateBinaryStream(String a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.updateBinaryStream(a0, a1, a2);
    }

    @Override public void updateBinaryStream(String a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.updateBinaryStream(a0, a1, a2);
    }

    @Override public void updateBinaryStream(String a0, java.io.InputStream a1) throws SQLException {
        delegate.updateBinaryStream(a0, a1);
    }

    @Override public void updateBinaryStream(int a0, java.io.InputStream a1, int a2) throws SQLException {
        delegate.updateBinaryStream(a0, a1, a2);
    }

    @Override public void updateBinaryStream(int a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.updateBinaryStream(a0, a1, a2);
    }

    @Override public void updateBinaryStream(int a0, java.io.InputStream a1) throws SQLException {
        delegate.updateBinaryStream(a0, a1);
    }

    @Override public void updateBlob(String a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.updateBlob(a0, a1, a2);
    }

    @Override public void updateBlob(String a0, java.io.InputStream a1) throws SQLException {
        delegate.updateBlob(a0, a1);
    }

    @Override public void updateBlob(String a0, java.sql.Blob a1) throws SQLException {
        delegate.updateBlob(a0, a1);
    }

    @Override public void updateBlob(int a0, java.io.InputStream a1, long a2) throws SQLException {
        delegate.updateBlob(a0, a1, a2);
    }

    @Override public void updateBlob(int a0, java.io.InputStream a1) throws SQLException {
        delegate.updateBlob(a0, a1);
    }

    @Override public void updateBlob(int a0, java.sql.Blob a1) throws SQLException {
        delegate.updateBlob(a0, a1);
    }

    @Override public void updateBoolean(String a0, boolean a1) throws SQLException {
        delegate.updateBoolean(a0, a1);
    }

    @Override public void updateBoolean(int a0, boolean a1) throws SQLException {
        delegate.updateBoolean(a0, a1);
    }

    @Override public void updateByte(String a0, byte a1) throws SQLException {
        delegate.updateByte(a0, a1);
    }

    @Override public void updateByte(int a0, byte a1) throws SQLException {
        delegate.updateByte(a0, a1);
    }

    @Override public void updateBytes(String a0, byte[] a1) throws SQLException {
        delegate.updateBytes(a0, a1);
    }

    @Override public void updateBytes(int a0, byte[] a1) throws SQLException {
        delegate.updateBytes(a0, a1);
    }

    @Override public void updateCharacterStream(String a0, java.io.Reader a1, int a2) throws SQLException {
        delegate.updateCharacterStream(a0, a1, a2);
    }

    @Override public void updateCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateCharacterStream(a0, a1, a2);
    }

    @Override public void updateCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        delegate.updateCharacterStream(a0, a1);
    }

    @Override public void updateCharacterStream(int a0, java.io.Reader a1, int a2) throws SQLException {
        delegate.updateCharacterStream(a0, a1, a2);
    }

    @Override public void updateCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateCharacterStream(a0, a1, a2);
    }

    @Override public void updateCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        delegate.updateCharacterStream(a0, a1);
    }

    @Override public void updateClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateClob(a0, a1, a2);
    }

    @Override public void updateClob(String a0, java.io.Reader a1) throws SQLException {
        delegate.updateClob(a0, a1);
    }

    @Override public void updateClob(String a0, java.sql.Clob a1) throws SQLException {
        delegate.updateClob(a0, a1);
    }

    @Override public void updateClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateClob(a0, a1, a2);
    }

    @Override public void updateClob(int a0, java.io.Reader a1) throws SQLException {
        delegate.updateClob(a0, a1);
    }

    @Override public void updateClob(int a0, java.sql.Clob a1) throws SQLException {
        delegate.updateClob(a0, a1);
    }

    @Override public void updateDate(String a0, java.sql.Date a1) throws SQLException {
        delegate.updateDate(a0, a1);
    }

    @Override public void updateDate(int a0, java.sql.Date a1) throws SQLException {
        delegate.updateDate(a0, a1);
    }

    @Override public void updateDouble(String a0, double a1) throws SQLException {
        delegate.updateDouble(a0, a1);
    }

    @Override public void updateDouble(int a0, double a1) throws SQLException {
        delegate.updateDouble(a0, a1);
    }

    @Override public void updateFloat(String a0, float a1) throws SQLException {
        delegate.updateFloat(a0, a1);
    }

    @Override public void updateFloat(int a0, float a1) throws SQLException {
        delegate.updateFloat(a0, a1);
    }

    @Override public void updateInt(String a0, int a1) throws SQLException {
        delegate.updateInt(a0, a1);
    }

    @Override public void updateInt(int a0, int a1) throws SQLException {
        delegate.updateInt(a0, a1);
    }

    @Override public void updateLong(String a0, long a1) throws SQLException {
        delegate.updateLong(a0, a1);
    }

    @Override public void updateLong(int a0, long a1) throws SQLException {
        delegate.updateLong(a0, a1);
    }

    @Override public void updateNCharacterStream(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateNCharacterStream(a0, a1, a2);
    }

    @Override public void updateNCharacterStream(String a0, java.io.Reader a1) throws SQLException {
        delegate.updateNCharacterStream(a0, a1);
    }

    @Override public void updateNCharacterStream(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateNCharacterStream(a0, a1, a2);
    }

    @Override public void updateNCharacterStream(int a0, java.io.Reader a1) throws SQLException {
        delegate.updateNCharacterStream(a0, a1);
    }

    @Override public void updateNClob(String a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateNClob(a0, a1, a2);
    }

    @Override public void updateNClob(String a0, java.io.Reader a1) throws SQLException {
        delegate.updateNClob(a0, a1);
    }

    @Override public void updateNClob(String a0, java.sql.NClob a1) throws SQLException {
        delegate.updateNClob(a0, a1);
    }

    @Override public void updateNClob(int a0, java.io.Reader a1, long a2) throws SQLException {
        delegate.updateNClob(a0, a1, a2);
    }

    @Override public void updateNClob(int a0, java.io.Reader a1) throws SQLException {
        delegate.updateNClob(a0, a1);
    }

    @Override public void updateNClob(int a0, java.sql.NClob a1) throws SQLException {
        delegate.updateNClob(a0, a1);
    }

    @Override public void updateNString(String a0, String a1) throws SQLException {
        delegate.updateNString(a0, a1);
    }

    @Override public void updateNString(int a0, String a1) throws SQLException {
        delegate.updateNString(a0, a1);
    }

    @Override public void updateNull(String a0) throws SQLException {
        delegate.updateNull(a0);
    }

    @Override public void updateNull(int a0) throws SQLException {
        delegate.updateNull(a0);
    }

    @Override public void updateObject(String a0, Object a1, int a2) throws SQLException {
        delegate.updateObject(a0, a1, a2);
    }

    @Override public void updateObject(String a0, Object a1, java.sql.SQLType a2, int a3) throws SQLException {
        delegate.updateObject(a0, a1, a2, a3);
    }

    @Override public void updateObject(String a0, Object a1, java.sql.SQLType a2) throws SQLException {
        delegate.updateObject(a0, a1, a2);
    }

    @Override public void updateObject(String a0, Object a1) throws SQLException {
        delegate.updateObject(a0, a1);
    }

    @Override public void updateObject(int a0, Object a1, int a2) throws SQLException {
        delegate.updateObject(a0, a1, a2);
    }

    @Override public void updateObject(int a0, Object a1, java.sql.SQLType a2, int a3) throws SQLException {
        delegate.updateObject(a0, a1, a2, a3);
    }

    @Override public void updateObject(int a0, Object a1, java.sql.SQLType a2) throws SQLException {
        delegate.updateObject(a0, a1, a2);
    }

    @Override public void updateObject(int a0, Object a1) throws SQLException {
        delegate.updateObject(a0, a1);
    }

    @Override public void updateRef(String a0, java.sql.Ref a1) throws SQLException {
        delegate.updateRef(a0, a1);
    }

    @Override public void updateRef(int a0, java.sql.Ref a1) throws SQLException {
        delegate.updateRef(a0, a1);
    }

    @Override public void updateRowId(String a0, java.sql.RowId a1) throws SQLException {
        delegate.updateRowId(a0, a1);
    }

    @Override public void updateRowId(int a0, java.sql.RowId a1) throws SQLException {
        delegate.updateRowId(a0, a1);
    }

    @Override public void updateSQLXML(String a0, java.sql.SQLXML a1) throws SQLException {
        delegate.updateSQLXML(a0, a1);
    }

    @Override public void updateSQLXML(int a0, java.sql.SQLXML a1) throws SQLException {
        delegate.updateSQLXML(a0, a1);
    }

    @Override public void updateShort(String a0, short a1) throws SQLException {
        delegate.updateShort(a0, a1);
    }

    @Override public void updateShort(int a0, short a1) throws SQLException {
        delegate.updateShort(a0, a1);
    }

    @Override public void updateString(String a0, String a1) throws SQLException {
        delegate.updateString(a0, a1);
    }

    @Override public void updateString(int a0, String a1) throws SQLException {
        delegate.updateString(a0, a1);
    }

    @Override public void updateTime(String a0, java.sql.Time a1) throws SQLException {
        delegate.updateTime(a0, a1);
    }

    @Override public void updateTime(int a0, java.sql.Time a1) throws SQLException {
        delegate.updateTime(a0, a1);
    }

    @Override public void updateTimestamp(String a0, java.sql.Timestamp a1) throws SQLException {
        delegate.updateTimestamp(a0, a1);
    }

    @Override public void updateTimestamp(int a0, java.sql.Timestamp a1) throws SQLException {
        delegate.updateTimestamp(a0, a1);
    }

    @Override public boolean wasNull() throws SQLException {
        return delegate.wasNull();
    }
}
