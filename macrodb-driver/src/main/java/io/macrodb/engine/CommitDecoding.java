package io.macrodb.engine;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Capture from the engine's own log, after the engine's commit (PostgreSQL's {@code capture=decoding}): the primary's
 * update transactions commit with a mark of their version, and their rows come out of the engine's logical decoding
 * stream, as the engine logged them. One per primary: {@link Engine#startDecoding} opens it when a replica becomes
 * the primary, and the replica set closes it when the primary leaves service or the set closes.
 */
public interface CommitDecoding extends AutoCloseable {
    /**
     * A changed row: the table, its columns as the stream named them (its replicated columns, in the table's order), the
     * old row (null for an insert; for an update or a delete at least its key columns, every column where {@code
     * oldRowWhole}) and the new row (null for a delete), in the Java types a read of the engine gives ({@link Values#read}).
     */
    record Row(String schema, String table, String[] columns, Object[] oldValues, Object[] newValues, boolean oldRowWhole) {}

    /**
     * Commits the open transaction of primary session {@code c} with the mark of {@code version}.
     *
     * @return false if the transaction wrote nothing in the engine (no mark was made: there is nothing to wait for)
     * @throws SQLException the engine's commit failed (as {@link Connection#commit} would)
     */
    boolean commit(Connection c, long version) throws SQLException;

    /**
     * Whether the open transaction of primary session {@code c} has written anything in the engine (one round trip):
     * asked where the application may have written around MacroDB's statements (an engine connection it unwrapped).
     */
    boolean wrote(Connection c) throws SQLException;

    /**
     * The rows of the transaction committed with the mark of {@code version}, split at the schema changes it ran (one
     * list more than those), in the order the engine logged them. Waits while {@code keepWaiting} holds and the log
     * moves: gives up once it has given nothing for {@code timeoutMillis}.
     *
     * @throws SQLException the stream failed, or the transaction cannot be read from it: it is committed in the engine,
     *                      and no record can carry it
     */
    List<List<Row>> await(long version, long timeoutMillis, BooleanSupplier keepWaiting) throws SQLException;

    /**
     * One line for an operator: what is read, whether the stream runs (or why it stopped), how many of MacroDB's
     * transactions came out of it, and when the last one committed.
     */
    String status();

    /**
     * {@code listener} is told, once and from the stream's own thread, if the stream fails while it is open (not when it
     * is closed): every commit on the primary from then on is in no record, so the primary must leave service. Told at
     * once if the stream has failed already.
     */
    void onStreamFailure(java.util.function.Consumer<String> listener);

    /** Stops reading the stream; a commit waiting for it fails. */
    @Override void close();
}
