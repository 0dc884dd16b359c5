package io.macrodb.durable;

import io.macrodb.log.VersionGate;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The replication log on disk: segment files of checksummed frames, appended in version order, with
 * group commit. Committers hand their frame over inside the commit critical section ({@link
 * #append}) and wait for it outside ({@link #awaitDurable}); one flusher thread writes every frame
 * handed over since its last round and forces them to disk with one {@code fsync}, then publishes
 * the new durable version. With {@link Sync#interval} the flusher publishes after the write (the
 * operating system has the frames: they survive the process, not a power loss) and forces every
 * interval.
 *
 * <p>Frame: {@code int length, long version, byte[length] payload, int crc32c(version, payload)}.
 * Segment: the 8-byte magic {@code MACRODB1} then frames; named {@code log-<first version>.seg}.
 */
public final class DurableLog implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(DurableLog.class.getName());
    static final byte[] MAGIC = {'M', 'A', 'C', 'R', 'O', 'D', 'B', '1'};
    static final long SEGMENT_BYTES = 64L << 20;

    /** When the flusher forces the log to disk. */
    public record Sync(long intervalMillis) {
        public static final Sync COMMIT = new Sync(0);
        public static Sync interval(long millis) { return new Sync(millis); }
        public boolean perCommit() { return intervalMillis == 0; }
        @Override public String toString() { return perCommit() ? "commit" : intervalMillis + "ms"; }
    }

    private final Path dir;
    private final Sync sync;
    private final VersionGate durable;
    private final Object lock = new Object();
    private List<ByteBuffer> pending = new ArrayList<>();
    private long pendingLast;
    private FileChannel segment;
    private long segmentBytes;
    private volatile boolean closed;
    private volatile IOException failure;
    private final Thread flusher;
    private long lastForceNanos = System.nanoTime();

    /**
     * Opens the log for appending after {@code lastVersion} (what recovery found). A new segment
     * file is started.
     */
    public DurableLog(Path dir, Sync sync, long lastVersion) throws IOException {
        this.dir = dir;
        this.sync = sync;
        this.durable = new VersionGate(lastVersion);
        this.pendingLast = lastVersion;
        Files.createDirectories(dir);
        openSegment(lastVersion + 1);
        flusher = new Thread(this::flushLoop, "macrodb-log-flusher " + dir.getFileName());
        flusher.setDaemon(true);
        flusher.start();
    }

    public Path directory() { return dir; }
    public Sync sync() { return sync; }
    /** The newest version whose record is on disk (or with the OS, under {@link Sync#interval}). */
    public long durableVersion() { return durable.version(); }
    public VersionGate durableGate() { return durable; }

    static String segmentName(long firstVersion) {
        return String.format("log-%020d.seg", firstVersion);
    }

    private void openSegment(long firstVersion) throws IOException {
        if (segment != null) {
            segment.force(true);
            segment.close();
        }
        Path p = dir.resolve(segmentName(firstVersion));
        segment = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        segment.write(ByteBuffer.wrap(MAGIC));
        segment.force(true);
        forceDirectory();
        segmentBytes = MAGIC.length;
    }

    private void forceDirectory() {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException ignored) {
            // not every platform lets a directory be opened; the file's own force still holds
        }
    }

    /** The frame of one record: what {@link #append} writes and recovery reads. */
    static ByteBuffer frame(long version, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(4 + 8 + payload.length + 4);
        b.putInt(payload.length).putLong(version).put(payload);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 4, 8 + payload.length);
        b.putInt((int) crc.getValue());
        b.flip();
        return b;
    }

    /**
     * Hands over the record of {@code version}. Called in version order, inside the commit critical
     * section; returns at once.
     */
    public void append(long version, byte[] payload) throws IOException {
        IOException f = failure;
        if (f != null) throw new IOException("the durable log failed earlier: " + f.getMessage(), f);
        ByteBuffer frame = frame(version, payload);
        synchronized (lock) {
            if (version != pendingLast + 1) throw new IllegalStateException("durable log gap: v" + version + " after v" + pendingLast);
            pending.add(frame);
            pendingLast = version;
            lock.notifyAll();
        }
    }

    /**
     * Waits until the record of {@code version} is durable.
     *
     * @throws IOException if the log cannot be written (the commit's outcome is then unknown)
     */
    public void awaitDurable(long version) throws IOException {
        while (!durable.await(version, TimeUnit.SECONDS.toNanos(1), () -> failure == null && !closed)) {
            IOException f = failure;
            if (f != null) throw new IOException("the durable log cannot be written: " + f.getMessage(), f);
            if (closed) throw new IOException("the durable log was closed");
        }
    }

    private void flushLoop() {
        while (true) {
            List<ByteBuffer> batch;
            long last;
            synchronized (lock) {
                while (pending.isEmpty() && !closed) {
                    long wait = sync.perCommit() ? 0 : sync.intervalMillis();
                    try {
                        lock.wait(wait == 0 ? 1000 : wait);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    if (!sync.perCommit() && pending.isEmpty()) break; // time to force what was written
                }
                if (closed && pending.isEmpty()) return;
                batch = pending;
                pending = new ArrayList<>();
                last = pendingLast;
            }
            try {
                if (!batch.isEmpty()) {
                    ByteBuffer[] bufs = batch.toArray(new ByteBuffer[0]);
                    long n = 0;
                    while (hasRemaining(bufs)) n += segment.write(bufs);
                    segmentBytes += n;
                }
                boolean force = sync.perCommit()
                        || System.nanoTime() - lastForceNanos >= TimeUnit.MILLISECONDS.toNanos(sync.intervalMillis());
                if (force) {
                    segment.force(false);
                    lastForceNanos = System.nanoTime();
                }
                if (!batch.isEmpty()) {
                    durable.publish(last);
                    if (segmentBytes >= SEGMENT_BYTES) openSegment(last + 1);
                }
            } catch (IOException e) {
                failure = e;
                LOG.severe("MacroDB: writing the durable log in " + dir + " failed: " + e);
                durable.wakeAll();
                return;
            }
        }
    }

    private static boolean hasRemaining(ByteBuffer[] bufs) {
        for (ByteBuffer b : bufs) if (b.hasRemaining()) return true;
        return false;
    }

    /** Deletes the segments whose records are all at or below {@code version} (covered by a snapshot). */
    public void deleteSegmentsThrough(long version) throws IOException {
        List<Long> firsts = segmentFirsts(dir);
        for (int i = 0; i + 1 < firsts.size(); i++) {
            // segment i holds versions firsts[i] .. firsts[i+1]-1
            if (firsts.get(i + 1) - 1 <= version) Files.deleteIfExists(dir.resolve(segmentName(firsts.get(i))));
        }
    }

    static List<Long> segmentFirsts(Path dir) throws IOException {
        List<Long> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) return out;
        try (Stream<Path> s = Files.list(dir)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.matches("log-\\d{20}\\.seg"))
                    .forEach(n -> out.add(Long.parseLong(n.substring(4, 24))));
        }
        out.sort(null);
        return out;
    }

    @Override public void close() throws IOException {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        try {
            flusher.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (segment != null && segment.isOpen()) {
            segment.force(true);
            segment.close();
        }
    }
}
