package io.macrodb.bench;

/** What a running benchmark reports as it goes (a progress bar, a log, nothing). */
public interface BenchListener {
    BenchListener NONE = new BenchListener() {};

    default void started(BenchPlan plan) {}

    /** A run (warm-up + measured window, {@code millis} long) is about to start. */
    default void runStarting(String description, long millis) {}

    default void runFinished(RunResult r) {}

    /** Loading, verification and other notes. */
    default void note(String message) {}

    default void finished() {}
}
