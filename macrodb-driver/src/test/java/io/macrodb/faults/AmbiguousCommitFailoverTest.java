package io.macrodb.faults;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.testing.Failovers;
import io.macrodb.testing.H2CommitPause;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A commit whose outcome is unknown because the primary's engine went away during it, and a later commit that read
 * what it wrote. H2's {@code SHUTDOWN IMMEDIATELY} suspends every session and lets a statement that is running end;
 * a {@code COMMIT} that is running then commits in the engine and still fails, with "The database is open in exclusive
 * mode" (90135). MacroDB publishes that version empty (the transaction is not in the log, so not in the successor),
 * but a transaction that took the next version after the engine had made the first one's rows visible has read them:
 * its record holds rows that include the lost transaction's writes. Shipping it gives the secondaries, and the
 * promoted primary, half of the first transaction (PrimaryFailoverTest over H2, seed 38972217190120: "total 19997 !=
 * 20000" after a promotion whose old primary's commit had failed with 90135).
 *
 * <p>Here the first commit is held in the engine after it committed ({@link H2CommitPause}), a second transaction
 * reads its row and commits, and only then does {@code SHUTDOWN IMMEDIATELY} suspend the sessions; the first commit
 * then fails with 90135. The second commit may not be acknowledged: after the promotion the database must hold a
 * state of some serial order of acknowledged transactions (the total of the accounts unchanged), and every
 * acknowledged one.
 */
class AmbiguousCommitFailoverTest {

    @Test
    void aCommitAfterOneWhoseOutcomeTheGonePrimaryTookWithItIsNotAcknowledged() throws Exception {
        String name = "ambiguous" + Long.toHexString(System.nanoTime());
        String url = "jdbc:macrodb:h2:mem:" + name + ";DATABASE_EVENT_LISTENER='" + H2CommitPause.class.getName() + "'"
                + "?replicas=3&lockTimeout=5000";
        ExecutorService pool = Executors.newFixedThreadPool(3);
        ExecutorService committer = Executors.newSingleThreadExecutor(); // the thread whose commit is held
        try (Connection admin = TestDb.open(url); Connection w1 = TestDb.open(url); Connection w2 = TestDb.open(url)) {
            MacroConnection mc = TestDb.macro(admin);
            String oldPrimaryUrl = mc.replicaStatus().get(0).url();
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
                s.execute("INSERT INTO account VALUES (0, 1000), (1, 1000), (2, 1000)");
            }
            w1.setAutoCommit(false);
            w2.setAutoCommit(false);

            transfer(w1, 0, 1, 3);
            Future<?> first = commitHeldInTheEngine(committer, w1);
            // the engine committed the first transfer and released its rows: this one reads account 1 as it left it
            transfer(w2, 1, 2, 5);
            Future<?> second = pool.submit(() -> {
                w2.commit();
                return null;
            });
            awaitEngineBalance(oldPrimaryUrl, 2, 1005); // the second commit is done in the engine ...
            Thread.sleep(50);
            assertFalse(second.isDone(), "... and waits for the first version's publication");

            Future<?> stop = pool.submit(() -> {
                Failovers.shutDown(oldPrimaryUrl);
                return null;
            });
            awaitExclusiveMode(oldPrimaryUrl); // SHUTDOWN suspended every session, the held commit's among them
            Thread.sleep(100);
            H2CommitPause.release(); // the first commit statement ends: 90135, after the engine committed it

            SQLException firstFailure = failure(first);
            assertEquals("40001", firstFailure.getSQLState(), firstFailure::toString);
            SQLException secondFailure = outcome(second);
            stop.get(30, TimeUnit.SECONDS);
            Failovers.awaitPromotion(mc);

            long[] balances = balances(admin);
            System.out.println("ambiguous commit: second commit " + (secondFailure == null ? "acknowledged" : "failed: " + secondFailure)
                    + "; balances after the promotion " + java.util.Arrays.toString(balances) + "; " + mc.replicaStatus());
            assertEquals(3000, balances[0] + balances[1] + balances[2],
                    () -> "the promoted primary holds part of a transfer: " + java.util.Arrays.toString(balances)
                            + " (second commit " + (secondFailure == null ? "acknowledged" : "failed: " + secondFailure) + ")");
            if (secondFailure == null) {
                assertEquals(1005, balances[2], "the acknowledged second transfer is there");
            } else {
                assertEquals("40001", secondFailure.getSQLState(), secondFailure::toString);
            }
            assertTrue(PrimaryFailoverTest.waitForAllActive(mc), () -> "replicas after the promotion: " + mc.replicaStatus());
            TestDb.assertConverged(admin);
            // and the database goes on: the retried transfers commit
            transfer(w1, 0, 1, 3);
            w1.commit();
            transfer(w2, 1, 2, 5);
            w2.commit();
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            long[] after = balances(admin);
            assertEquals(3000, after[0] + after[1] + after[2], () -> java.util.Arrays.toString(after));
            TestDb.assertConverged(admin);
        } finally {
            H2CommitPause.release();
            pool.shutdownNow();
            committer.shutdownNow();
        }
    }

    /**
     * The same held commit, seen by readers on the primary instead of a writer: a transaction that read the first
     * transfer's row there (an undeclared one with {@code SELECT ... FOR UPDATE}, and a declared read-only one sent to
     * the primary because no secondary was fresh) ends only once the versions it could have seen are published; when
     * the first commit is abandoned with the failed primary, what they read is a commit the database does not have,
     * and they fail with 40001 instead of returning as if it stood.
     */
    @Test
    void aReadOnThePrimaryThatSawACommitTheGonePrimaryTookWithItFails() throws Exception {
        String name = "ambiguousread" + Long.toHexString(System.nanoTime());
        String url = "jdbc:macrodb:h2:mem:" + name + ";DATABASE_EVENT_LISTENER='" + H2CommitPause.class.getName() + "'"
                + "?replicas=3&lockTimeout=5000&readWait=5";
        ExecutorService pool = Executors.newFixedThreadPool(3);
        ExecutorService committer = Executors.newSingleThreadExecutor();
        try (Connection admin = TestDb.open(url); Connection w1 = TestDb.open(url); Connection forUpdate = TestDb.open(url);
             Connection reader = TestDb.open(url)) {
            MacroConnection mc = TestDb.macro(admin);
            String oldPrimaryUrl = mc.replicaStatus().get(0).url();
            try (Statement s = admin.createStatement()) {
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
                s.execute("INSERT INTO account VALUES (0, 1000), (1, 1000), (2, 1000)");
            }
            assertTrue(mc.admin().awaitCaughtUp(5_000));
            // the secondaries stay behind the next commit, so that the declared reader goes to the primary
            mc.admin().pauseApplying(1, true);
            mc.admin().pauseApplying(2, true);
            try (Statement s = admin.createStatement()) {
                s.executeUpdate("UPDATE account SET balance = balance + 0 WHERE id = 2");
            }
            w1.setAutoCommit(false);
            transfer(w1, 0, 1, 3);
            Future<?> first = commitHeldInTheEngine(committer, w1);

            forUpdate.setAutoCommit(false);
            try (Statement s = forUpdate.createStatement(); ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = 1 FOR UPDATE")) {
                assertTrue(rs.next());
                assertEquals(1003, rs.getLong(1), "the engine committed the first transfer");
            }
            reader.setReadOnly(true);
            reader.setAutoCommit(false);
            try (Statement s = reader.createStatement(); ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = 0")) {
                assertTrue(rs.next());
                assertTrue(TestDb.macro(reader).currentReplica().isPrimary(), "no secondary was fresh: the read ran on the primary");
                assertEquals(997, rs.getLong(1), "the engine committed the first transfer");
            }
            Future<?> forUpdateCommit = pool.submit(() -> {
                forUpdate.commit();
                return null;
            });
            Future<?> readerCommit = pool.submit(() -> {
                reader.commit();
                return null;
            });
            Thread.sleep(100);
            assertFalse(forUpdateCommit.isDone(), "a transaction that read on the primary ends once what it could see is published");
            assertFalse(readerCommit.isDone(), "so does a read-only one");
            mc.admin().pauseApplying(1, false);
            mc.admin().pauseApplying(2, false);

            Future<?> stop = pool.submit(() -> {
                Failovers.shutDown(oldPrimaryUrl);
                return null;
            });
            awaitExclusiveMode(oldPrimaryUrl);
            Thread.sleep(100);
            H2CommitPause.release();

            assertEquals("40001", failure(first).getSQLState());
            SQLException forUpdateFailure = outcome(forUpdateCommit);
            SQLException readerFailure = outcome(readerCommit);
            stop.get(30, TimeUnit.SECONDS);
            Failovers.awaitPromotion(mc);
            long[] balances = balances(admin);
            System.out.println("ambiguous read: balances after the promotion " + java.util.Arrays.toString(balances) + "; FOR UPDATE: "
                    + forUpdateFailure + "; read-only: " + readerFailure);
            assertEquals(1000, balances[1], "the first transfer is not in the database");
            assertTrue(forUpdateFailure != null && "40001".equals(forUpdateFailure.getSQLState()),
                    () -> "the transaction that read 1003 on the failed primary " + (forUpdateFailure == null ? "committed" : "failed: " + forUpdateFailure));
            assertTrue(readerFailure != null && "40001".equals(readerFailure.getSQLState()),
                    () -> "the read-only transaction that read 997 on the failed primary " + (readerFailure == null ? "committed" : "failed: " + readerFailure));
            assertTrue(PrimaryFailoverTest.waitForAllActive(mc), () -> "replicas after the promotion: " + mc.replicaStatus());
            TestDb.assertConverged(admin);
        } finally {
            H2CommitPause.release();
            pool.shutdownNow();
            committer.shutdownNow();
        }
    }

    /**
     * Commits {@code c} on {@code committer}'s thread, whose next engine commit H2 holds: returns once the commit has
     * reached the engine (and is held there), with the commit's outcome to come.
     */
    private static Future<?> commitHeldInTheEngine(ExecutorService committer, Connection c) throws Exception {
        H2CommitPause.holdNextCommitOf(committer.submit(Thread::currentThread).get());
        Future<?> commit = committer.submit(() -> {
            c.commit();
            return null;
        });
        assertTrue(H2CommitPause.awaitHeld(10_000), "the first commit reached the engine");
        return commit;
    }

    private static void transfer(Connection c, int from, int to, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
            ps.setLong(1, -amount);
            ps.setInt(2, from);
            assertEquals(1, ps.executeUpdate());
            ps.setLong(1, amount);
            ps.setInt(2, to);
            assertEquals(1, ps.executeUpdate());
        }
    }

    /** The balances, read through MacroDB, retried while a promotion makes reads fail with 40001. */
    private static long[] balances(Connection c) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, balance FROM account ORDER BY id")) {
                long[] out = new long[3];
                while (rs.next()) out[rs.getInt(1)] = rs.getLong(2);
                return out;
            } catch (SQLException e) {
                if (!"40001".equals(e.getSQLState()) || attempt > 100) throw e;
                Thread.sleep(20);
            }
        }
    }

    /** Waits until the primary's engine itself (a session of its own) shows account {@code id} at {@code balance}. */
    private static void awaitEngineBalance(String engineUrl, int id, long balance) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Connection c = DriverManager.getConnection(engineUrl, "sa", "");
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = " + id)) {
                if (rs.next() && rs.getLong(1) == balance) return;
            }
            if (System.nanoTime() > deadline) fail("account " + id + " never reached " + balance + " in the primary's engine");
            Thread.sleep(10);
        }
    }

    /**
     * Waits until the primary's engine refuses new sessions: with 90135 while SHUTDOWN holds it and suspended the others,
     * or, once the shutdown went further before this poll came (under load), as closed (90098, 90121) or gone (90146).
     * Either way the held commit is released into an engine that is going away.
     */
    private static void awaitExclusiveMode(String engineUrl) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Connection ignored = DriverManager.getConnection(engineUrl + ";IFEXISTS=TRUE", "sa", "")) {
                // not yet
            } catch (SQLException e) {
                if (java.util.Set.of(90135, 90098, 90121, 90146).contains(e.getErrorCode())) return;
                throw e;
            }
            if (System.nanoTime() > deadline) fail("SHUTDOWN never put the engine in exclusive mode");
            Thread.sleep(2);
        }
    }

    private static SQLException failure(Future<?> f) throws Exception {
        SQLException e = outcome(f);
        if (e == null) fail("the commit returned");
        return e;
    }

    /** The commit's failure, or null if it returned. */
    private static SQLException outcome(Future<?> f) throws Exception {
        try {
            f.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return assertInstanceOf(SQLException.class, e.getCause());
        }
    }
}
