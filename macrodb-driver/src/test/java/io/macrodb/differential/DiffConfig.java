package io.macrodb.differential;

/**
 * How the system under test is set up: the engine ({@code h2} or {@code hsqldb}), MacroDB's
 * propagation mode, the number of replicas, whether durability=log is on (then {@link Step.Kind#REOPEN}
 * steps recover the primary from the log), and {@code plainOnBothSides}: the harness's own check,
 * where the "system under test" is a second plain engine, so any difference is the harness's fault.
 */
public record DiffConfig(String engine, String propagation, int replicas, boolean durability, boolean plainOnBothSides,
                         String jvmZone) {

    public static DiffConfig macro(String engine, String propagation, int replicas, boolean durability) {
        return new DiffConfig(engine, propagation, replicas, durability, false, null);
    }

    public static DiffConfig plainVsPlain(String engine) {
        return new DiffConfig(engine, "-", 1, false, true, null);
    }

    /**
     * The same, run with the JVM's default time zone set to {@code zone} (both sides: java.sql
     * conversions inside drivers and triggers use it); null leaves the JVM's zone alone.
     */
    public DiffConfig inJvmZone(String zone) {
        return new DiffConfig(engine, propagation, replicas, durability, plainOnBothSides, zone);
    }

    public boolean h2() { return engine.equals("h2"); }

    @Override public String toString() {
        String zone = jvmZone == null ? "" : ", JVM time zone " + jvmZone;
        return plainOnBothSides ? engine + ": plain engine vs plain engine (harness self-check)" + zone
                : engine + ", propagation=" + propagation + ", replicas=" + replicas + (durability ? ", durability=log" : "") + zone;
    }
}
