package io.macrodb.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A process's SQLite replicas directory is removed by the next process only when nobody holds its owner lock. */
class MemoryDirectoryTest {

    @Test
    void onlyDirectoriesWhoseOwnerIsGoneAreRemoved(@TempDir Path parent) throws Exception {
        Path gone = Files.createDirectory(parent.resolve("macrodb-sqlite-1-a"));
        Files.createFile(gone.resolve(".owner"));
        Files.writeString(gone.resolve("secondary-r1.db"), "x");
        Path alive = Files.createDirectory(parent.resolve("macrodb-sqlite-2-b"));
        Path unknown = Files.createDirectory(parent.resolve("macrodb-sqlite-3-c")); // no owner file: not ours to judge
        Path other = Files.createDirectory(parent.resolve("someone-else"));
        Files.createFile(other.resolve(".owner"));
        try (FileChannel ch = FileChannel.open(alive.resolve(".owner"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = ch.lock()) {
            MemoryDirectory.removeOrphans(parent);
            assertFalse(Files.exists(gone), "its owner released the lock: an orphan");
            assertTrue(Files.exists(alive.resolve(".owner")), "its owner holds the lock: alive");
        }
        assertTrue(Files.exists(unknown));
        assertTrue(Files.exists(other.resolve(".owner")));
    }
}
