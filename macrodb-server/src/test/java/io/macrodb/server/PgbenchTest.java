package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real pgbench: {@code pgbench -i} (COPY, multi-table TRUNCATE, storage parameters, VACUUM), then TPC-B-like
 * runs in the simple, extended and prepared query modes with no failed transaction, and the TPC-B invariant
 * (branch, teller and account balances and the history's deltas all sum to the same) holds afterwards.
 * Skipped when pgbench is not installed (.ci/run installs postgresql-client, which has it).
 */
@Timeout(120)
class PgbenchTest {
    static String run(PgServer server, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/pgbench", "-h", "127.0.0.1", "-p", Integer.toString(server.port()),
                "-U", ServerFixture.USER));
        cmd.addAll(List.of(args));
        cmd.add("shop");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PGPASSWORD", ServerFixture.PASSWORD);
        pb.environment().put("PGSSLMODE", "disable");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "pgbench finished");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** Whether pgbench is there and runs: Debian's /usr/bin/pgbench is a wrapper that fails without the server package. */
    private static boolean pgbenchRuns() {
        if (!new File("/usr/bin/pgbench").canExecute()) return false;
        try {
            Process p = new ProcessBuilder("/usr/bin/pgbench", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void initialiseThenRunInEveryQueryMode() throws Exception {
        assumeTrue(pgbenchRuns(), "pgbench is not installed (apt-get install postgresql; .ci/run does)");
        try (PgServer server = ServerFixture.start(2)) {
            String init = run(server, "-i", "-s", "1", "-q");
            assertTrue(init.contains("done in"), init);
            for (String mode : List.of("simple", "extended", "prepared")) {
                String out = run(server, "-c", "4", "-t", "50", "-M", mode, "-n");
                assertTrue(out.contains("number of transactions actually processed: 200/200"), out);
                assertTrue(out.contains("number of failed transactions: 0 "), out);
            }
            try (Connection c = DriverManager.getConnection(ServerFixture.pgUrl(server, ""), ServerFixture.USER, ServerFixture.PASSWORD);
                 Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT (SELECT SUM(bbalance) FROM pgbench_branches), (SELECT SUM(tbalance) FROM pgbench_tellers),"
                         + " (SELECT SUM(abalance) FROM pgbench_accounts), (SELECT SUM(delta) FROM pgbench_history),"
                         + " (SELECT COUNT(*) FROM pgbench_history), (SELECT COUNT(*) FROM pgbench_accounts)")) {
                assertTrue(rs.next());
                assertEquals(600, rs.getLong(5), "one history row per transaction");
                assertEquals(100_000, rs.getLong(6), "pgbench -i -s 1 loads 100000 accounts through COPY");
                long delta = rs.getLong(4);
                assertEquals(delta, rs.getLong(1));
                assertEquals(delta, rs.getLong(2));
                assertEquals(delta, rs.getLong(3));
            }
            io.macrodb.jdbc.MacroAdmin admin = server.keeper().unwrap(io.macrodb.jdbc.MacroAdmin.class);
            assertTrue(admin.awaitCaughtUp(30_000));
            List<String> sums = admin.checksums();
            assertEquals(1, sums.stream().distinct().count(), "replicas converged after pgbench: " + sums);
        }
    }
}
