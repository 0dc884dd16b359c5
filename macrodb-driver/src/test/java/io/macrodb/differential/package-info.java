/**
 * Differential tests (issue 9): the same schema and statements run through MacroDB and through a
 * plain engine of the same kind, and every replica (primary and each secondary, read on its own
 * engine, values as java.time / engine-native objects) must hold the plain engine's rows; every
 * statement must succeed or fail on both. {@link io.macrodb.differential.Differential} is the
 * harness, {@link io.macrodb.differential.Scenario} the generated schema and workload,
 * {@code DifferentialPropertiesTest} the jqwik properties (one per engine and propagation mode, plus
 * two that check the harness itself), {@code Issue9ExamplesTest} the pinned reproductions. SQLite has
 * a generator of its own, {@link io.macrodb.differential.SqliteScenario} (its SQL, affinity and
 * storage classes), compared against a plain SQLite file; {@code SqliteDifferentialExamplesTest}
 * pins what it found.
 *
 * <p>The test classes carry the tag {@code differential}. Run them alone with
 * {@code mvn -pl macrodb-driver test -Dgroups=differential} (or {@code -Dtest='io/macrodb/differential/*'});
 * longer: {@code -Dmacrodb.differential.tries=2000}; replay a reported seed:
 * {@code -Dmacrodb.differential.seed=N}; smallest shrunk script: {@code -Dmacrodb.differential.shrinking=full};
 * look past a known divergence: {@code -Dmacrodb.differential.without=INVISIBLE,KEY_MOVES,...} (see
 * {@code DifferentialPropertiesTest}); fail on any refused DML: {@code -Dmacrodb.differential.strictRefusals=true}.
 */
package io.macrodb.differential;
