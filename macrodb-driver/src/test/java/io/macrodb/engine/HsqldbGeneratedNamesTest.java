package io.macrodb.engine;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaState;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HSQLDB names the constraints an application leaves unnamed from a counter of each database's own
 * ({@code SYS_PK_10105}, {@code SYS_CT_10106}...), which every object the database creates moves on, and its script
 * leaves them out. The primary's and the secondaries' names differed from the first table on (the primary's counter
 * stood 10 further, and the gap grew), so a migration that read a name from the primary and dropped that constraint
 * failed on every secondary, which left the rotation, and where the name happened to be another constraint's of the
 * same table there, dropped that one. Now a schema change logs the primary's generated names and each replica renames
 * its own to match; a copy (a secondary built or rebuilt, a snapshot) carries them in its script.
 */
class HsqldbGeneratedNamesTest {

    private static final String NAMES = "SELECT TABLE_NAME, CONSTRAINT_TYPE, CONSTRAINT_NAME FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS"
            + " WHERE TABLE_SCHEMA = 'PUBLIC' ORDER BY TABLE_NAME, CONSTRAINT_NAME";

    /** Each replica's constraint names, read directly (not through MacroDB). */
    private static List<List<String>> namesOnEveryReplica(MacroConnection mc) throws SQLException {
        assertTrue(mc.admin().awaitCaughtUp(30_000), () -> "not caught up: " + mc.replicaStatus());
        List<List<String>> out = new ArrayList<>();
        for (ReplicaStatus r : mc.replicaStatus()) {
            assertEquals(ReplicaState.ACTIVE, r.state(), r::toString);
            List<String> names = new ArrayList<>();
            try (Connection d = DriverManager.getConnection(r.url(), "sa", ""); Statement s = d.createStatement();
                 ResultSet rs = s.executeQuery(NAMES)) {
                while (rs.next()) names.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
            }
            out.add(names);
        }
        return out;
    }

    private static void assertSameNames(MacroConnection mc, String when) throws SQLException {
        List<List<String>> all = namesOnEveryReplica(mc);
        for (int i = 1; i < all.size(); i++) assertEquals(all.get(0), all.get(i), when + ": replica " + i + " against the primary");
    }

    @Test
    void everyReplicaNamesAConstraintAsThePrimaryDoes() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("hsqldb", "replicas=3&rebuild=manual"))) {
            MacroConnection mc = TestDb.macro(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL UNIQUE, w INT CHECK (w > 0))");
                s.execute("CREATE TABLE u (id INT PRIMARY KEY, t_id INT REFERENCES t (id) ON DELETE CASCADE, x INT, UNIQUE (x))");
                s.execute("ALTER TABLE u ADD CHECK (x < 1000)");
                s.execute("INSERT INTO t VALUES (1, 1, 1)");
            }
            assertSameNames(mc, "after the tables were made");
            assertEquals(8, namesOnEveryReplica(mc).get(0).size(), "2 keys, 2 unique, a NOT NULL, 2 checks, a foreign key");

            // as a migration tool does it: the name read from the catalog (which answers from the primary), then dropped
            String unique;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CONSTRAINT_NAME FROM INFORMATION_SCHEMA"
                    + ".TABLE_CONSTRAINTS WHERE TABLE_NAME = 'T' AND CONSTRAINT_TYPE = 'UNIQUE'")) {
                assertTrue(rs.next());
                unique = rs.getString(1);
            }
            assertTrue(unique.startsWith("SYS_CT_"), unique);
            try (Statement s = c.createStatement()) {
                s.execute("ALTER TABLE t DROP CONSTRAINT " + unique);
                s.execute("INSERT INTO t VALUES (2, 1, 2)"); // v = 1 twice: the unique constraint is gone everywhere
            }
            assertSameNames(mc, "after the drop");
            TestDb.assertConverged(c);

            // a rebuilt secondary is a copy made from the script, which has no generated names
            String before = mc.replicaStatus().get(1).url();
            io.macrodb.testing.Failovers.shutDown(before);
            long deadline = System.nanoTime() + 30_000_000_000L;
            for (int i = 3; mc.replicaStatus().get(1).state() == ReplicaState.ACTIVE && System.nanoTime() < deadline; i++) {
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO t VALUES (" + i + ", " + i + ", 1)"); // the applier finds the engine gone
                }
                Thread.sleep(20);
            }
            mc.admin().rebuild(1);
            assertNotEquals(before, mc.replicaStatus().get(1).url());
            assertSameNames(mc, "after a rebuild");
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE z (id INT PRIMARY KEY, t_id INT REFERENCES t (id))");
            }
            assertSameNames(mc, "after a schema change that followed the rebuild");
            TestDb.assertConverged(c);
        }
    }

    /**
     * With {@code durability=log} a restart builds the primary again from the log (and the snapshot, a script), where
     * the names were generated afresh: they are the logged ones again, those the application saw before.
     */
    @Test
    void aRestartFromTheLogKeepsTheNames(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String url = "jdbc:macrodb:hsqldb:mem:names_" + Math.abs(dir.hashCode()) + "?replicas=2&durability=log:" + dir;
        List<String> before;
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL UNIQUE)");
            s.execute("CREATE TABLE u (id INT PRIMARY KEY, t_id INT REFERENCES t (id))");
            before = namesOnEveryReplica(TestDb.macro(c)).get(0);
            TestDb.macro(c).admin().snapshot();
            s.execute("CREATE TABLE z (id INT PRIMARY KEY, w INT CHECK (w > 0))"); // after the snapshot: from the log
            before = namesOnEveryReplica(TestDb.macro(c)).get(0);
        }
        try (Connection c = TestDb.open(url)) {
            MacroConnection mc = TestDb.macro(c);
            assertTrue(mc.admin().durabilityStatus().startsWith("recovered v"), mc.admin().durabilityStatus());
            assertEquals(before, namesOnEveryReplica(mc).get(0), "the recovered primary's names");
            assertSameNames(mc, "after the restart");
        }
    }
}
