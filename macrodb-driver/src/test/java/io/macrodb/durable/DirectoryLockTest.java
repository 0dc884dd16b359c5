package io.macrodb.durable;

import io.macrodb.testing.DirectoryHolder;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A durability directory belongs to one open database: a second one, in this JVM or another
 * process, is refused (SQLState 55000, naming the holder) and changes nothing; once the first
 * closes (or its process dies) the directory opens again with everything the first committed.
 */
class DirectoryLockTest {

    private static int count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** A child JVM that has opened {@code url} and holds it open until its stdin closes. */
    private static Process startHolder(Path dir, String url) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), DirectoryHolder.class.getName(), url)
                .redirectError(dir.resolve("holder.err").toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("OPEN", out.readLine(), () -> "the holder did not open the database");
        return p;
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb", "sqlite"})
    void twoDatabasesInOneJvmCannotShareADirectory(String engine, @TempDir Path dir) throws Exception {
        String first = "jdbc:macrodb:" + engine + ":mem:first_" + Math.abs(dir.hashCode()) + "?replicas=2&durability=log:" + dir;
        String second = "jdbc:macrodb:" + engine + ":mem:second_" + Math.abs(dir.hashCode()) + "?replicas=2&durability=log:" + dir;
        try (Connection a = TestDb.open(first)) {
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TABLE mine (id INT PRIMARY KEY)");
                s.execute("INSERT INTO mine VALUES (1)");
            }
            SQLException e = assertThrows(SQLException.class, () -> TestDb.open(second).close());
            assertEquals("55000", e.getSQLState(), e::getMessage);
            assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()) && e.getMessage().contains(":mem:first_"),
                    e::getMessage);
            try (Statement s = a.createStatement()) {
                s.execute("INSERT INTO mine VALUES (2)"); // the refused open took nothing from the holder
            }
            assertEquals(2, count(a, "mine"));
        }
        try (Connection b = TestDb.open(second)) { // the directory is free again, and holds the first one's data
            assertEquals(2, count(b, "mine"));
        }
    }

    @Test
    void theSameUrlOpenedByTwoProcessesIsRefusedInTheSecond(@TempDir Path dir) throws Exception {
        String url = "jdbc:macrodb:h2:mem:twice?replicas=2&durability=log:" + dir;
        Process p = startHolder(dir, url);
        try {
            SQLException e = assertThrows(SQLException.class, () -> TestDb.open(url).close());
            assertEquals("55000", e.getSQLState(), e::getMessage);
            assertTrue(e.getMessage().contains("pid " + p.pid()), e::getMessage);
        } finally {
            p.getOutputStream().close(); // the holder closes its database and exits
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
        try (Connection c = TestDb.open(url)) {
            assertEquals(1, count(c, "held"));
        }
    }

    @Test
    void aDirectoryHeldByAKilledProcessOpensAgain(@TempDir Path dir) throws Exception {
        String url = "jdbc:macrodb:h2:mem:killed?replicas=2&durability=log:" + dir;
        Process p = startHolder(dir, url);
        p.destroyForcibly(); // the operating system releases the lock with the process
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        try (Connection c = TestDb.open(url)) {
            assertEquals(1, count(c, "held"));
        }
    }

    @Test
    void aDirectoryThatCannotBeMadeIsAConfigurationError(@TempDir Path dir) throws Exception {
        Path file = java.nio.file.Files.writeString(dir.resolve("a-file"), "not a directory");
        String url = "jdbc:macrodb:h2:mem:baddir?replicas=2&durability=log:" + file.resolve("log");
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(url).close());
        assertEquals("08001", e.getSQLState(), e::getMessage);
        assertTrue(e.getMessage().contains("writable directory"), e::getMessage);
    }
}
