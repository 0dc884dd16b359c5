package io.macrodb.jmh;

import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.ReplicationLog;
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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The shared replication log: what the commit critical section pays to append a record, depending on
 * how many secondaries (cursors) are attached, and how long a record takes to reach a waiting
 * applier.
 *
 * <p>{@code append} runs on one thread only ({@code @Threads(1)}): the log requires its caller to
 * serialise appends, as {@code ReplicaSet.commit} does under its lock. Each attached cursor is
 * drained by a background thread doing what the applier does ({@code awaitNext}, walk to the newest
 * record, {@code advanceTo}), so the producer pays for real wake-ups of parked readers. Append and
 * record construction are measured together (the version must be {@code lastVersion()+1}, so records
 * cannot be built ahead); {@code constructRecord} is the construction alone, to subtract.
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class ReplicationLogBench {

    /** A log with {@code cursors} draining consumer threads. */
    @State(Scope.Benchmark)
    public static class Appending {
        @Param({"0", "1", "4"})
        public int cursors;

        ReplicationLog log;
        long version;
        List<Change> changes;
        private volatile boolean running;
        private final List<Thread> consumers = new ArrayList<>();

        @Setup(Level.Trial)
        public void setUp() {
            log = new ReplicationLog(0);
            version = 0;
            changes = Fixtures.oneRowUpdate();
            running = true;
            for (int i = 0; i < cursors; i++) {
                ReplicationLog.Cursor c = log.openCursor();
                consumers.add(Threads2.start("log-consumer-" + i, () -> drain(c)));
            }
        }

        private void drain(ReplicationLog.Cursor c) {
            try (c) {
                while (running) {
                    ChangeRecord first = c.awaitNext(TimeUnit.MILLISECONDS.toNanos(50));
                    if (first == null) continue;
                    ChangeRecord last = first;
                    for (ChangeRecord n; (n = last.next()) != null; ) last = n;
                    c.advanceTo(last);
                }
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            running = false;
            for (Thread t : consumers) t.interrupt();
            for (Thread t : consumers) Threads2.join(t);
            consumers.clear();
        }
    }

    /** Construction + append, i.e. the log part of the commit critical section. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long append(Appending s) {
        long v = ++s.version;
        s.log.append(new ChangeRecord(v, System.nanoTime(), s.changes));
        s.log.wakeReaders(); // what a commit does right after leaving the critical section
        return v;
    }

    @State(Scope.Thread)
    public static class Constructing {
        long version;
        List<Change> changes;

        @Setup(Level.Trial)
        public void setUp() { changes = Fixtures.oneRowUpdate(); }
    }

    /** Record construction alone (List.copyOf, the DDL scan, nanoTime): the part of append that is not the log. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public ChangeRecord constructRecord(Constructing s) {
        return new ChangeRecord(++s.version, System.nanoTime(), s.changes);
    }

    /**
     * One consumer that acknowledges every record it takes. The measured thread appends and busy-waits
     * for the acknowledgement, so one op is append -> {@code awaitNext} returns -> ack seen. With
     * {@code wake=spin} the consumer is still inside its spin window when the record arrives (it
     * re-enters {@code awaitNext} right after its ack); with {@code wake=park} every invocation first
     * waits until the consumer has parked, so the op includes an unpark and the consumer's wake-up.
     */
    /**
     * A log with one consumer thread that takes every record as the applier does ({@code awaitNext},
     * {@code advanceTo}) and then calls {@link #taken}; the two single-consumer states below differ
     * only in that and in what each invocation waits for.
     */
    @State(Scope.Benchmark)
    public abstract static class OneConsumer {
        ReplicationLog log;
        ReplicationLog.Cursor cursor;
        long version;
        private volatile boolean running;
        Thread consumer;

        /** Called on the consumer thread with each record it took. */
        abstract void taken(ChangeRecord r);

        @Setup(Level.Trial)
        public void setUp() {
            log = new ReplicationLog(0);
            version = 0;
            running = true;
            cursor = log.openCursor();
            ReplicationLog.Cursor c = cursor;
            consumer = Threads2.start("log-consumer", () -> {
                try (c) {
                    while (running) {
                        ChangeRecord r = c.awaitNext(TimeUnit.SECONDS.toNanos(1));
                        if (r == null) continue;
                        c.advanceTo(r);
                        taken(r);
                    }
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            running = false;
            consumer.interrupt();
            Threads2.join(consumer);
        }
    }

    @State(Scope.Benchmark)
    public static class Handoff extends OneConsumer {
        @Param({"spin", "park"})
        public String wake;

        volatile long ack;

        @Override void taken(ChangeRecord r) { ack = r.version(); }

        @Setup(Level.Trial)
        public void resetAck() { ack = 0; }

        @Setup(Level.Invocation)
        public void beforeEach() {
            if (wake.equals("park")) Threads2.awaitParked(consumer, cursor);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long handoff(Handoff s) {
        long v = ++s.version;
        s.log.append(new ChangeRecord(v, 0L, List.of()));
        s.log.wakeReaders();
        while (s.ack != v) Thread.onSpinWait();
        return v;
    }

    /**
     * What the committer pays inside the commit critical section when the applier's cursor is
     * parked (the normal case when commits are more than the ~5 µs spin window apart): record
     * construction + append + the {@code LockSupport.unpark} of the parked reader. Every invocation
     * first waits (unmeasured) until the consumer took the previous record and parked again. Compare
     * with {@code append} at {@code cursors=0/1}, where no reader is parked.
     */
    @State(Scope.Benchmark)
    public static class ParkedConsumer extends OneConsumer {
        /** How long the partner has been parked before the measured call: 0, or long enough for its CPU to go idle. */
        @Param({"0", "200"})
        public int idleMicros;

        @Override void taken(ChangeRecord r) {
            // nothing: the measured side waits for the consumer to park again, not for an acknowledgement
        }

        @Setup(Level.Invocation)
        public void beforeEach() {
            Threads2.awaitParked(consumer, cursor);
            Threads2.busyWaitMicros(idleMicros);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long appendWakingParked(ParkedConsumer s) {
        long v = ++s.version;
        s.log.append(new ChangeRecord(v, System.nanoTime(), List.of()));
        s.log.wakeReaders(); // since the fix this runs after the commit lock is released
        return v;
    }
}
