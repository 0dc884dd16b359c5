package io.macrodb.cli.demo;

import java.util.List;

/**
 * The embedded engines the demo runs, with the URLs for the same in-memory database with and
 * without MacroDB. The standalone engine gets the settings MacroDB gives its primary, so that the
 * comparison is between the same engine configured the same way.
 */
public enum EmbeddedEngine {
    H2("h2", List.of()),
    /** MacroDB runs HSQLDB in MVCC mode (the default LOCKS mode locks whole tables). */
    HSQLDB("hsqldb", List.of("SET DATABASE TRANSACTION CONTROL MVCC", "SET DATABASE TRANSACTION ROLLBACK ON CONFLICT TRUE"));

    private final String urlName;
    private final List<String> primarySettings;

    EmbeddedEngine(String urlName, List<String> primarySettings) {
        this.urlName = urlName;
        this.primarySettings = primarySettings;
    }

    /** The engine's own URL for an in-memory database, for example {@code jdbc:h2:mem:bank}. */
    public String plainUrl(String database) {
        return "jdbc:" + urlName + ":mem:" + database;
    }

    /** The MacroDB URL replicating {@link #plainUrl}, with MacroDB's options ({@code replicas=3&...}). */
    public String macroUrl(String database, String options) {
        return "jdbc:macrodb:" + urlName + ":mem:" + database + "?" + options;
    }

    /** Statements that configure a standalone database as MacroDB configures its primary. */
    public List<String> primarySettings() {
        return primarySettings;
    }

    @Override public String toString() {
        return urlName;
    }
}
