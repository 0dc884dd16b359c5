package io.macrodb.jdbc;

import io.macrodb.sql.SqlState;

import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * A savepoint of an update transaction: the engine's savepoint on the primary plus the position in
 * the captured changes, so that rolling back to it drops exactly the later changes from what is
 * propagated.
 */
final class MacroSavepoint implements Savepoint {
    private final Transaction owner;
    private final Savepoint physical;
    private final int mark;
    private final int generation;
    private final String name;

    MacroSavepoint(Transaction owner, Savepoint physical, int mark, int generation, String name) {
        this.owner = owner;
        this.physical = physical;
        this.mark = mark;
        this.generation = generation;
        this.name = name;
    }

    Transaction owner() { return owner; }
    Savepoint physical() { return physical; }
    int mark() { return mark; }
    int generation() { return generation; }

    @Override public int getSavepointId() throws SQLException {
        if (name != null) throw new SQLException("MacroDB: a named savepoint has no id; use getSavepointName()", SqlState.INVALID_ARGUMENT.getState());
        return physical.getSavepointId();
    }

    @Override public String getSavepointName() throws SQLException {
        if (name == null) throw new SQLException("MacroDB: an unnamed savepoint has no name; use getSavepointId()", SqlState.INVALID_ARGUMENT.getState());
        return name;
    }

    @Override public String toString() { return "MacroSavepoint[" + (name != null ? name : "#" + mark) + "]"; }
}
