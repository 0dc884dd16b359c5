package io.macrodb.bench;

import java.util.Map;

/**
 * One point over its repetitions: median throughput and its spread (min and max over repetitions,
 * and (max-min)/median in percent), medians of the latency percentiles, aborts summed, and the
 * ratios at this client count: to the standalone engine and to the independent-engines aggregate
 * ({@code independentRef} names which; NaN when that configuration was not run).
 */
public record PointSummary(String engine, String workload, String mix, String config, int clients, int repetitions,
                           double tpsMedian, double tpsMin, double tpsMax, double spreadPct,
                           double p50Ms, double p99Ms, double abortPct, Map<String, Long> abortCauses, long errors,
                           double roOnSecondaryPct, double roSecondaryP50Ms, double roPrimaryP50Ms,
                           double lagMeanVersions, long lagMaxVersions,
                           double vsStandalone, String independentRef, double vsIndependent) {
}
