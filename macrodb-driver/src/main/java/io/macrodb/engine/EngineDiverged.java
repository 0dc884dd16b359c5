package io.macrodb.engine;

import io.macrodb.sql.SqlState;

import java.sql.SQLTransactionRollbackException;

/**
 * The engine changed rows behind the capture triggers of the committing transaction: the images its
 * triggers reported are not the rows it reads back, though none of its statements failed
 * ({@link Engine#checksCaptureImages()}). Nothing was shipped or committed; the primary's engine has
 * broken its own isolation and is replaced (SQLState 40001: retry).
 */
public final class EngineDiverged extends SQLTransactionRollbackException {
    public EngineDiverged(String message) {
        super(message, SqlState.SERIALIZATION_FAILURE.getState());
    }
}
