package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real psql client, scripted, against a server on loopback: its output (rows unaligned, command tags) must
 * equal a golden file. psql's default {@code sslmode=prefer} also exercises the SSLRequest answered 'N'.
 * CI installs psql ({@code .ci/run}); elsewhere the test is skipped when there is no psql.
 */
@Timeout(60)
class PsqlTest {
    static String psql() {
        for (String p : new String[] {"/usr/bin/psql", "/usr/local/bin/psql"}) {
            if (new File(p).canExecute()) return p;
        }
        return null;
    }

    @Test
    void scriptedSessionMatchesGoldenOutput() throws Exception {
        String psql = psql();
        assumeTrue(psql != null, "psql is not installed (apt-get install postgresql-client); .ci/run installs it");
        try (PgServer server = ServerFixture.start(2)) {
            Path script = Files.createTempFile("macrodb-psql", ".sql");
            try (InputStream in = getClass().getResourceAsStream("/psql/basic.sql")) {
                Files.write(script, in.readAllBytes());
            }
            ProcessBuilder pb = new ProcessBuilder(psql, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                    "-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", ServerFixture.USER, "-d", "shop",
                    "-f", script.toString());
            pb.environment().put("PGPASSWORD", ServerFixture.PASSWORD);
            pb.environment().put("PGCONNECT_TIMEOUT", "10");
            pb.environment().put("PGGSSENCMODE", "disable");
            pb.redirectErrorStream(true);
            Process p = pb.start();
            byte[] output = p.getInputStream().readAllBytes();
            assertEquals(true, p.waitFor(30, TimeUnit.SECONDS), "psql finished");
            String actual = new String(output, StandardCharsets.UTF_8);
            String expected;
            try (InputStream in = getClass().getResourceAsStream("/psql/basic.expected")) {
                expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertEquals(expected, actual, "psql output");
            assertEquals(0, p.exitValue(), actual);
            Files.deleteIfExists(script);
        }
    }
}
