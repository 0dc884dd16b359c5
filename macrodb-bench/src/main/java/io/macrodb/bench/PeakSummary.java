package io.macrodb.bench;

/**
 * Peak-to-peak comparison of one configuration on one mix: its best median throughput over the
 * client counts measured, against the standalone engine's best and the independent aggregate's
 * best (each at its own best client count).
 */
public record PeakSummary(String engine, String workload, String mix, String config, int peakClients, double peakTps,
                          double standalonePeakTps, double vsStandalone, String independentRef, double independentPeakTps,
                          double vsIndependent) {
}
