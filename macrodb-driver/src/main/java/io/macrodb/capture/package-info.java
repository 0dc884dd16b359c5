/**
 * Turns what an update transaction did into a change record:
 * {@link io.macrodb.capture.TransactionChanges} collects the rows the engine's capture triggers
 * report and builds final images at commit. Also the former class names of the capture triggers,
 * kept for databases written before they moved to {@code engine}.
 *
 * <p>Uses {@code log}, {@code sql}, {@code engine} and {@code replica}; never {@code route} or
 * {@code jdbc} (enforced by {@code LayeringTest}).
 */
package io.macrodb.capture;
