/**
 * The face: {@link io.macrodb.jdbc.MacroDriver}, {@link io.macrodb.jdbc.MacroDataSource}, the URL
 * options ({@link io.macrodb.jdbc.MacroConfig}), {@link io.macrodb.jdbc.MacroConnection} with the
 * transaction state machine, and the statement, result-set and metadata wrappers.
 *
 * <p>May use every other package; none uses it (enforced by {@code LayeringTest}).
 */
package io.macrodb.jdbc;
