package io.macrodb.replica;

import io.macrodb.engine.Engine;
import io.macrodb.sql.SqlState;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * The primary's content exported once, as the engine's script, when a replica set opens: every
 * secondary is imported from this one file, and the application's triggers are read from it, so
 * that opening a set with N secondaries exports the primary once instead of N + 1 times (once per
 * secondary's copy, once more just to find the triggers). The caller keeps the primary still from
 * the export to the last import (at open nothing else can reach it yet). Closing deletes the file.
 */
final class PrimaryScript implements AutoCloseable {
    private final Engine engine;
    private final Path dir;
    private final Path file;

    private PrimaryScript(Engine engine, Path dir, Path file) {
        this.engine = engine;
        this.dir = dir;
        this.file = file;
    }

    /** Exports the database of {@code primary} to a temporary file. */
    static PrimaryScript export(Engine engine, Connection primary) throws SQLException {
        Path dir;
        try {
            dir = Files.createTempDirectory("macrodb-copy");
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot use a temporary file to copy the database: " + e.getMessage(),
                    SqlState.IO_ERROR.getState(), e);
        }
        PrimaryScript s = new PrimaryScript(engine, dir, dir.resolve("copy.sql")); // not created: some engines refuse to overwrite
        try {
            engine.exportScript(primary, s.file);
        } catch (SQLException | RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** Imports the script into the empty database of {@code target}. */
    void importInto(Connection target) throws SQLException {
        engine.importScript(target, file);
    }

    /** Hands every line that starts a {@code CREATE} statement to {@code lines}, reading the file once, line by line. */
    void createStatements(Consumer<String> lines) throws SQLException {
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.stripLeading().regionMatches(true, 0, "CREATE", 0, 6)) lines.accept(line);
            }
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot read the database's script: " + e.getMessage(), "58030", e);
        }
    }

    @Override public void close() {
        try {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temporary file left behind is harmless
        }
    }
}
