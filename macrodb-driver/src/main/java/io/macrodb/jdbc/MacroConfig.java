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
 * option and what it accepts.
 */
public final class MacroConfig {
    public static final String PREFIX = "jdbc:macrodb:";

    /** The options MacroDB understands, with their documentation (shown by {@code getPropertyInfo}). */
    public static final Map<String, String> OPTIONS;
    static {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("replicas", "Replicas in all, primary included (1..64). Default: half the processors, at least 2, at most 8.");
        o.put("propagation", "row (default: changed rows captured by triggers, any isolation) or statement (the paper's SQL replay; update transactions run one at a time).");
        o.put("consistency", "strict (default), session, bounded:<versions> or bounded:<millis>ms: how fresh a secondary must be for a read-only transaction.");
        o.put("balancer", "leastActive (default), freshest or roundRobin: which fresh secondary a read-only transaction uses.");
        o.put("readWait", "Milliseconds a read-only transaction waits for a secondary to catch up before running on the primary instead (default 5; 0 never waits).");
        o.put("lockTimeout", "Milliseconds any lock or turn wait may last before failing with SQLState 40001 (default 10000).");
        o.put("applyGroup", "Most log records a behind secondary applies in one engine transaction (default 256).");
        o.put("applyThreads", "Engine sessions each secondary applies the log with (1..64). Records that touch different rows"
                + " are applied in parallel and committed in version order. Default: processors / replicas, at least 1, at most 8,"
                + " or the engine's profile (HSQLDB: 1); the system property macrodb.applyThreads overrides the default.");
        o.put("maxLag", "How far a secondary may fall behind before new update transactions wait for it: <versions>"
                + " (default 10000) or <N>ms of its apply work; 0 turns the bound off. Paused and failed secondaries do not count.");
        o.put("admission", "How many transactions each replica runs at once: auto (default: the engine's profile, adapted"
                + " to measured throughput; HSQLDB starts at 1, H2 has no limit), off, or a fixed <K>. The others wait in a fair"
                + " queue (at most lockTimeout); a reader whose secondary is full uses another fresh one first.");
        o.put("durability", "none (default) or log:<directory>: keep the replication log and snapshots on disk; a commit returns"
                + " once its record is there, and a restart recovers every such commit (in-memory engines only).");
        o.put("fsync", "commit (default: a commit returns after its record is forced to disk, many commits sharing one fsync)"
                + " or <N>ms (a commit returns once the operating system has its record; the log is forced every N ms:"
                + " survives the process, not a power loss of the last N ms).");
        o.put("snapshotEvery", "Log records between snapshots (default 100000); older log segments are deleted after a snapshot.");
        o.put("stallTimeout", "Milliseconds a secondary may stay behind without progress before it leaves the rotation (default 30000).");
        o.put("rebuild", "auto (default: a secondary that left the rotation is rebuilt online from a healthy replica) or manual.");
        o.put("optimisticReads", "true (default) or false: whether a transaction that never calls setReadOnly starts on a secondary"
                + " and moves to the primary, re-checking its reads, at its first write.");
        o.put("jmx", "false (default) or true: register the replica set's MXBean (io.macrodb:type=ReplicaSet,name=...) in the"
                + " platform MBeanServer while it is open; any connection asking for it registers it.");
        o.put("routingLog", "false (default) or true: log, for each statement of this connection, the replica it ran on and why"
                + " (System.Logger io.macrodb.routing at DEBUG).");
        OPTIONS = java.util.Collections.unmodifiableMap(o);
    }

    private final String url;
    private final Engine engine;
    private final EngineUrl engineUrl;
    private final Properties engineProperties;
    private final int replicas;
    private final Propagation propagation;
    private final ReadConsistency consistency;
    private final String balancer;
    private final long readWaitMillis;
    private final long lockTimeoutMillis;
    private final int applyGroup;
    private final int applyThreads;
    private final long maxLagVersions;
    private final long maxLagMillis;
    private final int admissionLimit;
    private final boolean admissionAdaptive;
    private final boolean optimisticReads;
    private final boolean jmx;
    private final boolean routingLog;
    private final io.macrodb.durable.DurabilityConfig durability;
    private final long stallTimeoutMillis;
    private final boolean autoRebuild;

    private MacroConfig(String url, Engine engine, EngineUrl engineUrl, Properties engineProperties, Map<String, String> o)
            throws SQLException {
        this.url = url;
        this.engine = engine;
        this.engineUrl = engineUrl;
        this.engineProperties = engineProperties;
        this.replicas = intOption(o, "replicas", defaultReplicas(), 1, 64);
        this.propagation = enumOption(o, "propagation");
        this.consistency = consistencyOption(o);
        this.balancer = o.getOrDefault("balancer", "leastActive");
        try {
            Balancer.parse(balancer);
        } catch (IllegalArgumentException e) {
            throw SqlStates.rejected(e.getMessage());
        }
        this.readWaitMillis = intOption(o, "readWait", 5, 0, 3_600_000);
        this.lockTimeoutMillis = intOption(o, "lockTimeout", 10_000, 1, 3_600_000);
        this.applyGroup = intOption(o, "applyGroup", 256, 1, 100_000);
        this.applyThreads = intOption(o, "applyThreads", defaultApplyThreads(engine, replicas), 1, 64);
        String lag = o.getOrDefault("maxLag", "10000").trim().toLowerCase(Locale.ROOT);
        try {
            long n = Long.parseLong(lag.endsWith("ms") ? lag.substring(0, lag.length() - 2).trim() : lag);
            if (n < 0) throw new NumberFormatException();
            this.maxLagMillis = lag.endsWith("ms") ? n : 0;
            this.maxLagVersions = lag.endsWith("ms") ? 0 : n;
        } catch (NumberFormatException e) {
            throw SqlStates.rejected("maxLag='" + o.get("maxLag") + "' must be a number of versions (e.g. maxLag=10000), a time"
                    + " of apply work (e.g. maxLag=500ms) or 0 for no bound");
        }
        String opt = o.getOrDefault("optimisticReads", "true").trim().toLowerCase(Locale.ROOT);
        if (!opt.equals("true") && !opt.equals("false")) {
            throw SqlStates.rejected("optimisticReads='" + o.get("optimisticReads") + "' must be true or false");
        }
        this.optimisticReads = opt.equals("true");
        this.jmx = booleanOption(o, "jmx");
        this.routingLog = booleanOption(o, "routingLog");
        String adm = o.getOrDefault("admission", "auto").trim().toLowerCase(Locale.ROOT);
        if (adm.equals("auto")) {
            this.admissionLimit = engine.admissionProfile();
            this.admissionAdaptive = true;
        } else if (adm.equals("off")) {
            this.admissionLimit = 0;
            this.admissionAdaptive = false;
        } else {
            this.admissionLimit = intOption(o, "admission", 0, 1, 100_000);
            this.admissionAdaptive = false;
        }
        this.durability = durabilityOption(o);
        this.stallTimeoutMillis = intOption(o, "stallTimeout", 30_000, 100, 3_600_000);
        String rebuild = o.getOrDefault("rebuild", "auto").trim().toLowerCase(Locale.ROOT);
        if (!rebuild.equals("auto") && !rebuild.equals("manual")) {
            throw SqlStates.rejected("rebuild='" + o.get("rebuild") + "' must be auto or manual");
        }
        this.autoRebuild = rebuild.equals("auto");
    }

    private static io.macrodb.durable.DurabilityConfig durabilityOption(Map<String, String> o) throws SQLException {
        String d = o.getOrDefault("durability", "none").trim();
        if (d.equalsIgnoreCase("none")) {
            if (o.containsKey("fsync") || o.containsKey("snapshotEvery")) {
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
        String f = o.getOrDefault("fsync", "commit").trim().toLowerCase(Locale.ROOT);
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
        long every = intOption(o, "snapshotEvery", 100_000, 1, Integer.MAX_VALUE);
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

    static int defaultReplicas() {
        return Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors() / 2));
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
                    + String.join(", ", Engines.supported()) + " (jdbc:macrodb:h2:..., jdbc:macrodb:hsqldb:...)");
        }
        if (engineUrl.setting("INIT") != null) {
            throw SqlStates.rejected("the engine setting INIT runs a script on every replica behind MacroDB's back;"
                    + " remove it from the URL and run the script through a MacroDB connection once");
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq), url);
            String v = eq < 0 ? "" : decode(pair.substring(eq + 1), url);
            String known = canonical(k);
            if (known == null) {
                throw SqlStates.rejected("unknown URL option '" + k + "' in " + url + "; MacroDB options are "
                        + String.join(", ", OPTIONS.keySet()) + ". Engine settings belong in the engine URL (e.g. ;MODE=PostgreSQL)");
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
                else engineProps.setProperty(k, info.getProperty(k));
            }
        }
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
        for (String k : OPTIONS.keySet()) {
            if (k.equalsIgnoreCase(key)) return k;
        }
        return null;
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

    private static Propagation enumOption(Map<String, String> o, String name) throws SQLException {
        String v = o.getOrDefault(name, "row");
        try {
            return Propagation.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw SqlStates.rejected("propagation='" + v + "' must be row or statement");
        }
    }

    private static ReadConsistency consistencyOption(Map<String, String> o) throws SQLException {
        try {
            return ReadConsistency.parse(o.getOrDefault("consistency", "strict"));
        } catch (IllegalArgumentException e) {
            throw SqlStates.rejected(e.getMessage());
        }
    }

    public String url() { return url; }
    public Engine engine() { return engine; }
    public EngineUrl engineUrl() { return engineUrl; }
    public int replicas() { return replicas; }
    public Propagation propagation() { return propagation; }
    public ReadConsistency consistency() { return consistency; }
    /** The balancer option as given (parsed and validated when the connection was configured). */
    public String balancerName() { return balancer; }
    public long readWaitMillis() { return readWaitMillis; }
    public long lockTimeoutMillis() { return lockTimeoutMillis; }
    public boolean optimisticReads() { return optimisticReads; }
    /** Whether this connection registers its replica set's MXBean ({@code jmx=true}). */
    public boolean jmx() { return jmx; }
    /** Whether this connection logs where each statement ran and why ({@code routingLog=true}). */
    public boolean routingLog() { return routingLog; }

    /** A true/false option that defaults to false. */
    private static boolean booleanOption(Map<String, String> o, String name) throws SQLException {
        String v = o.getOrDefault(name, "false").trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) throw SqlStates.rejected(name + "='" + o.get(name) + "' must be true or false");
        return v.equals("true");
    }

    ReplicaSetConfig replicaSetConfig() {
        return new ReplicaSetConfig(engine, engineUrl, engineProperties, replicas, propagation, lockTimeoutMillis, applyGroup,
                applyThreads, maxLagVersions, maxLagMillis,
                admissionLimit, admissionAdaptive, durability, stallTimeoutMillis, autoRebuild);
    }
}
