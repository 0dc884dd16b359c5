package io.macrodb;

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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A file database the application already has: MacroDB opens it as the primary, builds in-memory
 * secondaries from its content, writes through to it, and on close leaves it openable by the plain
 * engine (its capture triggers removed) with every change in it.
 */
class FileDatabaseTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void existingFileDatabaseIsReplicatedAndStaysAPlainDatabase(String engine, @TempDir Path dir) throws Exception {
        String plain = engine.equals("h2") ? "jdbc:h2:file:" + dir.resolve("shop") : "jdbc:hsqldb:file:" + dir.resolve("shop");
        try (Connection c = DriverManager.getConnection(plain, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE product (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2))");
            s.execute("INSERT INTO product VALUES (1, 'tea', 3.50), (2, 'coffee', 4.20)");
            if (engine.equals("hsqldb")) s.execute("SHUTDOWN");
        }
        String url = "jdbc:macrodb:" + plain.substring("jdbc:".length()) + "?replicas=3";
        try (Connection c = TestDb.open(url)) {
            assertTrue(TestDb.macro(c).replicaStatus().get(1).url().contains(":mem:"), "secondaries live in memory");
            TestDb.assertConverged(c);
            c.setReadOnly(true);
            c.setAutoCommit(false);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM product")) {
                assertFalse(TestDb.macro(c).currentReplica().isPrimary());
                rs.next();
                assertEquals(2, rs.getInt(1), "the secondary was built from the file's content");
            }
            c.commit();
            c.setReadOnly(false);
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO product VALUES (3, 'cocoa', 2.10)");
                s.execute("UPDATE product SET price = price + 1 WHERE id = 1");
            }
            TestDb.assertConverged(c);
        }
        try (Connection c = DriverManager.getConnection(plain, "sa", ""); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(price) FROM product")) {
                rs.next();
                assertEquals(3, rs.getInt(1));
                assertEquals(0, new java.math.BigDecimal("10.80").compareTo(rs.getBigDecimal(2)));
            }
            s.execute("INSERT INTO product VALUES (4, 'water', 1.00)"); // no MacroDB trigger is left to refuse this
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TRIGGERS")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "capture triggers are removed on close");
            }
            if (engine.equals("hsqldb")) s.execute("SHUTDOWN");
        }
    }
}
