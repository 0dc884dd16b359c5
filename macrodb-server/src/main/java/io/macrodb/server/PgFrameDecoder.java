package io.macrodb.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import java.util.List;

/**
 * Cuts a client's byte stream into frames, on the event loop. Before the startup packet: untyped packets (length
 * word first), of which SSLRequest and GSSENCRequest are answered here at once ('S' then TLS, or 'N'), a
 * CancelRequest is handed to the server and the connection closed, and the StartupMessage is passed on. After it:
 * typed messages ({@link Frame}). A length word below 4 or above the limit is answered with a FATAL 08P01
 * ErrorResponse and the connection is closed; nothing of such a message is buffered beyond its length word.
 */
public final class PgFrameDecoder extends ByteToMessageDecoder {
    /** PostgreSQL's own limit on a startup packet. */
    static final int MAX_STARTUP_PACKET = 10_000;

    /** One typed frontend message, not yet decoded (the session decodes it: 'p' depends on its state). */
    public record Frame(char type, byte[] body) { }

    private final int maxMessageSize;
    private final SslContext ssl;
    private final PgServer server;
    private boolean startup = true;
    private boolean sslDone;
    private boolean failed;

    PgFrameDecoder(int maxMessageSize, SslContext ssl, PgServer server) {
        this.maxMessageSize = maxMessageSize;
        this.ssl = ssl;
        this.server = server;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!failed) {
            if (startup) {
                if (in.readableBytes() < 4) return;
                int len = in.getInt(in.readerIndex());
                if (len < 8 || len > MAX_STARTUP_PACKET) { fail(ctx, in, "invalid length of startup packet"); return; }
                if (in.readableBytes() < len) return;
                in.skipBytes(4);
                byte[] body = new byte[len - 4];
                in.readBytes(body);
                FrontendMessage m;
                try {
                    m = MessageDecoder.decodeStartup(body);
                } catch (ProtocolException e) {
                    fail(ctx, in, e.getMessage());
                    return;
                }
                if (m instanceof FrontendMessage.SslRequest) {
                    if (ssl != null && !sslDone) {
                        sslDone = true;
                        ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'S'}));
                        ctx.pipeline().addFirst("tls", ssl.newHandler(ctx.alloc()));
                    } else {
                        ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'N'}));
                    }
                } else if (m instanceof FrontendMessage.GssEncRequest) {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'N'}));
                } else if (m instanceof FrontendMessage.CancelRequest c) {
                    server.cancel(c.processId(), c.secretKey());
                    failed = true;
                    in.skipBytes(in.readableBytes());
                    ctx.close();
                    return;
                } else {
                    startup = false;
                    out.add(m);
                }
            } else {
                if (in.readableBytes() < 5) return;
                char type = (char) in.getUnsignedByte(in.readerIndex());
                int len = in.getInt(in.readerIndex() + 1);
                if (len < 4) { fail(ctx, in, "invalid message length"); return; }
                if (len > maxMessageSize) { fail(ctx, in, "message of " + len + " bytes exceeds the limit of " + maxMessageSize); return; }
                if (in.readableBytes() < len + 1) return;
                in.skipBytes(5);
                byte[] body = new byte[len - 4];
                in.readBytes(body);
                out.add(new Frame(type, body));
            }
        }
        in.skipBytes(in.readableBytes());
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, String message) {
        failed = true;
        in.skipBytes(in.readableBytes());
        ByteBuf b = ctx.alloc().buffer();
        BackendMessages.error(b, "FATAL", "08P01", message);
        ctx.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
    }
}
