package io.macrodb.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;
import java.util.Map;

/**
 * One measured repetition of one point (engine, workload, mix, configuration, client count).
 *
 * <p>Latencies are of whole transactions as the client sees them, from the first statement to the
 * end of commit, in milliseconds. Throughput counts completed transactions, TPC-C's intended
 * NewOrder rollbacks included (the specification counts them); aborts are transactions that ended
 * in an error the engine or MacroDB asks to retry (SQLState class 40, lock timeouts), by cause;
 * errors are anything else and mean the benchmark or the database is wrong.
 *
 * <p>{@code cpuUsPerTx} is the CPU time the whole JVM used in the measured window (every thread:
 * clients, MacroDB's appliers and monitor, JIT, GC), on PostgreSQL plus every process of the servers
 * the benchmark started on this machine ({@link BenchEngine#serverCpuNanos}), per completed transaction, in microseconds, and
 * {@code cpuPct} that time as a share of all cores over the window (NaN where the JVM cannot tell).
 * On a shared machine, where throughput moves with what the neighbours do, CPU time per
 * transaction is the steadier measure of a configuration's cost.
 *
 * <p>Read-only routing (MacroDB only): how many read-only transactions ran on a secondary and how
 * many on the primary (no secondary fresh enough within readWait, or undeclared), with their
 * latencies; how many waited when they began for a secondary to catch up
 * ({@code MacroConnection.lastReadWaitNanos()}), how many of those then ran on the primary because
 * readWait ran out ({@code readOnlyFellBack}), and the wait's mean and 99th percentile over every
 * read-only transaction (those that did not wait count as 0). The wait is also inside the
 * secondary or primary latencies. Lag is
 * sampled every 25 ms from replicaStatus() over the measured window: versions (commits) a
 * secondary is behind the primary, mean and max over secondaries and samples.
 *
 * <p>Catch-up (MacroDB only): after each run, before anything else runs, the benchmark waits
 * (at most {@code Benchmark.CATCH_UP_MILLIS}) until every secondary has applied what the run
 * committed; {@code catchUpMs} is how long that took and {@code caughtUp} whether it happened in
 * time. NaN and true for the plain configurations, which have nothing to catch up.
 *
 * <p>{@code serverCpuUsPerTx} (PostgreSQL only, else NaN): the part of {@code cpuUsPerTx} spent by the servers'
 * processes; the rest is the benchmark's JVM (clients, pgjdbc, MacroDB).
 */
@JsonPropertyOrder(alphabetic = false)
public record RunResult(String engine, String workload, String mix, String config, int clients, int repetition,
                        double seconds, long completed, long specRollbacks, double tps, double cpuUsPerTx, double cpuPct,
                        double p50Ms, double p90Ms, double p99Ms, double maxMs,
                        long aborts, Map<String, Long> abortCauses, long errors, List<String> errorSamples,
                        long readOnly, long readOnlyOnSecondary, long readOnlyOnPrimary,
                        double roSecondaryP50Ms, double roSecondaryP99Ms, double roPrimaryP50Ms, double roPrimaryP99Ms,
                        long readOnlyWaited, long readOnlyFellBack, double roWaitMeanMs, double roWaitP99Ms,
                        double lagMeanVersions, long lagMaxVersions, double stalenessMeanMs,
                        Map<String, Long> completedByType, Map<String, Double> p50MsByType,
                        double catchUpMs, boolean caughtUp, double serverCpuUsPerTx) {

    /** This run with how long its secondaries took to catch up after it, and whether they did in time. */
    public RunResult withCatchUp(double ms, boolean caught) {
        return new RunResult(engine, workload, mix, config, clients, repetition, seconds, completed, specRollbacks, tps, cpuUsPerTx,
                cpuPct, p50Ms, p90Ms, p99Ms, maxMs, aborts, abortCauses, errors, errorSamples, readOnly, readOnlyOnSecondary,
                readOnlyOnPrimary, roSecondaryP50Ms, roSecondaryP99Ms, roPrimaryP50Ms, roPrimaryP99Ms, readOnlyWaited, readOnlyFellBack,
                roWaitMeanMs, roWaitP99Ms, lagMeanVersions, lagMaxVersions, stalenessMeanMs, completedByType, p50MsByType, ms, caught,
                serverCpuUsPerTx);
    }
}
