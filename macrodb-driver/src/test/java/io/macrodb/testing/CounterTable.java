package io.macrodb.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The routing tests' table {@code t (id, v)} of counters: increments on the primary, single-row reads in read-only
 * transactions, and a lock held on a secondary's engine behind MacroDB's back, which holds its applier up until
 * released (a secondary that is catching up, at a known apply rate).
 */
public final class CounterTable {
    private CounterTable() {}

    /** Creates {@code t} with counters {@code 0..rows-1}, each at 0. */
    public static void create(Connection c, int rows) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v BIGINT NOT NULL)");
            for (int i = 0; i < rows; i++) s.execute("INSERT INTO t VALUES (" + i + ", 0)");
        }
    }

    /** Counter {@code id}, read in a read-only transaction that stays open (the caller commits it). */
    public static long readOnly(Connection reader, int id) throws SQLException {
        reader.setReadOnly(true);
        reader.setAutoCommit(false);
        try (Statement s = reader.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t WHERE id = " + id)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }

    /** Adds 1 to counter {@code id} (committed in autocommit, else in the caller's transaction). */
    public static void increment(Connection writer, int id) throws SQLException {
        try (Statement s = writer.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE t SET v = v + 1 WHERE id = " + id));
        }
    }

    /**
     * A session of the secondary's own engine ({@code secondaryUrl}, H2) holding counter {@code id} locked: the
     * secondary's applier waits at the next record that changes it. Closing it releases the lock.
     */
    public static Connection lockOnSecondary(String secondaryUrl, int id) throws SQLException {
        Connection blocker = DriverManager.getConnection(secondaryUrl, "sa", "");
        blocker.setAutoCommit(false);
        try (Statement s = blocker.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t WHERE id = " + id + " FOR UPDATE")) {
            assertTrue(rs.next());
        } catch (SQLException | RuntimeException | Error e) {
            blocker.close();
            throw e;
        }
        return blocker;
    }

    /**
     * Secondary 1 made to catch up at a known rate and then held up: 50 increments of counter {@code warmId} give its
     * applier a recent apply rate, it catches up, and a session of its own engine (H2) locks counter {@code lockedId}
     * there. The next commit that changes {@code lockedId} waits on the secondary until the returned session's lock goes.
     */
    public static Connection holdUpSecondary(Connection writer, io.macrodb.jdbc.MacroConnection observer, int warmId, int lockedId)
            throws SQLException {
        for (int i = 0; i < 50; i++) increment(writer, warmId);
        assertTrue(observer.admin().awaitCaughtUp(5_000));
        return lockOnSecondary(observer.replicaStatus().get(1).url(), lockedId);
    }

    /** A thread (not started) that releases {@code blocker}'s lock after {@code millis}; its failure goes to {@code failure}. */
    public static Thread releaseAfter(Connection blocker, long millis, AtomicReference<Throwable> failure) {
        return new Thread(() -> {
            try {
                Thread.sleep(millis);
                blocker.rollback();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
    }
}
