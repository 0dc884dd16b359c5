package io.macrodb.replica;

import io.macrodb.engine.Engine;
import io.macrodb.engine.ScriptFile;

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
    private final ScriptFile script;
    private final Path file;

    /** The primary still to export on first use ({@link #lazy}), or null once exported. */
    private Connection source;

    private PrimaryScript(Engine engine, ScriptFile script) {
        this.engine = engine;
        this.script = script;
        this.file = script.path();
    }

    /** Exports the database of {@code primary} to a temporary file. */
    static PrimaryScript export(Engine engine, Connection primary) throws SQLException {
        PrimaryScript s = lazy(engine, primary);
        try {
            s.exported();
        } catch (SQLException | RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /**
     * A script of the database of {@code primary}, exported when first read: at open, where every secondary may be kept
     * as it is ({@link Engine#keptCheck}), none is.
     */
    static PrimaryScript lazy(Engine engine, Connection primary) throws SQLException {
        PrimaryScript s = new PrimaryScript(engine, ScriptFile.create());
        s.source = primary;
        return s;
    }

    private Path exported() throws SQLException {
        if (source != null) {
            engine.exportScript(source, file);
            source = null;
        }
        return file;
    }

    /** Imports the script into the empty database of {@code target}. */
    void importInto(Connection target) throws SQLException {
        engine.importScript(target, exported());
    }

    /** Hands every line that starts a {@code CREATE} statement to {@code lines}, reading the file once, line by line. */
    void createStatements(Consumer<String> lines) throws SQLException {
        exported();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.stripLeading().regionMatches(true, 0, "CREATE", 0, 6)) lines.accept(line);
            }
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot read the database's script: " + e.getMessage(), "58030", e);
        }
    }

    @Override public void close() {
        script.close();
    }
}
