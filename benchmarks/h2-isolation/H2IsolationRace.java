import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plain H2, no MacroDB: several threads run short transactions over a parent table and a child
 * table with ON DELETE CASCADE (ConvergenceTest's parents/children workload), so that transactions
 * deadlock. An AFTER ROW trigger records what each transaction changed in the parent table; before
 * committing a transaction whose statements all succeeded, the thread reads the touched rows back
 * in the same transaction. H2 is correct if they always equal what the trigger saw: a transaction
 * sees its own writes, and no other transaction can change a row it has written until it ends.
 *
 * <p>It prints every difference ("MISMATCH"), whether the commit then succeeded, every internal
 * error H2 raised (its SQLState 50000, "General error"), and a summary line. Usage:
 * {@code java -cp h2.jar:. H2IsolationRace THREADS SECONDS [SEED]}; see run.sh.
 */
public class H2IsolationRace {
    /** What the trigger saw in the parent table, per thread (each thread is one transaction at a time). */
    static final ThreadLocal<List<Object[]>> EVENTS = ThreadLocal.withInitial(ArrayList::new);

    public static class Capture implements org.h2.api.Trigger {
        @Override public void init(Connection c, String schema, String trigger, String table, boolean before, int type) {}

        @Override public void fire(Connection c, Object[] oldRow, Object[] newRow) {
            EVENTS.get().add(new Object[] {oldRow == null ? null : oldRow.clone(), newRow == null ? null : newRow.clone()});
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long seconds = Long.parseLong(args[1]);
        long seed = args.length > 2 ? Long.parseLong(args[2]) : System.nanoTime();
        System.out.println("H2 " + org.h2.engine.Constants.FULL_VERSION + ", " + threads + " threads, " + seconds + " s, seed " + seed);
        String url = "jdbc:h2:mem:race" + seed + ";LOCK_TIMEOUT=5000;DB_CLOSE_DELAY=-1";
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE parents (id INT PRIMARY KEY, name VARCHAR(50))");
            s.execute("CREATE TABLE children (id INT PRIMARY KEY, parent_id INT REFERENCES parents(id) ON DELETE CASCADE, v INT)");
            s.execute("CREATE TRIGGER capture AFTER INSERT, UPDATE, DELETE ON parents FOR EACH ROW CALL \""
                    + Capture.class.getName() + "\"");
        }
        AtomicLong transactions = new AtomicLong(), checked = new AtomicLong(), mismatches = new AtomicLong();
        AtomicLong deadlocks = new AtomicLong(), internalErrors = new AtomicLong(), committedMismatches = new AtomicLong();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Random r = new Random(seed + t);
            futures.add(pool.submit(() -> {
                try (Connection c = DriverManager.getConnection(url)) {
                    c.setAutoCommit(false);
                    while (System.nanoTime() < end) {
                        EVENTS.get().clear();
                        boolean failed = false;
                        List<String> ops = new ArrayList<>();
                        try (Statement s = c.createStatement()) {
                            int n = 1 + r.nextInt(5);
                            for (int i = 0; i < n; i++) {
                                String sql = switch (r.nextInt(4)) {
                                    case 0 -> "INSERT INTO parents VALUES (" + r.nextInt(30) + ", 'p')";
                                    case 1 -> "INSERT INTO children VALUES (" + r.nextInt(200) + ", " + r.nextInt(30) + ", " + r.nextInt(9) + ")";
                                    case 2 -> "DELETE FROM parents WHERE id = " + r.nextInt(30);
                                    default -> "UPDATE parents SET name = 'q' WHERE id = " + r.nextInt(30);
                                };
                                ops.add(sql);
                                try {
                                    s.executeUpdate(sql);
                                } catch (SQLException e) {
                                    if (!e.getSQLState().startsWith("23")) throw e;
                                    failed = true; // a constraint violation fails the statement, not the transaction
                                }
                            }
                            if (!failed) {
                                Map<Integer, String> seen = new LinkedHashMap<>();
                                for (Object[] ev : EVENTS.get()) {
                                    if (ev[0] != null) seen.put((Integer) ((Object[]) ev[0])[0], null);
                                    if (ev[1] != null) seen.put((Integer) ((Object[]) ev[1])[0], (String) ((Object[]) ev[1])[1]);
                                }
                                Map<Integer, String> back = new LinkedHashMap<>();
                                for (Integer k : seen.keySet()) {
                                    try (ResultSet rs = s.executeQuery("SELECT name FROM parents WHERE id = " + k)) {
                                        back.put(k, rs.next() ? rs.getString(1) : null);
                                    }
                                }
                                checked.incrementAndGet();
                                if (!seen.equals(back)) {
                                    mismatches.incrementAndGet();
                                    String outcome;
                                    try {
                                        c.commit();
                                        outcome = "the commit succeeded";
                                        committedMismatches.incrementAndGet();
                                    } catch (SQLException ce) {
                                        outcome = "the commit failed: " + ce.getSQLState();
                                        c.rollback();
                                    }
                                    System.out.println("MISMATCH trigger saw " + seen + ", read back " + back + ", statements " + ops + "; " + outcome);
                                    transactions.incrementAndGet();
                                    continue;
                                }
                            }
                            if (r.nextInt(100) < 15) c.rollback();
                            else c.commit();
                            transactions.incrementAndGet();
                        } catch (SQLException e) {
                            c.rollback();
                            if (e.getErrorCode() == 40001) deadlocks.incrementAndGet();
                            else if (e.getErrorCode() == 50000) {
                                internalErrors.incrementAndGet();
                                System.out.println("INTERNAL ERROR " + e.getMessage().split("\n")[0]);
                            } else if (!"HYT00".equals(e.getSQLState())) {
                                System.out.println("OTHER ERROR " + e);
                            }
                        }
                    }
                }
                return null;
            }));
        }
        pool.shutdown();
        // a thread can stay in an H2 lock wait for good (seen once, at 80 % CPU for over an hour): report it and stop
        boolean finished = pool.awaitTermination(seconds + 60, java.util.concurrent.TimeUnit.SECONDS);
        long hung = futures.stream().filter(f -> !f.isDone()).count();
        for (Future<?> f : futures) if (f.isDone()) f.get();
        System.out.println("RESULT h2=" + org.h2.engine.Constants.VERSION + " threads=" + threads + " seconds=" + seconds + " seed=" + seed
                + " transactions=" + transactions + " checked=" + checked + " deadlocks=" + deadlocks + " internalErrors=" + internalErrors
                + " mismatches=" + mismatches + " committedAfterMismatch=" + committedMismatches + " hungThreads=" + hung);
        System.out.flush();
        if (!finished) Runtime.getRuntime().halt(0);
    }
}
