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
 * @param names  for a schema change, the constraint names the primary's engine generated, as they stood right
 *               after it ({@code Engine.generatedNames}): a replica that runs it renames its own to match; null
 *               where the engine has none
 */
public record StatementChange(String sql, Object[] params, boolean ddl, String schema, String zone,
                              java.util.Map<String, String> names) implements Change {
    public StatementChange {
        names = names == null ? null : java.util.Map.copyOf(names);
    }

    public StatementChange(String sql, Object[] params, boolean ddl, String schema, String zone) {
        this(sql, params, ddl, schema, zone, null);
    }

    public StatementChange(String sql, Object[] params, boolean ddl, String schema) {
        this(sql, params, ddl, schema, null, null);
    }

    @Override public String toString() {
        return (ddl ? "DDL " : "SQL ") + sql + (params.length == 0 ? "" : " " + Arrays.toString(params));
    }
}
