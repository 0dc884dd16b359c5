package io.macrodb.boot;

import java.util.Locale;
import java.util.Map;

/** MacroDB URLs as the starter reads and extends them. */
final class MacroDbUrls {
    static final String PREFIX = "jdbc:macrodb:";
    static final String DRIVER_CLASS = "io.macrodb.jdbc.MacroDriver";

    private MacroDbUrls() {}

    static boolean isMacroDb(String url) {
        return url != null && url.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
    }

    /**
     * {@code url} with {@code options} appended to its query ({@code ?k=v&k=v}), values percent-encoded
     * as the driver decodes them.
     *
     * @throws IllegalStateException if the URL already gives one of the options (the driver would
     *                               refuse it as given twice; the message says where each came from)
     */
    static String withOptions(String url, Map<String, String> options) {
        if (options.isEmpty()) return url;
        int q = url.indexOf('?');
        String query = q < 0 ? "" : url.substring(q + 1);
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String key = (eq < 0 ? pair : pair.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
            for (String option : options.keySet()) {
                if (option.toLowerCase(Locale.ROOT).equals(key)) {
                    throw new IllegalStateException("MacroDB option '" + option + "' is set twice: in spring.datasource.url ("
                            + pair + ") and as the property macrodb." + kebab(option) + "=" + options.get(option)
                            + "; set it in one place");
                }
            }
        }
        StringBuilder b = new StringBuilder(url);
        char sep = q < 0 ? '?' : (url.endsWith("?") || url.endsWith("&") ? 0 : '&');
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (sep != 0) b.append(sep);
            b.append(e.getKey()).append('=').append(encode(e.getValue()));
            sep = '&';
        }
        return b.toString();
    }

    static String encode(String value) {
        StringBuilder b = new StringBuilder(value.length());
        for (char c : value.toCharArray()) {
            switch (c) {
                case '%' -> b.append("%25");
                case '&' -> b.append("%26");
                case '=' -> b.append("%3D");
                case '+' -> b.append("%2B");
                case '#' -> b.append("%23");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** readWait -> read-wait, the property's name as application.properties writes it. */
    static String kebab(String option) {
        return option.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
