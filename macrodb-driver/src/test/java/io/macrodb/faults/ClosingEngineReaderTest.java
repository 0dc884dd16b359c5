package io.macrodb.faults;

import io.macrodb.jdbc.Internals;
import io.macrodb.replica.Replica;
import io.macrodb.replica.ReplicaSet;
import io.macrodb.testing.Failovers;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Errors that a statement or a new session gets while its engine shuts down, and that do not say so by their
 * SQLState, so a probe decides (seen in fresh-clone CI runs):
 * <ul>
 *   <li>HSQLDB gives a session opened while its database shuts down -451, "Database lock acquisition failure: attempt
 *   to connect while db opening /closing", a general error (S1000): a read-only transaction failed with it instead of
 *   moving to another replica ({@code FaultInjectionTest} over HSQLDB, parallel-apply execution).</li>
 *   <li>Derby gives a statement whose capture trigger (a Java procedure on {@code jdbc:default:connection}) ran while the
 *   database went away 38000, "The exception ... No current connection. was thrown while evaluating an expression",
 *   the lost connection (08003) only as its cause: a bank client failed with it during a failover
 *   ({@code PrimaryFailoverTest} over Derby).</li>
 * </ul>
 * A gone engine takes the replica out of the rotation (the transaction then starts elsewhere, or fails over with
 * 40001); an engine that answers stays in service. The races cannot be timed in a test; the errors they give are
 * handed to the same decision here.
 */
class ClosingEngineReaderTest {

    /** What HSQLDB gives a session opened while its database shuts down. */
    private static final SQLException CLOSING = new SQLException(
            "Database lock acquisition failure: attempt to connect while db opening /closing", "S1000", -451);

    /** What Derby gives a statement whose capture trigger ran while the database went away. */
    private static final SQLException LOST_IN_TRIGGER = new SQLException("The exception 'java.sql.SQLNonTransientConnectionException:"
            + " No current connection.' was thrown while evaluating an expression.", "38000", 20000,
            new java.sql.SQLNonTransientConnectionException("No current connection.", "08003", 40000));

    private static SQLException errorOf(String engine) {
        return engine.equals("hsqldb") ? CLOSING : LOST_IN_TRIGGER;
    }

    private static Connection open(String engine) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.macrodb.testing.TestEngines.all().anyMatch(engine::equals),
                "not among -Dmacrodb.testEngines");
        return TestDb.open(TestDb.url(engine, "replicas=2&rebuild=manual&lockTimeout=5000"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"hsqldb", "derby"})
    void theErrorOfAClosingEngineTakesAGoneSecondaryOutOfTheRotation(String engine) throws Exception {
        try (Connection c = open(engine)) {
            ReplicaSet set = Internals.replicaSet(c);
            Replica secondary = set.secondaries().get(0);
            assertTrue(secondary.isActive());
            Failovers.shutDown(secondary.url()); // behind MacroDB's back: it has not noticed yet
            assertTrue(secondary.isActive());
            assertTrue(set.replicaFailed(secondary, errorOf(engine), "a reader starting a session"),
                    "the reader moves on: the secondary's engine is gone");
            assertFalse(secondary.isActive(), "the secondary left the rotation: " + secondary.stateReason());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"hsqldb", "derby"})
    void theSameErrorFromAnEngineThatAnswersLeavesTheSecondaryInService(String engine) throws Exception {
        try (Connection c = open(engine)) {
            ReplicaSet set = Internals.replicaSet(c);
            Replica secondary = set.secondaries().get(0);
            assertFalse(set.replicaFailed(secondary, errorOf(engine), "a reader starting a session"), "a probe finds the engine there");
            assertTrue(secondary.isActive());
        }
    }
}
