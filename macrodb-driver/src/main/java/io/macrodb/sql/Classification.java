package io.macrodb.sql;

import java.util.Objects;
import java.util.Set;

/**
 * Routing-relevant facts about one SQL string.
 *
 * @param kind     what the statement does
 * @param pureRead true only if the statement may run on any replica with the same committed data and give
 *                 the same result without changing anything
 * @param tables   upper-cased (quoted parts keep their case) table names referenced, best effort; empty when unknown
 * @param reason   short human text why it is not a pure read; null if it is one
 * @param runsAsSchemaChange a statement that is not DDL but must run as one: TRUNCATE (engines do not
 *                 roll it back like a row change) and EXECUTE IMMEDIATE (dynamic SQL may be DDL)
 */
public record Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason, boolean runsAsSchemaChange) {
    public Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason) {
        this(kind, pureRead, tables, reason, false);
    }

    public Classification {
        Objects.requireNonNull(kind, "kind");
        tables = tables == null ? Set.of() : Set.copyOf(tables);
        if (pureRead && kind != StatementKind.READ) {
            throw new IllegalArgumentException("pureRead requires kind READ");
        }
    }

    static Classification pure(Set<String> tables) {
        return new Classification(StatementKind.READ, true, tables, null);
    }

    Classification runningAsSchemaChange() {
        return new Classification(kind, pureRead, tables, reason, true);
    }

    static Classification notPure(StatementKind kind, Set<String> tables, String reason) {
        return new Classification(kind, false, tables, reason == null ? "not a pure read" : reason);
    }
}
