package io.macrodb.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/** A client's prepared statements, prepared once per connection, as a real application's pool would cache them. */
public final class Statements {
    private Connection owner;
    private final Map<String, PreparedStatement> cache = new HashMap<>();

    public PreparedStatement get(Connection c, String sql) throws SQLException {
        if (c != owner) {
            cache.clear();
            owner = c;
        }
        PreparedStatement ps = cache.get(sql);
        if (ps == null) {
            ps = c.prepareStatement(sql);
            cache.put(sql, ps);
        }
        return ps;
    }
}
