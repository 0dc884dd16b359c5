package io.macrodb.differential;

/**
 * How the system under test is set up: the engine ({@code h2}, {@code hsqldb} or {@code sqlite}),
 * MacroDB's propagation mode, the number of replicas, whether durability=log is on (then
 * {@link Step.Kind#REOPEN} steps recover the primary from the log), {@code file}: a SQLite primary
 * that is a file of its own ({@code jdbc:macrodb:sqlite:/path/x.db}; REOPEN then closes MacroDB and
 * opens the file again), and {@code plainOnBothSides}: the harness's own check, where the "system
 * under test" is a second plain engine, so any difference is the harness's fault.
 */
public record DiffConfig(String engine, String propagation, int replicas, boolean durability, boolean file, boolean plainOnBothSides,
                         String jvmZone) {

    public static DiffConfig macro(String engine, String propagation, int replicas, boolean durability) {
        return new DiffConfig(engine, propagation, replicas, durability, false, false, null);
    }

    /** MacroDB over a SQLite file database (durability=log is for in-memory ones only). */
    public static DiffConfig sqliteFile(int replicas) {
        return new DiffConfig("sqlite", "row", replicas, false, true, false, null);
    }

    public static DiffConfig plainVsPlain(String engine) {
        return new DiffConfig(engine, "-", 1, false, false, true, null);
    }

    /**
     * The same, run with the JVM's default time zone set to {@code zone} (both sides: java.sql
     * conversions inside drivers and triggers use it); null leaves the JVM's zone alone.
     */
    public DiffConfig inJvmZone(String zone) {
        return new DiffConfig(engine, propagation, replicas, durability, file, plainOnBothSides, zone);
    }

    public boolean h2() { return engine.equals("h2"); }

    public boolean sqlite() { return engine.equals("sqlite"); }

    /** Whether the database outlives closing it, so that a script may close and open it again. */
    public boolean reopens() { return durability || file; }

    @Override public String toString() {
        String zone = jvmZone == null ? "" : ", JVM time zone " + jvmZone;
        return plainOnBothSides ? engine + ": plain engine vs plain engine (harness self-check)" + zone
                : engine + ", propagation=" + propagation + ", replicas=" + replicas + (durability ? ", durability=log" : "")
                        + (file ? ", a file database" : "") + zone;
    }
}
