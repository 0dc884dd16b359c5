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
 */
public record StatementChange(String sql, Object[] params, boolean ddl, String schema) implements Change {
    @Override public String toString() {
        return (ddl ? "DDL " : "SQL ") + sql + (params.length == 0 ? "" : " " + Arrays.toString(params));
    }
}
