package io.macrodb.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A minimal raw protocol client for tests that must send what no real client sends. */
final class WireClient implements AutoCloseable {
    record Msg(char type, byte[] body) {
        /** The value of one field of an ErrorResponse/NoticeResponse, or null. */
        String field(char code) {
            int i = 0;
            while (i < body.length && body[i] != 0) {
                char c = (char) body[i];
                int end = i + 1;
                while (end < body.length && body[end] != 0) end++;
                if (c == code) return new String(body, i + 1, end - i - 1, StandardCharsets.UTF_8);
                i = end + 1;
            }
            return null;
        }
    }

    final Socket socket;
    final DataInputStream in;
    final OutputStream out;

    WireClient(int port, int timeoutMillis) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(timeoutMillis);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    static byte[] startupMessage(String user) {
        byte[] u = ("user\0" + user + "\0database\0shop\0\0").getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + u.length).putInt(8 + u.length).putInt(MessageDecoder.PROTOCOL_3).put(u).array();
    }

    static byte[] message(char type, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) type).putInt(4 + body.length).put(body).array();
    }

    static byte[] cstrings(String... s) {
        StringBuilder b = new StringBuilder();
        for (String x : s) b.append(x).append('\0');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next message, or null at end of stream. */
    Msg read() throws IOException {
        int type;
        try {
            type = in.read();
        } catch (java.net.SocketException e) {
            return null;
        }
        if (type < 0) return null;
        int len = in.readInt();
        if (len < 4 || len > (1 << 26)) throw new IOException("server sent a bad length " + len);
        byte[] body = new byte[len - 4];
        try {
            in.readFully(body);
        } catch (EOFException e) {
            throw new IOException("server message cut short", e);
        }
        return new Msg((char) type, body);
    }

    /** Messages until (and including) ReadyForQuery, or until the stream ends. */
    List<Msg> readUntilReady() throws IOException {
        List<Msg> l = new ArrayList<>();
        while (true) {
            Msg m = read();
            if (m == null) return l;
            l.add(m);
            if (m.type() == 'Z' || m.type() == 'E' && "FATAL".equals(m.field('S'))) return l;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
