package io.macrodb.jdbc;

import java.sql.DriverPropertyInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Every MacroDB option, in one table: its name, the type of its {@link MacroDataSource} setter, its
 * default, the values it accepts, what it does, and whether it belongs to the database (the replica
 * set: every connection to it must give the same value) or to one connection.
 *
 * <p>This table is the one place an option is declared. {@link MacroConfig} parses by it (names,
 * ranges, choices, defaults), {@link MacroDriver#getPropertyInfo} reports it, and
 * {@code MacroPropertyTest} checks that {@link MacroDataSource} has a setter and a getter for each
 * constant and that the README's "URL options" table is exactly {@link #readmeTable()}. Adding an
 * option: a constant here, its parsing in {@code MacroConfig}, its setter and getter in
 * {@code MacroDataSource}, its row in the README (the test prints the row to paste).
 */
public enum MacroProperty {
    REPLICAS(spec("replicas").database().integer(1, 64).values("1..64")
            .computedDefault("half the processors, at least 2, at most 8")
            .doc("replicas in all, primary included (`1` = no secondaries)")),
    PROPAGATION(spec("propagation").database().choices("row", "statement").defaultValue("row")
            .doc("how updates reach the secondaries (below)")),
    CONSISTENCY(spec("consistency").values("`strict`, `session`, `bounded:<versions>`, `bounded:<millis>ms`")
            .defaultValue("strict").example("session")
            .doc("how fresh a secondary must be for a read-only transaction")),
    BALANCER(spec("balancer").choices("leastActive", "freshest", "roundRobin").defaultValue("leastActive")
            .doc("which fresh secondary a read-only transaction uses")),
    READ_WAIT(spec("readWait").millis(0, 3_600_000).defaultValue("5")
            .doc("how long a read-only transaction may wait for a secondary to catch up before it runs on the primary"
                    + " instead; it does not wait at all when the secondary's recent apply rate says it cannot catch up in"
                    + " that time (`0`: never wait). A target, not a bound: a thread starved of CPU wakes late, so on an"
                    + " overloaded machine a wait can last longer")),
    PRIMARY_READS(spec("primaryReads").choices("idle", "fallback").defaultValue("idle")
            .doc("what a read-only transaction does when no secondary is fresh enough at once: `idle` runs it on the"
                    + " primary at once while the primary runs fewer transactions than its share of the processors"
                    + " (processors / replicas, at least 1; never on Derby, whose reads take locks), else waits for a"
                    + " secondary as `readWait` says; `fallback`"
                    + " always waits for a secondary first, and uses the primary only as `readWait` says")),
    LOCK_TIMEOUT(spec("lockTimeout").database().millis(1, 3_600_000).defaultValue("10000")
            .doc("bound on every wait: engine lock waits, schema changes waiting for open update transactions that have written,"
                    + " statement mode's writer turn. What times out fails with SQLState `40001` and the transaction is"
                    + " rolled back")),
    APPLY_GROUP(spec("applyGroup").database().integer(1, 100_000).values("records").defaultValue("256")
            .doc("most log records a behind secondary applies in one engine transaction")),
    APPLY_THREADS(spec("applyThreads").database().integer(1, 64).values("1..64").example("3")
            .computedDefault("processors / replicas, at least 1, at most 8; HSQLDB and SQLite 1")
            .doc("engine sessions each secondary applies the log with: units of consecutive records are applied at"
                    + " once, a row two units share (by table and primary key) written by the later one only after the"
                    + " earlier one committed, and the units committed in version order, so readers still see only"
                    + " states the primary had. HSQLDB's default is 1 because its concurrent write transactions cost"
                    + " 1.5-4x the CPU per applied record; SQLite offers only 1 (one writer per database)")),
    MAX_LAG(spec("maxLag").database().values("versions, `<N>ms`, `0`").defaultValue("10000").example("500ms")
            .doc("the lag bound: while an active secondary is further behind (in versions, or in milliseconds of its"
                    + " measured apply work), new update transactions wait before they start; `0` turns it off. Paused"
                    + " and failed secondaries do not count")),
    ADMISSION(spec("admission").database().range(1, 100_000).values("`auto`, `off`, K").defaultValue("auto").example("off")
            .doc("how many transactions each replica runs at once, update transactions on the primary and read-only"
                    + " ones on a secondary alike; the others wait in a fair queue (at most `lockTimeout`, then `40001`),"
                    + " and a reader whose secondary is full uses another fresh one. `auto`: the engine's profile (HSQLDB"
                    + " 1, whose MVCC loses throughput with more; H2 no limit), adapted to measured throughput. A thread"
                    + " never waits for itself (a second connection of the same thread is admitted at once)")),
    OPTIMISTIC_READS(spec("optimisticReads").bool(true)
            .doc("whether a transaction that never calls `setReadOnly` starts on a secondary (and moves to the primary"
                    + " at its first write)")),
    // jmx: the MXBean is the replica set's, but a connection with another value is not refused (any one asking registers it)
    JMX(spec("jmx").bool(false)
            .doc("register the replica set's MXBean in the platform MBeanServer while the set is open"
                    + " ([below](#metrics-jmx-and-the-routing-log)); any connection asking for it registers it")),
    ROUTING_LOG(spec("routingLog").bool(false)
            .doc("log, for each statement of this connection, the replica it ran on and why (`System.Logger`"
                    + " `io.macrodb.routing` at `DEBUG`)")),
    DURABILITY(spec("durability").database().values("`none`, `log:<directory>`").defaultValue("none")
            .example("log:/var/lib/shop")
            .doc("keep the replication log and snapshots on disk: a commit returns once its record is there, and"
                    + " opening the URL again recovers every such commit (in-memory engines; a file database persists"
                    + " by itself)")),
    FSYNC(spec("fsync").database().values("`commit`, `<N>ms`").defaultValue("commit").example("20ms")
            .doc("`commit`: a commit returns after its record is forced to disk, concurrent commits sharing one"
                    + " `fsync`. `<N>ms`: a commit returns once the operating system has its record (it survives the"
                    + " process being killed, not a power loss) and the log is forced every N ms")),
    SNAPSHOT_EVERY(spec("snapshotEvery").database().count(1, Integer.MAX_VALUE).values("records").defaultValue("100000")
            .doc("log records between snapshots; a snapshot lets the log segments before it be deleted")),
    STALL_TIMEOUT(spec("stallTimeout").database().millis(100, 3_600_000).defaultValue("30000")
            .doc("a secondary that stays behind without progress (no record applied, no batch of rows written) this long leaves the rotation")),
    CLOSE_DELAY(spec("closeDelay").database().range(0, 86_400).values("`engine`, `-1`, seconds").defaultValue("engine")
            .example("1")
            .doc("how long the replica set (primary, secondaries, log) stays open after the last connection closes,"
                    + " so that the next connection finds it built: `engine` as the engine keeps the database (H2's"
                    + " `DB_CLOSE_DELAY`; an HSQLDB memory database until `SHUTDOWN`, or `0` with `shutdown=true`; an"
                    + " HSQLDB file database `0`; with `durability=log` `0`: the next open recovers from the log),"
                    + " `-1` until `SHUTDOWN` or the JVM exits, N seconds. See"
                    + " [Lifetime](#lifetime-of-a-replica-set)")),
    WRITERS(spec("writers").database().choices("auto", "one", "concurrent").defaultValue("auto").example("one")
            .doc("whether update transactions on the primary run side by side in the engine (`concurrent`) or take a"
                    + " turn each from their start (`one`: no two of them ever wait for each other's locks, so the engine"
                    + " never breaks a deadlock). `auto`: the engine's choice, `one` for SQLite (one writer per database;"
                    + " `concurrent` is refused there), `concurrent` for the others. On H2 `one` avoids the isolation"
                    + " failure H2 shows when it breaks deadlocks (README, \"An engine that breaks its own isolation\"), at"
                    + " a measured cost on write-heavy work. Statement propagation always runs one writer at a time")),
    REBUILD(spec("rebuild").database().choices("auto", "manual").defaultValue("auto")
            .doc("whether a secondary that left the rotation is rebuilt online from a healthy replica (a failed primary"
                    + " is always replaced by promoting a secondary)"));

    /** Whom an option belongs to. */
    public enum Scope {
        /** The replica set: fixed when it opens; a connection asking for another value is refused. */
        DATABASE("database"),
        /** One connection: connections to the same database may differ. */
        CONNECTION("connection");

        private final String word;

        Scope(String word) { this.word = word; }

        /** As the README writes it. */
        public String word() { return word; }
    }

    private final String optionName;
    private final Scope scope;
    private final Class<?> type;
    private final String defaultValue;
    private final String defaultText;
    private final List<String> choices;
    private final String values;
    private final long min;
    private final long max;
    private final String example;
    private final String doc;

    MacroProperty(Spec s) {
        if (s.doc == null || (s.defaultValue == null) == (s.defaultText == null)) {
            throw new IllegalStateException("option " + s.name + " needs a doc and exactly one of defaultValue/computedDefault");
        }
        this.optionName = s.name;
        this.scope = s.scope;
        this.type = s.type;
        this.defaultValue = s.defaultValue;
        this.defaultText = s.defaultText;
        this.choices = s.choices == null ? List.of() : List.of(s.choices);
        this.values = s.values != null ? s.values : ticked(this.choices);
        this.min = s.min;
        this.max = s.max;
        this.example = s.example != null ? s.example : exampleOf(s);
        this.doc = s.doc;
    }

    /** The option's name, as written in URLs and properties ({@code replicas}). */
    public String optionName() { return optionName; }

    public Scope scope() { return scope; }

    /** The parameter type of its {@link MacroDataSource} setter: {@code int}, {@code long}, {@code boolean} or {@code String}. */
    public Class<?> type() { return type; }

    /** The default as an option value, or null where MacroDB computes it ({@link #defaultText()}). */
    public String defaultValue() { return defaultValue; }

    /** The default as the README states it. */
    public String defaultText() { return defaultValue != null ? "`" + defaultValue + "`" : defaultText; }

    /** The only values accepted (case-insensitively), or empty where the values are open ({@link #acceptedValues()}). */
    public List<String> choices() { return choices; }

    /** The values it accepts, as the README states them. */
    public String acceptedValues() { return values; }

    /** Smallest whole number accepted (numeric options). */
    public long min() { return min; }

    /** Largest whole number accepted (numeric options). */
    public long max() { return max; }

    /** A valid value other than the default (for tests and examples). */
    public String example() { return example; }

    /** What it does, one line of Markdown, as the README's table says it. */
    public String doc() { return doc; }

    /** The name of its {@link MacroDataSource} setter ({@code setReplicas}). */
    public String setterName() { return "set" + Character.toUpperCase(optionName.charAt(0)) + optionName.substring(1); }

    /** The name of its {@link MacroDataSource} getter ({@code getReplicas}; {@code isOptimisticReads} for a boolean). */
    public String getterName() {
        return (type == boolean.class ? "is" : "get") + Character.toUpperCase(optionName.charAt(0)) + optionName.substring(1);
    }

    /** The option named {@code name}, ignoring case, or null. */
    public static MacroProperty forName(String name) {
        if (name == null) return null;
        for (MacroProperty p : values()) {
            if (p.optionName.equalsIgnoreCase(name.trim())) return p;
        }
        return null;
    }

    /** Every option's name, in table order. */
    public static List<String> names() {
        List<String> out = new ArrayList<>();
        for (MacroProperty p : values()) out.add(p.optionName);
        return out;
    }

    /** Plain-text description for tools ({@link DriverPropertyInfo#description}). */
    public String description() {
        return plain(Character.toUpperCase(doc.charAt(0)) + doc.substring(1)) + ". Values: " + plain(values) + ". Default: "
                + plain(defaultText()) + "."
                + (scope == Scope.DATABASE ? " An option of the database: every connection to it must give the same value." : "");
    }

    /** Its {@link DriverPropertyInfo}, with {@code value} as the current value (or the default where it is fixed). */
    public DriverPropertyInfo propertyInfo(String value) {
        DriverPropertyInfo info = new DriverPropertyInfo(optionName, value != null ? value : defaultValue);
        info.description = description();
        info.required = false;
        info.choices = choices.isEmpty() ? null : choices.toArray(new String[0]);
        return info;
    }

    /** The message for a value outside {@link #choices()}, e.g. {@code propagation='x' must be row or statement}. */
    String mustBeOneOf(String given) {
        String list = choices.size() <= 1 ? String.join("", choices)
                : String.join(", ", choices.subList(0, choices.size() - 1)) + " or " + choices.get(choices.size() - 1);
        return optionName + "='" + given + "' must be " + list;
    }

    /** Its row of the README's "URL options" table. */
    public String readmeRow() {
        return "| `" + optionName + "` | " + values + " | " + defaultText() + " | " + scope.word() + " | " + doc + " |";
    }

    /** The README's "URL options" table: the header and one row per option. */
    public static String readmeTable() {
        StringBuilder sb = new StringBuilder(README_HEADER).append('\n').append(README_RULE).append('\n');
        for (MacroProperty p : values()) sb.append(p.readmeRow()).append('\n');
        return sb.toString();
    }

    /** The header line of the README's "URL options" table. */
    public static final String README_HEADER = "| option | values | default | belongs to | what it does |";
    static final String README_RULE = "|---|---|---|---|---|";

    private static String plain(String markdown) { return markdown.replace("`", ""); }

    private static String ticked(List<String> choices) {
        List<String> t = new ArrayList<>();
        for (String c : choices) t.add("`" + c + "`");
        return String.join(", ", t);
    }

    private static String exampleOf(Spec s) {
        if (s.choices != null) {
            for (String c : s.choices) if (!c.equals(s.defaultValue)) return c;
        }
        if (s.type == int.class || s.type == long.class) {
            long d = s.defaultValue == null ? s.min : Long.parseLong(s.defaultValue);
            return Long.toString(d == s.max ? s.min : d + 1 <= s.max && d + 1 >= s.min ? d + 1 : s.min);
        }
        throw new IllegalStateException("option " + s.name + " needs an example");
    }

    private static Spec spec(String name) { return new Spec(name); }

    /** How a constant is declared. */
    private static final class Spec {
        final String name;
        Scope scope = Scope.CONNECTION;
        Class<?> type = String.class;
        String defaultValue;
        String defaultText;
        String[] choices;
        String values;
        long min;
        long max;
        String example;
        String doc;

        Spec(String name) { this.name = name; }

        Spec database() { scope = Scope.DATABASE; return this; }
        Spec integer(long lo, long hi) { type = int.class; min = lo; max = hi; return this; }
        Spec count(long lo, long hi) { type = long.class; min = lo; max = hi; return this; }
        Spec millis(long lo, long hi) { count(lo, hi); values = "milliseconds"; return this; }
        Spec bool(boolean def) { type = boolean.class; choices = new String[] {"true", "false"}; defaultValue = Boolean.toString(def); return this; }
        Spec choices(String... c) { choices = c; return this; }
        Spec range(long lo, long hi) { min = lo; max = hi; return this; }
        Spec values(String v) { values = v; return this; }
        Spec defaultValue(String v) { defaultValue = v; return this; }
        Spec computedDefault(String text) { defaultText = text; return this; }
        Spec example(String v) { example = v; return this; }
        Spec doc(String d) { doc = d; return this; }
    }

    static {
        for (MacroProperty p : values()) {
            if (!p.choices.isEmpty() && p.defaultValue != null && !p.choices.contains(p.defaultValue)) {
                throw new IllegalStateException(p.optionName + "'s default is not one of its choices");
            }
        }
        assert Arrays.stream(values()).map(p -> p.optionName.toLowerCase(Locale.ROOT)).distinct().count() == values().length;
    }
}
