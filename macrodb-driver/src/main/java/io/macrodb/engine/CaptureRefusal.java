package io.macrodb.engine;

import java.sql.SQLException;

/**
 * Carries a capture trigger's refusal (a write MacroDB cannot replicate or must not allow) through
 * an engine whose trigger interface has no checked exceptions. The engine may replace it with a
 * general error on the way out; {@link CaptureContext#takeRefusal()} still has the original.
 */
public final class CaptureRefusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CaptureRefusal(SQLException cause) {
        super(cause.getMessage(), cause);
    }

    public SQLException sqlException() {
        return (SQLException) getCause();
    }
}
