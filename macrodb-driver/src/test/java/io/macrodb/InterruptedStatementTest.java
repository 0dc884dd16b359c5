package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread whose interrupt status is set (after {@code Future.cancel(true)}, say) keeps it, and its
 * valid statements are classified as what they are. Before issue 9's fix the SQL parser's wait
 * swallowed the interrupt and its failure made statement mode take the text for unparseable (some
 * valid writes were refused with 0A000, and the classification was cached); a wait for the writer
 * turn that an interrupt ended said 08006 (connection failure) although the connection was fine:
 * it is 57014 (canceled) now.
 */
class InterruptedStatementTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void anInterruptedThreadsValidWritesAreNotRefused(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2&propagation=statement"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
            }
            int done = 0;
            c.setAutoCommit(false);
            for (int i = 0; i < 40; i += 2) {
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO t (id, v) VALUES (" + i + ", 'begins')"); // the transaction has its writer turn
                    done++;
                    Thread.currentThread().interrupt();
                    String sql = "INSERT INTO t (id, v) VALUES (" + (i + 1) + ", UPPER('row " + i + "'))"; // new text: nothing cached
                    try {
                        s.execute(sql);
                        done++;
                    } catch (SQLException e) {
                        // the engine may stop a statement it was interrupted in: canceled, never "cannot be replicated"
                        assertTrue(!"0AM01".equals(e.getSQLState()) && !"0AM00".equals(e.getSQLState()), () -> sql + " refused after an interrupt: " + e.getMessage());
                    } finally {
                        // the caller's interrupt is the caller's: MacroDB must not swallow it (HSQLDB's own
                        // statement execution clears it, which MacroDB cannot change)
                        boolean kept = Thread.interrupted();
                        if (engine.equals("h2")) assertTrue(kept, "the interrupt status was cleared by " + sql);
                    }
                }
                c.commit();
            }
            c.setAutoCommit(true);
            // an interrupt while waiting for the writer turn cancels that statement only
            Thread.currentThread().interrupt();
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO t VALUES (100, 'interrupted')");
                done++;
            } catch (SQLException e) {
                assertEquals("57014", e.getSQLState(), e::getMessage);
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt status was cleared");
            }
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO t VALUES (101, 'after')");
                done++;
            }
            try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
                rs.next();
                assertEquals(done, rs.getInt(1));
            }
            TestDb.assertConverged(c);
        }
    }
}
