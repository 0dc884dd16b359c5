package io.macrodb.capture;

import io.macrodb.log.TableShape;

import java.sql.SQLException;

/** Finds the replicated shape of a table by name (cached by the replica set, refreshed after DDL). */
@FunctionalInterface
public interface ShapeResolver {
    TableShape shape(String schema, String table) throws SQLException;
}
