package io.macrodb.engine;

import io.macrodb.sql.SqlState;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A temporary file for one database's script ({@link Engine#exportScript}), in a folder of its own
 * that closing deletes with everything in it: an engine may leave files beside the script (SQLite
 * made a {@code -wal} and a {@code -shm} beside a copy it restored from; before they were deleted,
 * every copy of a SQLite database left a folder behind, tens of thousands in a test run). The file
 * itself is not created: some engines refuse to export over an existing one.
 */
public final class ScriptFile implements AutoCloseable {
    private static final String PREFIX = "macrodb-copy";

    private final Path dir;
    private final Path file;

    private ScriptFile(Path dir) {
        this.dir = dir;
        this.file = dir.resolve("copy.sql");
    }

    /** A script file in a new folder under {@code java.io.tmpdir}. */
    public static ScriptFile create() throws SQLException {
        return create(null);
    }

    /** A script file in a new folder under {@code parent} ({@code java.io.tmpdir} when null). */
    public static ScriptFile create(Path parent) throws SQLException {
        try {
            return new ScriptFile(parent == null ? Files.createTempDirectory(PREFIX) : Files.createTempDirectory(parent, PREFIX));
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot use a temporary file to copy the database: " + e.getMessage()
                    + "; check that java.io.tmpdir (" + System.getProperty("java.io.tmpdir") + ") is a writable directory"
                    + " with free space", SqlState.IO_ERROR.getState(), e);
        }
    }

    /** Where the script goes. */
    public Path path() { return file; }

    /** Deletes the folder and whatever is in it. */
    @Override public void close() {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
        } catch (IOException | java.io.UncheckedIOException e) {
            System.getLogger(ScriptFile.class.getName()).log(System.Logger.Level.WARNING,
                    "MacroDB: could not delete the temporary copy " + dir + ": " + e.getMessage());
        }
    }
}
