package io.macrodb.bench;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The skip rule of the PostgreSQL tests, as in the driver's ({@code PgCluster.assumeAvailable}): without server binaries
 * a test that needs them is skipped with the reason printed; {@code -Dmacrodb.requirePostgres=true} (CI sets it) makes
 * that a failure, so CI cannot pass by skipping.
 */
final class Postgres {
    private Postgres() {}

    static void assumeAvailable() {
        String reason = BenchEngine.POSTGRESQL.unavailableReason();
        if (reason == null) return;
        if (Boolean.getBoolean("macrodb.requirePostgres")) Assertions.fail("macrodb.requirePostgres=true but " + reason);
        System.out.println("SKIPPED (PostgreSQL): " + reason);
        Assumptions.assumeTrue(false, reason);
    }
}
