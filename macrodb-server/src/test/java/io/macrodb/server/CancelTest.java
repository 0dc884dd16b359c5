package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CancelRequest on the wire, over H2 and HSQLDB: answered as PostgreSQL answers it (the cancel connection is closed
 * without a reply, whether the key is right or not), the running statement fails with 57014 within a few seconds,
 * a wrong key or an idle session cancels nothing, the session serves on, and inside a block the cancel fails the
 * block (25P02) until ROLLBACK. HSQLDB reports a cancelled statement as an aborted transaction (40001 through
 * MacroDB); the client still sees PostgreSQL's 57014.
 */
@Timeout(120)
class CancelTest {
    /**
     * A query that runs for long on both engines: a 12-way cross join of a five-row table with a condition no row
     * meets (5^12 rows joined: over 30 s on H2, over a minute on HSQLDB, on the 2-core VM).
     */
    static String longQuery(String table) {
        return crossJoin(table, 12);
    }

    static String crossJoin(String table, int n) {
        List<String> from = new ArrayList<>();
        List<String> sum = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            from.add(table + " t" + i);
            sum.add("t" + i + ".id");
        }
        return "SELECT count(*) AS n FROM " + String.join(", ", from) + " WHERE " + String.join(" + ", sum) + " = -1";
    }

    private static PgServer start(String engine) throws Exception {
        String url = engine.equals("h2") ? ServerFixture.h2Url(2)
                : "jdbc:macrodb:hsqldb:mem:cancel" + System.nanoTime() + ";sql.syntax_pgs=true?replicas=2";
        return PgServer.start(PgServer.Config.of(url).withTrust(true));
    }

    /** A session past startup, with its BackendKeyData. */
    private record Session(WireClient client, int pid, int secret) implements AutoCloseable {
        @Override
        public void close() throws IOException { client.close(); }
    }

    private static Session connect(PgServer s) throws Exception {
        WireClient c = new WireClient(s.port(), 60_000);
        c.send(WireClient.startupMessage("bob"));
        List<WireClient.Msg> l = c.readUntilReady();
        WireClient.Msg k = l.stream().filter(m -> m.type() == 'K').findFirst().orElseThrow();
        ByteBuffer b = ByteBuffer.wrap(k.body());
        return new Session(c, b.getInt(), b.getInt());
    }

    private static List<WireClient.Msg> query(WireClient c, String sql) throws IOException {
        c.send(WireClient.message('Q', WireClient.cstrings(sql)));
        return c.readUntilReady();
    }

    /** The messages' types, without ParameterStatus (macrodb.last_commit after each commit). */
    private static String types(List<WireClient.Msg> l) {
        return l.stream().filter(m -> m.type() != 'S').map(m -> String.valueOf(m.type())).collect(Collectors.joining());
    }

    /** Sends a CancelRequest on a connection of its own; what the server sent back before closing it (-1: nothing). */
    private static int sendCancel(PgServer s, int pid, int secret) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", s.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(ByteBuffer.allocate(16).putInt(16).putInt(MessageDecoder.CANCEL_REQUEST).putInt(pid).putInt(secret).array());
            socket.getOutputStream().flush();
            return socket.getInputStream().read();
        }
    }

    /** Runs {@code sql} and sends a CancelRequest with {@code secret} after {@code delayMillis}; the answers and the time taken. */
    private static List<WireClient.Msg> runAndCancel(PgServer s, Session session, String sql, int secret, long delayMillis, long[] elapsed)
            throws Exception {
        int[] reply = {0};
        Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(delayMillis);
                reply[0] = sendCancel(s, session.pid(), secret);
            } catch (Exception e) {
                reply[0] = -2;
            }
        });
        long t0 = System.nanoTime();
        canceller.start();
        List<WireClient.Msg> l = query(session.client(), sql);
        elapsed[0] = (System.nanoTime() - t0) / 1_000_000;
        canceller.join();
        assertEquals(-1, reply[0], "the CancelRequest's connection is closed without a reply");
        return l;
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aCancelRequestStopsTheRunningStatementWith57014(String engine) throws Exception {
        try (PgServer s = start(engine); Session session = connect(s)) {
            WireClient c = session.client();
            assertEquals("CCZ", types(query(c, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (20), (21)")));
            long[] ms = {0};
            List<WireClient.Msg> l = runAndCancel(s, session, longQuery("t"), session.secret(), 1000, ms);
            assertEquals("EZ", types(l));
            WireClient.Msg e = l.stream().filter(m -> m.type() == 'E').findFirst().orElseThrow();
            assertEquals("57014", e.field('C'), e.field('M'));
            assertEquals("canceling statement due to user request", e.field('M'));
            assertEquals('I', (char) l.get(l.size() - 1).body()[0]);
            assertTrue(ms[0] < 10_000, "cancelled after 1 s, answered after " + ms[0] + " ms");
            l = query(c, "SELECT count(*) AS n FROM t");
            assertEquals("TDCZ", types(l), "the session serves on");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aWrongKeyOrAnIdleSessionCancelsNothing(String engine) throws Exception {
        try (PgServer s = start(engine); Session session = connect(s)) {
            WireClient c = session.client();
            query(c, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (20), (21)");
            assertEquals(-1, sendCancel(s, session.pid(), session.secret()), "closed without a reply");
            assertEquals(-1, sendCancel(s, session.pid() + 1_000_000, 1), "an unknown process: closed without a reply");
            // a cancel while the session was idle is not kept for its next statement
            assertEquals("TDCZ", types(query(c, crossJoin("t", 8))));
            long[] ms = {0};
            List<WireClient.Msg> l = runAndCancel(s, session, crossJoin("t", 9), session.secret() + 1, 50, ms);
            assertEquals("TDCZ", types(l), "a wrong secret key cancels nothing");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aCancelInsideABlockFailsItUntilRollback(String engine) throws Exception {
        try (PgServer s = start(engine); Session session = connect(s)) {
            WireClient c = session.client();
            query(c, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (20), (21)");
            assertEquals("CCZ", types(query(c, "BEGIN; INSERT INTO t VALUES (30)")));
            long[] ms = {0};
            List<WireClient.Msg> l = runAndCancel(s, session, longQuery("t"), session.secret(), 1000, ms);
            WireClient.Msg e = l.stream().filter(m -> m.type() == 'E').findFirst().orElseThrow();
            assertEquals("57014", e.field('C'), e.field('M'));
            assertEquals('E', (char) l.get(l.size() - 1).body()[0], "the block has failed");
            assertTrue(ms[0] < 10_000, "answered after " + ms[0] + " ms");
            l = query(c, "SELECT 1");
            assertEquals("25P02", l.get(0).field('C'));
            assertEquals("CZ", types(query(c, "ROLLBACK")));
            l = query(c, "SELECT count(*) AS n FROM t WHERE id = 30");
            assertEquals("0", new String(l.get(1).body(), 6, l.get(1).body().length - 6, java.nio.charset.StandardCharsets.UTF_8),
                    "the block's insert was rolled back");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aCancelledQueryDoesNotCancelTheNextOnePipelinedBehindIt(String engine) throws Exception {
        try (PgServer s = start(engine); Session session = connect(s)) {
            WireClient c = session.client();
            query(c, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3), (20), (21)");
            c.send(WireClient.message('Q', WireClient.cstrings(longQuery("t"))));
            c.send(WireClient.message('Q', WireClient.cstrings("SELECT 2")));
            Thread.sleep(1000);
            assertEquals(-1, sendCancel(s, session.pid(), session.secret()));
            List<WireClient.Msg> first = c.readUntilReady();
            assertEquals("57014", first.stream().filter(m -> m.type() == 'E').findFirst().orElseThrow().field('C'));
            assertEquals("TDCZ", types(c.readUntilReady()), "the query queued behind the cancelled one runs");
        }
    }
}
