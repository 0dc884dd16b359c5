package io.macrodb.server;

import java.util.List;
import java.util.Map;

/**
 * A message from a PostgreSQL client, decoded by {@link MessageDecoder}. One record per message type of
 * protocol 3.0 that this server handles; byte arrays are owned by the record (copied out of the network buffer).
 */
public sealed interface FrontendMessage {
    /** StartupMessage: protocol version and the name/value parameters (user, database, options ...). */
    record Startup(int major, int minor, Map<String, String> parameters) implements FrontendMessage { }
    /** CancelRequest, sent on a connection of its own. */
    record CancelRequest(int processId, int secretKey) implements FrontendMessage { }
    /** SSLRequest. */
    record SslRequest() implements FrontendMessage { }
    /** GSSENCRequest. */
    record GssEncRequest() implements FrontendMessage { }
    /** 'p' after AuthenticationSASL: the mechanism and the client-first-message. */
    record SaslInitialResponse(String mechanism, byte[] data) implements FrontendMessage { }
    /** 'p' after AuthenticationSASLContinue (or a cleartext/MD5 password: the raw bytes). */
    record SaslResponse(byte[] data) implements FrontendMessage { }
    /** 'Q'. */
    record Query(String sql) implements FrontendMessage { }
    /** 'P'. */
    record Parse(String name, String sql, int[] parameterTypes) implements FrontendMessage { }
    /** 'B': values are null for SQL NULL. */
    record Bind(String portal, String statement, short[] parameterFormats, List<byte[]> values, short[] resultFormats)
            implements FrontendMessage { }
    /** 'D': kind 'S' (statement) or 'P' (portal). */
    record Describe(char kind, String name) implements FrontendMessage { }
    /** 'E': maxRows 0 means no limit. */
    record Execute(String portal, int maxRows) implements FrontendMessage { }
    /** 'C': kind 'S' or 'P'. */
    record Close(char kind, String name) implements FrontendMessage { }
    /** 'S'. */
    record Sync() implements FrontendMessage { }
    /** 'H'. */
    record Flush() implements FrontendMessage { }
    /** 'X'. */
    record Terminate() implements FrontendMessage { }
    /** 'd', 'c', 'f': COPY data, done, fail (COPY itself is not served yet; these are decoded to be refused). */
    record CopyMessage(char type, byte[] data) implements FrontendMessage { }
}
