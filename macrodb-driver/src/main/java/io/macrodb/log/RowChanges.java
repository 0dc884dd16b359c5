package io.macrodb.log;

import java.util.List;

/**
 * The net effect of one transaction on one table, in row form: every key the transaction touched is
 * first removed, then the final image of every row that exists after the transaction is inserted.
 * Deleting before inserting makes the result independent of the order the primary changed the rows
 * in (a swap of unique values cannot collide), and final images make a row updated many times cost
 * one write on each secondary.
 *
 * @param deleteKeys keys (values of {@link TableShape#keyIndexes()} columns, in key order) that may
 *                   exist on a secondary and must be removed first
 * @param rows       final images, one value per {@link TableShape#columns()} entry
 */
public record RowChanges(TableShape shape, List<Object[]> deleteKeys, List<Object[]> rows) implements Change {
    public int size() { return deleteKeys.size() + rows.size(); }
}
