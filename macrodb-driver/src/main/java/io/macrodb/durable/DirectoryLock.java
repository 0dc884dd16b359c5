package io.macrodb.durable;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.time.Instant;

/**
 * The lock that makes a durability directory one database's for as long as it is open: an
 * operating-system file lock on {@code <dir>/lock}, taken before recovery reads anything and
 * released at shutdown (or by the operating system when the process dies, so a crash never leaves
 * a stale lock). Two databases on one directory would each append to the log and snapshot over
 * the other's files; a second open, in this process or another, is refused instead, with the
 * holder's process, host, start time and URL, which the holder writes into the file.
 */
public final class DirectoryLock implements AutoCloseable {
    static final String FILE = "lock";

    /**
     * Directories this JVM holds, with their holder's description. Checked before the file is even
     * opened: on Linux, closing any channel of a file releases every lock the process holds on it,
     * so a refused second open in this JVM must never open (and close) the lock file.
     */
    private static final java.util.concurrent.ConcurrentHashMap<Path, String> HELD = new java.util.concurrent.ConcurrentHashMap<>();

    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;

    private DirectoryLock(Path key, FileChannel channel, FileLock lock) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    private static SQLException inUse(Path dir, String holder) {
        return new SQLException("MacroDB: the durability directory " + dir + " is in use by another open database (" + holder
                + "); two databases on one directory would overwrite each other's log and snapshots. Close that database"
                + " first, or give this one a directory of its own", "55000");
    }

    /**
     * Takes the lock of {@code dir} for the database {@code url}, or refuses with SQLState 55000
     * (object in use) naming the holder.
     */
    public static DirectoryLock acquire(Path dir, String url) throws SQLException {
        Path file = dir.resolve(FILE);
        FileChannel ch = null;
        Path key = null;
        String me = "pid " + ProcessHandle.current().pid() + " on " + host() + ", since " + Instant.now() + ", " + url;
        try {
            Files.createDirectories(dir);
            key = dir.toRealPath();
            String other = HELD.putIfAbsent(key, me);
            if (other != null) {
                key = null; // not ours to remove
                throw inUse(dir, other);
            }
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null; // held by this JVM
            }
            if (l == null) {
                String holder = holder(ch);
                ch.close(); // no lock of this JVM's on the file (HELD), so this releases nothing of ours
                ch = null;
                throw inUse(dir, holder);
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(me.getBytes(StandardCharsets.UTF_8)), 0);
            ch.force(false);
            return new DirectoryLock(key, ch, l);
        } catch (IOException | SQLException | RuntimeException e) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // reported below
                }
            }
            if (key != null) HELD.remove(key, me);
            if (e instanceof SQLException se) throw se;
            if (e instanceof RuntimeException re) throw re;
            throw new SQLException("MacroDB: cannot lock the durability directory " + dir + ": " + e.getMessage()
                    + "; check that it is a writable directory", "08001", e);
        }
    }

    private static String holder(FileChannel ch) {
        try {
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(4096, Math.max(0, ch.size())));
            ch.read(b, 0);
            String s = new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).trim();
            return s.isEmpty() ? "holder unknown" : s;
        } catch (IOException e) {
            return "holder unknown: " + e.getMessage();
        }
    }

    private static String host() {
        String name = ManagementFactory.getRuntimeMXBean().getName(); // pid@host on the usual JVMs
        int at = name.indexOf('@');
        return at >= 0 ? name.substring(at + 1) : "this host";
    }

    /** Releases the lock (the file stays: its content is only read while someone holds it). */
    @Override public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
        HELD.remove(key);
    }
}
