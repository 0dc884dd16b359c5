package io.macrodb.replica;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Prepared statements kept by a session, so that capture does not parse the same SQL at every commit. */
public interface StatementCache {
    /** A prepared statement for {@code sql}, from the cache or newly prepared. */
    PreparedStatement prepare(String sql) throws SQLException;

    /** Gives a statement taken with {@link #prepare} back, its parameters cleared. */
    void release(String sql, PreparedStatement ps) throws SQLException;
}
