package io.macrodb.server;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Encodes backend messages of protocol 3.0 by appending them to a buffer. No I/O: the session collects a
 * response in one buffer and hands it to the channel at Sync, Flush or the end of a simple query.
 */
public final class BackendMessages {
    private BackendMessages() { }

    /** One column of a RowDescription. */
    public record Field(String name, int tableOid, int columnAttr, int typeOid, int typeSize, int typeModifier, int format) { }

    private static int begin(ByteBuf out, char type) {
        out.writeByte(type);
        int at = out.writerIndex();
        out.writeInt(0);
        return at;
    }

    private static void end(ByteBuf out, int at) {
        out.setInt(at, out.writerIndex() - at);
    }

    private static void cstring(ByteBuf out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
    }

    public static void authenticationOk(ByteBuf out) { authentication(out, 0, null); }

    public static void authenticationCleartext(ByteBuf out) { authentication(out, 3, null); }

    /** AuthenticationMD5Password with its 4-byte salt. */
    public static void authenticationMd5(ByteBuf out, byte[] salt) { authentication(out, 5, salt); }

    /** AuthenticationSASL listing the mechanisms offered. */
    public static void authenticationSasl(ByteBuf out, List<String> mechanisms) {
        int at = begin(out, 'R');
        out.writeInt(10);
        for (String m : mechanisms) cstring(out, m);
        out.writeByte(0);
        end(out, at);
    }

    public static void authenticationSaslContinue(ByteBuf out, byte[] data) { authentication(out, 11, data); }

    public static void authenticationSaslFinal(ByteBuf out, byte[] data) { authentication(out, 12, data); }

    private static void authentication(ByteBuf out, int code, byte[] data) {
        int at = begin(out, 'R');
        out.writeInt(code);
        if (data != null) out.writeBytes(data);
        end(out, at);
    }

    public static void parameterStatus(ByteBuf out, String name, String value) {
        int at = begin(out, 'S');
        cstring(out, name);
        cstring(out, value);
        end(out, at);
    }

    public static void backendKeyData(ByteBuf out, int pid, int secret) {
        int at = begin(out, 'K');
        out.writeInt(pid);
        out.writeInt(secret);
        end(out, at);
    }

    /** NegotiateProtocolVersion: the newest minor version supported and the protocol options not recognised. */
    public static void negotiateProtocolVersion(ByteBuf out, int newestMinor, List<String> unrecognised) {
        int at = begin(out, 'v');
        out.writeInt((3 << 16) | newestMinor);
        out.writeInt(unrecognised.size());
        for (String o : unrecognised) cstring(out, o);
        end(out, at);
    }

    /** ReadyForQuery with status 'I' (idle), 'T' (in a transaction block) or 'E' (in a failed one). */
    public static void readyForQuery(ByteBuf out, char status) {
        int at = begin(out, 'Z');
        out.writeByte(status);
        end(out, at);
    }

    /** ErrorResponse ('E') or NoticeResponse ('N') with severity, SQLSTATE, message and optional detail/hint. */
    public static void errorOrNotice(ByteBuf out, char type, String severity, String sqlState, String message,
                                     String detail, String hint) {
        int at = begin(out, type);
        out.writeByte('S'); cstring(out, severity);
        out.writeByte('V'); cstring(out, severity);
        out.writeByte('C'); cstring(out, sqlState);
        out.writeByte('M'); cstring(out, message == null ? "" : message);
        if (detail != null) { out.writeByte('D'); cstring(out, detail); }
        if (hint != null) { out.writeByte('H'); cstring(out, hint); }
        out.writeByte(0);
        end(out, at);
    }

    public static void error(ByteBuf out, String severity, String sqlState, String message) {
        errorOrNotice(out, 'E', severity, sqlState, message, null, null);
    }

    public static void notice(ByteBuf out, String severity, String sqlState, String message) {
        errorOrNotice(out, 'N', severity, sqlState, message, null, null);
    }

    public static void rowDescription(ByteBuf out, List<Field> fields) {
        int at = begin(out, 'T');
        out.writeShort(fields.size());
        for (Field f : fields) {
            cstring(out, f.name());
            out.writeInt(f.tableOid());
            out.writeShort(f.columnAttr());
            out.writeInt(f.typeOid());
            out.writeShort(f.typeSize());
            out.writeInt(f.typeModifier());
            out.writeShort(f.format());
        }
        end(out, at);
    }

    /** DataRow; a null value is SQL NULL. */
    public static void dataRow(ByteBuf out, byte[][] values) {
        int at = begin(out, 'D');
        out.writeShort(values.length);
        for (byte[] v : values) {
            if (v == null) { out.writeInt(-1); continue; }
            out.writeInt(v.length);
            out.writeBytes(v);
        }
        end(out, at);
    }

    public static void parameterDescription(ByteBuf out, int[] oids) {
        int at = begin(out, 't');
        out.writeShort(oids.length);
        for (int o : oids) out.writeInt(o);
        end(out, at);
    }

    public static void commandComplete(ByteBuf out, String tag) {
        int at = begin(out, 'C');
        cstring(out, tag);
        end(out, at);
    }

    public static void emptyQueryResponse(ByteBuf out) { end(out, begin(out, 'I')); }

    public static void parseComplete(ByteBuf out) { end(out, begin(out, '1')); }

    public static void bindComplete(ByteBuf out) { end(out, begin(out, '2')); }

    public static void closeComplete(ByteBuf out) { end(out, begin(out, '3')); }

    public static void noData(ByteBuf out) { end(out, begin(out, 'n')); }

    public static void portalSuspended(ByteBuf out) { end(out, begin(out, 's')); }

    /** CopyInResponse ('G') or CopyOutResponse ('H'): text format, {@code columns} text columns. */
    public static void copyResponse(ByteBuf out, char type, int columns) {
        int at = begin(out, type);
        out.writeByte(0);
        out.writeShort(columns);
        for (int i = 0; i < columns; i++) out.writeShort(0);
        end(out, at);
    }

    public static void copyData(ByteBuf out, byte[] data) {
        int at = begin(out, 'd');
        out.writeBytes(data);
        end(out, at);
    }

    public static void copyDone(ByteBuf out) { end(out, begin(out, 'c')); }
}
