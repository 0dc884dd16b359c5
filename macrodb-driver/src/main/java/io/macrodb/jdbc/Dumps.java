package io.macrodb.jdbc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.SQLException;
import java.util.regex.Pattern;

/**
 * An application's {@code SCRIPT} dump without MacroDB's capture triggers. Every replica's tables
 * carry them (named {@code MACRODB_CAPTURE...}, calling a class in {@code io.macrodb}), so a dump
 * taken through MacroDB and restored into the plain engine would otherwise fail every later insert
 * (the trigger's class is not there). MacroDB needs no trigger from a dump: restored through
 * MacroDB, every table gets its triggers when it is created.
 *
 * <p>Covered: the dump as a result set ({@code MacroResultSet} skips those rows), and a plain-text dump to a file named by a literal. Left as
 * the engine writes it: a compressed or encrypted dump, one in another charset, one to a file named
 * by a parameter (the classifier does not mark those; see {@code Classification.Verb#SCRIPT}).
 */
final class Dumps {
    /** One statement of a dump that creates a capture trigger, in the forms H2 and HSQLDB write. */
    private static final Pattern CAPTURE_TRIGGER = Pattern.compile(
            "(?is)\\s*CREATE\\s+(?:FORCE\\s+)?TRIGGER\\s+\\S*MACRODB_CAPTURE[_:].*\\bCALL\\s+[\"']io\\.macrodb\\.[\\w.]*[\"'].*");

    private Dumps() {}

    static boolean createsCaptureTrigger(String statement) {
        return statement != null && CAPTURE_TRIGGER.matcher(statement).matches();
    }

    /**
     * Rewrites a plain-text dump file without its capture-trigger lines. Both engines write such a
     * statement on one line of its own; the file's bytes are otherwise kept exactly (read and
     * written as ISO-8859-1, which maps every byte to one char and back).
     */
    static void removeCaptureTriggers(String fileName) throws SQLException {
        Path file = Path.of(fileName);
        try {
            String text = Files.readString(file, StandardCharsets.ISO_8859_1);
            StringBuilder kept = new StringBuilder(text.length());
            int start = 0;
            boolean removed = false;
            while (start < text.length()) {
                int nl = text.indexOf('\n', start);
                int end = nl < 0 ? text.length() : nl + 1;
                String line = text.substring(start, end);
                if (createsCaptureTrigger(line.strip())) removed = true;
                else kept.append(line);
                start = end;
            }
            if (!removed) return;
            Path tmp = file.resolveSibling(file.getFileName() + ".macrodb-tmp");
            Files.writeString(tmp, kept, StandardCharsets.ISO_8859_1);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            throw new SQLException("MacroDB: the dump " + fileName + " was written, but removing MacroDB's capture triggers"
                    + " from it failed (" + e.getMessage() + "); restored into the plain engine, its inserts would fail."
                    + " Delete the lines that create triggers named MACRODB_CAPTURE..., or dump again", io.macrodb.sql.SqlState.IO_ERROR.getState(), e);
        }
    }
}
