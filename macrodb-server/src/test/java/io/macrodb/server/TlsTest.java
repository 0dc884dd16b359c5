package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;

/** TLS after SSLRequest: pgjdbc with sslmode=require connects, authenticates and queries over TLS. */
@Timeout(60)
class TlsTest {
    @Test
    void pgjdbcConnectsOverTls(@TempDir Path dir) throws Exception {
        assumeTrue(new File("/usr/bin/openssl").canExecute(), "openssl is needed to make a test certificate");
        File cert = dir.resolve("cert.pem").toFile();
        File key = dir.resolve("key.pem").toFile();
        Process p = new ProcessBuilder("/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(),
                "-out", cert.toString(), "-days", "1", "-subj", "/CN=localhost").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "openssl made a certificate");
        try (PgServer server = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(2))
                .withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)).withTls(cert, key));
             Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port()
                     + "/shop?sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory", ServerFixture.USER, ServerFixture.PASSWORD);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT 40 + 2")) {
            assertTrue(rs.next());
            assertEquals(42, rs.getInt(1));
            assertTrue(c.unwrap(PGConnection.class) != null);
            assertTrue(c.getMetaData().getURL().contains("sslmode=require"));
        }
    }
}
