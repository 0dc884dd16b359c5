package io.macrodb.capture;

import io.macrodb.engine.CaptureContext;
import io.macrodb.log.TableShape;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On H2 every update commit reads its changed rows back to check its capture images, and reads a composite key's rows
 * 16 keys a query ({@code (k1, k2) IN ((?, ?), ...)}, {@link io.macrodb.engine.Engine#rowValueListsUseKeyIndex()}).
 * The chunked read must find exactly the rows the transaction left (updated, inserted, and not the deleted ones), in
 * chunks that do not divide the keys evenly; a row the engine does not hold must still fail the commit; and H2 must
 * plan the query as a lookup in the key's index, not a scan (else every commit would read the whole table).
 */
public class CompositeKeyReadBackTest {

    /** Called by H2 as {@code PHANTOM2()}: reports a row of T2 that nobody inserted. */
    public static int phantom() throws SQLException {
        CaptureContext.current().onRow("PUBLIC", "T2", null, new Object[] {999, "ghost", 0});
        return 1;
    }

    @Test
    void theRowsOfATransactionAreReadBackInChunksAndShippedExactly() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t2 (a INT, b VARCHAR(10), v INT, PRIMARY KEY (a, b))");
                s.execute("INSERT INTO t2 SELECT x, 'k' || MOD(x, 3), 0 FROM SYSTEM_RANGE(1, 40)");
            }
            TransactionChanges.ImageSources before = TransactionChanges.imageSources();
            TestDb.inTransaction(c, tx -> {
                try (Statement s = tx.createStatement()) {
                    assertEquals(21, s.executeUpdate("UPDATE t2 SET v = a * 10 WHERE a <= 21")); // 21 keys: 16 + 5
                    assertEquals(7, s.executeUpdate("DELETE FROM t2 WHERE a > 33"));
                    assertEquals(10, s.executeUpdate("INSERT INTO t2 SELECT x, 'n', x FROM SYSTEM_RANGE(100, 109)"));
                }
            });
            TransactionChanges.ImageSources after = TransactionChanges.imageSources();
            assertTrue(after.fromTriggers() > before.fromTriggers(), "the images came from the triggers and were checked");
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(v), SUM(CASE WHEN b = 'n' THEN 1 ELSE 0 END) FROM t2")) {
                rs.next();
                assertEquals(43, rs.getInt(1));
                assertEquals(10 * (21 * 22 / 2) + (100 + 109) * 10 / 2, rs.getInt(2));
                assertEquals(10, rs.getInt(3));
            }
        }
    }

    @Test
    void aRowTheEngineDoesNotHoldAmongManyKeysStillFailsTheCommit() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t2 (a INT, b VARCHAR(10), v INT, PRIMARY KEY (a, b))");
                s.execute("CREATE ALIAS PHANTOM2 FOR \"" + CompositeKeyReadBackTest.class.getName() + ".phantom\"");
                s.execute("INSERT INTO t2 SELECT x, 'k', 0 FROM SYSTEM_RANGE(1, 20)");
            }
            long divergences = TransactionChanges.divergences();
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE t2 SET v = 1"); // 20 keys, then the phantom: the 21st, in the second chunk
                try (ResultSet rs = s.executeQuery("SELECT PHANTOM2()")) {
                    rs.next();
                }
            }
            SQLException e = assertThrows(SQLException.class, c::commit);
            assertEquals("40001", e.getSQLState(), e::toString);
            assertEquals(divergences + 1, TransactionChanges.divergences());
        }
    }

    @Test
    void h2LooksTheListedKeysUpInTheKeysIndex() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:readback" + System.nanoTime());
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t2 (a INT, b VARCHAR(10), v INT, PRIMARY KEY (a, b))");
            s.execute("INSERT INTO t2 SELECT x, 'k', 0 FROM SYSTEM_RANGE(1, 1000)");
            TableShape shape = new TableShape("PUBLIC", "T2", List.of("A", "B", "V"), new int[] {0, 1}, new int[] {0, 1}, 3,
                    false, null, List.of(), null, null);
            String sql = shape.selectByKeySql(16, true);
            assertTrue(sql.contains("(\"A\", \"B\") IN ((?, ?), (?, ?)"), sql);
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
                for (int i = 1; i <= 32; i += 2) {
                    ps.setInt(i, i);
                    ps.setString(i + 1, "k");
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    String plan = rs.getString(1);
                    assertTrue(plan.contains("/* PUBLIC.PRIMARY_KEY_"), () -> "not a lookup in the key's index: " + plan);
                    assertFalse(plan.contains("tableScan"), () -> "a scan: " + plan);
                }
            }
            List<Integer> found = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < 16; i++) {
                    ps.setInt(2 * i + 1, i < 10 ? 5 * i + 1 : 2000 + i); // 10 present keys, 6 absent ones
                    ps.setString(2 * i + 2, "k");
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) found.add(rs.getInt(1));
                }
            }
            found.sort(null);
            assertEquals(List.of(1, 6, 11, 16, 21, 26, 31, 36, 41, 46), found);
        }
    }
}
