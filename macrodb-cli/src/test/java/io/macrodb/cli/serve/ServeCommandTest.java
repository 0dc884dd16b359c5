package io.macrodb.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.macrodb.cli.MacroDbCli;
import io.macrodb.server.PgServer;
import io.macrodb.server.UserStore;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code macrodb serve}: its options become the MacroDB URL and server configuration, and the server it starts answers. */
@Timeout(30)
class ServeCommandTest {
    static ServeCommand parse(String... args) {
        CommandLine cl = MacroDbCli.commandLine();
        CommandLine.ParseResult r = cl.parseArgs(args);
        return (ServeCommand) r.subcommand().commandSpec().userObject();
    }

    @Test
    void optionsBecomeTheUrl() {
        assertEquals("jdbc:macrodb:h2:mem:macrodb;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH?replicas=4",
                parse("serve", "--trust").jdbcUrl());
        assertEquals("jdbc:macrodb:hsqldb:mem:shop;sql.syntax_pgs=true?replicas=2&consistency=session",
                parse("serve", "--engine", "hsqldb", "--database", "shop", "--replicas", "2", "--option", "consistency=session").jdbcUrl());
        assertThrows(IllegalArgumentException.class, () -> parse("serve").startServer(), "no users and no --trust");
    }

    @Test
    void startsAServerThatAnswersAndAddsUsers(@TempDir Path dir) throws Exception {
        Path users = dir.resolve("users.conf");
        UserStore.addUser(users, "alice", "pw");
        UserStore.addUser(users, "bob", "pw2");
        UserStore.addUser(users, "alice", "pw3");
        assertEquals(2, Files.readAllLines(users).size(), "a user added twice has one line");
        assertNotNull(UserStore.load(users).verifier("alice"));
        ServeCommand serve = parse("serve", "--port", "0", "--replicas", "2", "--database", "servecli", "--users", users.toString());
        try (PgServer server = serve.startServer(); Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(ByteBuffer.allocate(8).putInt(8).putInt(80877103).array());
            out.flush();
            assertEquals('N', new DataInputStream(s.getInputStream()).read(), "SSLRequest without --tls is answered N");
            assertTrue(server.port() > 0);
        }
    }

    /** Runs {@code macrodb} in this JVM with {@code stdin} as standard input; its exit status, output and errors. */
    private static String[] macrodb(String stdin, String... args) {
        InputStream in = System.in;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try {
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            CommandLine cl = MacroDbCli.commandLine();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            return new String[] {Integer.toString(cl.execute(args)), out.toString(), err.toString()};
        } finally {
            System.setIn(in);
        }
    }

    private static String md5Hex(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Logs in as libpq does when the server asks for MD5 (the request's code must be 5): "md5" and the md5 of the
     * verifier's hex digits followed by the salt. "ok" for AuthenticationOk, else the ErrorResponse's SQLSTATE.
     */
    private static String md5Login(int port, String user, String password) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] params = ("user\0" + user + "\0database\0shop\0\0").getBytes(StandardCharsets.UTF_8);
            out.write(ByteBuffer.allocate(8 + params.length).putInt(8 + params.length).putInt(196608).put(params).array());
            out.flush();
            assertEquals('R', in.read());
            in.readInt();
            assertEquals(5, in.readInt(), "the server asks this user for MD5");
            byte[] salt = new byte[4];
            in.readFully(salt);
            String inner = md5Hex(password + user);
            byte[] salted = new byte[32 + 4];
            System.arraycopy(inner.getBytes(StandardCharsets.US_ASCII), 0, salted, 0, 32);
            System.arraycopy(salt, 0, salted, 32, 4);
            byte[] answer = ("md5" + HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(salted)) + "\0").getBytes(StandardCharsets.US_ASCII);
            out.write(ByteBuffer.allocate(5 + answer.length).put((byte) 'p').putInt(4 + answer.length).put(answer).array());
            out.flush();
            int type = in.read();
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            if (type == 'R') return ByteBuffer.wrap(body).getInt() == 0 ? "ok" : "R" + ByteBuffer.wrap(body).getInt();
            assertEquals('E', type);
            for (String field : new String(body, StandardCharsets.UTF_8).split("\0")) if (field.startsWith("C")) return field.substring(1);
            return "no SQLSTATE";
        }
    }

    /** psql's output for SELECT 40 + 2 as {@code user}, or null when psql is not installed. */
    private static String psql(int port, String user, String password) throws Exception {
        if (!new File("/usr/bin/psql").canExecute()) return null;
        ProcessBuilder pb = new ProcessBuilder("/usr/bin/psql", "-X", "-A", "-t", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", user,
                "-d", "shop", "-c", "SELECT 40 + 2").redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", password);
        pb.environment().put("PGSSLMODE", "disable");
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void addUserWritesAnMd5LineWithAuthMd5(@TempDir Path dir) throws Exception {
        Path users = dir.resolve("users.conf");
        String[] r = macrodb("pw-legacy\n", "serve", "--add-user", "legacy", "--auth", "md5", "--users", users.toString());
        assertEquals("0", r[0], r[2]);
        assertEquals("added legacy to " + users + " (md5)\n", r[1]);
        assertEquals(List.of("legacy:" + UserStore.md5Verifier("legacy", "pw-legacy")), Files.readAllLines(users),
                "PostgreSQL's MD5 verifier: md5 and md5(password + user name)");
        assertEquals("0", macrodb("pw-new\n", "serve", "--add-user", "modern", "--users", users.toString())[0]);
        assertEquals(UserStore.Method.SCRAM_SHA_256, UserStore.load(users).entry("modern").method(), "SCRAM-SHA-256 by default");
        assertEquals("0", macrodb("pw-clear\n", "serve", "--add-user", "clear", "--auth", "PASSWORD", "--users", users.toString())[0]);
        assertEquals(UserStore.Method.PASSWORD, UserStore.load(users).entry("clear").method());
        ServeCommand serve = parse("serve", "--port", "0", "--replicas", "1", "--database", "servemd5", "--users", users.toString());
        try (PgServer server = serve.startServer()) {
            assertEquals("ok", md5Login(server.port(), "legacy", "pw-legacy"));
            assertEquals("28P01", md5Login(server.port(), "legacy", "pw-wrong"), "a wrong password is refused");
            String ok = psql(server.port(), "legacy", "pw-legacy");
            if (ok != null) {
                assertEquals("42\n", ok, "psql logs in with MD5");
                String refused = psql(server.port(), "legacy", "pw-wrong");
                assertTrue(refused.contains("password authentication failed for user \"legacy\""), refused);
            }
        }
    }

    @Test
    void anUnknownAuthMethodIsRefusedPrecisely(@TempDir Path dir) {
        Path users = dir.resolve("users.conf");
        String[] r = macrodb("pw\n", "serve", "--add-user", "x", "--auth", "sha1", "--users", users.toString());
        assertEquals("2", r[0]);
        assertTrue(r[2].startsWith("Invalid value for option '--auth': unknown authentication method 'sha1': expected scram-sha-256, md5 or password"), r[2]);
        assertTrue(!Files.exists(users), "nothing written");
        r = macrodb("", "serve", "--auth", "md5", "--trust");
        assertEquals("2", r[0]);
        assertTrue(r[2].startsWith("--auth applies to --add-user only"), r[2]);
        r = macrodb("pw\n", "serve", "--add-user", "x");
        assertEquals("2", r[0]);
        assertTrue(r[2].startsWith("--add-user needs --users FILE"), r[2]);
    }
}
