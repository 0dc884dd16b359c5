package io.macrodb.capture;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Savepoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Row capture ships the capture triggers' images of the final rows when nothing can have changed
 * them behind the triggers, and reads the rows back at commit when something can. Each case checks
 * which path a commit took ({@link TransactionChanges#imageSources()}) and that the replicas
 * converged; the driver's tests also run with {@code macrodb.verifyTriggerImages}, so every
 * trusted image is compared with the row read back.
 */

class TriggerImagesTest {

    private static TransactionChanges.ImageSources delta(TransactionChanges.ImageSources before) {
        TransactionChanges.ImageSources now = TransactionChanges.imageSources();
        return new TransactionChanges.ImageSources(now.fromTriggers() - before.fromTriggers(), now.readBack() - before.readBack());
    }

    private static void exec(Statement s, String... sql) throws SQLException {
        for (String q : sql) s.execute(q);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void plainRowsTravelAsTheTriggersSawThemAndAFailedStatementMakesTheCommitReadBack(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                exec(s, "CREATE TABLE a (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL UNIQUE, n BIGINT DEFAULT 7, x DECIMAL(10, 2))");
            }
            c.setAutoCommit(false);
            TransactionChanges.ImageSources before = TransactionChanges.imageSources();
            try (Statement s = c.createStatement()) {
                exec(s, "INSERT INTO a (id, name, x) VALUES (1, 'one', 12.5)", "INSERT INTO a (id, name) VALUES (2, 'two')",
                        "UPDATE a SET n = n + 1 WHERE id = 1", "UPDATE a SET id = 3 WHERE id = 2", "INSERT INTO a (id, name) VALUES (2, 'again')",
                        "DELETE FROM a WHERE id = 3");
            }
            c.commit();
            assertEquals(new TransactionChanges.ImageSources(1, 0), delta(before), "one table, its images from the triggers");

            before = TransactionChanges.imageSources();
            try (Statement s = c.createStatement()) {
                Savepoint sp = c.setSavepoint();
                exec(s, "UPDATE a SET n = 100 WHERE id = 1", "INSERT INTO a (id, name) VALUES (9, 'nine')");
                c.rollback(sp); // the events after the savepoint are cut: still exact
                exec(s, "UPDATE a SET n = n + 1 WHERE id = 2");
            }
            c.commit();
            assertEquals(new TransactionChanges.ImageSources(1, 0), delta(before), "a savepoint rollback keeps the images exact");

            before = TransactionChanges.imageSources();
            try (Statement s = c.createStatement()) {
                exec(s, "UPDATE a SET n = 50 WHERE id = 1");
                // fails on the unique name after the trigger may have fired for some rows
                assertThrows(SQLException.class, () -> s.execute("UPDATE a SET name = 'same' WHERE id IN (1, 2)"));
            }
            c.commit();
            assertEquals(new TransactionChanges.ImageSources(0, 1), delta(before), "after a failed statement the rows are read back");
            c.setAutoCommit(true);
            TestDb.assertConverged(c);
        }
    }

    /**
     * Creates {@code schema} on a new two-replica database, runs {@code insert} as a transaction of
     * its own, checks that the replicas converged, and returns which path that commit's images took.
     */
    private static TransactionChanges.ImageSources sourcesOfOneInsert(String engine, String insert, String... schema) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                exec(s, schema);
                TransactionChanges.ImageSources before = TransactionChanges.imageSources();
                exec(s, insert);
                TransactionChanges.ImageSources d = delta(before);
                TestDb.assertConverged(c);
                return d;
            }
        }
    }

    /** H2 hands triggers java.time values; HSQLDB its own objects, which its capture trigger turns into java.time values. */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void datesTravelFromTheTriggers(String engine) throws Exception {
        assertEquals(new TransactionChanges.ImageSources(1, 0),
                sourcesOfOneInsert(engine, "INSERT INTO d VALUES (1, DATE '2024-02-29', TIMESTAMP '2024-02-29 12:34:56.789123', TIME '23:59:58')",
                        "CREATE TABLE d (id INT PRIMARY KEY, d1 DATE, ts TIMESTAMP, t1 TIME)"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void withTheApplicationsOwnTriggersTheRowsAreReadBack(String engine) throws Exception {
        // both tables' rows (b's, and audit's that the application's trigger wrote) are read back
        assertEquals(new TransactionChanges.ImageSources(0, 2), sourcesOfOneInsert(engine, "INSERT INTO b VALUES (1, 10)",
                "CREATE TABLE b (id INT PRIMARY KEY, v INT)", "CREATE TABLE audit (id INT PRIMARY KEY, v INT)",
                engine.equals("h2")
                        ? "CREATE TRIGGER b_audit AFTER INSERT ON b FOR EACH ROW CALL \"" + AuditTrigger.class.getName() + "\""
                        : "CREATE TRIGGER b_audit AFTER INSERT ON b REFERENCING NEW ROW AS n FOR EACH ROW INSERT INTO audit VALUES (n.id, n.v)"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void generatedColumnsAreLeftOutOfTheTriggersImages(String engine) throws Exception {
        // the secondaries compute a generated column themselves: the image carries the other columns
        assertEquals(new TransactionChanges.ImageSources(1, 0), sourcesOfOneInsert(engine, "INSERT INTO g (id, v) VALUES (1, 21)",
                "CREATE TABLE g (id INT PRIMARY KEY, v INT, twice INT GENERATED ALWAYS AS (v * 2))"));
    }

    /** An H2 application trigger that copies each inserted row of b into audit. */
    public static final class AuditTrigger implements org.h2.api.Trigger {
        @Override public void fire(Connection conn, Object[] oldRow, Object[] newRow) throws SQLException {
            try (java.sql.PreparedStatement ps = conn.prepareStatement("INSERT INTO audit VALUES (?, ?)")) {
                ps.setObject(1, newRow[0]);
                ps.setObject(2, newRow[1]);
                ps.executeUpdate();
            }
        }
    }
}
