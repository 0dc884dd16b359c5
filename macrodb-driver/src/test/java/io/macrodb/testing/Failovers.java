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

    /** Stops an embedded H2 or HSQLDB engine from outside, the way a crash of its database would look. */
    public static void shutDown(String engineUrl) {
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
