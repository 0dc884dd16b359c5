package io.macrodb.jmh;

import io.macrodb.log.VersionGate;
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
 * The version gate: what a publisher (the primary's commit, an applier) pays, and how long a reader
 * waits for a version.
 *
 * <ul>
 *   <li>{@code publish}: one publisher, with 0, 1 or 4 threads parked on a version that is never
 *       reached (so every publish scans the waiter queue and wakes nobody, the steady state of a
 *       gate whose readers wait for a far version).</li>
 *   <li>{@code awaitReached}: the fast path, version already reached.</li>
 *   <li>{@code awaitSpinWindow}: a target never reached with timeout 0: the full spin window plus
 *       the waiter queue add/remove, i.e. what a reader burns before it parks.</li>
 *   <li>{@code handoff}: publisher and responder on two gates. The measured thread publishes
 *       {@code v} on gate A and busy-waits until the responder, blocked in {@code A.await(v)},
 *       publishes {@code v} on gate B. {@code wake=spin}: the responder is inside its spin window
 *       (it re-entered {@code await} right after replying); {@code wake=park}: every invocation first
 *       waits until the responder has parked, so the op includes unpark + wake-up.</li>
 *   <li>{@code pingPong}: both sides use {@code await}; one op is a round trip (two handoffs).</li>
 * </ul>
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Threads(1)
public class VersionGateBench {
    private static final long FOREVER = TimeUnit.HOURS.toNanos(1);

    @State(Scope.Benchmark)
    public static class Publishing {
        @Param({"0", "1", "4"})
        public int waiters;

        VersionGate gate;
        long version;
        private volatile boolean running;
        private final List<Thread> threads = new ArrayList<>();

        @Setup(Level.Trial)
        public void setUp() {
            gate = new VersionGate(0);
            version = 0;
            running = true;
            for (int i = 0; i < waiters; i++) {
                threads.add(Threads2.start("gate-waiter-" + i, () -> {
                    while (running) gate.await(Long.MAX_VALUE, FOREVER, () -> running);
                }));
            }
            for (Thread t : threads) Threads2.awaitParked(t, gate);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            running = false;
            gate.wakeAll();
            for (Thread t : threads) Threads2.join(t);
            threads.clear();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public void publish(Publishing s) {
        s.gate.publish(++s.version);
    }

    @State(Scope.Thread)
    public static class Reached {
        VersionGate gate;
        long target;

        @Setup(Level.Trial)
        public void setUp() {
            gate = new VersionGate(1_000);
            target = 999; // a field, not a constant, so the comparison is not folded
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean awaitReached(Reached s) {
        return s.gate.await(s.target, FOREVER, () -> true);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean awaitSpinWindow(Reached s) {
        return s.gate.await(s.target + 2, 0L, () -> true);
    }

    /**
     * Two gates and an echo thread: {@code await(a >= v)} then {@code b.publish(v)}. Shared by the
     * handoff and ping-pong states (JMH runs inherited {@code @Setup}/{@code @TearDown} methods).
     */
    public abstract static class EchoPair {
        VersionGate a;
        VersionGate b;
        long version;
        private volatile boolean running;
        Thread echo;

        @Setup(Level.Trial)
        public void setUp() {
            a = new VersionGate(0);
            b = new VersionGate(0);
            version = 0;
            running = true;
            echo = Threads2.start("gate-echo", () -> {
                long want = 1;
                while (running) {
                    // reply with exactly the version waited for: the measured thread publishes
                    // the next one as soon as this reply lands, so re-reading a.version() here races
                    if (a.await(want, FOREVER, () -> running)) b.publish(want++);
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            running = false;
            a.wakeAll();
            Threads2.join(echo);
        }
    }

    /** The echo pair, with the echo thread either spinning or parked before each invocation. */
    @State(Scope.Benchmark)
    public static class Echo extends EchoPair {
        @Param({"spin", "park"})
        public String wake;

        @Setup(Level.Invocation)
        public void beforeEach() {
            if (wake.equals("park")) Threads2.awaitParked(echo, a);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long handoff(Echo s) {
        long v = ++s.version;
        s.a.publish(v);
        while (s.b.version() < v) Thread.onSpinWait();
        return v;
    }

    /** Same echo thread, no per-invocation setup: the measured side waits with {@code await} too. */
    @State(Scope.Benchmark)
    public static class PingPong extends EchoPair {
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean pingPong(PingPong s) {
        long v = ++s.version;
        s.a.publish(v);
        return s.b.await(v, FOREVER, () -> true);
    }

    /**
     * {@code publish} reaching the target of one parked waiter: the version write plus the
     * {@code LockSupport.unpark}. This is what the primary's commit critical section and an applier
     * pay per publish when a reader is parked on the gate. Every invocation first waits (unmeasured)
     * until the waiter woke from the previous publish and parked again on the next version.
     */
    @State(Scope.Benchmark)
    public static class ParkedWaiter {
        /** How long the partner has been parked before the measured call: 0, or long enough for its CPU to go idle. */
        @Param({"0", "200"})
        public int idleMicros;

        VersionGate gate;
        long version;
        private volatile boolean running;
        private Thread waiter;

        @Setup(Level.Trial)
        public void setUp() {
            gate = new VersionGate(0);
            version = 0;
            running = true;
            waiter = Threads2.start("gate-parker", () -> {
                long want = 1;
                while (running) if (gate.await(want, FOREVER, () -> running)) want++;
            });
        }

        @Setup(Level.Invocation)
        public void beforeEach() {
            Threads2.awaitParked(waiter, gate);
            Threads2.busyWaitMicros(idleMicros);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            running = false;
            gate.wakeAll();
            Threads2.join(waiter);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public void publishWakingParked(ParkedWaiter s) {
        s.gate.publish(++s.version);
    }
}
