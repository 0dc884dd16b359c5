/**
 * What each engine can do: {@link io.macrodb.engine.Engine} with H2 and HSQLDB (replica URLs,
 * settings, copy, retryable errors, admission profile), its catalog and checksums, the capture
 * triggers the engines call ({@link io.macrodb.engine.H2CaptureTrigger},
 * {@link io.macrodb.engine.HsqldbCaptureTrigger}) with the thread-local
 * {@link io.macrodb.engine.CaptureContext} they report to, and how engine values are read exactly
 * ({@link io.macrodb.engine.Values}).
 *
 * <p>Uses {@code log} and {@code sql}; never {@code capture}, {@code replica}, {@code route} or
 * {@code jdbc} (enforced by {@code LayeringTest}).
 */
package io.macrodb.engine;
