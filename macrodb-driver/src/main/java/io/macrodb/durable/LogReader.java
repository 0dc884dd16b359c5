package io.macrodb.durable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads the durable log back at start-up. Records must follow each other without a gap and carry a
 * valid checksum. A damaged end of the last segment (a write torn by a crash) is cut off and
 * reported; damage anywhere else, or a damaged tail followed by valid records, means records that
 * were acknowledged could be lost, so reading refuses with a message that says what to do.
 */
public final class LogReader {

    /** What a replay receives. */
    @FunctionalInterface
    public interface Sink {
        void record(long version, byte[] payload) throws IOException;
    }

    /** The outcome of a read: the last version found and what was cut. */
    public record Result(long lastVersion, long records, String cut) {}

    /** The log cannot be trusted; the message says what to do. */
    public static final class CorruptLogException extends IOException {
        private static final long serialVersionUID = 1L;
        CorruptLogException(String message) { super(message); }
    }

    private LogReader() {}

    /**
     * Replays every record after {@code afterVersion} (a snapshot's version) to {@code sink}, in
     * order, and truncates a torn tail.
     */
    public static Result replay(Path dir, long afterVersion, Sink sink) throws IOException {
        List<Long> firsts = DurableLog.segmentFirsts(dir);
        long expected = afterVersion + 1;
        long last = afterVersion;
        long count = 0;
        String cut = null;
        for (int i = 0; i < firsts.size(); i++) {
            boolean lastSegment = i == firsts.size() - 1;
            long segFirst = firsts.get(i);
            long segEnd = lastSegment ? Long.MAX_VALUE : firsts.get(i + 1) - 1;
            if (segEnd < expected) continue; // wholly covered by the snapshot
            Path p = dir.resolve(DurableLog.segmentName(segFirst));
            if (segFirst > expected) {
                throw new CorruptLogException("the durable log in " + dir + " has no record of version " + expected
                        + " (segment " + p.getFileName() + " starts at " + segFirst + "); a segment is missing. Restore the"
                        + " directory from a backup; MacroDB will not start on a log with a gap");
            }
            byte[] all = Files.readAllBytes(p);
            int pos = 0;
            if (all.length < DurableLog.MAGIC.length || !Arrays.equals(Arrays.copyOf(all, DurableLog.MAGIC.length), DurableLog.MAGIC)) {
                if (lastSegment && all.length <= DurableLog.MAGIC.length) {
                    cut = truncate(p, 0, "an unfinished segment header");
                    continue;
                }
                throw new CorruptLogException(p + " is not a MacroDB log segment (bad header); restore the directory from a backup");
            }
            pos = DurableLog.MAGIC.length;
            while (pos < all.length) {
                Frame f = Frame.at(all, pos);
                if (f == null) {
                    if (!lastSegment) {
                        throw new CorruptLogException("the durable log segment " + p + " is damaged at byte " + pos
                                + " and later segments hold newer records; committed transactions would be lost."
                                + " Restore the directory from a backup, or move the segments from " + p.getFileName()
                                + " on out of the directory to start from the records before the damage");
                    }
                    if (validFrameAfter(all, pos + 1, expected)) {
                        throw new CorruptLogException("the durable log segment " + p + " is damaged at byte " + pos
                                + " but holds valid records after it; committed transactions would be lost. Restore the"
                                + " directory from a backup");
                    }
                    cut = truncate(p, pos, "a torn record at byte " + pos + " after version " + (expected - 1));
                    break;
                }
                if (f.version < expected) {
                    pos = f.end;
                    continue; // covered by the snapshot
                }
                if (f.version != expected) {
                    throw new CorruptLogException("the durable log segment " + p + " jumps from version " + (expected - 1)
                            + " to " + f.version + "; restore the directory from a backup");
                }
                sink.record(f.version, Arrays.copyOfRange(all, f.payloadStart, f.payloadStart + f.length));
                last = f.version;
                expected++;
                count++;
                pos = f.end;
            }
        }
        return new Result(last, count, cut);
    }

    private static boolean validFrameAfter(byte[] all, int from, long minVersion) {
        for (int p = from; p + 16 <= all.length; p++) {
            Frame f = Frame.at(all, p);
            if (f != null && f.version >= minVersion) return true;
        }
        return false;
    }

    private static String truncate(Path p, long at, String what) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.truncate(at);
            ch.force(true);
        }
        return "cut " + what + " from " + p.getFileName();
    }

    private record Frame(long version, int length, int payloadStart, int end) {
        static Frame at(byte[] all, int pos) {
            if (pos + 16 > all.length) return null;
            ByteBuffer b = ByteBuffer.wrap(all);
            int len = b.getInt(pos);
            if (len < 0 || (long) pos + 16 + len > all.length) return null;
            long version = b.getLong(pos + 4);
            CRC32C crc = new CRC32C();
            crc.update(all, pos + 4, 8 + len);
            int stored = b.getInt(pos + 12 + len);
            if ((int) crc.getValue() != stored) return null;
            return new Frame(version, len, pos + 12, pos + 16 + len);
        }
    }
}
