package io.macrodb.testing;

import io.macrodb.jdbc.MacroConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the fault tests fail a primary and wait for its successor. */
public final class Failovers {
    private Failovers() {}

    /**
     * Stops an embedded engine from outside, the way a crash of its database would look: H2's and HSQLDB's
     * {@code SHUTDOWN IMMEDIATELY}; an in-memory Derby database is dropped (Derby boots one that was only shut down
     * again on the next connection, so a shut-down one is no gone engine).
     */
    public static void shutDown(String engineUrl) {
        if (engineUrl.startsWith("jdbc:derby:")) {
            String dropped = engineUrl.replace(";create=true", "") + ";drop=true";
            try (Connection ignored = DriverManager.getConnection(dropped)) {
                throw new AssertionError("Derby did not drop " + engineUrl);
            } catch (SQLException expected) {
                // 08006: the database was dropped
            }
            return;
        }
        try (Connection k = DriverManager.getConnection(engineUrl, "sa", ""); Statement s = k.createStatement()) {
            s.execute("SHUTDOWN IMMEDIATELY");
        } catch (SQLException expectedClose) {
            // the engine closes the connection that shut it down
        }
    }

    /** Waits (30 s at most) until a secondary was promoted, and asserts it was. */
    public static void awaitPromotion(MacroConnection mc) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && !mc.replicaStatus().get(0).stateReason().startsWith("promoted")) Thread.sleep(20);
        assertTrue(mc.replicaStatus().get(0).stateReason().startsWith("promoted"), () -> "no promotion: " + mc.replicaStatus());
    }
}
