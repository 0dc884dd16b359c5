package io.macrodb.durable;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Snapshot files of the database at a known version, {@code snapshot-<version>.sql}, written by the
 * engine's own script export. A snapshot is written to a temporary name, forced to disk and then
 * renamed, so a crash leaves either the complete file or none.
 */
public final class SnapshotStore {
    private final Path dir;

    public SnapshotStore(Path dir) { this.dir = dir; }

    /** Writes one snapshot file. */
    @FunctionalInterface
    public interface Writer {
        void write(Path file) throws Exception;
    }

    static String name(long version) { return String.format("snapshot-%020d.sql", version); }

    public Path file(long version) { return dir.resolve(name(version)); }

    /** The version of the newest complete snapshot. */
    public OptionalLong newest() throws IOException {
        List<Long> all = versions();
        return all.isEmpty() ? OptionalLong.empty() : OptionalLong.of(all.get(all.size() - 1));
    }

    private List<Long> versions() throws IOException {
        List<Long> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) return out;
        try (Stream<Path> s = Files.list(dir)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.matches("snapshot-\\d{20}\\.sql"))
                    .forEach(n -> out.add(Long.parseLong(n.substring(9, 29))));
        }
        out.sort(null);
        return out;
    }

    static String positionsName(long version) { return String.format("snapshot-%020d.seq", version); }

    /**
     * The sequence positions stored with a snapshot (at least the next value of each sequence when
     * the snapshot's version committed); empty if none were.
     */
    public java.util.Map<String, Long> positions(long version) throws IOException {
        Path p = dir.resolve(positionsName(version));
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        if (!Files.exists(p)) return out;
        for (String line : Files.readAllLines(p, java.nio.charset.StandardCharsets.UTF_8)) {
            int tab = line.lastIndexOf('\t');
            if (tab > 0) out.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
        }
        return out;
    }

    /**
     * Writes the snapshot of {@code version} atomically, with the sequence positions that go with
     * it (a secondary's own sequences never advance), and deletes older ones.
     */
    public void write(long version, Writer writer, java.util.Map<String, Long> positions) throws Exception {
        Files.createDirectories(dir);
        // temporary names of their own: nothing else may write to them, even by mistake
        Path tmp = Files.createTempFile(dir, name(version) + ".", ".tmp");
        Files.delete(tmp); // the engines' script export wants to create the file itself
        writer.write(tmp);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        // the positions file goes first, with the script's length and checksum: a script is never
        // there without it, and a script that is not what was written is known for damaged
        Path seqTmp = Files.createTempFile(dir, positionsName(version) + ".", ".tmp");
        StringBuilder sb = new StringBuilder(HEADER).append(" bytes=").append(Files.size(tmp)).append(" crc32c=")
                .append(Long.toHexString(crc32c(tmp))).append('\n');
        positions.forEach((k, v) -> sb.append(k).append('\t').append(v).append('\n'));
        Files.writeString(seqTmp, sb, java.nio.charset.StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(seqTmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(seqTmp, dir.resolve(positionsName(version)), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmp, file(version), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException ignored) {
            // directories cannot be opened on every platform
        }
        for (long v : versions()) {
            if (v < version) {
                Files.deleteIfExists(file(v));
                Files.deleteIfExists(dir.resolve(positionsName(v)));
                // what an older SQLite restore left beside it (SqliteEngine.exportScript says why none is made now)
                for (String companion : new String[] {"-wal", "-shm", "-journal"}) Files.deleteIfExists(dir.resolve(name(v) + companion));
            }
        }
    }

    private static final String HEADER = "#macrodb-snapshot";

    private static long crc32c(Path file) throws IOException {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        try (java.io.InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) crc.update(buf, 0, n);
        }
        return crc.getValue();
    }

    /**
     * Why the snapshot of {@code version} is not the file that was written (its length or checksum
     * differs from what its positions file recorded), or null if it is (or predates the record).
     */
    public String damage(long version) throws IOException {
        Path p = dir.resolve(positionsName(version));
        if (!Files.exists(p)) return null;
        for (String line : Files.readAllLines(p, java.nio.charset.StandardCharsets.UTF_8)) {
            if (!line.startsWith(HEADER)) continue;
            java.util.Map<String, String> kv = new java.util.HashMap<>();
            for (String part : line.substring(HEADER.length()).trim().split(" ")) {
                int eq = part.indexOf('=');
                if (eq > 0) kv.put(part.substring(0, eq), part.substring(eq + 1));
            }
            long bytes = Files.size(file(version));
            if (kv.containsKey("bytes") && Long.parseLong(kv.get("bytes")) != bytes) {
                return "it has " + bytes + " bytes where " + kv.get("bytes") + " were written";
            }
            if (kv.containsKey("crc32c") && !Long.toHexString(crc32c(file(version))).equals(kv.get("crc32c"))) {
                return "its CRC32C checksum is not the one written";
            }
        }
        return null;
    }

    /** Whether the directory holds anything of a previous run. */
    public boolean isEmpty() throws IOException {
        return versions().isEmpty() && DurableLog.segmentFirsts(dir).isEmpty();
    }
}
