package io.macrodb.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.macrodb.cli.InProcess.macrodb;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs {@code macrodb bench} in-process, tiny and short, and checks its tables and files. */
class BenchCommandTest {

    @Test
    void benchWritesTablesCsvJsonAndCharts(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-w", "micro", "-m", "80-20", "--scale", "0.01", "-C", "standalone,macrodb:1,macrodb:2,independent:2",
                "-c", "2", "--jvm-warmup", "0.5", "--warmup", "0.2", "-d", "0.5", "--repetitions", "1", "--no-progress", "-o", dir.toString());
        String all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        assertTrue(out.toString().contains("Peak to peak"), all);
        assertTrue(out.toString().contains("macrodb-2"), all);
        for (String f : new String[] {"results.json", "runs.csv", "points.csv", "peaks.csv", "summary.md", "summary.txt", "h2-micro-80-20.png"}) {
            assertTrue(Files.size(dir.resolve(f)) > 0, f + " missing or empty\n" + all);
        }
        assertEquals(1 + 4, Files.readAllLines(dir.resolve("runs.csv")).size(), "a header and one row per run");
        assertTrue(out.toString().contains("configurations interleaved"), all);
        assertTrue(out.toString().matches("(?s).*driver \\S+ built from commit ([0-9a-f]{40}|unknown), benchmark built from commit ([0-9a-f]{40}|unknown)\n.*"), all);
        assertTrue(Files.readString(dir.resolve("results.json")).matches("(?s).*\"benchBuild\"\\s*:\\s*\\{\\s*\"commit\"\\s*:\\s*\"([0-9a-f]{40}|unknown)\".*"),
                "results.json records the commit the benchmark was built from");
        assertTrue(!Files.readString(dir.resolve("results.json")).contains("\"gitCommit\""), "not the current directory's commit");
        assertTrue(out.toString().contains("1 repetition: no spread"), "a single repetition says so\n" + all);
        assertTrue(out.toString().matches("(?s).*macrodb-2 c=2 #1: [^\n]*, secondaries caught up in [0-9.]+ ms.*"), "catch-up printed\n" + all);
        assertTrue(out.toString().contains("catch-up ms"), "and in the table\n" + all);
        assertTrue(Files.readString(dir.resolve("results.json")).matches("(?s).*\"catchUpMs\"\\s*:\\s*[0-9].*"), "and recorded");
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("1 repetition: no spread"), "in summary.md too");
        assertTrue(Files.readString(dir.resolve("results.json")).matches("(?s).*\"order\"\\s*:\\s*\"interleaved\".*"),
                "results.json records the order");
    }

    @Test
    void sequentialIsRecorded(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-w", "micro", "-m", "80-20", "--scale", "0.01", "-C", "standalone,macrodb:2", "-c", "1",
                "--jvm-warmup", "0", "--warmup", "0", "-d", "0.1", "--repetitions", "1", "--sequential", "--no-progress", "-o", dir.toString());
        String all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        assertTrue(out.toString().contains("configurations sequential"), all);
        assertTrue(Files.readString(dir.resolve("results.json")).matches("(?s).*\"order\"\\s*:\\s*\"sequential\".*"),
                "results.json records the order");
    }

    @Test
    void macrodbConfigurationsTakeUrlOptions(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-e", "hsqldb", "-w", "micro", "-m", "80-20", "--scale", "0.01",
                "-C", "standalone,macrodb:2,macrodb:2:admission=off", "-c", "1,2", "--jvm-warmup", "0", "--warmup", "0", "-d", "0.1",
                "--repetitions", "1", "--no-progress", "-o", dir.toString());
        String all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        String runs = Files.readString(dir.resolve("runs.csv"));
        assertTrue(runs.contains(",macrodb-2-admission=off,"), runs);
        assertTrue(runs.contains(",macrodb-2,"), runs);
        // the driver checks the option: a bad value fails the configuration, not silently ignored
        rc = macrodb(new StringWriter(), new StringWriter(), "bench", "-w", "micro", "-m", "80-20", "--scale", "0.01",
                "-C", "macrodb:2:admission=sometimes", "-c", "1", "--jvm-warmup", "0", "--warmup", "0", "-d", "0.1",
                "--repetitions", "1", "--no-progress", "-o", dir.resolve("bad").toString());
        assertTrue(rc != 0, "a bad option value fails the run");
        assertEquals(2, macrodb(out, err, "bench", "-C", "macrodb:2:admission="));
    }

    @Test
    void sqliteRunsSideBySideWithH2(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-e", "sqlite,h2", "-w", "micro", "-m", "80-20", "--scale", "0.01",
                "-C", "standalone,macrodb:2,independent:2", "-c", "2", "--jvm-warmup", "0", "--warmup", "0", "-d", "0.1",
                "--repetitions", "1", "--no-progress", "-o", dir.toString());
        String all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        String runs = Files.readString(dir.resolve("runs.csv"));
        assertTrue(runs.contains("sqlite,micro,") && runs.contains("h2,micro,"), runs);
        assertEquals(2, macrodb(new StringWriter(), err, "bench", "-e", "derbyish"));
        assertTrue(err.toString().contains("sqlite"), err.toString());
    }

    /** Derby runs side by side with SQLite, MacroDB over it included; the benchmark sets no MacroDB system property for it. */
    @Test
    void derbyRunsSideBySideWithSqlite(@TempDir Path dir) throws Exception {
        java.util.Map<String, String> before = macrodbProperties();
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-e", "sqlite,derby", "-w", "micro", "-m", "80-20", "--scale", "0.01",
                "-C", "standalone,macrodb:2,independent:2", "-c", "2", "--jvm-warmup", "0", "--warmup", "0", "-d", "0.2",
                "--repetitions", "1", "--no-progress", "-o", dir.toString());
        String all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        assertEquals(before, macrodbProperties(), all);
        String runs = Files.readString(dir.resolve("runs.csv"));
        assertTrue(runs.contains("sqlite,micro,") && runs.contains("derby,micro,"), runs);
        assertTrue(runs.contains("derby,micro,80-20,macrodb-2,"), runs);
    }

    /** The JVM's system properties whose names start with {@code macrodb.}, by name. */
    private static java.util.Map<String, String> macrodbProperties() {
        java.util.Map<String, String> found = new java.util.TreeMap<>();
        for (String k : System.getProperties().stringPropertyNames()) {
            if (k.startsWith("macrodb.")) found.put(k, System.getProperty(k));
        }
        return found;
    }

    /**
     * PostgreSQL: the benchmark starts its own servers (one per replica or independent engine), says so, and stops them at the
     * end. Skipped with the reason where the server binaries are missing (a failure under -Dmacrodb.requirePostgres=true).
     */
    @Test
    void postgresqlStartsItsServersRunsEveryKindOfConfigurationAndStopsThem(@TempDir Path dir) throws Exception {
        String reason = io.macrodb.bench.BenchEngine.POSTGRESQL.unavailableReason();
        if (reason != null) {
            if (Boolean.getBoolean("macrodb.requirePostgres")) org.junit.jupiter.api.Assertions.fail("macrodb.requirePostgres=true but " + reason);
            System.out.println("SKIPPED (PostgreSQL): " + reason);
            org.junit.jupiter.api.Assumptions.assumeTrue(false, reason);
        }
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-e", "postgresql", "-w", "micro", "-m", "80-20", "--scale", "0.01",
                "-C", "standalone,macrodb:2,independent:2", "-c", "2", "--jvm-warmup", "0", "--warmup", "0.1", "-d", "0.3",
                "--repetitions", "1", "--no-progress", "-o", dir.toString());
        String all = "exit " + rc + "\n" + out + "\n" + err;
        assertEquals(0, rc, all);
        assertTrue(out.toString().contains("postgresql: the benchmark starts its own servers from "), all);
        String runs = Files.readString(dir.resolve("runs.csv"));
        for (String config : new String[] {"standalone", "macrodb-2", "independent-2"}) {
            assertTrue(runs.contains("postgresql,micro,80-20," + config + ","), runs);
        }
        // no server left: the servers' CPU time reads 0 once none is running
        assertEquals(0, io.macrodb.bench.BenchEngine.POSTGRESQL.serverCpuNanos(), "the servers are stopped at the end");
    }

    /** Without PostgreSQL's server binaries, -e postgresql is a usage error (exit 2) that says why, before anything runs. */
    @Test
    void postgresqlWithoutServerBinariesIsRefusedWithTheReason(@TempDir Path dir) {
        String property = "macrodb.pgBin", before = System.getProperty(property);
        System.setProperty(property, dir.resolve("no-bin").toString());
        try {
            StringWriter out = new StringWriter(), err = new StringWriter();
            assertEquals(2, macrodb(out, err, "bench", "-e", "h2,postgresql", "-w", "micro", "-o", dir.resolve("out").toString()));
            assertTrue(err.toString().contains("-e postgresql: -Dmacrodb.pgBin=" + dir.resolve("no-bin")
                    + " holds no PostgreSQL server binaries (initdb, pg_ctl)"), err.toString());
            assertTrue(!err.toString().contains("\tat "), "no stack trace: " + err);
            assertTrue(out.toString().isEmpty(), "nothing ran: " + out);
            assertEquals(2, macrodb(out, err, "bench", "apply-capacity", "-e", "postgresql", "-o", dir.resolve("out2").toString()));
        } finally {
            if (before == null) System.clearProperty(property);
            else System.setProperty(property, before);
        }
    }

    @Test
    void badOptionsAreUsageErrors() {
        StringWriter out = new StringWriter(), err = new StringWriter();
        assertEquals(2, macrodb(out, err, "bench", "-w", "tpcq"));
        assertTrue(err.toString().contains("tpcq"), err.toString());
        assertEquals(2, macrodb(out, err, "bench", "-C", "cluster:3"));
        assertEquals(2, macrodb(out, err, "bench", "-w", "tpcc", "-m", "browsing"));
    }

    @Test
    void anOutputFolderThatCannotBeWrittenIsRefusedBeforeTheRun(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("taken"), "x");
        String[] tiny = {"bench", "-w", "micro", "-m", "80-20", "--scale", "0.01", "-C", "standalone", "-c", "1",
                "--jvm-warmup", "0", "--warmup", "0", "-d", "0.1", "--repetitions", "1", "--no-progress", "-o"};
        StringWriter out = new StringWriter(), err = new StringWriter();
        assertEquals(2, macrodb(out, err, concat(tiny, file.toString())));
        assertTrue(err.toString().contains("--out " + file + ": exists and is a file, not a folder"), err.toString());
        err = new StringWriter();
        assertEquals(2, macrodb(out, err, concat(tiny, file.resolve("sub").toString())));
        assertTrue(err.toString().contains(file + " is a file, so no folder can be created under it"), err.toString());
        assertTrue(out.toString().isEmpty(), "nothing ran: " + out);
        Path ro = Files.createDirectory(tmp.resolve("read-only"));
        ro.toFile().setWritable(false, false);
        try {
            if (!Files.isWritable(ro)) { // not as root, for whom every folder is writable
                err = new StringWriter();
                assertEquals(2, macrodb(out, err, concat(tiny, ro.resolve("new").toString())));
                assertTrue(err.toString().contains("cannot create the folder (permission denied"), err.toString());
            }
        } finally {
            ro.toFile().setWritable(true, false);
        }
        // a folder that does not exist yet is created, and the run goes on
        out = new StringWriter();
        err = new StringWriter();
        Path fresh = tmp.resolve("a/b/c");
        assertEquals(0, macrodb(out, err, concat(tiny, fresh.toString())), out + "\n" + err);
        assertTrue(Files.exists(fresh.resolve("results.json")));
        try (var s = Files.list(fresh)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().contains("write-check")), "the probe file is gone");
        }
    }

    @Test
    void withoutATerminalOnStderrALinePerRunReplacesTheBar(@TempDir Path dir) {
        org.junit.jupiter.api.Assumptions.assumeFalse(io.macrodb.bench.ConsoleProgress.stderrIsTerminal(), "stderr is a terminal here");
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = macrodb(out, err, "bench", "-w", "micro", "-m", "80-20", "--scale", "0.01", "-C", "standalone", "-c", "1",
                "--jvm-warmup", "0", "--warmup", "0", "-d", "0.1", "--repetitions", "1", "-o", dir.toString());
        assertEquals(0, rc, out + "\n" + err);
        assertTrue(out.toString().contains("(stderr is not a terminal: no progress bar, a line per run instead)"), out.toString());
        assertTrue(out.toString().contains("h2 micro 80-20 standalone c=1 #1:"), out.toString());
    }

    private static String[] concat(String[] a, String b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + 1);
        r[a.length] = b;
        return r;
    }

    @Test
    void mixesAbove100PercentAreUsageErrors() {
        StringWriter out = new StringWriter(), err = new StringWriter();
        assertEquals(2, macrodb(out, err, "bench", "-w", "tpcc", "-m", "80-30"));
        assertTrue(err.toString().contains("mix 80-30: read-only 80% + update 30% = 110%, above 100%"), err.toString());
        // with several workloads, a mix that none of them takes is refused too, not dropped for the defaults
        err = new StringWriter();
        assertEquals(2, macrodb(out, err, "bench", "-w", "all", "-m", "80-30"));
        assertTrue(err.toString().contains("no workload takes --mix 80-30") && err.toString().contains("above 100%"), err.toString());
        err = new StringWriter();
        assertEquals(2, macrodb(out, err, "bench", "-w", "tpcc", "-m", "NewOrder=60;Payment=50"));
        assertTrue(err.toString().contains("weights add up to 110%, above 100%"), err.toString());
        assertTrue(out.toString().isEmpty(), "refused before anything ran: " + out);
    }
}
