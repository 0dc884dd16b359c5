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
 * <p>Read-only routing (MacroDB only): how many read-only transactions ran on a secondary and how
 * many on the primary (no secondary fresh enough within readWait, or undeclared), with their
 * latencies. The extra latency of reads that waited for a secondary to catch up is inside the
 * secondary latencies; the driver does not yet say per transaction how long it waited. Lag is
 * sampled every 25 ms from replicaStatus() over the measured window: versions (commits) a
 * secondary is behind the primary, mean and max over secondaries and samples.
 */
@JsonPropertyOrder(alphabetic = false)
public record RunResult(String engine, String workload, String mix, String config, int clients, int repetition,
                        double seconds, long completed, long specRollbacks, double tps,
                        double p50Ms, double p90Ms, double p99Ms, double maxMs,
                        long aborts, Map<String, Long> abortCauses, long errors, List<String> errorSamples,
                        long readOnly, long readOnlyOnSecondary, long readOnlyOnPrimary,
                        double roSecondaryP50Ms, double roSecondaryP99Ms, double roPrimaryP50Ms, double roPrimaryP99Ms,
                        double lagMeanVersions, long lagMaxVersions, double stalenessMeanMs,
                        Map<String, Long> completedByType, Map<String, Double> p50MsByType) {
}
