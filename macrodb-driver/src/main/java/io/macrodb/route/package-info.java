/**
 * Where a read-only transaction runs: {@link io.macrodb.route.ReadRouter} (freshness by consistency
 * level, waits, admission), the balancers, the consistency levels, the routing counters and the
 * learning of which undeclared transactions start on a secondary. Knows replicas and versions, not
 * JDBC.
 *
 * <p>Uses {@code log}, {@code sql}, {@code engine} and {@code replica}; never {@code capture} or
 * {@code jdbc} (enforced by {@code LayeringTest}).
 */
package io.macrodb.route;
