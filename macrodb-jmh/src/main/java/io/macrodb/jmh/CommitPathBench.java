package io.macrodb.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The commit path end to end through JDBC: a single-row UPDATE + commit, and a read-only point
 * SELECT transaction ({@code setReadOnly(true)}), on plain H2 in memory, MacroDB with 1 replica (the
 * primary only: MacroDB's routing and commit critical section, no capture) and MacroDB with 2
 * replicas (capture, log append, one applier thread). Each benchmark thread owns one row, so threads
 * never wait for each other's row locks; what they share is the engine and MacroDB's commit lock.
 *
 * <p>With {@code macrodb2} the applier is a third busy thread: on a 2-core machine the 2-thread
 * variants oversubscribe the CPU, which is part of what they show.
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CommitPathBench {

    @State(Scope.Benchmark)
    public static class Database {
        @Param({"h2", "macrodb1", "macrodb2"})
        public String target;

        Db db;
        final AtomicInteger nextRow = new AtomicInteger();

        @Setup(Level.Trial)
        public void open() throws SQLException {
            db = new Db(target);
            nextRow.set(0);
        }

        /** A secondary that fell behind during an iteration catches up before the next one starts. */
        @TearDown(Level.Iteration)
        public void catchUp() throws SQLException {
            db.awaitCaughtUp();
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            db.close();
        }
    }

    @State(Scope.Thread)
    public static class Client {
        Connection rw;
        Connection ro;
        PreparedStatement update;
        PreparedStatement select;
        int id;

        @Setup(Level.Trial)
        public void open(Database d) throws SQLException {
            id = d.nextRow.getAndIncrement() % Db.ROWS;
            rw = d.db.connect();
            rw.setAutoCommit(false);
            update = rw.prepareStatement("UPDATE acct SET bal = bal + 1 WHERE id = ?");
            ro = d.db.connect();
            ro.setAutoCommit(false);
            ro.setReadOnly(true);
            select = ro.prepareStatement("SELECT bal FROM acct WHERE id = ?");
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            rw.close();
            ro.close();
        }

        int updateAndCommit() throws SQLException {
            update.setInt(1, id);
            int n = update.executeUpdate();
            rw.commit();
            if (n != 1) throw new IllegalStateException("updated " + n + " rows");
            return n;
        }

        long readOnlyTransaction() throws SQLException {
            select.setInt(1, id);
            long bal;
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) throw new IllegalStateException("row " + id + " missing");
                bal = rs.getLong(1);
            }
            ro.commit();
            return bal;
        }
    }

    @Benchmark
    @Threads(1)
    public int update_1t(Client c) throws SQLException {
        return c.updateAndCommit();
    }

    @Benchmark
    @Threads(2)
    public int update_2t(Client c) throws SQLException {
        return c.updateAndCommit();
    }

    @Benchmark
    @Threads(1)
    public long readOnly_1t(Client c) throws SQLException {
        return c.readOnlyTransaction();
    }

    @Benchmark
    @Threads(2)
    public long readOnly_2t(Client c) throws SQLException {
        return c.readOnlyTransaction();
    }
}
