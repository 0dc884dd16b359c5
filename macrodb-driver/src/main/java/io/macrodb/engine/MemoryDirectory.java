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
    /** The file in each directory whose lock its process holds while it lives. */
    private static final String OWNER = ".owner";
    /** This process's lock on its directory's {@link #OWNER} file. */
    private static java.nio.channels.FileLock ownerLock;

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
                try {
                    // held until the JVM ends: a process that finds it free knows the directory is an orphan
                    ownerLock = java.nio.channels.FileChannel.open(made.resolve(OWNER), java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.WRITE).lock();
                } catch (IOException e) {
                    throw new UncheckedIOException("MacroDB: cannot lock " + made.resolve(OWNER), e);
                }
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
     * their replicas would otherwise hold memory on {@code /dev/shm} until the machine restarts. A
     * directory is an orphan when nobody holds the lock on its {@link #OWNER} file: file locks, unlike
     * process ids, also tell a live process of another container that shares the directory.
     */
    static void removeOrphans(Path parent) {
        try (Stream<Path> dirs = Files.list(parent)) {
            dirs.forEach(d -> {
                if (!d.getFileName().toString().startsWith("macrodb-sqlite-") || d.equals(dir)) return;
                Path owner = d.resolve(OWNER);
                if (!Files.exists(owner)) return; // not one this code made: left alone
                boolean orphan;
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(owner, java.nio.file.StandardOpenOption.WRITE);
                     java.nio.channels.FileLock lock = ch.tryLock()) {
                    orphan = lock != null;
                } catch (IOException | java.nio.channels.OverlappingFileLockException e) {
                    orphan = false;
                }
                if (orphan) deleteAll(d);
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
