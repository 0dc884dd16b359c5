package io.macrodb.jdbc;

import io.macrodb.engine.Catalog;
import io.macrodb.engine.TableContents;
import io.macrodb.log.Change;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;
import io.macrodb.sql.Classification;
import io.macrodb.sql.Classification.Verb;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The rows a schema change computed on the primary with a random, time or sequence function, shipped
 * with it so that every replica holds the primary's values instead of its own (issue 12, items 1
 * and 2: Flyway creates its history table with {@code CREATE TABLE ... AS SELECT ..., CURRENT_TIMESTAMP},
 * Liquibase adds audit columns with {@code defaultValueComputed}).
 *
 * <ul>
 *   <li>{@link Verb#FILLS_EXISTING_ROWS} ({@code ALTER TABLE t ADD c ... DEFAULT CURRENT_TIMESTAMP}):
 *   on an empty table nothing is computed and nothing is shipped. With rows, every row's final image
 *   follows the statement as an update by primary key, so each secondary overwrites what it filled
 *   in itself. A table without a primary key is refused: its rows could not be matched.</li>
 *   <li>{@link Verb#CREATES_FROM_QUERY} ({@code CREATE TABLE t AS SELECT ..., CURRENT_TIMESTAMP}): the
 *   statement is followed by {@code DELETE FROM t} and an insert of every row the primary's query
 *   produced. The table is new, so nothing refers to it and nothing fires on it. If it existed
 *   before ({@code IF NOT EXISTS}), the statement changes nothing and nothing is shipped.</li>
 * </ul>
 *
 * {@link #decide} runs on the primary inside the schema change, before the statement, while no
 * other update transaction writes (the update gate): no row can arrive between the look and the
 * statement, and a refusal comes before anything changed. {@link #changes} runs right after the statement on the same session.
 */
final class ComputedRows {
    private enum Plan { NONE, UPDATE_EVERY_ROW, REPLACE_NEW_TABLE }

    private final Classification c;
    private final String sql;
    private final boolean statementMode;
    private Plan plan = Plan.NONE;

    private ComputedRows(Classification c, String sql, boolean statementMode) {
        this.c = c;
        this.sql = sql;
        this.statementMode = statementMode;
    }

    /** For a statement whose values may be shipped; null for every other one. */
    static ComputedRows of(Classification c, String sql, boolean statementMode) {
        return c.verb() == Verb.FILLS_EXISTING_ROWS || c.verb() == Verb.CREATES_FROM_QUERY ? new ComputedRows(c, sql, statementMode) : null;
    }

    /** Whether {@code c}'s hazard is one that shipping the computed rows removes. */
    static boolean handles(Classification c) {
        return c.verb() == Verb.FILLS_EXISTING_ROWS || c.verb() == Verb.CREATES_FROM_QUERY;
    }

    /** Looks at the table on the primary and decides what to ship; refuses when the rows cannot be shipped. */
    void decide(Connection primary) throws SQLException {
        String table = c.argument();
        if (c.verb() == Verb.CREATES_FROM_QUERY) {
            plan = TableContents.exists(primary, table) ? Plan.NONE : Plan.REPLACE_NEW_TABLE;
            return;
        }
        if (!TableContents.exists(primary, table)) return; // ALTER TABLE IF EXISTS of a missing table does nothing
        boolean rows;
        TableShape shape;
        try {
            rows = hasRows(primary, table);
            shape = rows ? TableContents.shapeOf(primary, table) : null;
        } catch (SQLException e) {
            throw refusal("whether " + table + " has rows could not be checked (" + e.getMessage() + ")");
        }
        if (!rows) return;
        if (shape == null || !shape.hasKey()) {
            throw refusal(table + " has rows and no primary key, so the values the primary computes for them could not be"
                    + " matched to the secondaries' rows; give the table a primary key first");
        }
        if (statementMode && Catalog.hasApplicationTriggers(primary)) {
            throw refusal(table + " has rows, and with propagation=statement the secondaries would fire the application's"
                    + " triggers on the rows shipped to them");
        }
        plan = Plan.UPDATE_EVERY_ROW;
    }

    /** What the secondaries apply after the statement itself, read on the primary right after it ran. */
    List<Change> changes(Connection primary) throws SQLException {
        switch (plan) {
            case UPDATE_EVERY_ROW: {
                TableContents.Rows r = TableContents.read(primary, c.argument());
                return List.of(new RowChanges(r.shape(), List.of(), r.rows(), List.of()));
            }
            case REPLACE_NEW_TABLE: {
                TableContents.Rows r = TableContents.read(primary, c.argument());
                return List.of(new StatementChange("DELETE FROM " + r.shape().qualifiedName(), new Object[0], false, null),
                        new RowChanges(r.shape(), List.of(), List.of(), r.rows()));
            }
            default:
                return List.of();
        }
    }

    private static boolean hasRows(Connection primary, String table) throws SQLException {
        try (Statement probe = primary.createStatement()) {
            probe.setMaxRows(1);
            try (ResultSet rs = probe.executeQuery("SELECT 1 FROM " + table)) {
                return rs.next();
            }
        }
    }

    private SQLException refusal(String why) {
        return SqlStates.unreplicable("this schema change cannot be replicated as it is, because " + c.unsafeSchemaChange()
                + " (" + why + "): " + SqlStates.abbreviate(sql));
    }
}
