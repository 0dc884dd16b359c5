package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.macrodb.jdbc.MacroAdmin;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The driver's bank and real-time-order checks, over TCP from several pgjdbc clients at once: transfers in explicit
 * transactions and as auto-commit batches (one implicit transaction each), read-only totals on the secondaries that
 * never see money created or lost, a commit that returned always visible to a read-only transaction begun after it
 * on another connection, and the replicas identical at the end.
 */
@Timeout(120)
class BankOverTcpTest {
    private static final int ACCOUNTS = 20;
    private static final long TOTAL = ACCOUNTS * 1000L;

    private static Connection connect(PgServer s, String extra) throws SQLException {
        return DriverManager.getConnection(ServerFixture.pgUrl(s, extra), ServerFixture.USER, ServerFixture.PASSWORD);
    }

    private static boolean retryable(SQLException e) {
        String st = e.getSQLState();
        if (e instanceof java.sql.BatchUpdateException && e.getNextException() != null) st = e.getNextException().getSQLState();
        return st != null && (st.startsWith("40") || st.equals("55P03") || st.equals("23505"));
    }

    /** Each replica's rows, for a divergence report. */
    private static String contents(PgServer server) {
        StringBuilder b = new StringBuilder();
        try {
            for (io.macrodb.replica.ReplicaStatus r : server.keeper().unwrap(io.macrodb.jdbc.MacroConnection.class).replicaStatus()) {
                b.append('\n').append(r.role()).append(' ').append(r.index()).append(':');
                try (Connection c = DriverManager.getConnection(r.url(), "sa", ""); Statement s = c.createStatement()) {
                    try (ResultSet rs = s.executeQuery("SELECT id, balance FROM account ORDER BY id")) {
                        while (rs.next()) b.append(' ').append(rs.getInt(1)).append('=').append(rs.getLong(2));
                    }
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*), MAX(id) FROM marks")) {
                        rs.next();
                        b.append(" marks ").append(rs.getLong(1)).append(" max ").append(rs.getLong(2));
                    }
                }
            }
        } catch (Exception e) {
            b.append(" (").append(e).append(')');
        }
        return b.toString();
    }

    @Test
    void transfersKeepTheTotalAndCommitsAreSeenInRealTimeOrder() throws Exception {
        try (PgServer server = ServerFixture.start(3)) {
            try (Connection c = connect(server, ""); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
                s.execute("CREATE TABLE marks (id BIGINT PRIMARY KEY)");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO account VALUES (?, 1000)")) {
                    for (int i = 0; i < ACCOUNTS; i++) {
                        ps.setInt(1, i);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            AtomicLong transfers = new AtomicLong();
            AtomicLong checks = new AtomicLong();
            AtomicLong marks = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(7);
            List<Future<?>> tasks = new ArrayList<>();
            // two writers with explicit transactions, two sending each transfer as one auto-commit batch
            for (int w = 0; w < 4; w++) {
                boolean batch = w >= 2;
                tasks.add(pool.submit(() -> {
                    try (Connection c = connect(server, "");
                         PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
                        c.setAutoCommit(batch);
                        while (!stop.get()) {
                            int from = ThreadLocalRandom.current().nextInt(ACCOUNTS);
                            int to = (from + 1 + ThreadLocalRandom.current().nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                            long amount = 1 + ThreadLocalRandom.current().nextInt(50);
                            try {
                                ps.setLong(1, -amount);
                                ps.setInt(2, from);
                                ps.addBatch();
                                ps.setLong(1, amount);
                                ps.setInt(2, to);
                                ps.addBatch();
                                ps.executeBatch();
                                if (!batch) c.commit();
                                transfers.incrementAndGet();
                            } catch (SQLException e) {
                                ps.clearBatch();
                                if (!batch) c.rollback();
                                if (!retryable(e)) throw e;
                            }
                        }
                    }
                    return null;
                }));
            }
            // two readers: read-only transactions (on the secondaries) must always see the whole total
            for (int r = 0; r < 2; r++) {
                tasks.add(pool.submit(() -> {
                    try (Connection c = connect(server, ""); Statement s = c.createStatement()) {
                        c.setReadOnly(true);
                        c.setAutoCommit(false);
                        while (!stop.get()) {
                            try (ResultSet rs = s.executeQuery("SELECT SUM(balance), COUNT(*) FROM account")) {
                                rs.next();
                                if (rs.getLong(1) != TOTAL || rs.getLong(2) != ACCOUNTS) problems.add("a reader saw " + rs.getLong(1) + " in " + rs.getLong(2) + " accounts");
                            }
                            c.commit();
                            checks.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            // real-time order: a mark committed on one connection is seen by a read-only transaction begun after on another
            tasks.add(pool.submit(() -> {
                try (Connection w = connect(server, ""); Connection r = connect(server, "");
                     PreparedStatement ins = w.prepareStatement("INSERT INTO marks VALUES (?)");
                     PreparedStatement sel = r.prepareStatement("SELECT COUNT(*) FROM marks WHERE id = ?")) {
                    r.setReadOnly(true);
                    r.setAutoCommit(false);
                    long id = 0;
                    while (!stop.get()) {
                        ins.setLong(1, ++id);
                        ins.executeUpdate();
                        sel.setLong(1, id);
                        try (ResultSet rs = sel.executeQuery()) {
                            rs.next();
                            if (rs.getLong(1) != 1) problems.add("mark " + id + " committed but not seen by a later read-only transaction");
                        }
                        r.commit();
                        marks.incrementAndGet();
                    }
                }
                return null;
            }));
            Thread.sleep(4_000);
            stop.set(true);
            pool.shutdown();
            for (Future<?> f : tasks) f.get(60, TimeUnit.SECONDS);
            assertTrue(problems.isEmpty(), problems.toString());
            assertTrue(transfers.get() > 20 && checks.get() > 20 && marks.get() > 5,
                    "work was done: " + transfers + " transfers, " + checks + " checks, " + marks + " marks");
            MacroAdmin admin = server.keeper().unwrap(MacroAdmin.class);
            assertTrue(admin.awaitCaughtUp(30_000));
            assertTrue(admin.routingCounts().onSecondaries() > 0, "read-only transactions ran on secondaries");
            List<String> sums = admin.checksums();
            assertEquals(1, sums.stream().distinct().count(), () -> "replicas converged: " + sums + contents(server));
            try (Connection c = connect(server, ""); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT SUM(balance) FROM account")) {
                rs.next();
                assertEquals(TOTAL, rs.getLong(1));
            }
        }
    }
}
