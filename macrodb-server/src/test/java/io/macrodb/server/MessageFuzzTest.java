package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the message parser: random bodies of every message type, and valid messages with bytes flipped, cut or
 * inserted, must decode or fail with a {@link ProtocolException}, never another exception. Then the same inputs
 * over a socket to a running server: every reply is a well-formed message, no error is an internal one (XX000),
 * the connection ends (or answers) within a time limit, and a fresh client is served afterwards. jqwik prints
 * the seed of a failing run; replay with {@code @Property(seed = "...")}.
 */
class MessageFuzzTest {
    static PgServer server;

    @BeforeContainer
    static void start() throws Exception {
        server = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(2)).withTrust(true).withMaxMessageSize(1 << 16));
    }

    @AfterContainer
    static void stop() {
        if (server != null) server.close();
    }

    static final char[] TYPES = "QPBDECSHXpdcf!\0Zq".toCharArray();

    static List<byte[]> validMessages() {
        List<byte[]> l = new ArrayList<>();
        l.add(WireClient.message('Q', WireClient.cstrings("SELECT 1; SELECT 'a;b'")));
        l.add(WireProtocolTest.parse("s", "SELECT $1::int + $2", 23, 0));
        l.add(WireProtocolTest.bind("p", "s", "1", null));
        l.add(WireProtocolTest.describe('P', "p"));
        l.add(WireProtocolTest.execute("p", 1));
        l.add(WireClient.message('C', new byte[] {'P', 'p', 0}));
        l.add(WireProtocolTest.SYNC);
        l.add(WireClient.message('H', new byte[0]));
        return l;
    }

    @Provide
    Arbitrary<byte[]> mutatedStream() {
        return Arbitraries.longs().map(seed -> {
            Random r = new Random(seed);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            List<byte[]> valid = validMessages();
            int n = 1 + r.nextInt(6);
            for (int i = 0; i < n; i++) {
                byte[] m = valid.get(r.nextInt(valid.size())).clone();
                switch (r.nextInt(4)) {
                    case 0: m[r.nextInt(m.length)] = (byte) r.nextInt(256); break;
                    case 1: m = java.util.Arrays.copyOf(m, Math.max(1, m.length - 1 - r.nextInt(m.length))); break;
                    case 2: {
                        byte[] junk = new byte[1 + r.nextInt(16)];
                        r.nextBytes(junk);
                        out.writeBytes(junk);
                        break;
                    }
                    default:
                }
                out.writeBytes(m);
            }
            return out.toByteArray();
        });
    }

    @Property(tries = 2000)
    void randomBodiesDecodeOrFailCleanly(@ForAll("types") char type, @ForAll byte[] body, @ForAll boolean saslInitial) {
        try {
            MessageDecoder.decode(type, body, saslInitial);
        } catch (ProtocolException e) {
            assertEquals("08P01", e.sqlState());
        }
    }

    @Provide
    Arbitrary<Character> types() {
        return Arbitraries.oneOf(Arbitraries.of(new String(TYPES).chars().mapToObj(c -> (char) c).toList()), Arbitraries.chars());
    }

    @Property(tries = 1000)
    void randomStartupPacketsDecodeOrFailCleanly(@ForAll byte[] body) {
        try {
            MessageDecoder.decodeStartup(body);
        } catch (ProtocolException e) {
            assertEquals("08P01", e.sqlState());
        }
    }

    @Property(tries = 1000)
    void mutatedValidMessagesDecodeOrFailCleanly(@ForAll("mutatedStream") byte[] stream) {
        int i = 0;
        while (i + 5 <= stream.length) {
            char type = (char) (stream[i] & 0xFF);
            int len = java.nio.ByteBuffer.wrap(stream, i + 1, 4).getInt();
            if (len < 4 || i + 1 + len > stream.length) return;
            byte[] body = java.util.Arrays.copyOfRange(stream, i + 5, i + 1 + len);
            try {
                MessageDecoder.decode(type, body, false);
            } catch (ProtocolException e) {
                assertEquals("08P01", e.sqlState());
            }
            i += 1 + len;
        }
    }

    @Property(tries = 60)
    void aServerFedMutatedMessagesAnswersCleanlyAndServesOthers(@ForAll("mutatedStream") byte[] stream) throws Exception {
        try (WireClient c = WireProtocolTest.ready(server)) {
            c.socket.setSoTimeout(5_000);
            c.send(stream);
            c.send(WireProtocolTest.SYNC);
            c.socket.shutdownOutput();
            long deadline = System.nanoTime() + 8_000_000_000L;
            while (true) {
                assertTrue(System.nanoTime() < deadline, "the server neither answered nor closed in time");
                WireClient.Msg m;
                try {
                    m = c.read();
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("no answer and no close within 5 s", e);
                } catch (IOException e) {
                    break; // reset by the server
                }
                if (m == null) break;
                if (m.type() == 'E' || m.type() == 'N') {
                    String code = m.field('C');
                    assertTrue(code != null && code.length() == 5, "SQLSTATE field: " + code);
                    assertFalse(code.equals("XX000"), "internal error: " + m.field('M'));
                }
            }
        }
        try (WireClient c = WireProtocolTest.ready(server)) {
            c.send(WireClient.message('Q', WireClient.cstrings("SELECT 1")));
            assertEquals('I', WireProtocolTest.status(c.readUntilReady()));
        }
    }
}
