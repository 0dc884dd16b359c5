package io.macrodb.bench;

import java.util.List;

/** What a running benchmark reports as it goes (a progress bar, a log, files of results so far, nothing). */
public interface BenchListener {
    BenchListener NONE = new BenchListener() {};

    default void started(BenchPlan plan) {}

    /** A run (warm-up + measured window, {@code millis} long) is about to start. */
    default void runStarting(String description, long millis) {}

    default void runFinished(RunResult r) {}

    /**
     * The results so far, after every run ({@link #runFinished} first) and every check: every run
     * finished until now and every check made, in the order of the final results (see
     * {@link Benchmark}). The last call, before {@link #finished}, holds them all.
     */
    default void progress(BenchResults soFar) {}

    /**
     * Loading, verification and other notes. Notes that begin with {@code "end: "} time the end of
     * a group of configurations (catch-up, convergence check, closing), one line per phase.
     */
    default void note(String message) {}

    default void finished() {}

    /** Tells every one of {@code listeners}, in turn, everything. */
    static BenchListener all(BenchListener... listeners) {
        List<BenchListener> ls = List.of(listeners);
        return new BenchListener() {
            @Override public void started(BenchPlan plan) { ls.forEach(l -> l.started(plan)); }
            @Override public void runStarting(String description, long millis) { ls.forEach(l -> l.runStarting(description, millis)); }
            @Override public void runFinished(RunResult r) { ls.forEach(l -> l.runFinished(r)); }
            @Override public void progress(BenchResults soFar) { ls.forEach(l -> l.progress(soFar)); }
            @Override public void note(String message) { ls.forEach(l -> l.note(message)); }
            @Override public void finished() { ls.forEach(BenchListener::finished); }
        };
    }
}
