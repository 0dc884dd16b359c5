package io.macrodb.engine;

import io.macrodb.sql.SqlState;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.BaseStatement;
import org.postgresql.core.Field;
import org.postgresql.core.Tuple;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The reader of a PostgreSQL primary's logical decoding stream ({@code capture=decoding}, docs/postgresql-engine.md
 * §2b): one thread drains a temporary {@code pgoutput} slot of publication {@value #PUBLICATION} through pgjdbc's
 * replication API and hands each of MacroDB's update transactions, as the rows it committed, to the committer waiting
 * for it.
 *
 * <p>A committer marks its transaction with a transactional logical message before the engine's {@code COMMIT}
 * ({@code pg_logical_emit_message(true, 'macrodb', 'c' || version)}, in the commit's own round trip), and waits for
 * the transaction carrying that mark. Transactions without a mark (schema changes in autocommit, which MacroDB ships
 * as statements, and the copies' reads) are passed over. A schema change inside a transaction is bracketed by the
 * messages {@code b} and {@code e}, emitted inside the schema change's engine savepoint (a failed one takes them
 * with it): the rows between them are the schema change's own (a {@code CREATE TABLE ... AS}, a {@code TRUNCATE}),
 * which MacroDB ships with the statement, and the rows around them fall into segments, one before each schema change
 * and one after the last.
 *
 * <p>Values arrive as their types' text output (the walsender's session runs with pgjdbc's {@code DateStyle=ISO}
 * and {@code client_encoding=UTF8}) and are read into Java values by pgjdbc itself, through a driver-made result set
 * over a plain connection of this decoder: the same values, in the same Java types, that the trigger capture's
 * read-back gives. An update whose new row leaves a TOASTed value out (unchanged) takes it from the old row, which
 * the table's {@code REPLICA IDENTITY FULL} puts into the stream ({@link PostgresEngine#installCapture}).
 *
 * <p>The slot is persistent, so that a stream that fails while the server runs (its WAL sender terminated, the
 * replication connection lost) is resumed: the decoder connects again, within {@link #RESUME_WINDOW_MILLIS}, and the
 * server sends every transaction that committed after the last one whose end this decoder confirmed. Those it had
 * delivered already (confirmations go to the server once a second) are recognised by their end position and passed
 * over; the commits waiting meanwhile get theirs as before. Only a stream that cannot be resumed in that window (the
 * slot gone, the server down) fails every waiting and later commit, and the primary must leave service: its engine
 * has commits that MacroDB can no longer read. The slot is dropped when the decoder closes; one left behind by a
 * process that ended without closing pins the server's WAL until MacroDB opens a replica set on that database again
 * ({@link #dropLeftSlots}), or until the server's {@code max_slot_wal_keep_size} gives it up.
 */
final class PostgresDecoder implements CommitDecoding {
    private static final Logger LOG = Logger.getLogger(PostgresDecoder.class.getName());
    /** The publication every decoding replica set reads: {@code FOR ALL TABLES}, made by MacroDB if missing. */
    static final String PUBLICATION = "macrodb";
    /** The prefix of MacroDB's logical messages. */
    static final String PREFIX = "macrodb";

    /**
     * Marks the transaction with its version if it wrote anything (it then has a transaction id), and commits it, in one
     * round trip. A failure of the mark aborts the transaction, and the {@code COMMIT} after it is not run. Where the
     * application set {@code synchronous_commit} off in its session, this commit flushes all the same ({@code local}, for
     * this transaction only): the stream gives only flushed WAL.
     */
    private static final String COMMIT = "SELECT CASE WHEN pg_current_xact_id_if_assigned() IS NULL THEN false ELSE"
            + " set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'local' ELSE"
            + " current_setting('synchronous_commit') END, true) IS NOT NULL AND pg_logical_emit_message(true, '" + PREFIX
            + "', 'c%d') IS NOT NULL END; COMMIT";

    /** How long a failed stream is tried again (the server answering) before the primary is given up. */
    static final long RESUME_WINDOW_MILLIS = 5_000;
    /** The names of MacroDB's slots: {@code macrodb_}, then the replica set's and the stream's numbers. */
    static final String SLOT_PATTERN = "macrodb\\_%";

    /** A decoded transaction of MacroDB's: its rows, split at the schema changes it ran (one more segment than those). */
    private record Decoded(List<List<Row>> segments) {}

    private final String url;
    private final String slot;
    private final Properties replicationProperties;
    private final Properties plainProperties;
    private final Thread thread;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final ConcurrentHashMap<Long, CompletableFuture<Decoded>> waiting = new ConcurrentHashMap<>();
    private volatile Throwable failure;
    /** {@link #onStreamFailure}'s listener; told at most once ({@link #told}). */
    private volatile java.util.function.Consumer<String> failureListener;
    private final java.util.concurrent.atomic.AtomicBoolean told = new java.util.concurrent.atomic.AtomicBoolean();
    /** MacroDB's transactions the stream gave, and the commit time of the last (as the server stamped it, or null). */
    private final java.util.concurrent.atomic.AtomicLong delivered = new java.util.concurrent.atomic.AtomicLong();
    private volatile java.time.Instant lastCommit;
    /** How often the stream failed and was resumed from the slot. */
    private final java.util.concurrent.atomic.AtomicInteger resumed = new java.util.concurrent.atomic.AtomicInteger();
    /** The end of the last transaction the stream gave (a resumed stream gives again those after the last confirmed). */
    private long lastEnd;
    /** When the stream last gave a message ({@link System#nanoTime}): a commit waits while it moves. */
    private volatile long lastMessage = System.nanoTime();
    private volatile boolean closing;
    private volatile Connection replication;
    private Connection plain;
    private BaseStatement converter;

    /** What the stream said of a relation: names, the column types pgjdbc reads them with. */
    private static final class Relation {
        final String schema;
        final String table;
        final String[] columns;
        final Field[] fields;
        int[] jdbcTypes;

        Relation(String schema, String table, String[] columns, Field[] fields) {
            this.schema = schema;
            this.table = table;
            this.columns = columns;
            this.fields = fields;
        }
    }

    /** One change of a transaction as the stream gave it, converted once the transaction turns out to be MacroDB's. */
    private record Change(Relation rel, byte[][] oldTuple, byte[][] newTuple, boolean wholeOldRow) {}

    private static final byte[] UNCHANGED = new byte[0];

    /**
     * Opens the plain connection, makes sure the publication is there, drops the slots an earlier replica set left
     * ({@link #dropLeftSlots}), creates the slot and starts the thread; returns once the stream runs (every
     * transaction that commits from then on is decoded).
     *
     * @param slot the slot's name, unique to the replica set
     */
    PostgresDecoder(String url, Properties properties, String slot, long startTimeoutMillis) throws SQLException {
        this.url = url;
        this.slot = slot;
        this.plainProperties = new Properties();
        if (properties != null) plainProperties.putAll(properties);
        this.replicationProperties = new Properties();
        replicationProperties.putAll(plainProperties);
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(replicationProperties, "9.4");
        PGProperty.REPLICATION.set(replicationProperties, "database");
        PGProperty.PREFER_QUERY_MODE.set(replicationProperties, "simple");
        plain = DriverManager.getConnection(url, plainProperties);
        try {
            plain.setAutoCommit(true);
            prepare(plain, url);
            dropLeftSlots(plain);
            converter = plain.createStatement().unwrap(BaseStatement.class);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(plain);
            throw e;
        }
        thread = new Thread(this::run, "macrodb-decoder-" + slot);
        thread.setDaemon(true);
        thread.start();
        try {
            started.get(Math.max(startTimeoutMillis, 1), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            close();
            Throwable cause = e.getCause();
            if (cause instanceof SQLException se) throw se;
            throw new SQLException("MacroDB: logical decoding could not start on " + url + ": " + cause, "55000", cause);
        } catch (TimeoutException e) {
            close();
            throw new SQLException("MacroDB: logical decoding did not start on " + url + " within " + startTimeoutMillis + " ms (creating"
                    + " a slot waits for every transaction open on the server to end)", "55000", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new SQLException("MacroDB: interrupted while logical decoding started", "57014", e);
        }
    }

    /**
     * Checks what decoding needs of the server ({@code wal_level = logical}, the right to mark a transaction) and makes
     * the publication {@value #PUBLICATION} ({@code FOR ALL TABLES}, which needs a superuser) unless it is there; a
     * publication of that name must publish every table's inserts, updates and deletes.
     */
    static void prepare(Connection c, String url) throws SQLException {
        try (Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT current_setting('wal_level'), current_user")) {
                rs.next();
                if (!"logical".equals(rs.getString(1))) {
                    throw new SQLException("MacroDB: capture=decoding reads the primary's logical decoding stream, and " + url + " runs"
                            + " with wal_level = " + rs.getString(1) + "; set wal_level = logical (ALTER SYSTEM SET wal_level = logical,"
                            + " then restart the server), or add capture=triggers to the URL (a trigger per table, on any server)",
                            SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT puballtables AND pubinsert AND pubupdate AND pubdelete FROM pg_publication"
                    + " WHERE pubname = '" + PUBLICATION + "'")) {
                if (rs.next()) {
                    if (!rs.getBoolean(1)) {
                        throw new SQLException("MacroDB: publication " + PUBLICATION + " of " + url + " does not publish every table's"
                                + " inserts, updates and deletes, and capture=decoding reads every table through it; drop it, or make it"
                                + " FOR ALL TABLES (as a superuser: CREATE PUBLICATION " + PUBLICATION + " FOR ALL TABLES)",
                                SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
                    }
                } else {
                    try {
                        s.execute("CREATE PUBLICATION " + PUBLICATION + " FOR ALL TABLES");
                    } catch (SQLException e) {
                        throw new SQLException("MacroDB: capture=decoding reads every table through publication " + PUBLICATION
                                + ", which is not on " + url + " and could not be made (" + e.getMessage() + "); have a superuser run"
                                + " CREATE PUBLICATION " + PUBLICATION + " FOR ALL TABLES, or use capture=triggers", e.getSQLState(), e);
                    }
                }
            }
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                s.execute("SELECT pg_logical_emit_message(true, '" + PREFIX + "', '')");
            } catch (SQLException e) {
                throw new SQLException("MacroDB: capture=decoding marks each commit with pg_logical_emit_message, which " + url
                        + " does not let this user call (" + e.getMessage() + "); GRANT EXECUTE ON FUNCTION"
                        + " pg_logical_emit_message(boolean, text, text) to the user, or use capture=triggers", e.getSQLState(), e);
            } finally {
                c.rollback();
                c.setAutoCommit(auto);
            }
        }
    }

    /**
     * The rows of the transaction committed with the mark of {@code version}. Waits while {@code keepWaiting} holds and
     * the stream moves: it gives up once the stream has given nothing for {@code timeoutMillis} (a large transaction,
     * which the stream gives row by row once it reaches its commit, is waited for as long as it takes).
     *
     * @throws SQLException 55000 if the stream failed, or stood still
     */
    @Override public boolean commit(Connection c, long version) throws SQLException {
        boolean marked;
        try (Statement s = c.createStatement()) {
            s.execute(String.format(java.util.Locale.ROOT, COMMIT, version));
            try (ResultSet rs = s.getResultSet()) {
                marked = rs.next() && rs.getBoolean(1);
            }
            s.getMoreResults();
        } catch (SQLException e) {
            try {
                c.rollback(); // the mark failed: the transaction is aborted, and still open
            } catch (SQLException gone) {
                e.addSuppressed(gone);
            }
            throw e;
        }
        return marked;
    }

    @Override public boolean wrote(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_xact_id_if_assigned() IS NOT NULL")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    @Override public List<List<Row>> await(long version, long timeoutMillis, BooleanSupplier keepWaiting) throws SQLException {
        CompletableFuture<Decoded> f = waiting.computeIfAbsent(version, v -> new CompletableFuture<>());
        long stall = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long since = System.nanoTime();
        try {
            while (true) {
                Throwable failed = failure;
                if (failed != null && !f.isDone()) throw streamFailed(failed);
                try {
                    return f.get(20, TimeUnit.MILLISECONDS).segments();
                } catch (TimeoutException e) {
                    long now = System.nanoTime();
                    if (now - Math.max(since, lastMessage) > stall) {
                        throw new SQLException("MacroDB: the primary's commit of v" + version + " did not come out of logical decoding,"
                                + " which gave nothing for " + timeoutMillis + " ms; its rows cannot be replicated", "55000");
                    }
                    if (!keepWaiting.getAsBoolean()) {
                        throw new SQLException("MacroDB: the primary left service while its commit of v" + version + " was being decoded",
                                "55000");
                    }
                } catch (ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof SQLException se) throw se;
                    throw streamFailed(c);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("MacroDB: interrupted while waiting for the decoded commit of v" + version, "57014", e);
                }
            }
        } finally {
            waiting.remove(version);
        }
    }

    private SQLException streamFailed(Throwable t) {
        return new SQLException("MacroDB: logical decoding of " + url + " failed (" + t + "); the primary's commits can no longer be"
                + " read", "55000", t);
    }

    @Override public void onStreamFailure(java.util.function.Consumer<String> listener) {
        failureListener = listener;
        tellFailure();
    }

    /** Tells the listener, once, that the open stream failed. */
    private void tellFailure() {
        Throwable f = failure;
        java.util.function.Consumer<String> l = failureListener;
        if (f == null || closing || l == null || !told.compareAndSet(false, true)) return;
        l.accept(f.toString());
    }

    private static final java.time.Instant POSTGRES_EPOCH = java.time.Instant.parse("2000-01-01T00:00:00Z");

    @Override public String status() {
        Throwable f = failure;
        return "decoding " + url + " (slot " + slot + ", publication " + PUBLICATION + "): "
                + (f != null ? "stopped: " + f.getMessage() : thread.isAlive() ? "running" : "not running")
                + ", " + delivered.get() + " transaction(s) decoded" + (lastCommit == null ? "" : ", the last committed at " + lastCommit)
                + (resumed.get() == 0 ? "" : ", resumed " + resumed.get() + " time(s) from the slot") + cpu();
    }

    /** The decoder thread's CPU time so far, where the JVM measures threads' CPU time. */
    private String cpu() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) return "";
        long nanos = threads.getThreadCpuTime(thread.getId());
        return nanos < 0 ? "" : String.format(java.util.Locale.ROOT, ", decoder thread CPU %.1f ms", nanos / 1e6);
    }

    @Override public void close() {
        closing = true;
        closeQuietly(replication);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            dropSlot();
            closeQuietly(plain);
        }
        SQLException closed = new SQLException("MacroDB: logical decoding of " + url + " was stopped", "55000");
        for (CompletableFuture<Decoded> f : waiting.values()) f.completeExceptionally(closed);
    }

    /**
     * Drops this decoder's slot, waiting (2 s at most) for the WAL sender to let go of it. Where the server cannot be
     * reached (a primary that failed), the slot stays, and the next replica set that drives the database drops it.
     */
    private void dropSlot() {
        if (plain == null) return;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        try (java.sql.PreparedStatement active = plain.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?");
             java.sql.PreparedStatement drop = plain.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
            active.setString(1, slot);
            drop.setString(1, slot);
            while (true) {
                try (ResultSet rs = active.executeQuery()) {
                    if (!rs.next()) return; // gone already
                    if (!rs.getBoolean(1)) {
                        try {
                            drop.execute();
                            return;
                        } catch (SQLException inUseAgain) {
                            if (System.nanoTime() > deadline) throw inUseAgain;
                        }
                    }
                }
                if (System.nanoTime() > deadline) {
                    LOG.warning("MacroDB: the replication slot " + slot + " of " + url + " is still in use 2 s after its stream"
                            + " closed; it is left, and the next replica set on that database drops it");
                    return;
                }
                Thread.sleep(20);
            }
        } catch (SQLException | RuntimeException e) {
            // the server is gone or refuses: the next replica set on the database drops the slot
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Drops the slots of MacroDB's ({@value #SLOT_PATTERN}) that no stream reads on {@code c}'s database: slots that a
     * replica set left when its process ended without closing it, or when the server was down at its close. Only one
     * replica set drives a database (its primary's advisory lock; a secondary is MacroDB's own), so such a slot is no
     * one's, and it pins the server's WAL. Returns the names it dropped; a user without the right to drop them is
     * warned in the log and nothing fails.
     */
    static List<String> dropLeftSlots(Connection c) {
        List<String> dropped = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT slot_name, pg_drop_replication_slot(slot_name)"
                + " IS NULL FROM pg_replication_slots WHERE slot_name LIKE '" + SLOT_PATTERN + "' AND database = current_database()"
                + " AND slot_type = 'logical' AND NOT active")) {
            while (rs.next()) dropped.add(rs.getString(1));
        } catch (SQLException e) {
            LOG.warning("MacroDB: could not drop the replication slots an earlier replica set left on " + url(c) + " (" + e.getMessage()
                    + "); they pin the server's WAL until dropped: SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                    + " WHERE slot_name LIKE 'macrodb\\_%' AND NOT active");
            return dropped;
        }
        if (!dropped.isEmpty()) LOG.info("MacroDB: dropped the replication slots an earlier replica set left on " + url(c) + ": " + dropped);
        return dropped;
    }

    private static String url(Connection c) {
        try {
            return c.getMetaData().getURL();
        } catch (SQLException e) {
            return "the server";
        }
    }

    private static void closeQuietly(Connection c) {
        if (c == null) return;
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // gone already
        }
    }

    // ---------------------------------------------------------------- the stream

    private void run() {
        Map<Integer, Relation> relations = new HashMap<>();
        long failingSince = 0;
        int tries = 0; // of the current outage
        for (int attempt = 0; ; attempt++) {
            boolean[] streamed = {false};
            try {
                stream(relations, attempt == 0, streamed);
                return; // closed
            } catch (Throwable e) {
                if (!started.isDone()) {
                    started.completeExceptionally(e instanceof SQLException se ? startFailed(se) : e);
                    failure = e;
                    return;
                }
                long now = System.nanoTime();
                if (streamed[0] || failingSince == 0) { // a new outage
                    failingSince = now;
                    tries = 0;
                }
                if (!closing && resumable(e) && now - failingSince < TimeUnit.MILLISECONDS.toNanos(RESUME_WINDOW_MILLIS)) {
                    LOG.warning("MacroDB: logical decoding of " + url + " failed (" + e + "); resuming it from slot " + slot);
                    if (pause(Math.min(1_000, 50L << Math.min(tries++, 5)))) continue;
                }
                if (closing) {
                    failure = new SQLException("closed", "55000");
                } else {
                    failure = e;
                    LOG.severe("MacroDB: logical decoding of " + url + " failed: " + e);
                }
                for (CompletableFuture<Decoded> f : waiting.values()) f.completeExceptionally(streamFailed(e));
                tellFailure();
                return;
            } finally {
                replication = null;
            }
        }
    }

    /**
     * Whether a failed stream may be resumed from its slot: a failure the server reported, or of the connection to it;
     * not a slot that is gone (42704), nor what this decoder could not read.
     */
    private static boolean resumable(Throwable e) {
        return e instanceof SQLException se && !"42704".equals(se.getSQLState());
    }

    /** Sleeps before the stream is resumed; false if the decoder is closing meanwhile. */
    private boolean pause(long millis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!closing && System.nanoTime() < until) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                return false;
            }
        }
        return !closing;
    }

    /**
     * Reads the stream until the decoder closes: on a new replication connection, creating the slot first if {@code
     * create}, else resuming it; {@code streamed[0]} is set once the stream runs.
     */
    private void stream(Map<Integer, Relation> relations, boolean create, boolean[] streamed) throws Exception {
        try (Connection rc = DriverManager.getConnection(url, replicationProperties)) {
            replication = rc;
            if (closing) return; // close() may have looked for the connection before it was set
            PGConnection pg = rc.unwrap(PGConnection.class);
            if (create) {
                pg.getReplicationAPI().createReplicationSlot().logical().withSlotName(slot).withOutputPlugin("pgoutput").make();
            }
            try (PGReplicationStream stream = pg.getReplicationAPI().replicationStream().logical().withSlotName(slot)
                    .withSlotOption("proto_version", 1).withSlotOption("publication_names", PUBLICATION)
                    .withSlotOption("messages", true).withStatusInterval(1, TimeUnit.SECONDS).start()) {
                streamed[0] = true;
                if (!create) resumed.incrementAndGet();
                started.complete(null);
                List<Change> changes = new ArrayList<>();
                List<Integer> bounds = new ArrayList<>(); // per schema change: where its rows begin, and where they end
                long mark = -1;
                String problem = null;
                while (!closing) {
                    ByteBuffer m = stream.read();
                    if (m == null) continue;
                    lastMessage = System.nanoTime();
                    byte type = m.get();
                    switch (type) {
                        case 'B' -> {
                            changes.clear();
                            bounds.clear();
                            mark = -1;
                            problem = null;
                        }
                        case 'R' -> {
                            int id = m.getInt();
                            relations.put(id, relation(m));
                        }
                        case 'I', 'U', 'D' -> {
                            Relation r = relations.get(m.getInt());
                            if (r == null) throw new IllegalStateException("a row of a relation the stream has not described");
                            if ("macrodb".equals(r.schema)) break; // MacroDB's own mark table
                            // a schema change's own rows (CREATE TABLE AS, a table rewritten): shipped with its statement, not kept
                            if (bounds.size() % 2 == 1) break;
                            byte[][] oldTuple = null;
                            byte[][] newTuple = null;
                            boolean wholeOldRow = false;
                            while (m.hasRemaining()) {
                                byte kind = m.get();
                                byte[][] t = tuple(m);
                                if (kind == 'N') {
                                    newTuple = t;
                                } else {
                                    oldTuple = t; // 'K' (the key only, other columns null) or 'O' (the whole old row)
                                    wholeOldRow = kind == 'O';
                                }
                            }
                            if (newTuple != null) {
                                for (int i = 0; i < newTuple.length; i++) {
                                    if (newTuple[i] != UNCHANGED) continue;
                                    if (!wholeOldRow || oldTuple.length <= i || oldTuple[i] == UNCHANGED) {
                                        problem = "an update of " + r.schema + "." + r.table + " left column " + r.columns[i]
                                                + " out as an unchanged TOASTed value, and the stream has no old row to take it from"
                                                + " (the table's REPLICA IDENTITY is not FULL)";
                                    } else {
                                        newTuple[i] = oldTuple[i];
                                    }
                                }
                            }
                            // an update that keeps its key under replica identity DEFAULT sends no old row: its key is the new row's
                            changes.add(new Change(r, type == 'I' ? null : oldTuple == null ? newTuple : oldTuple, type == 'D' ? null : newTuple,
                                    wholeOldRow));
                        }
                        case 'M' -> {
                            boolean transactional = (m.get() & 1) != 0;
                            m.getLong(); // its LSN
                            String prefix = cstring(m);
                            int n = m.getInt();
                            String content = new String(m.array(), m.arrayOffset() + m.position(), n, StandardCharsets.UTF_8);
                            m.position(m.position() + n);
                            if (!transactional || !PREFIX.equals(prefix) || content.isEmpty()) break;
                            switch (content.charAt(0)) {
                                case 'c' -> mark = Long.parseLong(content.substring(1));
                                case 'b', 'e' -> bounds.add(changes.size());
                                default -> { } // a later MacroDB's message
                            }
                        }
                        case 'T' -> {
                            int n = m.getInt();
                            // a TRUNCATE is a schema change through MacroDB (shipped as the statement, between b and e);
                            // one elsewhere (in a function) empties tables whose rows the stream never names
                            if (bounds.size() % 2 == 0) {
                                problem = "the transaction truncated " + n + " table(s) other than by a TRUNCATE statement of its"
                                        + " own (in a function or a trigger?); the rows it removed are not in the stream";
                            }
                        }
                        case 'C' -> {
                            m.get(); // flags
                            m.getLong(); // commit LSN
                            long end = m.getLong();
                            long stamp = m.getLong(); // microseconds since 2000-01-01 UTC
                            // a resumed stream gives again what came after the last end it confirmed: delivered already
                            boolean again = Long.compareUnsigned(end, lastEnd) <= 0;
                            if (mark >= 0 && !again) {
                                deliver(mark, changes, bounds, problem);
                                delivered.incrementAndGet();
                                lastCommit = POSTGRES_EPOCH.plus(stamp, java.time.temporal.ChronoUnit.MICROS);
                            }
                            if (!again) lastEnd = end;
                            changes.clear();
                            bounds.clear();
                            mark = -1;
                            stream.setAppliedLSN(LogSequenceNumber.valueOf(end));
                            stream.setFlushedLSN(LogSequenceNumber.valueOf(end));
                        }
                        case 'Y', 'O' -> { } // a type's name (pgjdbc looks types up itself), the origin of a change
                        default -> throw new IllegalStateException("unknown pgoutput message '" + (char) type + "'");
                    }
                }
            }
        }
    }

    /** What the application is told when the slot or the stream cannot be had. */
    private SQLException startFailed(SQLException e) {
        return new SQLException("MacroDB: capture=decoding could not open a logical replication stream on " + url + " ("
                + e.getMessage() + "). It needs wal_level = logical, a free replication slot and WAL sender (max_replication_slots,"
                + " max_wal_senders), and a user with the REPLICATION attribute whom pg_hba.conf lets in for replication; or"
                + " add capture=triggers to the URL", e.getSQLState() == null ? "55000" : e.getSQLState(), e);
    }

    /** Converts a transaction of MacroDB's and hands it to its committer. */
    private void deliver(long version, List<Change> changes, List<Integer> bounds, String problem) {
        CompletableFuture<Decoded> f = waiting.computeIfAbsent(version, v -> new CompletableFuture<>());
        if (problem != null) {
            f.completeExceptionally(new SQLException("MacroDB: the primary's commit of v" + version + " cannot be replicated: " + problem,
                    SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState()));
            return;
        }
        try {
            List<List<Row>> segments = new ArrayList<>();
            List<Row> current = new ArrayList<>();
            int b = 0;
            for (int i = 0; i <= changes.size(); i++) {
                while (b < bounds.size() && bounds.get(b) == i) {
                    if (b % 2 == 0) {
                        segments.add(current);
                        current = new ArrayList<>();
                    }
                    b++;
                }
                if (i == changes.size()) break;
                Change c = changes.get(i);
                current.add(new Row(c.rel.schema, c.rel.table, c.rel.columns, values(c.rel, c.oldTuple), values(c.rel, c.newTuple),
                        c.wholeOldRow));
            }
            segments.add(current);
            f.complete(new Decoded(segments));
        } catch (SQLException | RuntimeException e) {
            f.completeExceptionally(e instanceof SQLException se ? se : new SQLException("MacroDB: decoding v" + version + " failed: " + e,
                    SqlState.INTERNAL_ERROR.getState(), e));
        }
    }

    /** A tuple's text values as pgjdbc reads them into Java values: what the trigger capture's read-back gives. */
    private Object[] values(Relation r, byte[][] tuple) throws SQLException {
        if (tuple == null) return null;
        synchronized (this) {
            List<Tuple> rows = new ArrayList<>(1);
            rows.add(new Tuple(tuple));
            try (ResultSet rs = converter.createDriverResultSet(r.fields, rows)) {
                if (r.jdbcTypes == null) {
                    ResultSetMetaData md = rs.getMetaData();
                    int[] types = new int[r.fields.length];
                    for (int j = 0; j < types.length; j++) types[j] = PostgresCatalog.jdbcType(md.getColumnTypeName(j + 1), "");
                    r.jdbcTypes = types;
                }
                rs.next();
                Object[] out = new Object[tuple.length];
                for (int j = 0; j < out.length; j++) out[j] = tuple[j] == null ? null : Values.read(rs, j + 1, r.jdbcTypes[j], false);
                return out;
            }
        }
    }

    // ---------------------------------------------------------------- pgoutput, protocol version 1

    /** A Relation message after its oid. */
    private static Relation relation(ByteBuffer m) {
        String ns = cstring(m);
        String name = cstring(m);
        m.get(); // replica identity
        int n = m.getShort();
        String[] columns = new String[n];
        Field[] fields = new Field[n];
        for (int i = 0; i < n; i++) {
            m.get(); // flags: part of the key
            columns[i] = cstring(m);
            int typeOid = m.getInt();
            int typmod = m.getInt();
            fields[i] = new Field(columns[i], typeOid, (short) -1, typmod);
        }
        return new Relation(ns, name, columns, fields);
    }

    private static String cstring(ByteBuffer m) {
        int start = m.position();
        while (m.get() != 0) {
            // to the terminating zero
        }
        return new String(m.array(), m.arrayOffset() + start, m.position() - start - 1, StandardCharsets.UTF_8);
    }

    /** A TupleData: per column its text bytes, null for SQL NULL, {@link #UNCHANGED} for a TOASTed value left out. */
    private static byte[][] tuple(ByteBuffer m) {
        int n = m.getShort();
        byte[][] v = new byte[n][];
        for (int i = 0; i < n; i++) {
            byte kind = m.get();
            switch (kind) {
                case 'n' -> v[i] = null;
                case 'u' -> v[i] = UNCHANGED;
                case 't' -> {
                    int len = m.getInt();
                    byte[] b = new byte[len];
                    m.get(b);
                    v[i] = b;
                }
                default -> throw new IllegalStateException("unknown tuple value kind '" + (char) kind + "'");
            }
        }
        return v;
    }
}
