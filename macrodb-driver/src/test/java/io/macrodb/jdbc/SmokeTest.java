package io.macrodb.jdbc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.*;

import static org.junit.jupiter.api.Assertions.*;

class SmokeTest {
    @ParameterizedTest
    @CsvSource({"h2,row", "hsqldb,row", "h2,statement", "hsqldb,statement"})
    void basic(String engine, String mode) throws Exception {
        String url = "jdbc:macrodb:" + engine + ":mem:smoke_" + engine + mode + "?replicas=3&propagation=" + mode;
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            MacroConnection mc = c.unwrap(MacroConnection.class);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
                assertEquals(1, s.executeUpdate("INSERT INTO t VALUES (1, 'a')"));
                s.executeUpdate("INSERT INTO t VALUES (2, 'b')");
                s.executeUpdate("UPDATE t SET v = 'c' WHERE id = 1");
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
                    assertTrue(rs.next());
                    assertEquals(2, rs.getInt(1));
                }
            }
            assertTrue(mc.replicaSet().awaitCaughtUp(5000));
            System.out.println(mc.replicaStatus());
            var sums = mc.replicaSet().checksums();
            System.out.println(sums);
            assertEquals(1, sums.stream().distinct().count());
        }
    }
}
