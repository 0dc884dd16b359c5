package io.macrodb.engine;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An engine URL as the application wrote it after {@code jdbc:macrodb:}, split into the engine name,
 * the database part and the engine's own {@code ;KEY=VALUE} settings. Example: {@code
 * h2:mem:shop;MODE=PostgreSQL} is engine {@code h2}, database {@code mem:shop}, settings {@code
 * MODE=PostgreSQL}.
 */
public record EngineUrl(String engine, String database, Map<String, String> settings) {

    public static EngineUrl parse(String url) {
        int colon = url.indexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("no engine name before ':' in '" + url + "'");
        String engine = url.substring(0, colon).toLowerCase(Locale.ROOT);
        String rest = url.substring(colon + 1);
        String[] parts = rest.split(";");
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].isBlank()) continue;
            int eq = parts[i].indexOf('=');
            if (eq < 0) settings.put(parts[i].trim(), "");
            else settings.put(parts[i].substring(0, eq).trim(), parts[i].substring(eq + 1));
        }
        return new EngineUrl(engine, parts[0], settings);
    }

    /**
     * The protocol when the URL names a database server rather than an in-process one (H2 {@code tcp:},
     * {@code ssl:}; HSQLDB {@code hsql:}, {@code hsqls:}, {@code http:}, {@code https:}), else null.
     */
    public String serverProtocol() {
        String d = database.toLowerCase(Locale.ROOT);
        if (engine.equals("derby") && d.startsWith("//")) return "derby network client"; // jdbc:derby://host:port/db
        int colon = d.indexOf(':');
        if (colon <= 0) return null;
        String protocol = d.substring(0, colon);
        java.util.Set<String> server = switch (engine) {
            case "h2" -> java.util.Set.of("tcp", "ssl");
            case "hsqldb" -> java.util.Set.of("hsql", "hsqls", "http", "https");
            default -> java.util.Set.of();
        };
        return server.contains(protocol) ? protocol : null;
    }

    /**
     * Whether the database lives in memory only: H2's and HSQLDB's {@code mem:} (and {@code res:}),
     * SQLite's {@code :memory:} and MacroDB's {@code mem:NAME} for SQLite.
     */
    public boolean inMemory() {
        String d = database.toLowerCase(Locale.ROOT);
        return d.startsWith("mem:") || d.startsWith("res:") || engine.equals("sqlite") && d.equals(":memory:")
                || engine.equals("derby") && d.startsWith("memory:");
    }

    /** The setting whose key equals {@code key} ignoring case, or null. */
    public String setting(String key) {
        for (Map.Entry<String, String> e : settings.entrySet()) {
            if (e.getKey().equalsIgnoreCase(key)) return e.getValue();
        }
        return null;
    }

    /** {@code jdbc:<engine>:<database>[;settings]} */
    public String jdbcUrl() {
        return "jdbc:" + engine + ":" + database + settingsSuffix(settings);
    }

    /**
     * {@code url} (a JDBC URL whose settings follow {@code ;}) with setting {@code key} set to
     * {@code value}: an existing one, in any case, is replaced rather than named twice (which H2
     * refuses).
     */
    static String withSetting(String url, String key, String value) {
        StringBuilder sb = new StringBuilder();
        String[] parts = url.split(";", -1);
        sb.append(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            String k = (eq < 0 ? parts[i] : parts[i].substring(0, eq)).trim();
            if (!k.equalsIgnoreCase(key)) sb.append(';').append(parts[i]);
        }
        return sb.append(';').append(key).append('=').append(value).toString();
    }

    static String settingsSuffix(Map<String, String> settings) {
        StringBuilder sb = new StringBuilder();
        settings.forEach((k, v) -> sb.append(';').append(k).append(v.isEmpty() ? "" : "=" + v));
        return sb.toString();
    }
}
