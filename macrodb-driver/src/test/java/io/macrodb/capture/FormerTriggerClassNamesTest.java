package io.macrodb.capture;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A database whose capture triggers name the classes' former package ({@code io.macrodb.capture},
 * before they moved to {@code io.macrodb.engine}), as a file database left by a crashed process or a
 * snapshot written before the move holds them, still opens and replicates through them.
 */
class FormerTriggerClassNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void triggersNamingTheFormerClassesStillCapture(String engine, @TempDir Path dir) throws Exception {
        String plain = engine.equals("h2") ? "jdbc:h2:file:" + dir.resolve("old") : "jdbc:hsqldb:file:" + dir.resolve("old");
        try (Connection c = DriverManager.getConnection(plain, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
            if (engine.equals("h2")) {
                s.execute("CREATE TRIGGER \"PUBLIC\".\"MACRODB_CAPTURE_T\" AFTER INSERT, UPDATE, DELETE ON \"PUBLIC\".\"T\""
                        + " FOR EACH ROW CALL \"io.macrodb.capture.H2CaptureTrigger\"");
            } else {
                for (String[] ev : new String[][] {{"I", "INSERT"}, {"U", "UPDATE"}, {"D", "DELETE"}}) {
                    s.execute("CREATE TRIGGER \"PUBLIC\".\"MACRODB_CAPTURE:" + ev[0] + ":6:PUBLICT\" AFTER " + ev[1]
                            + " ON \"PUBLIC\".\"T\" FOR EACH ROW QUEUE 0 CALL \"io.macrodb.capture.HsqldbCaptureTrigger\"");
                }
                s.execute("SHUTDOWN");
            }
        }
        String url = "jdbc:macrodb:" + plain.substring("jdbc:".length()) + "?replicas=2";
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            s.execute("UPDATE t SET v = 'c' WHERE id = 2");
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), MAX(v) FROM t")) {
                rs.next();
                assertEquals(2, rs.getInt(1));
                assertEquals("c", rs.getString(2));
            }
        }
    }
}
