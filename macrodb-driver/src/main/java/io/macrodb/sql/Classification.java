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
 * @param oneStatement whether the text is known to be exactly one statement: false for several
 *                 statements separated by {@code ;} and for text that could not be analysed (an engine
 *                 undoes a failed statement, not the statements before it in the same text)
 */
public record Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason, boolean runsAsSchemaChange,
                             boolean oneStatement) {
    public Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason) {
        this(kind, pureRead, tables, reason, false, true);
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
        return new Classification(kind, pureRead, tables, reason, true, oneStatement);
    }

    /** Text that is several statements, or that could not be analysed: not known to be one statement. */
    static Classification compound(StatementKind kind, Set<String> tables, String reason) {
        return new Classification(kind, false, tables, reason, false, false);
    }

    static Classification notPure(StatementKind kind, Set<String> tables, String reason) {
        return new Classification(kind, false, tables, reason == null ? "not a pure read" : reason);
    }
}
