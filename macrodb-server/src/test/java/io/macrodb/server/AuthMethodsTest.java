package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * MD5 and clear-text passwords, only for the users whose line in the users file asks for them; everyone else gets
 * SCRAM-SHA-256 and a client cannot ask for less. Through pgjdbc, psql and a raw client.
 */
@Timeout(60)
class AuthMethodsTest {
    @TempDir
    Path dir;

    private PgServer start() throws Exception {
        Path users = dir.resolve("users.conf");
        UserStore.addUser(users, "scram", "pw-scram");
        UserStore.addUser(users, "md5user", "pw-md5", UserStore.Method.MD5);
        UserStore.addUser(users, "clear", "pw-clear", UserStore.Method.PASSWORD);
        // a clear-text line over an MD5 verifier, as copied from an old pg_authid
        Files.writeString(users, "clearmd5:password:" + UserStore.md5Verifier("clearmd5", "pw-cm") + "\n", java.nio.file.StandardOpenOption.APPEND);
        return PgServer.start(PgServer.Config.of(ServerFixture.h2Url(1)).withUsers(UserStore.load(users)));
    }

    private static String selectOne(PgServer s, String user, String password) throws Exception {
        try (Connection c = DriverManager.getConnection(ServerFixture.pgUrl(s, ""), user, password);
             Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 'in as ' || CURRENT_USER")) {
            rs.next();
            return user;
        }
    }

    @Test
    void eachUserAuthenticatesWithTheMethodOfItsLine() throws Exception {
        try (PgServer s = start()) {
            for (String[] u : List.of(new String[] {"scram", "pw-scram"}, new String[] {"md5user", "pw-md5"},
                    new String[] {"clear", "pw-clear"}, new String[] {"clearmd5", "pw-cm"})) {
                assertEquals(u[0], selectOne(s, u[0], u[1]));
                PSQLException e = assertThrows(PSQLException.class, () -> selectOne(s, u[0], u[1] + "x"));
                assertEquals("28P01", e.getSQLState(), u[0]);
                assertTrue(e.getMessage().contains("password authentication failed for user \"" + u[0] + "\""), e.getMessage());
            }
        }
    }

    /** The first authentication request the server sends for a user (its code: 10 SASL, 5 MD5, 3 clear text). */
    private static int firstRequest(WireClient c, String user) throws IOException {
        c.send(WireClient.startupMessage(user));
        WireClient.Msg m = c.read();
        assertEquals('R', m.type());
        return ByteBuffer.wrap(m.body()).getInt();
    }

    @Test
    void theServerChoosesTheMethodAndRefusesAnythingElse() throws Exception {
        try (PgServer s = start()) {
            try (WireClient c = new WireClient(s.port(), 10_000)) {
                assertEquals(10, firstRequest(c, "scram"), "SCRAM-SHA-256 for a SCRAM line");
                // a client answering with a password instead of a SASL exchange is refused
                c.send(WireClient.message('p', WireClient.cstrings("pw-scram")));
                List<WireClient.Msg> l = c.readUntilReady();
                assertEquals("FATAL", l.get(l.size() - 1).field('S'));
                assertEquals("08P01", l.get(l.size() - 1).field('C'));
            }
            try (WireClient c = new WireClient(s.port(), 10_000)) {
                assertEquals(10, firstRequest(c, "nobody"), "an unknown user gets SCRAM too, and fails it");
            }
            try (WireClient c = new WireClient(s.port(), 10_000)) {
                assertEquals(3, firstRequest(c, "clear"));
                c.send(WireClient.message('p', "pw-clear".getBytes(StandardCharsets.UTF_8))); // no terminating NUL
                List<WireClient.Msg> l = c.readUntilReady();
                assertEquals("08P01", l.get(l.size() - 1).field('C'));
            }
            try (WireClient c = new WireClient(s.port(), 10_000)) {
                c.send(WireClient.startupMessage("md5user"));
                WireClient.Msg m = c.read();
                assertEquals(5, ByteBuffer.wrap(m.body()).getInt());
                byte[] salt = java.util.Arrays.copyOfRange(m.body(), 4, 8);
                String inner = UserStore.md5Verifier("md5user", "pw-md5").substring(3);
                byte[] buf = new byte[inner.length() + 4];
                System.arraycopy(inner.getBytes(StandardCharsets.US_ASCII), 0, buf, 0, inner.length());
                System.arraycopy(salt, 0, buf, inner.length(), 4);
                c.send(WireClient.message('p', WireClient.cstrings("md5" + UserStore.md5Hex(buf))));
                List<WireClient.Msg> l = c.readUntilReady();
                assertEquals('Z', l.get(l.size() - 1).type(), "the MD5 answer computed as libpq does is accepted");
            }
        }
    }

    @Test
    void psqlAuthenticatesWithMd5AndClearText() throws Exception {
        String psql = PsqlTest.psql();
        assumeTrue(psql != null, "psql is not installed");
        try (PgServer s = start()) {
            for (String[] u : List.of(new String[] {"md5user", "pw-md5"}, new String[] {"clear", "pw-clear"}, new String[] {"scram", "pw-scram"})) {
                ProcessBuilder pb = new ProcessBuilder(psql, "-X", "-A", "-t", "-h", "127.0.0.1", "-p", Integer.toString(s.port()),
                        "-U", u[0], "-d", "shop", "-c", "SELECT 40 + 2");
                pb.environment().put("PGPASSWORD", u[1]);
                pb.environment().put("PGSSLMODE", "disable");
                pb.environment().put("PGCONNECT_TIMEOUT", "10");
                pb.redirectErrorStream(true);
                Process p = pb.start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                assertEquals("42\n", out, u[0]);
            }
        }
    }

    @Test
    void usersFileLinesOfEachKindAndAPreciseErrorForABadOne() throws Exception {
        Path f = dir.resolve("bad.conf");
        Files.writeString(f, "# users\nok:" + UserStore.md5Verifier("ok", "x") + "\n\nbad:md5nothex\n");
        IOException e = assertThrows(IOException.class, () -> UserStore.load(f));
        assertTrue(e.getMessage().endsWith("bad.conf:4: expected a verifier SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>,"
                + " md5<32 hex digits>, or password: followed by either"), e.getMessage());
        Files.writeString(f, "a:" + UserStore.md5Verifier("a", "x") + "\nb:password:" + Scram.verifier("y", 4096).encode() + "\n");
        UserStore st = UserStore.load(f);
        assertEquals(UserStore.Method.MD5, st.entry("a").method());
        assertEquals(UserStore.Method.PASSWORD, st.entry("b").method());
        assertEquals(List.of("a", "b"), st.names());
        assertEquals(UserStore.Method.MD5, UserStore.Method.of("MD5"), "pg_hba.conf's names, any case");
        assertEquals(UserStore.Method.SCRAM_SHA_256, UserStore.Method.of("scram-sha-256"));
        IllegalArgumentException u = assertThrows(IllegalArgumentException.class, () -> UserStore.Method.of("trust"));
        assertEquals("unknown authentication method 'trust': expected scram-sha-256, md5 or password", u.getMessage());
    }
}
