package io.macrodb.bench;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The PostgreSQL servers of {@code -e postgresql}: started by the benchmark itself from Debian's packages
 * ({@code /usr/lib/postgresql/<major>/bin}, the newest; or the folder {@code -Dmacrodb.pgBin} names), each {@code initdb}'d into a temporary folder and
 * listening on a free loopback port, and stopped (and their folders removed) when the process ends, by
 * {@link #close} or by a shutdown hook (an error, Ctrl-C). Servers start on demand: the first configuration
 * that needs N of them starts the missing ones (standalone 1; MacroDB-N a primary and N-1 secondaries on N
 * servers; independent-N N servers), and every configuration after it uses the same ones, each with databases of
 * its own ({@code CREATE DATABASE} when it opens, {@code DROP DATABASE} when it closes).
 *
 * <p>PostgreSQL refuses to run as root: as root (CI, the development VM), every binary runs through
 * {@code runuser -u postgres --} (the Debian package creates that user) and the folders are given to it, as
 * the driver's test fixture {@code PgCluster} does. The superuser of every server is {@value #USER}, the user
 * the benchmark connects as, trusted on loopback (no password): MacroDB's secondaries need a superuser
 * ({@code session_replication_role = replica}).
 *
 * <p><b>Settings</b>, the same on every server, so plain PostgreSQL, MacroDB's replicas and the independent
 * servers run the same engine (see {@link #SETTINGS}):
 * <ul>
 *   <li>{@code fsync = off}, {@code synchronous_commit = off}, {@code full_page_writes = off}: no commit
 *       waits for a disk. Every other engine of the benchmark runs in memory; on a shared VM a flush's time is
 *       the neighbours' I/O, not the engine's, and would drown what MacroDB adds to a transaction (its
 *       capture, the read-back at commit, the apply on the secondaries). This is the cheapest commit
 *       PostgreSQL has, so MacroDB's costs show at their largest; a durable server would hide part of them
 *       behind the flush (not measured).</li>
 *   <li>{@code shared_buffers = 256MB} (twice PostgreSQL's default): the benchmark's data at its usual small scales
 *       is read from PostgreSQL's buffers, not from the OS page cache, although configurations taking turns keep
 *       their databases on the same servers: TPC-C at {@code --scale 0.1} is about 20 MB a database when loaded (7 MB
 *       of it the empty database's catalog) and grows as it runs, and server 0 holds one database of every
 *       configuration of a mix (six in {@code -C standalone,macrodb:1,macrodb:2,macrodb:3,independent:2,independent:3}).</li>
 *   <li>{@code wal_level = logical} and room for 10 replication slots and WAL senders: MacroDB with
 *       {@code capture=decoding} reads its primary's logical decoding stream through one of each. Every
 *       configuration runs with it, plain PostgreSQL included (it adds a few bytes of WAL per transaction; measured
 *       at 0.003-0.004 ms of CPU per transaction, docs/postgresql-engine.md §0).</li>
 *   <li>{@code max_connections = 200}: clients (up to 2 x cores a run) plus MacroDB's own sessions
 *       (one primary session per client connection, appliers and a monitor per secondary, copies) plus the
 *       keepers of every configuration of a mix, with room.</li>
 *   <li>lock waits end after 10 s ({@code ALTER DATABASE ... SET lock_timeout}, on every database the
 *       benchmark creates), MacroDB's default {@code lockTimeout}, which MacroDB sets in its own sessions: the
 *       plain clients wait as long as MacroDB's. Everything else is PostgreSQL's default (autovacuum on,
 *       {@code READ COMMITTED}); every database is {@code ANALYZE}d after it is loaded.</li>
 * </ul>
 */
public final class PgServers implements AutoCloseable {
    /** The superuser of every server, the user the benchmark connects as. */
    public static final String USER = "sa";

    /** postgresql.auto.conf lines of every server besides its port and socket folder (see the class comment). */
    static final List<String> SETTINGS = List.of(
            "listen_addresses = '127.0.0.1'",
            "fsync = off",
            "synchronous_commit = off",
            "full_page_writes = off",
            "shared_buffers = 256MB",
            "max_connections = 200",
            // MacroDB with capture=decoding reads the primary's logical decoding stream: a slot and a WAL sender
            "wal_level = logical",
            "max_wal_senders = 10",
            "max_replication_slots = 10",
            "log_min_messages = warning");

    private static PgServers local;

    private final Path root;
    private final Path bin;
    private final List<Server> servers = new ArrayList<>();
    private boolean closed;

    private PgServers(Path root, Path bin) {
        this.root = root;
        this.bin = bin;
    }

    /**
     * The system property naming another folder of PostgreSQL's server binaries ({@code initdb}, {@code pg_ctl}) than
     * Debian's newest, e.g. {@code /usr/pgsql-16/bin}.
     */
    public static final String BIN_PROPERTY = "macrodb.pgBin";

    /** {@value #BIN_PROPERTY}'s folder if set, else the newest installed Debian PostgreSQL's bin folder; null if there are no binaries. */
    static Path binDir() {
        String named = System.getProperty(BIN_PROPERTY, "").trim();
        if (!named.isEmpty()) {
            Path p = Path.of(named);
            return Files.isExecutable(p.resolve("pg_ctl")) && Files.isExecutable(p.resolve("initdb")) ? p : null;
        }
        Path base = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(base)) return null;
        try (Stream<Path> s = Files.list(base)) {
            return s.map(p -> p.resolve("bin"))
                    .filter(p -> Files.isExecutable(p.resolve("pg_ctl")) && Files.isExecutable(p.resolve("initdb")))
                    .max(Comparator.comparingInt(p -> major(p.getParent().getFileName().toString())))
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static int major(String name) {
        try {
            return Integer.parseInt(name.replaceAll("[^0-9].*$", ""));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean runsAsRoot() { return "root".equals(System.getProperty("user.name")); }

    /** Why the benchmark cannot start PostgreSQL servers here, or null if it can. */
    public static String unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return "the benchmark starts PostgreSQL servers from Debian's packages, on Linux only";
        }
        if (binDir() == null) {
            String named = System.getProperty(BIN_PROPERTY, "").trim();
            if (!named.isEmpty()) return "-D" + BIN_PROPERTY + "=" + named + " holds no PostgreSQL server binaries (initdb, pg_ctl)";
            return "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin: install Debian's postgresql"
                    + " package (apt-get install postgresql), or name their folder with -D" + BIN_PROPERTY + "=DIR";
        }
        if (runsAsRoot()) {
            try {
                FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            } catch (IOException e) {
                return "running as root, which PostgreSQL refuses, and there is no 'postgres' user to run the servers as"
                        + " (Debian's postgresql package creates it)";
            }
            if (!Files.isExecutable(Path.of("/usr/sbin/runuser")) && !Files.isExecutable(Path.of("/sbin/runuser"))) {
                return "running as root, which PostgreSQL refuses, and runuser (util-linux) is missing to run the servers as 'postgres'";
            }
        }
        return null;
    }

    /**
     * This process's servers, none started yet on first call; stopped by a shutdown hook at the latest.
     *
     * @throws SQLException (08001) saying why, where no server can be started here
     */
    static synchronized PgServers local() throws SQLException {
        if (local != null) return local;
        String reason = unavailableReason();
        if (reason != null) throw new SQLException("-e postgresql: " + reason, "08001");
        try {
            Path root = Files.createTempDirectory("macrodb-bench-pg-");
            giveToPostgres(root);
            PgServers s = new PgServers(root, binDir());
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "macrodb-bench-pg-stop"));
            local = s;
            return s;
        } catch (IOException e) {
            throw new SQLException("-e postgresql: cannot make a folder for the servers: " + e.getMessage(), "08001", e);
        }
    }

    /** Stops this process's servers, if any were started (the next use starts new ones). */
    static synchronized void stopLocal() {
        if (local != null) {
            local.close();
            local = null;
        }
    }

    /** The servers started so far by this process (0 when none). */
    static synchronized int localCount() { return local == null ? 0 : local.count(); }

    synchronized int count() { return servers.size(); }

    /** {@link #cpuNanos} of this process's servers; 0 when none were started. */
    static synchronized long localCpuNanos() { return local == null ? 0 : local.cpuNanos(); }

    /** {@link #cpuNanosEach} of this process's servers; empty when none were started. */
    static synchronized long[] localCpuNanosEach() { return local == null ? new long[0] : local.cpuNanosEach(); }

    /** Server {@code i} (0-based), starting it and every server before it that is not running yet. */
    synchronized Server server(int i) throws SQLException {
        if (closed) throw new SQLException("the benchmark's PostgreSQL servers were stopped", "08003");
        while (servers.size() <= i) {
            try {
                servers.add(start(servers.size()));
            } catch (IOException e) {
                throw new SQLException("cannot start PostgreSQL server #" + servers.size() + ": " + e.getMessage(), "08001", e);
            }
        }
        return servers.get(i);
    }

    private Server start(int index) throws IOException {
        Path dir = root.resolve("s" + index);
        Files.createDirectory(dir);
        giveToPostgres(dir);
        Path data = dir.resolve("data");
        run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "--auth=trust", "-E", "UTF8",
                "--locale=C", "--no-sync"), 120);
        IOException last = null;
        // a free port can be taken by someone else before the server binds it: try another
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = freePort();
            List<String> conf = new ArrayList<>(SETTINGS);
            conf.add("port = " + port);
            conf.add("unix_socket_directories = '" + dir + "'");
            Files.writeString(data.resolve("postgresql.auto.conf"), String.join("\n", conf) + "\n", StandardOpenOption.TRUNCATE_EXISTING);
            try {
                run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
                        "-w", "-t", "60", "start"), 90);
                return new Server(index, data, port);
            } catch (IOException e) {
                last = e;
                String log = Files.exists(dir.resolve("server.log")) ? Files.readString(dir.resolve("server.log")) : "";
                if (!log.contains("could not bind") && !log.contains("Address already in use")) throw e;
            }
        }
        throw last;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** As root, the folder is the 'postgres' user's (PostgreSQL refuses to run as root). */
    private static void giveToPostgres(Path dir) throws IOException {
        if (!runsAsRoot()) return;
        UserPrincipal pg = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
        Files.setOwner(dir, pg);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }

    /** Runs a PostgreSQL binary (as 'postgres' when root); fails with its output if it fails. */
    private static void run(List<String> command, long timeoutSeconds) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (runsAsRoot()) cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.directory(new File("/tmp")); // a folder 'postgres' may enter
        Process p = pb.start();
        byte[] out;
        try {
            out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out after " + timeoutSeconds + " s: " + String.join(" ", cmd));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited with " + p.exitValue() + ": " + new String(out, StandardCharsets.UTF_8).trim());
        }
    }

    /**
     * CPU time used so far by every server started (each postmaster, its live processes, and those it has
     * reaped), in nanoseconds; -1 where /proc cannot tell. The difference over a window is what the servers
     * spent in it: a backend that ended within the window is counted once its postmaster reaps it.
     */
    synchronized long cpuNanos() {
        if (servers.isEmpty()) return 0;
        long sum = 0;
        boolean read = false;
        for (long n : cpuNanosEach()) {
            if (n >= 0) {
                sum += n;
                read = true;
            }
        }
        if (read) return sum;
        for (Server s : servers) if (s.postmasterPid() > 0) return -1; // /proc could not tell
        return 0;
    }

    /**
     * {@link #cpuNanos} server by server, index i for server i (whose sum is {@link #cpuNanos}, read at once): what the
     * primary's server and each secondary's spent apart. An element is -1 where its postmaster is unknown; the whole
     * array is -1s where /proc cannot tell.
     */
    synchronized long[] cpuNanosEach() {
        long[] ticks = new long[servers.size()];
        java.util.Map<Long, Integer> postmasters = new java.util.HashMap<>();
        for (Server s : servers) {
            long pid = s.postmasterPid();
            if (pid > 0) postmasters.put(pid, s.index());
            else ticks[s.index()] = -1;
        }
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) continue;
                long[] f = stat(p.resolve("stat"));
                if (f == null) continue;
                Integer own = postmasters.get(Long.parseLong(name)), parent = postmasters.get(f[0]);
                if (own != null) ticks[own] += f[1] + f[2] + f[3] + f[4]; // its own and its reaped children's
                else if (parent != null) ticks[parent] += f[1] + f[2];    // a live backend or helper
            }
        } catch (IOException | RuntimeException e) {
            java.util.Arrays.fill(ticks, -1);
            return ticks;
        }
        long[] nanos = new long[ticks.length];
        for (int i = 0; i < ticks.length; i++) nanos[i] = ticks[i] < 0 ? -1 : ticks[i] * (1_000_000_000L / CLOCK_TICKS);
        return nanos;
    }

    /** USER_HZ: the unit of /proc/PID/stat's times (100 on Linux everywhere but exotic kernels). */
    private static final long CLOCK_TICKS = 100;

    /** ppid, utime, stime, cutime, cstime of /proc/PID/stat, or null if the process is gone. */
    private static long[] stat(Path file) {
        String s;
        try {
            s = Files.readString(file);
        } catch (IOException e) {
            return null;
        }
        int close = s.lastIndexOf(')'); // the command name may hold spaces and parentheses
        if (close < 0) return null;
        String[] f = s.substring(close + 2).split(" ");
        // after "pid (comm) ": state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
        if (f.length < 15) return null;
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])};
    }

    /** Stops every server ({@code pg_ctl -m immediate}: its data is thrown away) and removes the folders; idempotent. */
    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        for (Server s : servers) {
            try {
                run(List.of(bin.resolve("pg_ctl").toString(), "-D", s.data.toString(), "-m", "immediate", "-w", "stop"), 60);
            } catch (IOException | RuntimeException ignored) {
                // stopped already, or going anyway
            }
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder left behind is harmless
        }
    }

    /** One server: its port on 127.0.0.1 and what the benchmark created on it. */
    static final class Server {
        private final int index;
        private final Path data;
        private final int port;
        private long pid;

        Server(int index, Path data, int port) {
            this.index = index;
            this.data = data;
            this.port = port;
        }

        int index() { return index; }

        int port() { return port; }

        /** The plain pgjdbc URL of database {@code db} on this server. */
        String jdbcUrl(String db) { return "jdbc:postgresql://127.0.0.1:" + port + "/" + db; }

        /** {@code host:port/db}, as MacroDB's {@code secondaries} option takes it. */
        String endpoint(String db) { return "127.0.0.1:" + port + "/" + db; }

        /** Creates database {@code db}, empty, whose sessions wait 10 s for a lock (see the class comment). */
        void createDatabase(String db) throws SQLException {
            try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, ""); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + quote(db));
                s.execute("ALTER DATABASE " + quote(db) + " SET lock_timeout = '10s'");
            }
        }

        /** Drops database {@code db}, ending its sessions (PostgreSQL 13+); nothing if it is not there. */
        void dropDatabase(String db) throws SQLException {
            try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, ""); Statement s = c.createStatement()) {
                int version = c.getMetaData().getDatabaseMajorVersion();
                s.execute("DROP DATABASE IF EXISTS " + quote(db) + (version >= 13 ? " WITH (FORCE)" : ""));
            }
        }

        /** The postmaster's pid (the first line of postmaster.pid), or -1. */
        synchronized long postmasterPid() {
            if (pid > 0) return pid;
            try {
                pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
            } catch (IOException | RuntimeException e) {
                return -1;
            }
            return pid;
        }

        /** server_version of the running server. */
        String version() throws SQLException {
            try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, ""); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SHOW server_version")) {
                rs.next();
                return rs.getString(1);
            }
        }

        @Override public String toString() { return "postgresql#" + index + "@127.0.0.1:" + port; }

        private static String quote(String name) { return "\"" + name.replace("\"", "\"\"") + "\""; }
    }
}
