package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A session's time zone decides what a local timestamp means in a WITH TIME ZONE column, and how
 * such a value reads as a local one. Writes made under {@code SET TIME ZONE} land the same on every
 * replica and in recovery: row mode ships the stored values; statement mode replays each write
 * under the zone its session had (before issue 9's fix it replayed them in the default zone).
 */
class SessionTimeZoneTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2,row", "h2,statement", "hsqldb,row", "hsqldb,statement"})
    void writesUnderASessionTimeZoneLandTheSameEverywhere(String engine, String propagation, @TempDir Path dir) throws Exception {
        String url = "jdbc:macrodb:" + engine + ":mem:zone_" + Math.abs(dir.hashCode()) + "?replicas=3&propagation=" + propagation
                + "&durability=log:" + dir;
        String plusFive = engine.equals("h2") ? "SET TIME ZONE '+05:30'" : "SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE";
        List<List<String>> before;
        try (Connection c = TestDb.open(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, tz TIMESTAMP WITH TIME ZONE, ts TIMESTAMP)");
                s.execute(plusFive);
                s.execute("INSERT INTO t VALUES (1, TIMESTAMP '2021-06-01 12:00:00', TIMESTAMP '2021-06-01 12:00:00')");
                s.execute("INSERT INTO t VALUES (2, NULL, CAST(TIMESTAMP '2021-06-01 12:00:00+00:00' AS TIMESTAMP))");
                s.execute("SET TIME ZONE LOCAL");
                s.execute("INSERT INTO t VALUES (3, TIMESTAMP '2021-06-01 12:00:00', TIMESTAMP '2021-06-01 12:00:00')");
            }
            before = RowFidelityTest.everyReplica(c, "t", "id");
            for (List<String> replica : before) assertEquals(before.get(0), replica, before::toString);
        }
        try (Connection c = TestDb.open(url)) { // recovered from the log
            List<List<String>> after = RowFidelityTest.everyReplica(c, "t", "id");
            for (List<String> replica : after) assertEquals(before.get(0), replica, after::toString);
        }
    }
}
