package io.macrodb.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A copy's temporary script leaves nothing behind: its folder goes with whatever an engine put beside the script, and
 * SQLite's copy of a WAL database is read without making a {@code -wal} and a {@code -shm} (before, every secondary
 * built over SQLite left a folder with both in {@code java.io.tmpdir}: 24,846 after a few test runs).
 */
class ScriptFileTest {

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void closingDeletesTheFolderWithWhatAnEngineLeftBesideTheScript(@TempDir Path parent) throws Exception {
        ScriptFile script = ScriptFile.create(parent);
        assertFalse(Files.exists(script.path()), "the script is not created: some engines refuse to export over a file");
        Files.writeString(script.path(), "CREATE TABLE t (k INT)");
        Files.writeString(script.path().resolveSibling(script.path().getFileName() + "-shm"), "x");
        Files.createDirectory(script.path().resolveSibling("sub"));
        Files.writeString(script.path().resolveSibling("sub").resolve("f"), "x");
        script.close();
        assertEquals(List.of(), names(parent));
        script.close(); // twice is harmless
    }

    @Test
    void aSqliteCopyOfAWalDatabaseIsRestoredWithNothingBesideIt(@TempDir Path dir) throws Exception {
        Engine sqlite = Engines.forName("sqlite");
        try (Connection src = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("src.db")); Statement s = src.createStatement()) {
            try (ResultSet rs = s.executeQuery("PRAGMA journal_mode = WAL")) {
                rs.next();
                assertEquals("wal", rs.getString(1), "MacroDB's in-memory SQLite replicas are files in WAL mode");
            }
            s.execute("CREATE TABLE t (k INT PRIMARY KEY, v TEXT)");
            s.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            Path copies = Files.createDirectory(dir.resolve("copies"));
            try (ScriptFile script = ScriptFile.create(copies)) {
                sqlite.exportScript(src, script.path());
                byte[] exported = Files.readAllBytes(script.path());
                try (Connection to = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("to.db"))) {
                    sqlite.importScript(to, script.path());
                    try (Statement t = to.createStatement(); ResultSet rs = t.executeQuery("SELECT group_concat(k || v, ',') FROM t")) {
                        rs.next();
                        assertEquals("1a,2b", rs.getString(1));
                    }
                }
                assertEquals(List.of("copy.sql"), names(script.path().getParent()), "nothing beside the restored copy");
                assertArrayEquals(exported, Files.readAllBytes(script.path()), "restoring does not change the file (a snapshot's checksum)");
            }
            assertEquals(List.of(), names(copies));
        }
    }
}
