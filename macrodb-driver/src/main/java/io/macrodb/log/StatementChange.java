package io.macrodb.log;

import java.util.Arrays;

/**
 * A statement replayed verbatim on each secondary: DDL in every propagation mode, and every write
 * in statement mode (after the primary made it deterministic).
 *
 * @param sql    the text to run; '?' placeholders bound from {@code params} in order
 * @param params parameter values, already evaluated on the primary
 * @param ddl    whether the statement changes the schema (which commits implicitly on the engines)
 * @param schema the current schema of the primary session that ran it: unqualified names resolve there
 * @param zone   the {@code SET TIME ZONE} statement in force in that session, or null for the
 *               engine's default: a local timestamp stored into a WITH TIME ZONE column, and
 *               conversions between the two, depend on it
 */
public record StatementChange(String sql, Object[] params, boolean ddl, String schema, String zone) implements Change {
    public StatementChange(String sql, Object[] params, boolean ddl, String schema) {
        this(sql, params, ddl, schema, null);
    }

    @Override public String toString() {
        return (ddl ? "DDL " : "SQL ") + sql + (params.length == 0 ? "" : " " + Arrays.toString(params));
    }
}
