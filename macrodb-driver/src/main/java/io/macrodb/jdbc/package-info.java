/**
 * The face: {@link io.macrodb.jdbc.MacroDriver}, {@link io.macrodb.jdbc.MacroDataSource}, the URL
 * options ({@link io.macrodb.jdbc.MacroConfig}), {@link io.macrodb.jdbc.MacroConnection} over its
 * transaction state machine ({@code Transaction}, with {@code SessionHolds}), and the statement,
 * result-set and metadata wrappers.
 *
 * <p>May use every other package; none uses it (enforced by {@code LayeringTest}).
 */
package io.macrodb.jdbc;
