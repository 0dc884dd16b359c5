/** Benchmark workloads and the side-by-side runner behind {@code macrodb bench}. */
package io.macrodb.bench;
