package io.macrodb.log;

/**
 * One unit of what an update transaction did, as shipped to the secondaries. A {@link ChangeRecord}
 * holds the changes of one committed transaction in the order they must be applied.
 */
public sealed interface Change permits RowChanges, StatementChange, SequencePositions {
}
