package io.macrodb.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The directory of this process where SQLite's in-memory replicas live as files
 * ({@link SqliteEngine}): on {@code /dev/shm} where it is a writable directory of at least 1 GiB (a
 * memory file system on Linux), else in {@code java.io.tmpdir} ({@link #parent} says how to choose
 * another). Made on first use, removed with everything in
 * it when the JVM exits; {@link #delete} removes one database's files as soon as MacroDB is done
 * with it, and the directories of processes that died without exiting are removed when the next
 * process makes its own.
 */
final class MemoryDirectory {
    private static volatile Path dir;

    private MemoryDirectory() {}

    static Path get() {
        Path d = dir;
        if (d != null) return d;
        synchronized (MemoryDirectory.class) {
            if (dir == null) {
                Path parent = parent();
                try {
                    dir = Files.createTempDirectory(parent, "macrodb-sqlite-" + ProcessHandle.current().pid() + "-");
                } catch (IOException e) {
                    throw new UncheckedIOException("MacroDB: cannot make a directory for SQLite's in-memory replicas in " + parent, e);
                }
                Path made = dir;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteAll(made), "macrodb-sqlite-cleanup"));
                removeOrphans(parent);
            }
            return dir;
        }
    }

    /**
     * Where the directory goes: the system property {@code macrodb.sqlite.memoryDirectory} if set;
     * else {@code /dev/shm} if it is a writable directory of at least 1 GiB (a container's default
     * 64 MiB would fill up: SQLite then fails writes with "database or disk is full"); else
     * {@code java.io.tmpdir}.
     */
    private static Path parent() {
        String chosen = System.getProperty("macrodb.sqlite.memoryDirectory");
        if (chosen != null && !chosen.isBlank()) return Path.of(chosen);
        Path shm = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(shm) && Files.isWritable(shm) && Files.getFileStore(shm).getTotalSpace() >= (1L << 30)) return shm;
        } catch (IOException ignored) {
            // not usable: the temporary directory below
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Deletes the files of the database {@code jdbcUrl} names, if it is one of this directory's. */
    static void delete(String jdbcUrl) {
        Path d = dir;
        if (d == null || !jdbcUrl.startsWith("jdbc:sqlite:")) return;
        String path = jdbcUrl.substring("jdbc:sqlite:".length());
        int q = path.indexOf('?');
        if (q >= 0) path = path.substring(0, q);
        Path db = Path.of(path).toAbsolutePath().normalize();
        if (!db.getParent().equals(d)) return; // never a file of the application's
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
            try {
                Files.deleteIfExists(Path.of(db + suffix));
            } catch (IOException ignored) {
                // still open elsewhere (Windows) or gone: the JVM's exit removes the directory
            }
        }
    }

    /**
     * Removes the directories of processes that are gone without their exit hook (killed, crashed):
     * their replicas would otherwise hold memory on {@code /dev/shm} until the machine restarts.
     */
    private static void removeOrphans(Path parent) {
        try (Stream<Path> dirs = Files.list(parent)) {
            dirs.forEach(d -> {
                String name = d.getFileName().toString();
                if (!name.startsWith("macrodb-sqlite-")) return;
                String[] parts = name.split("-");
                try {
                    long pid = Long.parseLong(parts[2]);
                    if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty()) deleteAll(d);
                } catch (RuntimeException notOurs) {
                    // a name MacroDB did not make: left alone
                }
            });
        } catch (IOException ignored) {
            // nothing to tidy, or not allowed to look
        }
    }

    private static void deleteAll(Path d) {
        try (Stream<Path> files = Files.list(d)) {
            files.forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // best effort at exit
                }
            });
            Files.deleteIfExists(d);
        } catch (IOException ignored) {
            // best effort at exit
        }
    }
}
