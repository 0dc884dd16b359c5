package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One scenario (DDL, DML with counts, a transaction rolled back, an error inside a transaction, a statement run
 * again with other parameters, NULLs, the common types, COPY in and out, SQLSTATEs, a read-only transaction,
 * {@code macrodb.last_commit}, a long statement cancelled with the client's own cancel, outside and inside a
 * transaction) run by the clients of several languages over SCRAM, each printing the same lines: psycopg 3
 * (Debian's python3-psycopg), node-postgres with pg-copy-streams (npm, versions in
 * {@code src/test/clients/package.json}, installed under {@code ~/.cache/macrodb-node} by {@code .ci/run}), Go's
 * pgx v4 (Debian's golang-github-jackc-pgx-v4-dev, built in GOPATH mode) and pgjdbc ({@link PgJdbcScenario}, in
 * this JVM). A client that is not installed is skipped.
 */
@Timeout(120)
class ClientScenarioTest {
    private static final Path NODE_MODULES = Path.of(System.getProperty("user.home"), ".cache", "macrodb-node", "node_modules");

    /** Debian's Go libraries, built in GOPATH mode: nothing is fetched from the network. */
    private static final Path GOPATH = Path.of("/usr/share/gocode");

    /** scenario.go built once into target/ (go caches the build under target/ too). */
    private static synchronized Path goScenario() throws Exception {
        Path binary = Path.of("target", "scenario-go").toAbsolutePath();
        Path source = Path.of("src/test/clients/scenario.go").toAbsolutePath();
        if (Files.exists(binary) && Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) >= 0) return binary;
        ProcessBuilder pb = new ProcessBuilder("go", "build", "-o", binary.toString(), source.toString()).redirectErrorStream(true);
        pb.environment().put("GO111MODULE", "off");
        pb.environment().put("GOPATH", GOPATH.toString());
        pb.environment().put("GOCACHE", Path.of("target", "go-cache").toAbsolutePath().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS) && p.exitValue() == 0, () -> "go build scenario.go failed: " + out);
        return binary;
    }

    private static boolean runs(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @ParameterizedTest
    @CsvSource({"psycopg,h2", "node-postgres,h2", "pgx,h2", "pgjdbc,h2", "psycopg,hsqldb", "node-postgres,hsqldb", "pgx,hsqldb", "pgjdbc,hsqldb"})
    void theSharedScenarioPrintsTheSameLines(String client, String engine) throws Exception {
        List<String> command = null;
        if (client.equals("pgjdbc")) {
            // in this JVM
        } else if (client.equals("pgx")) {
            assumeTrue(runs(List.of("go", "version")) && Files.isDirectory(GOPATH.resolve("src/github.com/jackc/pgx/v4")),
                    "Go's pgx v4 is not installed (apt-get install golang-go golang-github-jackc-pgx-v4-dev)");
            command = List.of(goScenario().toString());
        } else if (client.equals("psycopg")) {
            assumeTrue(runs(List.of("/usr/bin/python3", "-c", "import psycopg")), "psycopg 3 is not installed (apt-get install python3-psycopg)");
            command = List.of("/usr/bin/python3", new File("src/test/clients/scenario.py").getAbsolutePath());
        } else {
            assumeTrue(runs(List.of("node", "--version")) && Files.isDirectory(NODE_MODULES.resolve("pg"))
                    && Files.isDirectory(NODE_MODULES.resolve("pg-copy-streams")), "node-postgres is not installed in " + NODE_MODULES);
            command = List.of("node", new File("src/test/clients/scenario.js").getAbsolutePath());
        }
        String url = engine.equals("h2") ? ServerFixture.h2Url(2)
                : "jdbc:macrodb:hsqldb:mem:scenario" + System.nanoTime() + ";sql.syntax_pgs=true?replicas=2";
        String expected;
        try (InputStream in = getClass().getResourceAsStream("/clients/scenario.expected")) {
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (PgServer server = PgServer.start(PgServer.Config.of(url).withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)))) {
            if (command == null) {
                assertEquals(expected, PgJdbcScenario.run("127.0.0.1", server.port(), ServerFixture.USER, ServerFixture.PASSWORD),
                        "pgjdbc's output over " + engine);
                return;
            }
            List<String> cmd = new java.util.ArrayList<>(command);
            cmd.addAll(List.of("127.0.0.1", Integer.toString(server.port()), ServerFixture.USER, ServerFixture.PASSWORD));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().put("NODE_PATH", NODE_MODULES.toString());
            pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), client + " finished");
            assertEquals(expected, out, client + "'s output over " + engine);
            assertEquals(0, p.exitValue(), out);
        }
    }
}
