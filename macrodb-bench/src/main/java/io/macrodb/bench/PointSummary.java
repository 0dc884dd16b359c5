package io.macrodb.bench;

import java.util.Map;

/**
 * One point over its repetitions: median throughput and its spread (min and max over repetitions,
 * and (max-min)/median in percent; NaN for a single repetition, which has no spread), the median CPU time per transaction and its ratio to the
 * standalone engine's at this client count (the cost of a configuration per transaction), medians of the latency percentiles, aborts summed, and the
 * share of read-only transactions that waited for a secondary to catch up and the mean wait over all
 * of them (MacroDB; the median over repetitions), and the ratios at this client count: to the standalone engine and to the independent-engines aggregate
 * ({@code independentRef} names which; NaN when that configuration was not run). MacroDB only: the
 * median and the longest time its secondaries took to catch up after a repetition, and in how many
 * repetitions they did not within the benchmark's time-out (NaN, NaN, 0 for the plain configurations).
 */
public record PointSummary(String engine, String workload, String mix, String config, int clients, int repetitions,
                           double tpsMedian, double tpsMin, double tpsMax, double spreadPct, double cpuUsPerTx, double cpuVsStandalone,
                           double p50Ms, double p99Ms, double abortPct, Map<String, Long> abortCauses, long errors,
                           double roOnSecondaryPct, double roSecondaryP50Ms, double roPrimaryP50Ms,
                           double roWaitedPct, double roWaitMeanMs,
                           double lagMeanVersions, long lagMaxVersions,
                           double vsStandalone, String independentRef, double vsIndependent,
                           double catchUpMedianMs, double catchUpMaxMs, int notCaughtUp) {
}
