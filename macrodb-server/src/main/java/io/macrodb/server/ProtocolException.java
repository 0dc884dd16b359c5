package io.macrodb.server;

/**
 * A client broke the protocol (malformed or oversize message, unknown message type): the connection is answered
 * with a FATAL ErrorResponse carrying {@link #sqlState()} and closed.
 */
public final class ProtocolException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String sqlState;

    public ProtocolException(String sqlState, String message) {
        super(message);
        this.sqlState = sqlState;
    }

    /** The SQLSTATE sent to the client: 08P01 (protocol violation) unless said otherwise. */
    public String sqlState() { return sqlState; }
}
