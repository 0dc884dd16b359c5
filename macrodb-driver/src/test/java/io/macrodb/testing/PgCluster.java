package io.macrodb.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * N PostgreSQL servers started from the Debian packages' binaries ({@code /usr/lib/postgresql/<major>/bin},
 * the newest one): each {@code initdb}s into a temporary directory and listens on a free loopback port,
 * with {@code wal_level=logical} and {@code fsync=off} (tests, not durability). Servers are stopped and
 * their directories removed by {@link #close}, and by a JVM shutdown hook, so that a killed test run leaves
 * nothing running. {@link Server#stop} stops one mid-test ({@code pg_ctl -m immediate}: a crash).
 *
 * <p>PostgreSQL refuses to run as root; when the tests run as root (CI does), every binary runs through
 * {@code runuser -u postgres --} and the directories are given to that user (the Debian package creates
 * it). The superuser of every server is {@code macrodb}, trusted on loopback (no password).
 *
 * <p>Without the binaries the tests that need a server are skipped with {@link #assumeAvailable}'s reason;
 * {@code -Dmacrodb.requirePostgres=true} turns the skip into a failure, so CI cannot pass by skipping.
 */
public final class PgCluster implements AutoCloseable {
    public static final String USER = "macrodb";
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static volatile PgCluster shared;

    private final Path root;
    private final List<Server> servers = new ArrayList<>();
    private final List<String> settings;

    /** The newest installed PostgreSQL's bin directory, or null. */
    public static Path binDir() {
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

    private static boolean runsAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Why PostgreSQL servers cannot be started here, or null if they can. */
    public static String unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return "PostgreSQL tests run on Linux only (Debian's server packages)";
        }
        if (binDir() == null) {
            return "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (install Debian's postgresql package;"
                    + " .ci/run does)";
        }
        if (runsAsRoot()) {
            try {
                java.nio.file.FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            } catch (IOException e) {
                return "the tests run as root, which PostgreSQL refuses, and there is no 'postgres' user to run the"
                        + " servers as (Debian's postgresql package creates it)";
            }
            if (!Files.isExecutable(Path.of("/usr/sbin/runuser")) && !Files.isExecutable(Path.of("/sbin/runuser"))) {
                return "the tests run as root and runuser (util-linux) is missing to run PostgreSQL as 'postgres'";
            }
        }
        return null;
    }

    /**
     * Skips the calling test (a JUnit assumption, with the reason printed) when no server can be started;
     * fails it instead under {@code -Dmacrodb.requirePostgres=true}.
     */
    public static void assumeAvailable() {
        String reason = unavailableReason();
        if (reason == null) return;
        if (Boolean.getBoolean("macrodb.requirePostgres")) Assertions.fail("macrodb.requirePostgres=true but " + reason);
        System.out.println("SKIPPED (PostgreSQL): " + reason);
        Assumptions.assumeTrue(false, reason);
    }

    /** Starts {@code n} servers (callers check {@link #assumeAvailable} first). */
    public static PgCluster start(int n) throws IOException {
        return start(n, List.of());
    }

    /**
     * Starts {@code n} servers with {@code settings} ({@code "name = value"} lines) after the usual ones, which
     * they override (a benchmark's {@code wal_level = replica} or {@code synchronous_commit = on}).
     */
    public static PgCluster start(int n, List<String> settings) throws IOException {
        PgCluster c = new PgCluster(Files.createTempDirectory("macrodb-pg"), settings);
        Runtime.getRuntime().addShutdownHook(new Thread(c::close, "macrodb-pg-cleanup"));
        try {
            giveToPostgres(c.root);
            for (int i = 0; i < n; i++) c.servers.add(c.newServer(i));
            for (Server s : c.servers) {
                s.start();
                // the tests' usual user (TestDb.open connects as sa), trusted on loopback like macrodb
                try (Connection conn = s.connect("postgres"); Statement st = conn.createStatement()) {
                    st.execute("CREATE ROLE sa SUPERUSER LOGIN");
                } catch (SQLException e) {
                    throw new IOException("cannot create role sa on " + s + ": " + e.getMessage(), e);
                }
            }
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * Three servers shared by every test of this JVM (primary and two secondaries for the suites that
     * take an engine), started on first use, stopped at the JVM's exit. Skips the caller if none can be.
     */
    public static PgCluster shared() {
        assumeAvailable();
        PgCluster c = shared;
        if (c != null) return c;
        synchronized (PgCluster.class) {
            if (shared == null) {
                try {
                    shared = start(3);
                } catch (IOException e) {
                    throw new IllegalStateException("cannot start the shared PostgreSQL servers: " + e.getMessage(), e);
                }
            }
            return shared;
        }
    }

    private PgCluster(Path root, List<String> settings) {
        this.root = root;
        this.settings = List.copyOf(settings);
    }

    public List<Server> servers() { return servers; }

    public Server server(int i) { return servers.get(i); }

    /** A new database of the same name on every server, as {@code macrodb}'s; returns the name. */
    public String createDatabase() throws SQLException {
        String name = "t" + DATABASES.incrementAndGet();
        for (Server s : servers) s.createDatabase(name);
        return name;
    }

    /**
     * Runs {@code statements} on the primary database of {@code macroUrl} (server 0), outside MacroDB: what the database
     * held before MacroDB opened it, or a session MacroDB does not know.
     */
    public void onPrimary(String macroUrl, String... statements) throws SQLException {
        try (Connection c = servers.get(0).connect(primaryDatabase(macroUrl)); Statement s = c.createStatement()) {
            for (String sql : statements) s.execute(sql);
        }
    }

    /** The primary's database name in a URL {@link #macroUrl} made ({@code jdbc:macrodb:postgresql://host:port/NAME?...}). */
    public static String primaryDatabase(String macroUrl) {
        int slash = macroUrl.indexOf('/', "jdbc:macrodb:postgresql://".length());
        int query = macroUrl.indexOf('?', slash);
        return macroUrl.substring(slash + 1, query < 0 ? macroUrl.length() : query);
    }

    /**
     * A MacroDB URL over a new database: server 0's as primary, {@code replicas - 1} secondaries on the
     * other servers in turn (a server holds several secondaries, each a database of its own, when there
     * are more replicas than servers).
     */
    public String macroUrl(int replicas, String options) throws SQLException {
        String name = "t" + DATABASES.incrementAndGet();
        servers.get(0).createDatabase(name);
        StringBuilder sec = new StringBuilder();
        for (int i = 1; i < replicas; i++) {
            Server s = servers.get(1 + (i - 1) % (servers.size() - 1));
            String db = name + "_r" + i;
            s.createDatabase(db);
            sec.append(sec.length() == 0 ? "" : ",").append("127.0.0.1:").append(s.port).append('/').append(db);
        }
        String o = options == null ? "" : options;
        String q = replicas > 1 ? "secondaries=" + sec : "";
        if (!o.isEmpty()) q = q.isEmpty() ? o : q + "&" + o;
        return "jdbc:macrodb:postgresql://127.0.0.1:" + servers.get(0).port + "/" + name + (q.isEmpty() ? "" : "?" + q);
    }

    private Server newServer(int i) throws IOException {
        Path dir = root.resolve("s" + i);
        Files.createDirectory(dir);
        giveToPostgres(dir);
        return new Server(i, dir, freePort(), settings);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** As root, the directory is the 'postgres' user's (PostgreSQL refuses to run as root). */
    private static void giveToPostgres(Path dir) throws IOException {
        if (!runsAsRoot()) return;
        UserPrincipal pg = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
        Files.setOwner(dir, pg);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }

    /** Runs a PostgreSQL binary (as 'postgres' when root); fails with its output if it fails. */
    static void run(List<String> command, long timeoutSeconds) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (runsAsRoot()) cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.directory(new java.io.File("/tmp")); // a directory 'postgres' may enter
        Process p = pb.start();
        byte[] out;
        try {
            out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + cmd);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + cmd, e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited with " + p.exitValue() + ": " + new String(out, StandardCharsets.UTF_8));
        }
    }

    /** Stops every server (fast) and removes the directories; idempotent. */
    @Override public synchronized void close() {
        for (Server s : servers) {
            try {
                s.stop(false);
            } catch (IOException | RuntimeException ignored) {
                // already stopped, or going anyway
            }
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }

    /** One PostgreSQL server of the cluster. */
    public static final class Server {
        private final int index;
        private final Path dir;
        private final int port;
        private volatile boolean running;

        Server(int index, Path dir, int port, List<String> settings) throws IOException {
            this.index = index;
            this.dir = dir;
            this.port = port;
            Path bin = binDir();
            run(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", USER, "--auth=trust",
                    "-E", "UTF8", "--locale=C", "--no-sync"), 120);
            String conf = String.join("\n",
                    "listen_addresses = '127.0.0.1'",
                    "port = " + port,
                    "unix_socket_directories = '" + dir + "'",
                    "fsync = off",
                    "synchronous_commit = off",
                    "full_page_writes = off",
                    "wal_level = logical",
                    "max_connections = 300",
                    "shared_buffers = 16MB",
                    // a replica set with capture=decoding holds a slot and a WAL sender on its primary's server
                    "max_wal_senders = 32",
                    "max_replication_slots = 32",
                    "log_min_messages = warning",
                    String.join("\n", settings),
                    "");
            Files.writeString(dir.resolve("data").resolve("postgresql.auto.conf"), conf, java.nio.file.StandardOpenOption.APPEND);
        }

        public int index() { return index; }

        public int port() { return port; }

        public boolean running() { return running; }

        /** The postmaster's process id (first line of {@code postmaster.pid}), or -1 if it cannot be read. */
        public long postmasterPid() {
            try {
                return Long.parseLong(Files.readAllLines(dir.resolve("data").resolve("postmaster.pid")).get(0).trim());
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        /** {@code pg_ctl -w start}. */
        public synchronized void start() throws IOException {
            run(List.of(binDir().resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l",
                    dir.resolve("server.log").toString(), "-w", "-t", "60", "start"), 90);
            running = true;
        }

        /** {@code pg_ctl stop}: {@code immediate} (a crash: no checkpoint, connections cut) or fast. */
        public synchronized void stop(boolean immediate) throws IOException {
            if (!running) return;
            running = false;
            run(List.of(binDir().resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m",
                    immediate ? "immediate" : "fast", "-w", "stop"), 90);
        }

        /** A plain pgjdbc URL of database {@code db} on this server. */
        public String jdbcUrl(String db) {
            return "jdbc:postgresql://127.0.0.1:" + port + "/" + db;
        }

        /** A plain pgjdbc connection, as the superuser. */
        public Connection connect(String db) throws SQLException {
            return DriverManager.getConnection(jdbcUrl(db), USER, "");
        }

        void createDatabase(String name) throws SQLException {
            try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE \"" + name + "\"");
            }
        }

        @Override public String toString() { return "postgresql#" + index + "@127.0.0.1:" + port; }
    }
}
