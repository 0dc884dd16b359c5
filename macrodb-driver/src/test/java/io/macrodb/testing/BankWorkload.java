package io.macrodb.testing;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.route.ReadWaits;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bank workload the consistency, fault and failover tests share: writers move money between
 * accounts in update transactions, so the total never changes; readers sum every balance and report
 * any other total as a violation.
 *
 * <p>It runs until counts are reached ({@link #transfers(long)} committed transfers, {@link #reads(long)}
 * reads, and {@link #readsOnSecondaries(long)} of them on secondaries, each seen both by the reader and
 * in {@link MacroConnection#readWaits()}), not for a fixed time, so a slow machine does the same work as a
 * fast one; {@link #limit(Duration)} is only a safety limit, and reaching it fails the test. {@link #stop()}
 * always asserts that transfers committed and reads ran (more than zero, and at least the counts asked
 * for), that no read saw a wrong total, and that no read had to be retried unless the test said reads
 * may be ({@link #retriedReadsAllowed()}). The seed ({@link TestDb#seed}) is printed at the start and in
 * the summary; writer {@code i} draws from {@code new Random(seed + i)}.
 *
 * <pre>
 * try (BankWorkload bank = BankWorkload.of("bank h2 row", url).accounts(50, 1_000).transfers(400).reads(2_000)) {
 *     bank.createAccounts(admin);
 *     bank.run();                    // start, wait for the counts, stop and assert
 *     TestDb.assertConverged(admin);
 *     bank.assertTotal(admin);
 * }
 * </pre>
 * Tests that inject something while the load runs use {@link #start()}, {@link #awaitProgress(long, long)}
 * and {@link #stop()} instead of {@link #run()}.
 */
public final class BankWorkload implements AutoCloseable {

    /** One writer thread's client. */
    public interface Writer extends AutoCloseable {
        /**
         * One attempt at a transfer: true once its commit returned, false if it was rolled back to be
         * retried (a conflict, 40001); anything else it throws fails the test.
         */
        boolean transfer(Random rnd) throws Exception;

        @Override
        default void close() throws Exception {}
    }

    /** One reader thread's client. */
    public interface Reader extends AutoCloseable {
        /** One read of the total, or null if it was rolled back with 40001 to be retried. */
        Read read() throws Exception;

        @Override
        default void close() throws Exception {}
    }

    /**
     * What one read saw, and whether it ran on a secondary (as the reader's connection reports it); {@code detail}, when
     * a reader can tell more about a wrong total (where it read and what each account held there), goes into the
     * violation.
     */
    public record Read(long total, boolean onSecondary, String detail) {
        public Read(long total, boolean onSecondary) {
            this(total, onSecondary, null);
        }
    }

    /** How many wrong totals a reader describes in detail ({@link #describeWrongRead}); the rest are only counted. */
    private static final int DESCRIBED_VIOLATIONS = 5;
    private final AtomicLong described = new AtomicLong();

    @FunctionalInterface
    public interface WriterFactory {
        Writer open(int index) throws Exception;
    }

    @FunctionalInterface
    public interface ReaderFactory {
        Reader open(int index) throws Exception;
    }

    /** The counts of a stopped run. {@code readWaits} is the database's routing of the run's read-only transactions. */
    public record Result(long transfers, long retriedTransfers, long reads, long readsOnSecondaries, long retriedReads,
                         ReadWaits.Stats readWaits) {}

    private final String name;
    private final String url;
    private final long seed;
    private int accounts = 20;
    private long initial = 1_000;
    private int writerCount = 2;
    private WriterFactory writerFactory;
    private final List<ReaderFactory> readerFactories = new ArrayList<>();
    private long minTransfers = 1;
    private long minReads = 1;
    private long minReadsOnSecondaries;
    private boolean retriedReadsAllowed;
    private Duration limit = UntilCounts.HANG_GUARD;

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong transfers = new AtomicLong();
    private final AtomicLong retriedTransfers = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong readsOnSecondaries = new AtomicLong();
    private final AtomicLong retriedReads = new AtomicLong();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    /** Why transfers were retried: SQLState and message (with the cause's), by count ({@link #retried}). */
    private final java.util.concurrent.ConcurrentHashMap<String, AtomicLong> retryCauses = new java.util.concurrent.ConcurrentHashMap<>();
    private final List<java.util.function.Supplier<String>> stallDiagnostics = new ArrayList<>();
    private Duration stallReport = Duration.ofSeconds(20);
    private final List<Future<?>> futures = new ArrayList<>();
    private ExecutorService pool;
    private Connection observer;
    private ReadWaits.Stats waitsAtStart;
    private Result result;

    private BankWorkload(String name, String url) {
        this.name = name;
        this.url = url;
        this.seed = TestDb.seed(name);
        this.writerFactory = plainTransfers(false, 100);
    }

    /** A workload on the MacroDB database at {@code url}; {@code name} labels its output and picks its seed. */
    public static BankWorkload of(String name, String url) {
        return new BankWorkload(name, url);
    }

    // ------------------------------------------------------------------ configuration

    public BankWorkload accounts(int n, long initialBalance) {
        this.accounts = n;
        this.initial = initialBalance;
        return this;
    }

    /** {@code n} writer threads, each with a client from {@code factory}. Default: 2 {@link #plainTransfers}. */
    public BankWorkload writers(int n, WriterFactory factory) {
        this.writerCount = n;
        this.writerFactory = factory;
        return this;
    }

    /** Adds {@code n} reader threads, each with a client from {@code factory}. */
    public BankWorkload readers(int n, ReaderFactory factory) {
        for (int i = 0; i < n; i++) readerFactories.add(factory);
        return this;
    }

    /** Committed transfers {@link #run()} waits for and {@link #stop()} asserts (at least 1). */
    public BankWorkload transfers(long n) {
        this.minTransfers = Math.max(1, n);
        return this;
    }

    /** Reads {@link #run()} waits for and {@link #stop()} asserts (at least 1). */
    public BankWorkload reads(long n) {
        this.minReads = Math.max(1, n);
        return this;
    }

    /**
     * Reads that must have run on secondaries, as the readers saw it and as the database's
     * {@link MacroConnection#readWaits()} counted it ({@code onSecondaries()} over the run):
     * {@link #run()} waits for them and {@link #stop()} asserts them.
     */
    public BankWorkload readsOnSecondaries(long n) {
        this.minReadsOnSecondaries = n;
        return this;
    }

    /** Reads may fail with 40001 and be retried (faults, failover); otherwise one retried read fails the test. */
    public BankWorkload retriedReadsAllowed() {
        this.retriedReadsAllowed = true;
        return this;
    }

    /** The hang guard on any one wait for counts; reaching it fails the test. Default {@link UntilCounts#HANG_GUARD}. */
    public BankWorkload limit(Duration d) {
        this.limit = d;
        return this;
    }

    /**
     * Something printed (with the retry causes and every thread's stack) when the writers made no progress for
     * {@code after} (once per stall, the load goes on), and again if the hang guard fails the test: for example the
     * engine's lock table. Default 20 s.
     */
    public BankWorkload onStall(Duration after, java.util.function.Supplier<String> diagnostics) {
        this.stallReport = after;
        stallDiagnostics.add(diagnostics);
        return this;
    }

    // ------------------------------------------------------------------ state and helpers for clients

    /**
     * Records why a transfer was retried ({@code e}'s SQLState and message, and its causes'), so that a stall
     * says what the writers kept meeting; a client that retries by itself calls this.
     */
    public void retried(Throwable e) {
        retryCauses.computeIfAbsent(describe(e), k -> new AtomicLong()).incrementAndGet();
        // a lock wait that timed out, or a sequence whose catalog row someone holds: who holds what, now (twice at most)
        if (!stallDiagnostics.isEmpty() && lockRetryReports.get() < 2 && hasState(e, "40XL1", "40XL2", "X0Y84")
                && lockRetryReports.incrementAndGet() <= 2) {
            System.out.println(name + ": RETRY ON A LOCK: " + describe(e) + ": " + stallReport());
        }
    }

    private final AtomicLong lockRetryReports = new AtomicLong();

    private static boolean hasState(Throwable e, String... states) {
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof SQLException se && java.util.Arrays.asList(states).contains(se.getSQLState())) return true;
        }
        return false;
    }

    private static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t) && seen.size() <= 3; t = t.getCause()) {
            if (sb.length() > 0) sb.append(" <- ");
            String msg = String.valueOf(t.getMessage()).replaceAll("\\d+", "N"); // counts and ids apart, one cause
            if (msg.length() > 160) msg = msg.substring(0, 160) + "...";
            sb.append(t instanceof SQLException se ? se.getSQLState() : t.getClass().getSimpleName()).append(' ').append(msg);
        }
        return sb.toString();
    }

    /** The retry causes so far, most frequent first. */
    public String retryCauses() {
        StringBuilder sb = new StringBuilder();
        retryCauses.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().get(), a.getValue().get())).limit(8)
                .forEach(e -> sb.append("\n  ").append(e.getValue().get()).append(" x ").append(e.getKey()));
        return sb.length() == 0 ? " none recorded" : sb.toString();
    }

    /** What a stall report prints: progress, retry causes, the test's diagnostics, every thread's stack. */
    private String stallReport() {
        StringBuilder sb = new StringBuilder(name + ": " + progress() + "; retry causes:" + retryCauses() + "\n" + replicaStatus());
        for (java.util.function.Supplier<String> d : stallDiagnostics) {
            try {
                sb.append('\n').append(d.get());
            } catch (RuntimeException e) {
                sb.append("\n(diagnostics failed: ").append(e).append(')');
            }
        }
        sb.append("\nthreads:");
        for (java.lang.management.ThreadInfo ti : java.lang.management.ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            sb.append("\n\"").append(ti.getThreadName()).append("\" ").append(ti.getThreadState());
            if (ti.getLockName() != null) sb.append(" on ").append(ti.getLockName());
            if (ti.getLockOwnerName() != null) sb.append(" owned by \"").append(ti.getLockOwnerName()).append('"');
            for (StackTraceElement f : ti.getStackTrace()) sb.append("\n    at ").append(f);
        }
        return sb.toString();
    }


    public long seed() {
        return seed;
    }

    public String url() {
        return url;
    }

    public int accounts() {
        return accounts;
    }

    public long expectedTotal() {
        return accounts * initial;
    }

    /** Whether the workload was told to stop: a client that loops by itself checks this. */
    public boolean stopping() {
        return stop.get();
    }

    /** Records something a client saw that must not happen; {@link #stop()} fails if there is any. */
    public void violation(String what) {
        violations.add(what);
    }

    public long committedTransfers() {
        return transfers.get();
    }

    public long completedReads() {
        return reads.get();
    }

    /** Creates table {@code account (id INT PRIMARY KEY, balance BIGINT NOT NULL)} with every account at its initial balance. */
    public void createAccounts(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
        }
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO account VALUES (?, ?)")) {
            for (int i = 0; i < accounts; i++) {
                ps.setInt(1, i);
                ps.setLong(2, initial);
                ps.addBatch();
            }
            ps.executeBatch();
            c.commit();
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    /** Asserts that the sum of every balance, read through {@code c}, is the initial total: no transfer was lost or made up. */
    public void assertTotal(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
            assertTrue(rs.next());
            assertEquals(expectedTotal(), rs.getLong(1), name + ": no transfer was lost or made up");
        }
    }

    /** Two distinct accounts for a transfer, drawn from {@code rnd}. */
    public int[] pickPair(Random rnd) {
        int from = rnd.nextInt(accounts);
        int to = (from + 1 + rnd.nextInt(accounts - 1)) % accounts;
        return new int[] {from, to};
    }

    // ------------------------------------------------------------------ the usual clients

    /**
     * Writers that move 1..{@code maxAmount} between two distinct accounts with two
     * {@code UPDATE account SET balance = balance + ?} statements in one transaction, retried on 40001
     * by {@link TestDb#inTransaction}; {@code inIdOrder}: the lower id is updated first (no deadlocks).
     */
    public WriterFactory plainTransfers(boolean inIdOrder, int maxAmount) {
        return index -> {
            Connection c = TestDb.open(url);
            c.setAutoCommit(false);
            PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?");
            return new Writer() {
                @Override
                public boolean transfer(Random rnd) throws Exception {
                    int[] pair = pickPair(rnd);
                    long amount = 1 + rnd.nextInt(maxAmount);
                    boolean swap = inIdOrder && pair[0] > pair[1];
                    int first = swap ? pair[1] : pair[0];
                    int second = swap ? pair[0] : pair[1];
                    long firstDelta = swap ? amount : -amount;
                    TestDb.inTransaction(c, tx -> {
                        ps.setLong(1, firstDelta);
                        ps.setInt(2, first);
                        ps.executeUpdate();
                        ps.setLong(1, -firstDelta);
                        ps.setInt(2, second);
                        ps.executeUpdate();
                    });
                    return true;
                }

                @Override
                public void close() throws SQLException {
                    ps.close();
                    c.close();
                }
            };
        };
    }

    /**
     * Readers in declared read-only transactions ({@code setReadOnly(true)}, autocommit off). With
     * {@code twoStatements} each transaction reads every balance and then {@code SUM(balance)}, and the two
     * must agree (one transaction sees one state); otherwise it reads {@code SUM(balance)} only. A 40001 is
     * rolled back and reported as a retried read.
     */
    public ReaderFactory declaredReaders(boolean twoStatements) {
        return index -> {
            Connection c = openReader();
            MacroConnection mc = TestDb.macro(c);
            c.setReadOnly(true);
            c.setAutoCommit(false);
            return new Reader() {
                @Override
                public Read read() throws Exception {
                    try (Statement s = c.createStatement()) {
                        long total;
                        if (twoStatements) {
                            long sum = 0;
                            try (ResultSet rs = s.executeQuery("SELECT balance FROM account")) {
                                while (rs.next()) sum += rs.getLong(1);
                            }
                            long agg;
                            try (ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                                rs.next();
                                agg = rs.getLong(1);
                            }
                            if (agg != sum) {
                                violation("two reads of one transaction disagree: " + sum + " vs " + agg + " (on "
                                        + mc.currentReplica() + ")");
                            }
                            total = sum;
                        } else {
                            try (ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                                rs.next();
                                total = rs.getLong(1);
                            }
                        }
                        boolean secondary = !mc.currentReplica().isPrimary();
                        String detail = total == expectedTotal() ? null : describeWrongRead(c, mc, s);
                        c.commit();
                        return new Read(total, secondary, detail);
                    } catch (SQLException e) {
                        c.rollback();
                        if (!"40001".equals(e.getSQLState())) throw e;
                        return null;
                    }
                }

                @Override
                public void close() throws SQLException {
                    c.close();
                }
            };
        };
    }

    /**
     * For the first few wrong totals: the replica the read ran on and every replica's version and state (from the
     * observer), the balances the reading transaction sees now (on a secondary, the state of one version until its
     * applier moves on), and the balances each replica's engine holds, read through sessions of their own, so that a
     * report says which accounts are off and where. Null once {@link #DESCRIBED_VIOLATIONS} were described.
     */
    private String describeWrongRead(Connection c, MacroConnection mc, Statement s) {
        if (described.incrementAndGet() > DESCRIBED_VIOLATIONS) return null;
        StringBuilder sb = new StringBuilder("read on ").append(mc.currentReplica());
        try (ResultSet rs = s.executeQuery("SELECT id, balance FROM account ORDER BY id")) {
            sb.append("; its balances now:");
            while (rs.next()) sb.append(' ').append(rs.getInt(1)).append('=').append(rs.getLong(2));
        } catch (SQLException e) {
            sb.append("; its balances could not be read again: ").append(e);
        }
        try {
            for (io.macrodb.replica.ReplicaStatus r : TestDb.macro(observer).replicaStatus()) {
                sb.append("; ").append(r.role()).append(' ').append(r.index()).append(" v").append(r.version()).append(' ').append(r.state());
                try (Connection e = java.sql.DriverManager.getConnection(existingOnly(r.url()), "sa", "");
                     Statement es = e.createStatement(); ResultSet rs = es.executeQuery("SELECT id, balance FROM account ORDER BY id")) {
                    long sum = 0;
                    StringBuilder b = new StringBuilder();
                    while (rs.next()) {
                        sum += rs.getLong(2);
                        b.append(' ').append(rs.getInt(1)).append('=').append(rs.getLong(2));
                    }
                    sb.append(" total ").append(sum).append(':').append(b);
                } catch (SQLException e) {
                    sb.append(" (engine not read: ").append(e.getMessage()).append(')');
                }
            }
        } catch (SQLException e) {
            sb.append("; no replica status: ").append(e);
        }
        return sb.toString();
    }

    /** A replica's engine URL that opens its database only if it exists (a failed in-memory replica is not made afresh). */
    private static String existingOnly(String url) {
        if (url.startsWith("jdbc:h2:")) return url + ";IFEXISTS=TRUE";
        if (url.startsWith("jdbc:hsqldb:")) return url + ";ifexists=true";
        return url.replace(";create=true", "");
    }

    /** Readers that run {@code SELECT SUM(balance)} in autocommit, routed by the SQL classifier. A 40001 is a retried read. */
    public ReaderFactory autocommitReaders() {
        return index -> {
            Connection c = openReader();
            return new Reader() {
                @Override
                public Read read() throws Exception {
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                        rs.next();
                        // the statement names the replica it ran on
                        return new Read(rs.getLong(1), !s.toString().contains("primary"));
                    } catch (SQLException e) {
                        if (!"40001".equals(e.getSQLState())) throw e;
                        return null;
                    }
                }

                @Override
                public void close() throws SQLException {
                    c.close();
                }
            };
        };
    }

    /**
     * A reader's connection. On Derby it reads at {@code REPEATABLE READ}: Derby locks rather than keeping row versions,
     * so at {@code READ COMMITTED} one {@code SUM} scan on the primary can read an account before a transfer and the
     * other after it, on plain Derby as through MacroDB (a secondary's readers take turns with its applier and see
     * one state at any level; a read runs on the primary when no secondary is fresh enough). {@code REPEATABLE READ}
     * is what a Derby application that needs a consistent total uses.
     */
    private Connection openReader() throws java.sql.SQLException {
        Connection c = TestDb.open(url);
        if (url.startsWith("jdbc:macrodb:derby:")) c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        return c;
    }

    // ------------------------------------------------------------------ running

    /** Starts the writers and readers. */
    public BankWorkload start() throws SQLException {
        if (pool != null) throw new IllegalStateException("started already");
        if (readerFactories.isEmpty()) throw new IllegalStateException(name + ": a bank workload needs readers");
        observer = TestDb.open(url);
        waitsAtStart = TestDb.macro(observer).readWaits();
        pool = Executors.newFixedThreadPool(writerCount + readerFactories.size(), r -> {
            Thread t = new Thread(r, "bank-" + name.replace(' ', '-'));
            t.setDaemon(true);
            return t;
        });
        for (int w = 0; w < writerCount; w++) {
            int index = w;
            futures.add(pool.submit(() -> {
                Random rnd = new Random(seed + index);
                try (Writer writer = writerFactory.open(index)) {
                    while (!stop.get()) {
                        if (writer.transfer(rnd)) transfers.incrementAndGet();
                        else retriedTransfers.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        long expected = expectedTotal();
        for (int r = 0; r < readerFactories.size(); r++) {
            ReaderFactory factory = readerFactories.get(r);
            int index = r;
            futures.add(pool.submit(() -> {
                try (Reader reader = factory.open(index)) {
                    while (!stop.get()) {
                        Read read = reader.read();
                        if (read == null) {
                            retriedReads.incrementAndGet();
                            continue;
                        }
                        reads.incrementAndGet();
                        if (read.onSecondary()) readsOnSecondaries.incrementAndGet();
                        if (read.total() != expected) {
                            violation("total " + read.total() + " != " + expected + " (on " + (read.onSecondary() ? "a secondary" : "the primary") + ")"
                                    + (read.detail() == null ? "" : ": " + read.detail()));
                        }
                    }
                }
                return null;
            }));
        }
        return this;
    }

    /**
     * Waits until {@code moreTransfers} more transfers committed and {@code moreReads} more reads ran
     * than when it was called; fails the test at the safety limit, or at once if a client failed.
     */
    public void awaitProgress(long moreTransfers, long moreReads) throws Exception {
        awaitCounts(transfers.get() + moreTransfers, reads.get() + moreReads, 0);
    }

    /**
     * Waits until as many reads ran on secondaries as {@link #readsOnSecondaries} asks for, the load going on (what
     * {@link #stop()} asserts): a secondary that applies slowly (Derby's one session, on a loaded machine) finds fewer
     * reads fresh enough in a fixed amount of work. Fails the test at the safety limit, or at once if a client failed.
     */
    public void awaitReadsOnSecondaries() throws Exception {
        awaitCounts(0, 0, minReadsOnSecondaries);
    }

    private void awaitCounts(long t, long r, long onSecondaries) throws Exception {
        long[] last = {transfers.get(), System.nanoTime(), 0}; // transfers seen, when they last moved, stall reported
        UntilCounts.await(name, limit,
                () -> {
                    long now = System.nanoTime();
                    if (transfers.get() != last[0]) {
                        last[0] = transfers.get();
                        last[1] = now;
                        last[2] = 0;
                    } else if (transfers.get() < t && last[2] == 0 && now - last[1] > stallReport.toNanos()) {
                        last[2] = 1;
                        System.out.println(name + ": STALL: no transfer committed for " + stallReport.toSeconds() + " s: " + stallReport());
                    }
                    return transfers.get() >= t && reads.get() >= r && readsOnSecondaries.get() >= onSecondaries
                            && routedToSecondaries() >= onSecondaries;
                },
                () -> {
                    String report = stallReport();
                    System.out.println(name + ": HANG: " + report);
                    return "wanted " + t + " transfers, " + r + " reads (" + onSecondaries + " on secondaries), done " + progress()
                            + ", the database routed " + routedToSecondaries() + " to secondaries; retry causes:" + retryCauses()
                            + "\n" + replicaStatus();
                },
                UntilCounts.clients(futures));
    }

    private long routedToSecondaries() {
        try {
            return TestDb.macro(observer).readWaits().minus(waitsAtStart).onSecondaries();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private String replicaStatus() {
        try {
            return TestDb.macro(observer).replicaStatus().toString();
        } catch (SQLException e) {
            return "(no status: " + e + ")";
        }
    }

    /** Starts, waits for the counts asked for, and {@link #stop()}s. */
    public Result run() throws Exception {
        start();
        awaitCounts(minTransfers, minReads, minReadsOnSecondaries);
        return stop();
    }

    /**
     * Stops the clients, waits for them (a client's failure fails the test), prints a summary with the
     * seed, and asserts: no violation; transfers committed (at least the count asked for, and more than
     * zero); reads ran (likewise), on secondaries as many as asked for, seen both by the readers and by
     * {@code readWaits().onSecondaries()}; no retried read unless allowed.
     */
    public Result stop() throws Exception {
        if (result != null) return result;
        if (pool == null) throw new IllegalStateException("not started");
        stop.set(true);
        pool.shutdown();
        for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
        ReadWaits.Stats waits = TestDb.macro(observer).readWaits().minus(waitsAtStart);
        observer.close();
        result = new Result(transfers.get(), retriedTransfers.get(), reads.get(), readsOnSecondaries.get(), retriedReads.get(), waits);
        System.out.println(name + ": " + progress() + ", violations: " + violations.size() + " (seed=" + seed + "); " + waits
                + (retryCauses.isEmpty() ? "" : "; retry causes:" + retryCauses()));
        assertTrue(violations.isEmpty(), () -> name + ": " + violations.size() + " violations, the first: "
                + new ArrayList<>(violations).subList(0, Math.min(5, violations.size())));
        assertTrue(result.transfers() > 0 && result.transfers() >= minTransfers,
                () -> name + ": writers made progress: " + result.transfers() + " transfers committed, " + minTransfers + " wanted");
        assertTrue(result.reads() > 0 && result.reads() >= minReads,
                () -> name + ": reads ran: " + result.reads() + ", " + minReads + " wanted");
        assertTrue(result.readsOnSecondaries() >= minReadsOnSecondaries,
                () -> name + ": reads must run on secondaries for this test to mean anything: " + result.readsOnSecondaries()
                        + " of " + result.reads() + ", " + minReadsOnSecondaries + " wanted");
        assertTrue(waits.onSecondaries() >= minReadsOnSecondaries,
                () -> name + ": the database routed " + waits + ", " + minReadsOnSecondaries + " on secondaries wanted");
        if (!retriedReadsAllowed) {
            assertEquals(0, result.retriedReads(), () -> name + ": a read failed with 40001 where none may");
        }
        return result;
    }

    private String progress() {
        return transfers + " transfers (" + retriedTransfers + " retried), " + reads + " reads (" + readsOnSecondaries
                + " on secondaries, " + retriedReads + " retried)";
    }

    /** Stops the clients without asserting anything: for a test that failed before {@link #stop()}. */
    @Override
    public void close() throws Exception {
        stop.set(true);
        if (pool != null) {
            pool.shutdown();
            pool.awaitTermination(60, TimeUnit.SECONDS);
        }
        if (observer != null && !observer.isClosed()) observer.close();
    }
}
