package io.macrodb.jdbc;

import io.macrodb.engine.Engine;
import io.macrodb.engine.EngineUrl;
import io.macrodb.engine.Engines;
import io.macrodb.log.Propagation;
import io.macrodb.replica.ReplicaSetConfig;
import io.macrodb.route.Balancer;
import io.macrodb.route.ReadConsistency;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The options of one MacroDB connection, from its URL ({@code jdbc:macrodb:<engine url>?k=v&k=v})
 * and connection properties (properties win over the URL; properties MacroDB does not know, such
 * as {@code user}, go to the engine). Every value is validated here, with a message that names the
 * option and what it accepts. The options, their ranges, choices and fixed defaults are those of
 * {@link MacroProperty}.
 */
public final class MacroConfig {
    public static final String PREFIX = "jdbc:macrodb:";

    private final String url;
    private final Engine engine;
    private final EngineUrl engineUrl;
    private final Properties engineProperties;
    private final int replicas;
    private final Propagation propagation;
    private final ReadConsistency consistency;
    private final String balancer;
    private final long readWaitMillis;
    /** {@code primaryReads=idle}: a read that would wait for a secondary runs on an idle primary instead. */
    private final boolean primaryReadsWhenIdle;
    private final long lockTimeoutMillis;
    private final int applyGroup;
    private final int applyThreads;
    private final long maxLagVersions;
    private final long maxLagMillis;
    private final int admissionLimit;
    /** Update transactions take a turn each ({@code writers}; statement propagation; SQLite). */
    private final boolean oneWriter;
    private final boolean admissionAdaptive;
    private final boolean optimisticReads;
    private final boolean jmx;
    private final boolean routingLog;
    private final io.macrodb.durable.DurabilityConfig durability;
    private final long stallTimeoutMillis;
    private final boolean autoRebuild;
    private final long closeDelayMillis;

    private MacroConfig(String url, Engine engine, EngineUrl engineUrl, Properties engineProperties, Map<String, String> o)
            throws SQLException {
        this.url = url;
        this.engine = engine;
        this.engineUrl = engineUrl;
        this.engineProperties = engineProperties;
        int named = engine.replicasNamed(engineUrl);
        if (named > 0 && o.containsKey(MacroProperty.REPLICAS.optionName())
                && intOption(o, MacroProperty.REPLICAS, named) != named) {
            throw SqlStates.rejected("replicas=" + o.get(MacroProperty.REPLICAS.optionName()) + " disagrees with the " + named
                    + " replica(s) the " + engine.name() + " URL names (the primary and its secondaries); leave replicas out");
        }
        this.replicas = named > 0 ? named : intOption(o, MacroProperty.REPLICAS, defaultReplicas());
        this.propagation = Propagation.valueOf(choice(o, MacroProperty.PROPAGATION).toUpperCase(Locale.ROOT));
        this.consistency = consistencyOption(o);
        this.balancer = o.getOrDefault(MacroProperty.BALANCER.optionName(), MacroProperty.BALANCER.defaultValue());
        try {
            Balancer.parse(balancer);
        } catch (IllegalArgumentException e) {
            throw SqlStates.rejected(e.getMessage());
        }
        this.readWaitMillis = intOption(o, MacroProperty.READ_WAIT);
        this.primaryReadsWhenIdle = primaryReadsOption(o).equals("idle");
        this.lockTimeoutMillis = intOption(o, MacroProperty.LOCK_TIMEOUT);
        this.applyGroup = intOption(o, MacroProperty.APPLY_GROUP);
        int threads = intOption(o, MacroProperty.APPLY_THREADS, defaultApplyThreads(engine, replicas));
        if (threads > engine.maxApplySessions()) {
            if (o.containsKey(MacroProperty.APPLY_THREADS.optionName())) {
                throw SqlStates.unsupported("applyThreads=" + threads + " is not offered on " + engine.name() + ", whose"
                        + " secondaries apply the log with at most " + engine.maxApplySessions() + " session(s) (README, the"
                        + " engine's section); leave applyThreads out or set it to " + engine.maxApplySessions());
            }
            threads = engine.maxApplySessions(); // a default (or the test suites' override) the engine cannot use
        }
        this.applyThreads = threads;
        String lag = value(o, MacroProperty.MAX_LAG).trim().toLowerCase(Locale.ROOT);
        try {
            long n = Long.parseLong(lag.endsWith("ms") ? lag.substring(0, lag.length() - 2).trim() : lag);
            if (n < 0) throw new NumberFormatException();
            this.maxLagMillis = lag.endsWith("ms") ? n : 0;
            this.maxLagVersions = lag.endsWith("ms") ? 0 : n;
        } catch (NumberFormatException e) {
            throw SqlStates.rejected("maxLag='" + o.get(MacroProperty.MAX_LAG.optionName()) + "' must be a number of versions (e.g. maxLag=10000), a time"
                    + " of apply work (e.g. maxLag=500ms) or 0 for no bound");
        }
        this.optimisticReads = choice(o, MacroProperty.OPTIMISTIC_READS).equals("true");
        this.jmx = choice(o, MacroProperty.JMX).equals("true");
        this.routingLog = choice(o, MacroProperty.ROUTING_LOG).equals("true");
        String adm = value(o, MacroProperty.ADMISSION).trim().toLowerCase(Locale.ROOT);
        if (adm.equals("auto")) {
            this.admissionLimit = engine.admissionProfile();
            this.admissionAdaptive = true;
        } else if (adm.equals("off")) {
            this.admissionLimit = 0;
            this.admissionAdaptive = false;
        } else {
            this.admissionLimit = intOption(o, MacroProperty.ADMISSION, 0);
            this.admissionAdaptive = false;
        }
        this.durability = durabilityOption(o);
        this.closeDelayMillis = closeDelayOption(o, engine, engineUrl, engineProperties, durability != null);
        this.stallTimeoutMillis = intOption(o, MacroProperty.STALL_TIMEOUT);
        this.autoRebuild = choice(o, MacroProperty.REBUILD).equals("auto");
        String writers = choice(o, MacroProperty.WRITERS);
        if (writers.equals("concurrent") && engine.oneWriterAtATime()) {
            throw SqlStates.unsupported("writers=concurrent is not offered on " + engineUrl.engine() + ", which runs one writer per"
                    + " database; use writers=auto or writers=one");
        }
        this.oneWriter = propagation == Propagation.STATEMENT || writers.equals("one") || writers.equals("auto") && engine.oneWriterAtATime();
        engine.checkSupported(engineUrl, propagation, durability != null);
    }

    /**
     * {@code closeDelay}: the engine's rule, -1 (until SHUTDOWN or the JVM exits) or seconds; as
     * milliseconds. With {@code durability=log} the rule is 0: MacroDB then shuts the in-memory primary
     * down with the set itself, and the next open recovers it from the log.
     */
    private static long closeDelayOption(Map<String, String> o, Engine engine, EngineUrl url, Properties props, boolean durable)
            throws SQLException {
        MacroProperty p = MacroProperty.CLOSE_DELAY;
        String v = value(o, p).trim();
        if (v.equalsIgnoreCase("engine")) return durable ? 0 : engine.closeDelayMillis(url, props);
        if (v.equals("-1")) return -1;
        try {
            long seconds = Long.parseLong(v);
            if (seconds >= p.min() && seconds <= p.max()) return seconds * 1000L;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw SqlStates.rejected(p.optionName() + "='" + o.get(p.optionName()) + "' must be engine (as the engine keeps the"
                + " database: H2's DB_CLOSE_DELAY, HSQLDB's shutdown=true), -1 (until SHUTDOWN or the JVM exits) or a number"
                + " of seconds from " + p.min() + " to " + p.max());
    }

    private static io.macrodb.durable.DurabilityConfig durabilityOption(Map<String, String> o) throws SQLException {
        String d = value(o, MacroProperty.DURABILITY).trim();
        if (d.equalsIgnoreCase("none")) {
            if (o.containsKey(MacroProperty.FSYNC.optionName()) || o.containsKey(MacroProperty.SNAPSHOT_EVERY.optionName())) {
                throw SqlStates.rejected("fsync and snapshotEvery need durability=log:<directory>");
            }
            return null;
        }
        if (!d.regionMatches(true, 0, "log:", 0, 4) || d.length() == 4) {
            throw SqlStates.rejected("durability='" + d + "' must be none or log:<directory>, e.g. durability=log:/var/lib/shop");
        }
        java.nio.file.Path dir;
        try {
            dir = java.nio.file.Path.of(d.substring(4)).toAbsolutePath();
        } catch (java.nio.file.InvalidPathException e) {
            throw SqlStates.rejected("durability='" + d + "' names no valid directory: " + e.getMessage());
        }
        String f = value(o, MacroProperty.FSYNC).trim().toLowerCase(Locale.ROOT);
        io.macrodb.durable.DurableLog.Sync sync;
        if (f.equals("commit")) {
            sync = io.macrodb.durable.DurableLog.Sync.COMMIT;
        } else {
            long ms = -1;
            if (f.endsWith("ms")) {
                try {
                    ms = Long.parseLong(f.substring(0, f.length() - 2));
                } catch (NumberFormatException ignored) {
                    // reported below
                }
            }
            if (ms < 1 || ms > 60_000) throw SqlStates.rejected("fsync='" + f + "' must be commit or <1..60000>ms, e.g. fsync=20ms");
            sync = io.macrodb.durable.DurableLog.Sync.interval(ms);
        }
        long every = intOption(o, MacroProperty.SNAPSHOT_EVERY);
        return new io.macrodb.durable.DurabilityConfig(dir, sync, every);
    }

    /**
     * Apply sessions per secondary when the URL does not say: the processors shared among the
     * replicas (a secondary's appliers compete with its readers and with the primary's writers), at
     * most 8, where measured gains level off for the engines' own commit paths, or fewer if the
     * engine's profile says so ({@link Engine#applySessionsProfile}). The system property
     * {@code macrodb.applyThreads} overrides it (CI runs the consistency suites with parallel apply
     * on a 2-core machine that would otherwise choose 1).
     */
    static int defaultApplyThreads(Engine engine, int replicas) {
        String forced = System.getProperty("macrodb.applyThreads");
        if (forced != null && !forced.isBlank()) {
            try {
                return Math.max(1, Math.min(64, Integer.parseInt(forced.trim())));
            } catch (NumberFormatException e) {
                // an unusable override is ignored; the URL option is where errors are reported
            }
        }
        int byCores = Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() / Math.max(1, replicas)));
        int profile = engine.applySessionsProfile();
        return profile > 0 ? Math.min(profile, byCores) : byCores;
    }

    /** {@link #defaultApplyThreads(Engine, int)} for the engine {@code url} names; 0 if it names none MacroDB supports. */
    static int defaultApplyThreads(String url, int replicas) {
        if (url == null || !url.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) return 0;
        String rest = url.substring(PREFIX.length());
        int colon = rest.indexOf(':');
        Engine engine = colon <= 0 ? null : Engines.forName(rest.substring(0, colon));
        return engine == null ? 0 : defaultApplyThreads(engine, replicas);
    }

    /**
     * {@code primaryReads} as the URL gives it, else the system property {@code macrodb.defaultPrimaryReads} (the driver's
     * tests run with {@code fallback}, so that their reads keep reaching the secondaries they test), else the default.
     */
    private static String primaryReadsOption(Map<String, String> o) throws SQLException {
        String forced = System.getProperty("macrodb.defaultPrimaryReads");
        if (!o.containsKey(MacroProperty.PRIMARY_READS.optionName()) && forced != null && !forced.isBlank()) {
            Map<String, String> withDefault = new java.util.HashMap<>(o);
            withDefault.put(MacroProperty.PRIMARY_READS.optionName(), forced);
            return choice(withDefault, MacroProperty.PRIMARY_READS);
        }
        return choice(o, MacroProperty.PRIMARY_READS);
    }

    static int defaultReplicas() {
        return Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors() / 2));
    }

    /**
     * The options a URL and properties give, by canonical name, without validating them (for
     * {@link MacroDriver#getPropertyInfo}); a part that cannot be read is left out.
     */
    static Map<String, String> givenOptions(String url, Properties info) {
        Map<String, String> out = new LinkedHashMap<>();
        int q = url == null ? -1 : url.indexOf('?');
        if (q >= 0) {
            for (String pair : url.substring(q + 1).split("&")) {
                int eq = pair.indexOf('=');
                try {
                    String known = canonical(decode(eq < 0 ? pair : pair.substring(0, eq), url));
                    if (known != null) out.put(known, eq < 0 ? "" : decode(pair.substring(eq + 1), url));
                } catch (SQLException unreadable) {
                    // left out: connect reports it
                }
            }
        }
        if (info != null) {
            for (String k : info.stringPropertyNames()) {
                String known = canonical(k);
                if (known != null) out.put(known, info.getProperty(k));
            }
        }
        return out;
    }

    /**
     * Parses a URL and properties.
     *
     * @throws SQLException SQLState 08001 naming the option, engine or value at fault
     */
    public static MacroConfig parse(String url, Properties info) throws SQLException {
        if (url == null || !url.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw SqlStates.rejected("'" + url + "' is not a MacroDB URL; it must start with " + PREFIX
                    + " followed by the engine's own URL without 'jdbc:', e.g. " + PREFIX + "h2:mem:shop?replicas=4");
        }
        String rest = url.substring(PREFIX.length());
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        if (rest.isBlank() || rest.indexOf(':') <= 0) {
            throw SqlStates.rejected("'" + url + "' names no engine; write " + PREFIX + "<engine>:<database>, e.g. "
                    + PREFIX + "h2:mem:shop or " + PREFIX + "hsqldb:mem:shop");
        }
        EngineUrl engineUrl = EngineUrl.parse(rest);
        String server = engineUrl.serverProtocol();
        if (server != null) {
            throw SqlStates.rejected("'" + url + "' connects to a " + engineUrl.engine() + " server (" + server + ":); MacroDB runs"
                    + " each replica's engine embedded, in this process, itself, so it needs an in-process database:"
                    + " mem: or file: (e.g. " + PREFIX + engineUrl.engine() + ":mem:shop or " + PREFIX + engineUrl.engine()
                    + ":file:/var/db/shop)");
        }
        Engine engine = Engines.forName(engineUrl.engine());
        if (engine == null) {
            throw SqlStates.rejected("engine '" + engineUrl.engine() + "' is not supported; MacroDB replicates "
                    + String.join(", ", Engines.supported()) + " (jdbc:macrodb:h2:..., jdbc:macrodb:hsqldb:..., jdbc:macrodb:sqlite:..., jdbc:macrodb:postgresql://host:port/db?...)");
        }
        if (engineUrl.setting("INIT") != null) {
            throw SqlStates.rejected("the engine setting INIT runs a script on every replica behind MacroDB's back;"
                    + " remove it from the URL and run the script through a MacroDB connection once");
        }
        Map<String, String> options = new LinkedHashMap<>();
        Map<String, String> engineOptions = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq), url);
            String v = eq < 0 ? "" : decode(pair.substring(eq + 1), url);
            String known = canonical(k);
            if (known == null && engine.urlOptions().contains(k.toLowerCase(Locale.ROOT))) {
                String name = k.toLowerCase(Locale.ROOT);
                if (engineOptions.containsKey(name)) {
                    throw SqlStates.rejected("option '" + name + "' is given more than once in " + url + "; give each option once");
                }
                engineOptions.put(name, v);
                continue;
            }
            if (known == null) {
                throw SqlStates.rejected("unknown URL option '" + k + "' in " + url + "; MacroDB options are "
                        + String.join(", ", MacroProperty.names())
                        + (engine.urlOptions().isEmpty() ? "" : "; " + engine.name() + "'s own are " + String.join(", ", new java.util.TreeSet<>(engine.urlOptions())))
                        + ". Engine settings belong in the engine URL (e.g. ;MODE=PostgreSQL)");
            }
            if (options.containsKey(known)) {
                throw SqlStates.rejected("option '" + known + "' is given more than once in " + url + " ('" + options.get(known)
                        + "' and '" + v + "'); give each option once (a MacroDataSource setter adds its option to the URL"
                        + " set with setUrl, so an option set both ways is given twice)");
            }
            options.put(known, v);
        }
        Properties engineProps = new Properties();
        if (info != null) {
            for (String k : info.stringPropertyNames()) {
                String known = canonical(k);
                if (known != null) options.put(known, info.getProperty(k));
                else if (engine.urlOptions().contains(k.toLowerCase(Locale.ROOT))) engineOptions.put(k.toLowerCase(Locale.ROOT), info.getProperty(k));
                else engineProps.setProperty(k, info.getProperty(k));
            }
        }
        engineUrl = engine.withOptions(engineUrl, engineOptions);
        return new MacroConfig(url, engine, engineUrl, engineProps, options);
    }

    private static String decode(String s, String url) throws SQLException {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw SqlStates.rejected("'" + s + "' in " + url + " is not valid percent-encoding (" + e.getMessage()
                    + "); write % as %25, & as %26, = as %3D and + as %2B in an option's value");
        }
    }

    /**
     * Percent-encodes a name or value for the query part of a MacroDB URL: '%', '&amp;', '=', '+', '#',
     * white space, control and non-ASCII characters; everything else (such as ':' and '/') stays readable.
     */
    static String encode(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c <= 0x20 || c >= 0x7f || "%&=+#".indexOf(c) >= 0) {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            } else {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    private static String canonical(String key) {
        MacroProperty p = MacroProperty.forName(key);
        return p == null ? null : p.optionName();
    }

    /** The value given for {@code p}, or its default. */
    private static String value(Map<String, String> o, MacroProperty p) {
        String v = o.get(p.optionName());
        return v != null ? v : p.defaultValue();
    }

    /** The value given for {@code p}, one of its choices (lower case), or 08001 naming them. */
    private static String choice(Map<String, String> o, MacroProperty p) throws SQLException {
        String v = value(o, p);
        for (String c : p.choices()) {
            if (c.equalsIgnoreCase(v.trim())) return c.toLowerCase(Locale.ROOT);
        }
        throw SqlStates.rejected(p.mustBeOneOf(v));
    }

    /** A whole-number option with its fixed default and range from the table. */
    private static int intOption(Map<String, String> o, MacroProperty p) throws SQLException {
        return intOption(o, p, Integer.parseInt(p.defaultValue()));
    }

    /** A whole-number option with its range from the table and a default computed here. */
    private static int intOption(Map<String, String> o, MacroProperty p, int def) throws SQLException {
        return intOption(o, p.optionName(), def, (int) p.min(), (int) Math.min(Integer.MAX_VALUE, p.max()));
    }

    private static int intOption(Map<String, String> o, String name, int def, int min, int max) throws SQLException {
        String v = o.get(name);
        if (v == null) return def;
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw SqlStates.rejected(name + "='" + v + "' must be a whole number from " + min + " to " + max
                + (name.equals("replicas") ? " (replicas counts the primary: 1 means no secondaries)" : "")
                + (name.equals("admission") ? ", auto or off" : ""));
    }

    private static ReadConsistency consistencyOption(Map<String, String> o) throws SQLException {
        try {
            return ReadConsistency.parse(value(o, MacroProperty.CONSISTENCY));
        } catch (IllegalArgumentException e) {
            throw SqlStates.rejected(e.getMessage());
        }
    }

    public String url() { return url; }
    Engine engine() { return engine; }
    EngineUrl engineUrl() { return engineUrl; }
    public int replicas() { return replicas; }
    Propagation propagation() { return propagation; }
    ReadConsistency consistency() { return consistency; }
    /** The read consistency, as the {@code consistency} option names it ({@code strict}, {@code session}, ...). */
    public String readConsistency() { return consistency.toString(); }
    /** The balancer option as given (parsed and validated when the connection was configured). */
    public String balancerName() { return balancer; }
    public long readWaitMillis() { return readWaitMillis; }
    /** Whether a read-only transaction that would wait for a secondary runs on an idle primary instead ({@code primaryReads=idle}). */
    public boolean primaryReadsWhenIdle() { return primaryReadsWhenIdle; }
    public long lockTimeoutMillis() { return lockTimeoutMillis; }
    public boolean optimisticReads() { return optimisticReads; }
    /** Whether this connection registers its replica set's MXBean ({@code jmx=true}). */
    public boolean jmx() { return jmx; }
    /** Whether this connection logs where each statement ran and why ({@code routingLog=true}). */
    public boolean routingLog() { return routingLog; }


    ReplicaSetConfig replicaSetConfig() {
        return new ReplicaSetConfig(engine, engineUrl, engineProperties, replicas, propagation, lockTimeoutMillis, applyGroup,
                applyThreads, maxLagVersions, maxLagMillis,
                admissionLimit, admissionAdaptive, durability, stallTimeoutMillis, autoRebuild, closeDelayMillis, oneWriter);
    }
}
