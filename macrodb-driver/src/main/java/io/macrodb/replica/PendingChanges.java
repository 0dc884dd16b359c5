package io.macrodb.replica;

import io.macrodb.log.Change;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * What an open update transaction changed, as the commit path needs it. Capture produces it
 * ({@code io.macrodb.capture.TransactionChanges}); the replica set turns it into a log record at
 * commit without knowing how the changes were captured.
 */
public interface PendingChanges {
    /** Whether the transaction changed nothing (its commit takes no version). */
    boolean isEmpty();

    /** Whether it drew from a sequence (the record then carries the sequences' positions). */
    boolean usesSequences();

    /** Whether it inserted into a table with an identity column (the record may carry its position). */
    default boolean insertsIdentities() { return false; }

    /**
     * The tables with an identity column it inserted into, whose identity positions its record carries (the other
     * tables' positions travelled with the commits that inserted into them).
     */
    default java.util.Collection<io.macrodb.log.TableShape> identityTables() { return java.util.List.of(); }

    /**
     * The schema changes that ran inside the transaction (an engine whose DDL is transactional), in order: its record
     * carries them among its rows, and the commit reads the tables' shapes afresh.
     */
    default List<io.macrodb.log.StatementChange> schemaChanges() { return List.of(); }

    /**
     * The changes to log, read inside the still-open transaction on {@code c} (row images) with
     * statements from {@code cache}.
     */
    List<Change> build(Connection c, StatementCache cache) throws SQLException;

    /**
     * The changes to log, from the rows the engine's log gave after its commit ({@link
     * io.macrodb.engine.CommitDecoding}): one list of rows before each schema change of the transaction and one after
     * the last. Nothing is read from the engine.
     */
    default List<Change> buildDecoded(List<List<io.macrodb.engine.CommitDecoding.Row>> segments) throws SQLException {
        throw new UnsupportedOperationException("capture from the engine's log");
    }
}
