package io.macrodb.replica;

import io.macrodb.engine.Catalog;
import io.macrodb.engine.Engine;
import io.macrodb.engine.Engines;
import io.macrodb.log.RowChanges;
import io.macrodb.log.TableShape;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The safe order a secondary falls back to (remove every touched key, insert every final image) gives the record's
 * rows however much of the record the secondary holds already: applied twice, the rows are the same. The applier
 * applies a group again the safe way after its engine commit failed (the engine may have committed it) or after the
 * fast order met a duplicate key (a rollback may have left rows behind); before, the safe order did not remove the
 * inserted keys first, the insert met its own row (23505), and the secondary left the rotation ("applying v205..v205
 * failed 3 times: ... primary key violation", seen in a fresh-clone CI run of {@code ConvergenceTest}). Recovery's safe
 * order stays strict ({@code SnapshotRaceTest.aLoggedRecordThatDoesNotApplyIsReportedPreciselyAsDamage}).
 */
class SafeOrderIdempotentTest {

    private static String rows(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, v FROM item ORDER BY id")) {
            while (rs.next()) out.add(rs.getInt(1) + "=" + rs.getString(2));
        }
        return String.join(",", out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aRecordAppliedTwiceTheSafeWayGivesItsRows(String name) throws Exception {
        Engine engine = Engines.forName(name);
        String url = name.equals("h2") ? "jdbc:h2:mem:safe_order_" + System.nanoTime() : "jdbc:hsqldb:mem:safe_order_" + System.nanoTime();
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, v VARCHAR(10))");
                s.execute("INSERT INTO item VALUES (1, 'one'), (2, 'two')");
            }
            c.setAutoCommit(false);
            TableShape shape = Catalog.readTable(c, "PUBLIC", "ITEM");
            // delete 1, update 2, insert 3
            RowChanges rc = new RowChanges(shape, List.<Object[]>of(new Object[] {1}), List.<Object[]>of(new Object[] {2, "TWO"}),
                    List.<Object[]>of(new Object[] {3, "three"}));
            try (RowWriter w = new RowWriter(c, engine)) {
                w.apply(rc, false);
                c.commit();
                assertEquals("2=TWO,3=three", rows(c));
                assertThrows(SQLException.class, () -> w.apply(rc, false), "the fast order finds key 1 gone and key 3 there");
                c.rollback();
                w.clear();
                w.apply(rc, true, true); // what the applier does then
                c.commit();
                assertEquals("2=TWO,3=three", rows(c), "the same rows as after the first application");
                // recovery's safe order stays strict: a record whose inserted row is there already is damage it reports
                assertEquals("23", assertThrows(SQLException.class, () -> w.apply(rc, true, false)).getSQLState().substring(0, 2));
                c.rollback();
            }
        }
    }
}
