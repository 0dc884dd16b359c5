package io.macrodb.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.macrodb.cli.MacroDbCli;
import io.macrodb.server.PgServer;
import io.macrodb.server.UserStore;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
