package io.macrodb.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** An application's own H2 trigger: every change to its table writes a row to AUDIT. */
public final class AuditTrigger implements org.h2.api.Trigger {
    @Override public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO audit (item_id, what) VALUES (?, ?)")) {
            ps.setObject(1, (newRow != null ? newRow : oldRow)[0]);
            ps.setString(2, oldRow == null ? "insert" : newRow == null ? "delete" : "update");
            ps.executeUpdate();
        }
    }
}
