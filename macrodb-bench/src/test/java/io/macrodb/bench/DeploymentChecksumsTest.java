package io.macrodb.bench;

import io.macrodb.bench.micro.Micro;
import io.macrodb.replica.ReplicaStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The convergence check's checksums, computed side by side on H2 and HSQLDB, are MacroDB's own
 * ({@code MacroAdmin.checksums()}), every replica's, and still see a replica that differs.
 */
class DeploymentChecksumsTest {

    @ParameterizedTest
    @EnumSource(value = BenchEngine.class, names = {"H2", "HSQLDB"})
    void sideBySideChecksumsAreMacroDbsOwnAndSeeADifference(BenchEngine engine) throws Exception {
        Micro micro = new Micro(500);
        try (Deployment d = Deployment.open(SystemConfig.parse("macrodb:3", null, null), engine, micro, 7, 5)) {
            // some committed work for the secondaries to apply
            PointRunner.run(d, micro, micro.mix("80-20"), 2, 1, new PointRunner.Settings(0, 200, true, 7));
            assertTrue(d.awaitCaughtUp(60_000).caughtUp());
            List<String> own = d.macro().admin().checksums();
            assertEquals(3, own.size());
            List<String> sideBySide = d.checksumsSideBySide();
            assertNotNull(sideBySide, "computed side by side, not by the driver's fallback");
            assertEquals(own, sideBySide);
            Deployment.Convergence c = d.verify(60_000);
            assertTrue(c.equal(), c.toString());
            assertEquals(own, c.checksums());

            // a secondary that differs (a table the others lack) fails the check
            ReplicaStatus second = d.macro().admin().replicaStatus().get(2);
            try (Connection x = DriverManager.getConnection(second.url(), "sa", ""); Statement s = x.createStatement()) {
                x.setAutoCommit(true);
                s.execute("CREATE TABLE stray (id INT PRIMARY KEY)");
            }
            Deployment.Convergence bad = d.verify(60_000);
            assertFalse(bad.equal(), bad.toString());
            assertEquals(own.get(0), bad.checksums().get(0));
            assertEquals(own.get(1), bad.checksums().get(1));
            assertNotEquals(own.get(2), bad.checksums().get(2));
            assertEquals(d.macro().admin().checksums(), bad.checksums());
        }
    }
}
