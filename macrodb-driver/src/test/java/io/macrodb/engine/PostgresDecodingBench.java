package io.macrodb.engine;

import io.macrodb.testing.PgCluster;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A measurement, not a test (run by hand; results and command in
 * benchmarks/results/2026-11-27-2core-pg-logical-decoding): trigger capture against logical decoding for
 * one-row {@code UPDATE} transactions, side by side in one run, on two PostgreSQL servers that {@link
 * PgCluster} starts, one with {@code wal_level=replica} and one with {@code wal_level=logical}, both with the
 * same {@code synchronous_commit} and {@code fsync} (arguments). Per round and client count, alternated,
 * each against a database of its own holding 1,000 rows:
 * <ul>
 * <li>{@code A} plain pgjdbc, {@code UPDATE} then {@code commit()}, on the {@code replica} server (the baseline);
 * <li>{@code B} MacroDB's trigger capture as {@link PostgresCaptureBench}'s "trigger + collectChanges": a
 *     primary session's capture trigger, {@link PostgresEngine#collectChanges} before each commit (the table
 *     is MacroDB's, kept open by a MacroDB connection with one replica), on the {@code replica} server;
 * <li>{@code T} the capture trigger alone, as {@code B} without the read-back (the session's change table
 *     grows over the run): of {@code B}'s cost, what the trigger's inserts take;
 * <li>{@code L} plain pgjdbc on the {@code logical} server, no slot (what {@code wal_level=logical} costs alone);
 * <li>{@code D} the same commits with a consumer draining a {@code pgoutput} slot through pgjdbc's {@link
 *     PGReplicationStream} (one thread, parsing every message as a decoder would), the commit not waiting
 *     for it; each commit is sent as {@code SELECT pg_current_xact_id_if_assigned(); COMMIT} in one round
 *     trip, so that its xid can be matched with the stream's;
 * <li>{@code W} as {@code D}, and the client waits until the consumer has decoded its transaction's
 *     {@code COMMIT} before it counts the transaction and starts the next: what MacroDB would do before
 *     acknowledging a commit, so that a read that starts after the acknowledgement finds it published.
 * </ul>
 * Per run: transactions per second; CPU per transaction of this JVM (clients and consumer together; the
 * consumer thread's own share apart) and of the server in use (its postmaster, live children and reaped
 * children, from /proc), over the run and, for {@code D} and {@code W}, until the consumer has decoded a
 * last marker transaction; a transaction's latency (start to acknowledgement); for {@code D} and {@code W},
 * the time from a commit's return to the client to the consumer's decoding of that commit, per transaction,
 * matched by xid. Before the rounds a probe prints what decoding gives and does not ({@code pgoutput}
 * messages and {@code test_decoding} text for replica identities, unchanged TOAST values, DDL, sequences).
 *
 * <p>Arguments: seconds per run, rounds, client counts ({@code 1,4}), {@code synchronous_commit}, {@code fsync}.
 * {@code java -cp target/classes:target/test-classes:<deps> io.macrodb.engine.PostgresDecodingBench 8 3 1,4 on off}.
 */
public final class PostgresDecodingBench {
    private static final int ROWS = 1000;
    private static final String PUBLICATION = "macrodb_bench";
    private static final String[] CONFIGS = {"A", "T", "B", "L", "D", "W"};
    private static final Map<String, String> NAMES = Map.of(
            "A", "plain, wal_level=replica",
            "T", "capture trigger only, replica",
            "B", "triggers + collectChanges, replica",
            "L", "plain, wal_level=logical, no slot",
            "D", "decoding, commit not waiting",
            "W", "decoding, commit waits for decode");

    private PostgresDecodingBench() {}

    public static void main(String[] args) throws Exception {
        int seconds = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        int[] clientCounts = Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
        String sync = args[3];
        String fsync = args[4];
        List<String> common = List.of("synchronous_commit = " + sync, "fsync = " + fsync);
        List<String> replica = new ArrayList<>(common);
        replica.add("wal_level = replica");
        List<String> logical = new ArrayList<>(common);
        logical.add("wal_level = logical");
        try (PgCluster rep = PgCluster.start(1, replica); PgCluster log = PgCluster.start(1, logical)) {
            PgCluster.Server rs = rep.server(0);
            PgCluster.Server ls = log.server(0);
            describe("replica server", rs);
            describe("logical server", ls);
            System.out.println("machine: " + Runtime.getRuntime().availableProcessors() + " processors; " + loadavg());

            Map<String, Target> targets = new LinkedHashMap<>();
            String aDb = rep.createDatabase();
            try (Connection c = rs.connect(aDb)) {
                setup(c);
            }
            targets.put("A", new Target(rs, rs.jdbcUrl(aDb), null));
            String m1 = rep.macroUrl(1, "capture=triggers");
            try (Connection keep = DriverManager.getConnection(m1, "sa", "")) { // its replica set keeps the triggers in place
                setup(keep);
                String bDb = PgCluster.primaryDatabase(m1);
                targets.put("B", new Target(rs, rs.jdbcUrl(bDb), null));
                targets.put("T", targets.get("B"));
                String lDb = log.createDatabase();
                try (Connection c = ls.connect(lDb)) {
                    setup(c);
                }
                targets.put("L", new Target(ls, ls.jdbcUrl(lDb), null));
                String dDb = log.createDatabase();
                try (Connection c = ls.connect(dDb); Statement s = c.createStatement()) {
                    setup(c);
                    s.execute("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE acct");
                }
                targets.put("D", new Target(ls, ls.jdbcUrl(dDb), ls.jdbcUrl(dDb)));
                targets.put("W", targets.get("D"));

                probe(log, ls);

                System.out.println("warm-up (not counted)");
                for (String cfg : CONFIGS) run(cfg, targets.get(cfg), 2, 4);

                List<Result> results = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    for (int clients : clientCounts) {
                        // rotate the order each round, so no configuration always runs first or after the same one
                        for (int i = 0; i < CONFIGS.length; i++) {
                            String cfg = CONFIGS[(i + r) % CONFIGS.length];
                            String load = loadavg();
                            Result res = run(cfg, targets.get(cfg), seconds, clients);
                            res.round = r;
                            res.load = load;
                            results.add(res);
                            System.out.println(res.line());
                        }
                    }
                }
                summary(results, clientCounts, rounds);
            }
        }
    }

    /** A configuration's server and database; {@code decodeUrl} non-null where a consumer drains a slot. */
    private record Target(PgCluster.Server server, String url, String decodeUrl) {}

    private static void describe(String what, PgCluster.Server s) throws SQLException {
        try (Connection c = s.connect("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT version(), current_setting('wal_level'), current_setting('synchronous_commit'),"
                     + " current_setting('fsync'), current_setting('full_page_writes'), current_setting('shared_buffers'),"
                     + " current_setting('wal_writer_delay')")) {
            rs.next();
            System.out.printf("%s: %s; wal_level=%s synchronous_commit=%s fsync=%s full_page_writes=%s shared_buffers=%s wal_writer_delay=%s%n",
                    what, rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7));
        }
    }

    private static void setup(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id int PRIMARY KEY, bal bigint NOT NULL, note text)");
            s.execute("INSERT INTO acct SELECT g, 0, 'x' FROM generate_series(1, " + ROWS + ") g");
        }
    }

    // ------------------------------------------------------------------------------------------ one run

    /** One run's numbers. */
    private static final class Result {
        String config;
        int clients;
        int round;
        String load;
        long txns;
        double seconds;
        long jvmCpuNanos;
        long serverCpuNanos;
        long consumerCpuNanos = -1;
        long drainNanos = -1;
        long[] txnLatency;     // start to acknowledgement, nanoseconds, sorted
        long[] decodeLatency;  // commit's return to the consumer's decoding of it, nanoseconds, sorted (D, W)
        int unmatched;
        double machineBusy;    // the whole machine's busy share of its CPUs over the run (all processes)

        double tps() { return txns / seconds; }

        double cpuMs(long nanos) { return nanos / 1e6 / txns; }

        String line() {
            StringBuilder b = new StringBuilder(String.format(
                    "round %d clients %d %s (%s): %.0f tps | cpu/txn ms: jvm %.3f server %.3f total %.3f | txn ms p50 %.3f p99 %.3f"
                            + " | load %s, machine busy %.0f%%",
                    round, clients, config, NAMES.get(config), tps(), cpuMs(jvmCpuNanos), cpuMs(serverCpuNanos),
                    cpuMs(jvmCpuNanos + serverCpuNanos), pct(txnLatency, 50) / 1e6, pct(txnLatency, 99) / 1e6, load, machineBusy * 100));
            if (decodeLatency != null) {
                b.append(String.format(" | commit->decoded ms p50 %.3f p90 %.3f p99 %.3f max %.3f min %.3f (%d matched, %d not)"
                                + " | consumer cpu/txn ms %.3f | drain ms %.1f",
                        pct(decodeLatency, 50) / 1e6, pct(decodeLatency, 90) / 1e6, pct(decodeLatency, 99) / 1e6,
                        pct(decodeLatency, 100) / 1e6, pct(decodeLatency, 0) / 1e6, decodeLatency.length, unmatched,
                        cpuMs(consumerCpuNanos), drainNanos / 1e6));
            }
            return b.toString();
        }
    }

    private static Result run(String cfg, Target t, int seconds, int clients) throws Exception {
        boolean decode = cfg.equals("D") || cfg.equals("W");
        boolean wait = cfg.equals("W");
        String slot = "macrodb_bench_" + System.nanoTime();
        Decoder decoder = null;
        Thread decoderThread = null;
        if (decode) {
            decoder = new Decoder(t.decodeUrl(), slot, wait);
            decoderThread = new Thread(decoder, "decoder");
            decoderThread.start();
            decoder.started.get(60, TimeUnit.SECONDS);
        }
        PostgresEngine engine = new PostgresEngine();
        CaptureContext sink = new CaptureContext() {
            @Override public void onRow(String schema, String table, Object[] oldRow, Object[] newRow) {
            }
        };
        long[] busy0 = machineTicks();
        long jvm0 = jvmCpuNanos();
        long srv0 = serverCpuNanos(t.server());
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Future<Client>> fs = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Decoder d = decoder;
            fs.add(pool.submit(() -> client(cfg, t.url(), end, engine, sink, d)));
        }
        List<Client> done = new ArrayList<>();
        for (Future<Client> f : fs) done.add(f.get());
        pool.shutdown();
        long clientsEnd = System.nanoTime();
        Result res = new Result();
        res.config = cfg;
        res.clients = clients;
        res.seconds = (clientsEnd - start) / 1e9;
        if (decode) {
            // a last transaction, whose decoding ends the consumer: everything committed before it is decoded by then
            try (Connection c = DriverManager.getConnection(t.url(), "sa", "")) {
                c.setAutoCommit(false);
                long xid;
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE acct SET note = note WHERE id = 1");
                    try (ResultSet rs = s.executeQuery("SELECT pg_current_xact_id_if_assigned()")) {
                        rs.next();
                        xid = rs.getLong(1);
                    }
                }
                decoder.stopAt((int) xid);
                c.commit();
            }
            decoderThread.join(120_000);
            if (decoderThread.isAlive()) throw new IllegalStateException("the consumer did not reach the marker transaction");
            if (decoder.failure != null) throw new IllegalStateException("consumer failed", decoder.failure);
            res.drainNanos = System.nanoTime() - clientsEnd;
        }
        // the clients' backends exit after their connections close; until the postmaster reaps one, /proc shows
        // a zombie without its CPU time, and the first runs lost whole backends that way
        Thread.sleep(300);
        res.jvmCpuNanos = jvmCpuNanos() - jvm0;
        res.serverCpuNanos = serverCpuNanos(t.server()) - srv0;
        long[] busy1 = machineTicks();
        res.machineBusy = (busy1[0] - busy0[0]) / (double) Math.max(1, busy1[1] - busy0[1]);
        LongList lat = new LongList();
        for (Client c : done) {
            res.txns += c.latency.size;
            lat.addAll(c.latency);
        }
        res.txnLatency = lat.sorted();
        if (decode) {
            res.consumerCpuNanos = decoder.cpuNanos;
            Map<Integer, Long> decodedAt = new HashMap<>();
            for (int i = 0; i < decoder.xids.size; i++) decodedAt.put((int) decoder.xids.get(i), decoder.times.get(i));
            LongList d = new LongList();
            for (Client c : done) {
                for (int i = 0; i < c.xids.size; i++) {
                    Long at = decodedAt.get((int) c.xids.get(i));
                    if (at == null) res.unmatched++;
                    else d.add(at - c.committed.get(i));
                }
            }
            res.decodeLatency = d.sorted();
            dropSlot(t.url(), slot);
        }
        return res;
    }

    /** One client's record of its transactions. */
    private static final class Client {
        final LongList latency = new LongList();
        final LongList xids = new LongList();
        final LongList committed = new LongList();
    }

    private static Client client(String cfg, String url, long end, PostgresEngine engine, CaptureContext sink, Decoder decoder) throws Exception {
        Client me = new Client();
        Random rnd = new Random();
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            if (cfg.equals("B") || cfg.equals("T")) engine.configureSession(c, 10_000, true);
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE acct SET bal = bal + 1 WHERE id = ?");
                 // the xid travels in the COMMIT's round trip (pgjdbc sends both statements, then one Sync)
                 PreparedStatement commit = c.prepareStatement("SELECT pg_current_xact_id_if_assigned(); COMMIT")) {
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    ps.setInt(1, 1 + rnd.nextInt(ROWS));
                    ps.executeUpdate();
                    try {
                        if (decoder == null) {
                            if (cfg.equals("B")) engine.collectChanges(c, sink);
                            c.commit();
                        } else {
                            long xid;
                            commit.execute();
                            try (ResultSet rs = commit.getResultSet()) {
                                rs.next();
                                xid = rs.getLong(1);
                            }
                            commit.getMoreResults();
                            long t1 = System.nanoTime();
                            me.xids.add(xid);
                            me.committed.add(t1);
                            if (cfg.equals("W")) decoder.await((int) xid);
                        }
                        me.latency.add(System.nanoTime() - t0);
                    } catch (SQLException e) {
                        c.rollback();
                    }
                }
            }
        }
        return me;
    }

    // ------------------------------------------------------------------------------------------ the consumer

    /**
     * One thread draining a {@code pgoutput} slot through {@link PGReplicationStream}, blocking in {@code read()}
     * (lowest latency), parsing every message as a decoder building change records would (relations, tuples
     * as text), recording each decoded {@code COMMIT}'s xid and time, waking the client that waits for it,
     * and confirming the commit's end LSN (sent at the status interval).
     */
    private static final class Decoder implements Runnable {
        final java.util.concurrent.CompletableFuture<Void> started = new java.util.concurrent.CompletableFuture<>();
        final LongList xids = new LongList();
        final LongList times = new LongList();
        private final String url;
        private final String slot;
        private final boolean wait;
        private final ConcurrentHashMap<Integer, Long> decoded = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<Integer, Thread> waiting = new ConcurrentHashMap<>();
        private final Map<Integer, String[]> relations = new HashMap<>();
        private volatile int stopXid;
        private volatile boolean stopSet;
        volatile Throwable failure;
        long cpuNanos;
        long rows;

        Decoder(String url, String slot, boolean wait) {
            this.url = url;
            this.slot = slot;
            this.wait = wait;
        }

        void stopAt(int xid) {
            stopXid = xid;
            stopSet = true;
        }

        /** Returns once the consumer has decoded the commit of {@code xid}. */
        void await(int xid) {
            Thread me = Thread.currentThread();
            waiting.put(xid, me);
            while (decoded.remove(xid) == null) LockSupport.parkNanos(10_000_000L);
            waiting.remove(xid);
        }

        @Override public void run() {
            ThreadMXBean tm = ManagementFactory.getThreadMXBean();
            long cpu0 = tm.getCurrentThreadCpuTime();
            try (Connection rc = DriverManager.getConnection(url, replicationProperties())) {
                PGConnection pg = rc.unwrap(PGConnection.class);
                pg.getReplicationAPI().createReplicationSlot().logical().withSlotName(slot).withOutputPlugin("pgoutput").make();
                try (PGReplicationStream stream = pg.getReplicationAPI().replicationStream().logical().withSlotName(slot)
                        .withSlotOption("proto_version", 1).withSlotOption("publication_names", PUBLICATION)
                        .withStatusInterval(1, TimeUnit.SECONDS).start()) {
                    started.complete(null);
                    int xid = 0;
                    while (true) {
                        ByteBuffer m = stream.read();
                        byte type = m.get();
                        switch (type) {
                            case 'B' -> {
                                m.getLong(); // final LSN
                                m.getLong(); // commit time
                                xid = m.getInt();
                            }
                            case 'C' -> {
                                long now = System.nanoTime();
                                m.get();
                                m.getLong();
                                long endLsn = m.getLong();
                                xids.add(xid);
                                times.add(now);
                                if (wait) {
                                    decoded.put(xid, now);
                                    Thread w = waiting.remove(xid);
                                    if (w != null) LockSupport.unpark(w);
                                }
                                stream.setAppliedLSN(LogSequenceNumber.valueOf(endLsn));
                                stream.setFlushedLSN(LogSequenceNumber.valueOf(endLsn));
                            }
                            case 'R' -> {
                                int rel = m.getInt();
                                String ns = cstring(m);
                                String name = cstring(m);
                                m.get();
                                int n = m.getShort();
                                String[] cols = new String[n + 1];
                                cols[0] = ns + "." + name;
                                for (int i = 0; i < n; i++) {
                                    m.get();
                                    cols[i + 1] = cstring(m);
                                    m.getInt();
                                    m.getInt();
                                }
                                relations.put(rel, cols);
                            }
                            case 'I', 'U', 'D' -> {
                                int rel = m.getInt();
                                if (!relations.containsKey(rel)) throw new IllegalStateException("row before its relation");
                                while (m.hasRemaining()) {
                                    m.get(); // 'K', 'O' or 'N'
                                    tuple(m);
                                }
                                rows++;
                            }
                            default -> { } // type, origin, truncate: not in this workload
                        }
                        if (type == 'C' && stopSet && xid == stopXid) break;
                    }
                    stream.forceUpdateStatus();
                }
            } catch (Throwable e) {
                failure = e;
                started.completeExceptionally(e);
            } finally {
                cpuNanos = tm.getCurrentThreadCpuTime() - cpu0;
            }
        }
    }

    private static Properties replicationProperties() {
        Properties p = new Properties();
        PGProperty.USER.set(p, "sa");
        PGProperty.PASSWORD.set(p, "");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "9.4");
        PGProperty.REPLICATION.set(p, "database");
        PGProperty.PREFER_QUERY_MODE.set(p, "simple");
        return p;
    }

    private static void dropSlot(String url, String slot) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            for (int i = 0; ; i++) {
                try {
                    s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
                    return;
                } catch (SQLException e) {
                    if (i >= 100) throw e;
                    Thread.sleep(100); // the walsender has not let go of it yet
                }
            }
        }
    }

    private static String cstring(ByteBuffer m) {
        int start = m.position();
        while (m.get() != 0) {
            // to the terminating zero
        }
        return new String(m.array(), m.arrayOffset() + start, m.position() - start - 1, StandardCharsets.UTF_8);
    }

    /** A TupleData's columns as text: null for SQL NULL, "<unchanged toast>" for a value pgoutput left out. */
    private static String[] tuple(ByteBuffer m) {
        int n = m.getShort();
        String[] v = new String[n];
        for (int i = 0; i < n; i++) {
            byte kind = m.get();
            if (kind == 'n') v[i] = null;
            else if (kind == 'u') v[i] = "<unchanged toast>";
            else {
                int len = m.getInt();
                v[i] = new String(m.array(), m.arrayOffset() + m.position(), len, StandardCharsets.UTF_8);
                m.position(m.position() + len);
            }
        }
        return v;
    }

    // ------------------------------------------------------------------------------------------ what decoding gives

    /**
     * Prints, from a {@code pgoutput} slot (read with {@code pg_logical_slot_get_binary_changes} and parsed
     * as above) and a {@code test_decoding} slot on the same changes, what a decoder sees of: an update of a
     * non-key column under the default replica identity and under {@code REPLICA IDENTITY FULL}; a key
     * change; an update that leaves a TOASTed value unchanged; DDL ({@code ALTER TABLE}, {@code CREATE
     * TABLE}); {@code nextval} alone and through a default; {@code TRUNCATE}.
     */
    private static void probe(PgCluster log, PgCluster.Server s) throws SQLException {
        String db = log.createDatabase();
        System.out.println("== what decoding gives (pgoutput proto 1 and test_decoding, " + db + ")");
        try (Connection c = s.connect(db); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE probe (id int PRIMARY KEY, v int, big text)");
            st.execute("CREATE SEQUENCE probe_seq");
            st.execute("CREATE PUBLICATION probe_pub FOR ALL TABLES");
            st.execute("SELECT pg_create_logical_replication_slot('probe_po', 'pgoutput')");
            st.execute("SELECT pg_create_logical_replication_slot('probe_td', 'test_decoding')");
            Map<String, String> steps = new LinkedHashMap<>();
            steps.put("insert (big: 100 kB of incompressible text, TOASTed)",
                    "INSERT INTO probe SELECT 1, 1, string_agg(md5(g::text), '') FROM generate_series(1, 3200) g");
            steps.put("update non-key v, default replica identity", "UPDATE probe SET v = 2 WHERE id = 1");
            steps.put("update key id 1 -> 2, default replica identity", "UPDATE probe SET id = 2 WHERE id = 1");
            steps.put("ALTER TABLE probe REPLICA IDENTITY FULL", "ALTER TABLE probe REPLICA IDENTITY FULL");
            steps.put("update non-key v, replica identity full", "UPDATE probe SET v = 3 WHERE id = 2");
            steps.put("ALTER TABLE probe ADD COLUMN extra int", "ALTER TABLE probe ADD COLUMN extra int");
            steps.put("CREATE TABLE probe2", "CREATE TABLE probe2 (id int PRIMARY KEY DEFAULT nextval('probe_seq'), w text)");
            steps.put("SELECT nextval('probe_seq') x3, alone", "SELECT nextval('probe_seq'), nextval('probe_seq'), nextval('probe_seq')");
            steps.put("INSERT INTO probe2 (w) VALUES ('a'): the default's nextval", "INSERT INTO probe2 (w) VALUES ('a')");
            steps.put("update v after the ADD COLUMN", "UPDATE probe SET v = 4 WHERE id = 2");
            steps.put("TRUNCATE probe2", "TRUNCATE probe2");
            for (Map.Entry<String, String> e : steps.entrySet()) {
                st.execute(e.getValue());
                System.out.println("-- " + e.getKey());
                Map<Integer, String[]> rels = new HashMap<>();
                try (ResultSet rs = st.executeQuery("SELECT data FROM pg_logical_slot_get_binary_changes('probe_po', NULL, NULL,"
                        + " 'proto_version', '1', 'publication_names', 'probe_pub')")) {
                    int n = 0;
                    while (rs.next()) {
                        System.out.println("   pgoutput: " + describeMessage(ByteBuffer.wrap(rs.getBytes(1)), rels));
                        n++;
                    }
                    if (n == 0) System.out.println("   pgoutput: (nothing)");
                }
                try (ResultSet rs = st.executeQuery("SELECT data FROM pg_logical_slot_get_changes('probe_td', NULL, NULL)")) {
                    int n = 0;
                    while (rs.next()) {
                        String d = rs.getString(1);
                        System.out.println("   test_decoding: " + (d.length() > 160 ? d.substring(0, 160) + "... (" + d.length() + " chars)" : d));
                        n++;
                    }
                    if (n == 0) System.out.println("   test_decoding: (nothing)");
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT data FROM pg_logical_slot_get_changes('probe_td', NULL, NULL, 'include-sequences', '1')")) {
                System.out.println("-- test_decoding option include-sequences: accepted");
            } catch (SQLException e) {
                System.out.println("-- test_decoding option include-sequences: " + e.getMessage().replace('\n', ' '));
            }
            st.execute("SELECT pg_drop_replication_slot('probe_po')");
            st.execute("SELECT pg_drop_replication_slot('probe_td')");
        }
    }

    private static String describeMessage(ByteBuffer m, Map<Integer, String[]> rels) {
        char type = (char) m.get();
        switch (type) {
            case 'B': {
                m.getLong();
                m.getLong();
                return "BEGIN xid " + Integer.toUnsignedString(m.getInt());
            }
            case 'C':
                return "COMMIT";
            case 'R': {
                int rel = m.getInt();
                String ns = cstring(m);
                String name = cstring(m);
                char ident = (char) m.get();
                int n = m.getShort();
                List<String> cols = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    byte flags = m.get();
                    String col = cstring(m);
                    m.getInt();
                    m.getInt();
                    cols.add(col + ((flags & 1) != 0 ? " (key)" : ""));
                }
                rels.put(rel, cols.toArray(new String[0]));
                return "RELATION " + ns + "." + name + " replica identity " + ident + " " + cols;
            }
            case 'I':
            case 'U':
            case 'D': {
                m.getInt();
                StringBuilder b = new StringBuilder(type == 'I' ? "INSERT" : type == 'U' ? "UPDATE" : "DELETE");
                boolean old = false;
                while (m.hasRemaining()) {
                    char part = (char) m.get();
                    String[] v = tuple(m);
                    if (part != 'N') old = true;
                    b.append(part == 'K' ? " old key " : part == 'O' ? " old row " : " new row ").append(shortValues(v));
                }
                if (type == 'U' && !old) b.append(" (no old image)");
                return b.toString();
            }
            case 'T': {
                int n = m.getInt();
                return "TRUNCATE of " + n + " relation(s)";
            }
            case 'Y':
                return "TYPE";
            default:
                return "message '" + type + "'";
        }
    }

    private static String shortValues(String[] v) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < v.length; i++) {
            if (i > 0) b.append(", ");
            String s = v[i];
            b.append(s == null ? "null" : s.length() > 24 ? s.substring(0, 12) + "...(" + s.length() + " chars)" : s);
        }
        return b.append(')').toString();
    }

    // ------------------------------------------------------------------------------------------ summary

    private static void summary(List<Result> results, int[] clientCounts, int rounds) {
        System.out.println();
        System.out.println("== summary: medians over " + rounds + " rounds (min-max); ratios against A of the same round and client count");
        System.out.println("| clients | config | tps | tps/A | cpu/txn ms (jvm+server) | cpu/A | server cpu/A | txn p50 ms | txn p99 ms"
                + " | commit->decoded p50 ms | p99 ms | max ms | consumer cpu/txn ms |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (int clients : clientCounts) {
            for (String cfg : CONFIGS) {
                List<Double> tps = new ArrayList<>(), tpsR = new ArrayList<>(), cpu = new ArrayList<>(), cpuR = new ArrayList<>(),
                        srvR = new ArrayList<>(), p50 = new ArrayList<>(), p99 = new ArrayList<>(), d50 = new ArrayList<>(),
                        d99 = new ArrayList<>(), dmax = new ArrayList<>(), ccpu = new ArrayList<>();
                for (Result r : results) {
                    if (r.clients != clients || !r.config.equals(cfg)) continue;
                    Result a = results.stream().filter(x -> x.clients == clients && x.round == r.round && x.config.equals("A")).findFirst().orElseThrow();
                    tps.add(r.tps());
                    tpsR.add(r.tps() / a.tps());
                    cpu.add(r.cpuMs(r.jvmCpuNanos + r.serverCpuNanos));
                    cpuR.add(r.cpuMs(r.jvmCpuNanos + r.serverCpuNanos) / a.cpuMs(a.jvmCpuNanos + a.serverCpuNanos));
                    srvR.add(r.cpuMs(r.serverCpuNanos) / a.cpuMs(a.serverCpuNanos));
                    p50.add(pct(r.txnLatency, 50) / 1e6);
                    p99.add(pct(r.txnLatency, 99) / 1e6);
                    if (r.decodeLatency != null) {
                        d50.add(pct(r.decodeLatency, 50) / 1e6);
                        d99.add(pct(r.decodeLatency, 99) / 1e6);
                        dmax.add(pct(r.decodeLatency, 100) / 1e6);
                        ccpu.add(r.cpuMs(r.consumerCpuNanos));
                    }
                }
                System.out.printf("| %d | %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", clients, cfg, NAMES.get(cfg),
                        med(tps, "%.0f"), med(tpsR, "%.2f"), med(cpu, "%.3f"), med(cpuR, "%.2f"), med(srvR, "%.2f"), med(p50, "%.3f"),
                        med(p99, "%.2f"), med(d50, "%.3f"), med(d99, "%.2f"), med(dmax, "%.1f"), med(ccpu, "%.3f"));
            }
        }
    }

    private static String med(List<Double> v, String fmt) {
        if (v.isEmpty()) return "";
        double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double m = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        return String.format(fmt + " (" + fmt + "-" + fmt + ")", m, s[0], s[s.length - 1]);
    }

    private static double pct(long[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100 * sorted.length) - 1));
        return sorted[i];
    }

    // ------------------------------------------------------------------------------------------ CPU and load

    private static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** USER_HZ: the unit of /proc/PID/stat's times. */
    private static final long CLOCK_TICKS = 100;

    /** The server's CPU so far: its postmaster with its reaped children, and its live children (as PgServers counts). */
    private static long serverCpuNanos(PgCluster.Server s) throws Exception {
        long pm = s.postmasterPid();
        long ticks = 0;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) continue;
                long[] f = stat(p.resolve("stat"));
                if (f == null) continue;
                if (Long.parseLong(name) == pm) ticks += f[1] + f[2] + f[3] + f[4];
                else if (f[0] == pm) ticks += f[1] + f[2];
            }
        }
        return ticks * (1_000_000_000L / CLOCK_TICKS);
    }

    /** ppid, utime, stime, cutime, cstime of /proc/PID/stat, or null if the process is gone. */
    private static long[] stat(Path file) {
        String s;
        try {
            s = Files.readString(file);
        } catch (Exception e) {
            return null;
        }
        int close = s.lastIndexOf(')');
        if (close < 0) return null;
        String[] f = s.substring(close + 2).split(" ");
        if (f.length < 15) return null;
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])};
    }

    /** The machine's busy and total ticks so far, over all CPUs (/proc/stat's first line). */
    private static long[] machineTicks() throws Exception {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length && i <= 8; i++) total += Long.parseLong(f[i]);
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        return new long[] {total - idle, total};
    }

    private static String loadavg() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return "loadavg " + f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "loadavg ?";
        }
    }

    /** A growable array of longs, written by one thread. */
    private static final class LongList {
        long[] a = new long[1024];
        int size;

        void add(long v) {
            if (size == a.length) a = Arrays.copyOf(a, size * 2);
            a[size++] = v;
        }

        long get(int i) { return a[i]; }

        void addAll(LongList o) {
            for (int i = 0; i < o.size; i++) add(o.a[i]);
        }

        long[] sorted() {
            long[] s = Arrays.copyOf(a, size);
            Arrays.sort(s);
            return s;
        }
    }
}
