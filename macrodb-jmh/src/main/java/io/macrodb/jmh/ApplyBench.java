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
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * The secondary's apply cost per record, through the public path only ({@code RowWriter} is
 * package-private): one update transaction changing {@code rows} rows (one {@code RowChanges} with
 * that many final images), committed, then {@code awaitCaughtUp} until the secondary has applied and
 * published it. With {@code replicas=1} there is nothing to capture or apply and awaitCaughtUp
 * returns at once, so {@code (replicas=2) - (replicas=1)} at the same {@code rows} is what one record
 * costs beyond the primary's commit: capture (reading the final images), log append, handoff to the
 * applier, the apply transaction on the secondary, and the version handoff back.
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ApplyBench {

    @State(Scope.Benchmark)
    public static class Workload {
        @Param({"1", "10"})
        public int rows;

        @Param({"1", "2"})
        public int replicas;

        Db db;
        Connection c;
        PreparedStatement update;

        @Setup(Level.Trial)
        public void open() throws SQLException {
            db = new Db("macrodb" + replicas);
            c = db.connect();
            c.setAutoCommit(false);
            update = c.prepareStatement("UPDATE acct SET bal = bal + 1 WHERE id >= ? AND id < ?");
            update.setInt(1, 0);
            update.setInt(2, rows);
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            c.close();
            db.close();
        }
    }

    @Benchmark
    public int commitAndAwaitApplied(Workload s) throws SQLException {
        int n = s.update.executeUpdate();
        s.c.commit();
        s.db.awaitCaughtUp();
        if (n != s.rows) throw new IllegalStateException("updated " + n + " rows, expected " + s.rows);
        return n;
    }
}
