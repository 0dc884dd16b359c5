package io.macrodb.server;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes the body of one frontend message (the bytes after the type byte and length word, which
 * {@link PgFrameDecoder} has already cut off and checked) into a {@link FrontendMessage}. Pure: no I/O, no state
 * beyond the argument, so that it can be fuzzed on its own. Every malformed body, whatever its bytes, ends in a
 * {@link ProtocolException} (SQLSTATE 08P01); nothing else escapes.
 */
public final class MessageDecoder {
    /** Protocol 3.0 as a StartupMessage's version word. */
    public static final int PROTOCOL_3 = 196608;
    public static final int SSL_REQUEST = 80877103;
    public static final int GSSENC_REQUEST = 80877104;
    public static final int CANCEL_REQUEST = 80877102;
    /** Most parameters a Parse or Bind may carry (PostgreSQL's own limit: an Int16 count). */
    private static final int MAX_PARAMETERS = 65535;

    private MessageDecoder() { }

    /** Decodes an untyped startup-phase packet body (after its length word). */
    public static FrontendMessage decodeStartup(byte[] body) throws ProtocolException {
        try {
            ByteBuffer b = ByteBuffer.wrap(body);
            int code = b.getInt();
            switch (code) {
                case SSL_REQUEST: expectEnd(b); return new FrontendMessage.SslRequest();
                case GSSENC_REQUEST: expectEnd(b); return new FrontendMessage.GssEncRequest();
                case CANCEL_REQUEST: {
                    FrontendMessage m = new FrontendMessage.CancelRequest(b.getInt(), b.getInt());
                    expectEnd(b);
                    return m;
                }
                default:
            }
            int major = code >>> 16;
            int minor = code & 0xFFFF;
            Map<String, String> params = new LinkedHashMap<>();
            if (major == 3) {
                while (true) {
                    String name = cstring(b);
                    if (name.isEmpty()) break;
                    params.put(name, cstring(b));
                }
                expectEnd(b);
            }
            return new FrontendMessage.Startup(major, minor, params);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("08P01", "invalid startup packet layout: expected terminator as last byte");
        }
    }

    /**
     * Decodes a typed message body.
     *
     * @param type        the message type byte
     * @param body        the bytes after the length word
     * @param saslInitial whether a 'p' message is the SASLInitialResponse (the session knows; the byte does not say)
     */
    public static FrontendMessage decode(char type, byte[] body, boolean saslInitial) throws ProtocolException {
        try {
            ByteBuffer b = ByteBuffer.wrap(body);
            FrontendMessage m;
            switch (type) {
                case 'Q': m = new FrontendMessage.Query(cstring(b)); break;
                case 'P': {
                    String name = cstring(b);
                    String sql = cstring(b);
                    int n = count(b);
                    int[] types = new int[n];
                    for (int i = 0; i < n; i++) types[i] = b.getInt();
                    m = new FrontendMessage.Parse(name, sql, types);
                    break;
                }
                case 'B': {
                    String portal = cstring(b);
                    String stmt = cstring(b);
                    short[] pf = shorts(b);
                    int n = count(b);
                    List<byte[]> values = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        int len = b.getInt();
                        if (len == -1) { values.add(null); continue; }
                        if (len < 0 || len > b.remaining()) throw new ProtocolException("08P01", "insufficient data left in message");
                        byte[] v = new byte[len];
                        b.get(v);
                        values.add(v);
                    }
                    short[] rf = shorts(b);
                    for (short f : pf) formatCode(f);
                    for (short f : rf) formatCode(f);
                    if (pf.length > 1 && pf.length != n) {
                        throw new ProtocolException("08P01", "bind message has " + pf.length + " parameter formats but " + n + " parameters");
                    }
                    m = new FrontendMessage.Bind(portal, stmt, pf, values, rf);
                    break;
                }
                case 'D': m = new FrontendMessage.Describe(kind(b), cstring(b)); break;
                case 'C': m = new FrontendMessage.Close(kind(b), cstring(b)); break;
                case 'E': m = new FrontendMessage.Execute(cstring(b), b.getInt()); break;
                case 'S': m = new FrontendMessage.Sync(); break;
                case 'H': m = new FrontendMessage.Flush(); break;
                case 'X': m = new FrontendMessage.Terminate(); break;
                case 'p': {
                    if (saslInitial) {
                        String mech = cstring(b);
                        int len = b.getInt();
                        byte[] data = new byte[Math.max(0, len)];
                        if (len < -1 || len > b.remaining()) throw new ProtocolException("08P01", "insufficient data left in message");
                        b.get(data);
                        m = new FrontendMessage.SaslInitialResponse(mech, data);
                    } else {
                        byte[] data = new byte[b.remaining()];
                        b.get(data);
                        m = new FrontendMessage.SaslResponse(data);
                    }
                    break;
                }
                case 'd': case 'c': case 'f': {
                    byte[] data = new byte[b.remaining()];
                    b.get(data);
                    return new FrontendMessage.CopyMessage(type, data);
                }
                default:
                    throw new ProtocolException("08P01", "invalid frontend message type " + (int) type);
            }
            expectEnd(b);
            return m;
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("08P01", "insufficient data left in message");
        }
    }

    private static char kind(ByteBuffer b) throws ProtocolException {
        char k = (char) b.get();
        if (k != 'S' && k != 'P') throw new ProtocolException("08P01", "invalid DESCRIBE/CLOSE message subtype " + (int) k);
        return k;
    }

    private static void formatCode(short f) throws ProtocolException {
        if (f != 0 && f != 1) throw new ProtocolException("08P01", "unsupported format code: " + f);
    }

    private static int count(ByteBuffer b) throws ProtocolException {
        int n = b.getShort() & 0xFFFF;
        if (n > MAX_PARAMETERS) throw new ProtocolException("08P01", "too many parameters");
        return n;
    }

    private static short[] shorts(ByteBuffer b) throws ProtocolException {
        int n = count(b);
        if (n * 2L > b.remaining()) throw new ProtocolException("08P01", "insufficient data left in message");
        short[] s = new short[n];
        for (int i = 0; i < n; i++) s[i] = b.getShort();
        return s;
    }

    private static String cstring(ByteBuffer b) throws ProtocolException {
        int start = b.position();
        int end = start;
        while (end < b.limit() && b.get(end) != 0) end++;
        if (end == b.limit()) throw new ProtocolException("08P01", "invalid string in message");
        String s = new String(b.array(), b.arrayOffset() + start, end - start, StandardCharsets.UTF_8);
        b.position(end + 1);
        return s;
    }

    private static void expectEnd(ByteBuffer b) throws ProtocolException {
        if (b.hasRemaining()) throw new ProtocolException("08P01", "invalid message format");
    }
}
