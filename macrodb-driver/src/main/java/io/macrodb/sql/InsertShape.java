package io.macrodb.sql;

import java.util.List;

/**
 * Shape of an INSERT statement.
 *
 * @param table      target table as written; unquoted parts upper-cased, quoted parts verbatim
 * @param columns    explicit column list (empty if none given), normalised like {@code table}
 * @param valuesRows number of rows in VALUES (0 when fromQuery; 1 for DEFAULT VALUES)
 * @param fromQuery  true for INSERT ... SELECT (or WITH / TABLE / parenthesised query)
 */
public record InsertShape(String table, List<String> columns, int valuesRows, boolean fromQuery) {
    public InsertShape {
        columns = List.copyOf(columns);
    }
}
