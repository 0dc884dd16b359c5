package io.macrodb.jdbc;

import io.macrodb.replica.ReplicaSet;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * For tests that must look inside a database (its replicas' sessions, gates, table shapes, the
 * database's options): the replica set behind a connection, which the public face
 * ({@link MacroAdmin}) deliberately does not hand out.
 */
public final class Internals {
    private Internals() {}

    public static ReplicaSet replicaSet(Connection c) throws SQLException {
        return c.unwrap(MacroConnection.class).replicaSet();
    }
}
