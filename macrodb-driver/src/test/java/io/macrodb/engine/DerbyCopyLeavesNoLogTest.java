package io.macrodb.engine;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Derby secondary is a copy whose DDL Derby's {@code dblook} writes, and dblook writes its messages to
 * {@code dblook.log} in the working directory: an empty file in the application's directory after every copy. MacroDB
 * removes the file when it made it and left it empty.
 */
class DerbyCopyLeavesNoLogTest {

    @Test
    void copyingASecondaryLeavesNoDblookLogBehind() throws Exception {
        Path log = Path.of("dblook.log").toAbsolutePath();
        if (Files.exists(log) && Files.size(log) == 0) Files.delete(log); // one an older build left (this is the build's directory)
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.exists(log), "a dblook.log with content is in " + log.getParent());
        try (Connection c = TestDb.open(TestDb.url("derby", "replicas=2")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO item VALUES (1, 1)");
            TestDb.macro(c).admin().awaitCaughtUp(10_000);
            assertTrue(TestDb.macro(c).replicaStatus().get(1).stateReason().startsWith("built"), "the secondary is a copy");
            TestDb.assertConverged(c);
        }
        assertFalse(Files.exists(log), "dblook.log left in " + log.getParent());
    }
}
