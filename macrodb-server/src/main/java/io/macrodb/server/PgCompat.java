package io.macrodb.server;

import java.util.regex.Pattern;

/**
 * The few rewrites of PostgreSQL-only syntax that common clients send and the engines do not take: storage
 * parameters ({@code CREATE TABLE ... WITH (fillfactor=100)}, which pgbench -i sends) are dropped, and
 * {@code VACUUM}/{@code ANALYZE} (maintenance an embedded engine does not need) complete without effect.
 * Deliberately small: every rewrite here changes no result a client can observe.
 */
final class PgCompat {
    private static final Pattern STORAGE_PARAMETERS = Pattern.compile("(?is)^(\\s*CREATE\\s+.*\\))\\s*WITH\\s*\\(\\s*\\w+\\s*=\\s*\\w+(\\s*,\\s*\\w+\\s*=\\s*\\w+)*\\s*\\)\\s*$");
    private static final Pattern MAINTENANCE = Pattern.compile("(?is)^\\s*(VACUUM|ANALYZE|ANALYSE)\\b.*");

    private static final Pattern TRUNCATE = Pattern.compile("(?is)^\\s*TRUNCATE\\s+(?:TABLE\\s+)?(?:ONLY\\s+)?([\\w.\"]+(?:\\s*,\\s*[\\w.\"]+)*)\\s*$");

    private PgCompat() { }

    /** A TRUNCATE of several tables as one TRUNCATE per table (the engines take one); otherwise just the statement. */
    static java.util.List<String> expand(String sql) {
        var m = TRUNCATE.matcher(sql);
        if (!m.matches()) return java.util.List.of(rewrite(sql));
        java.util.List<String> l = new java.util.ArrayList<>();
        for (String t : m.group(1).split(",")) l.add("TRUNCATE TABLE " + t.strip());
        return l;
    }

    /** The statement as the engine should see it. */
    static String rewrite(String sql) {
        var m = STORAGE_PARAMETERS.matcher(sql);
        if (m.matches()) return m.group(1);
        return sql;
    }

    /** The tag of a maintenance statement that completes without effect, or null. */
    static String noOpTag(String sql) {
        var m = MAINTENANCE.matcher(sql);
        if (!m.matches()) return null;
        String w = m.group(1).toUpperCase(java.util.Locale.ROOT);
        return w.equals("VACUUM") ? "VACUUM" : "ANALYZE";
    }
}
