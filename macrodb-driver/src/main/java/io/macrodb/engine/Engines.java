package io.macrodb.engine;

import java.util.List;
import java.util.Locale;

/** The engines MacroDB knows, looked up by the name after {@code jdbc:macrodb:}. */
public final class Engines {
    private static final List<String> SUPPORTED = List.of("h2", "hsqldb", "sqlite", "derby", "postgresql");

    private Engines() {}

    /** The engine for {@code name}, or null if MacroDB does not support it. */
    public static Engine forName(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "h2" -> new H2Engine();
            case "hsqldb" -> new HsqldbEngine();
            case "sqlite" -> new SqliteEngine();
            case "derby" -> new DerbyEngine();
            case "postgresql" -> new PostgresEngine();
            default -> null;
        };
    }

    public static List<String> supported() { return SUPPORTED; }
}
