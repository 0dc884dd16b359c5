/**
 * The face: {@link io.macrodb.jdbc.MacroDriver}, {@link io.macrodb.jdbc.MacroDataSource}, the URL
 * options ({@link io.macrodb.jdbc.MacroConfig}), {@link io.macrodb.jdbc.MacroConnection} over its
 * transaction state machine ({@code Transaction}, with {@code SessionHolds}), and the statement,
 * result-set and metadata wrappers.
 *
 * <p>The public face an application sees is {@code MacroDriver}, {@code MacroDataSource},
 * {@code MacroConnection}'s own methods and {@code MacroAdmin} (with the records they report:
 * {@code ReplicaRef}, {@code ReplicaStatus}, {@code ReadWaits.Stats}, {@code ShapeLearning.ShapeStats}).
 * The replica set behind a connection is package-private; {@code AdminApiTest} fails if a public
 * method of the face hands out an internal type.
 *
 * <p>May use every other package; none uses it (enforced by {@code LayeringTest}).
 */
package io.macrodb.jdbc;
