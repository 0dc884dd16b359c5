package io.macrodb.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps a benchmark's results on disk while it runs, so that a run stopped before its end (a time
 * limit's SIGTERM, Ctrl-C, a failure) leaves usable files: a {@link BenchListener} that, after every
 * run and every check ({@link BenchListener#progress}), writes what is known so far into the
 * results folder with {@link ResultsWriter#writePartial}: results.json marked {@code "partial"},
 * runs.csv (every run's full row), points.csv, peaks.csv and summary.md, each file replaced whole.
 * Partial results carry a failed check, "all runs done and checked", saying how far the run got, so
 * that no table made from them passes for a finished run's.
 *
 * <p>{@link #install} also registers a JVM shutdown hook (SIGTERM and SIGINT run hooks) that writes
 * the latest results once more, saying the run was cut off, unless the run {@link #complete}d: once
 * the final results are being written, the hook writes nothing, and it waits for at most
 * {@link #HOOK_WAIT_MILLIS} for a write in progress rather than racing it. Writing never fails the
 * benchmark: a failure is printed once and the run goes on.
 */
public final class PartialResults implements BenchListener {
    /** The longest the shutdown hook waits for a write in progress (the final one, or a checkpoint) before giving up. */
    static final long HOOK_WAIT_MILLIS = 10_000;

    private final Path dir;
    private final Environment env;
    private final Map<String, Object> plan;
    private final PrintStream log;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile BenchResults latest;
    private volatile int runsPlanned = -1;
    private boolean complete, failed; // under lock
    private Thread hook;

    /**
     * @param dir the results folder
     * @param env the machine and command, as results.json records them
     * @param plan the plan, as results.json records it
     * @param log where a failure to write and the hook's line go (stderr)
     */
    public PartialResults(Path dir, Environment env, Map<String, Object> plan, PrintStream log) {
        this.dir = dir;
        this.env = env;
        this.plan = plan;
        this.log = log;
    }

    /** A writer of partial results into {@code dir}, with its shutdown hook registered. */
    public static PartialResults install(Path dir, Environment env, Map<String, Object> plan, PrintStream log) {
        PartialResults p = new PartialResults(dir, env, plan, log);
        p.hook = new Thread(p::cutOff, "bench-partial-results");
        Runtime.getRuntime().addShutdownHook(p.hook);
        return p;
    }

    @Override public void started(BenchPlan p) { runsPlanned = p.runs(); }

    /** Writes the results so far (the benchmark calls this after every run and every check). */
    @Override public void progress(BenchResults soFar) {
        latest = soFar;
        lock.lock();
        try {
            if (!complete) write(soFar, "running");
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes the final results with {@code finalWrite} (e.g. {@link ResultsWriter#write}); from the
     * moment this starts, neither {@link #progress} nor the shutdown hook writes anything, so the
     * final files are the finished run's alone. Then unregisters the hook.
     */
    public <T> T complete(ResultsWrite<T> finalWrite) throws IOException {
        lock.lock();
        try {
            complete = true;
            return finalWrite.write();
        } finally {
            lock.unlock();
            removeHook();
        }
    }

    /** The final write of the results. */
    @FunctionalInterface
    public interface ResultsWrite<T> {
        T write() throws IOException;
    }

    /** Unregisters the shutdown hook (when the JVM is not already shutting down). */
    public void removeHook() {
        Thread h = hook;
        if (h == null) return;
        try {
            Runtime.getRuntime().removeShutdownHook(h);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs, and finds the run complete
        }
        hook = null;
    }

    /**
     * The shutdown hook: unless the run completed, writes the latest results once more, marked cut
     * off. Waits at most {@link #HOOK_WAIT_MILLIS} for a write in progress.
     */
    void cutOff() {
        try {
            if (!lock.tryLock(HOOK_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                log.println("bench: stopped while writing results; " + dir + " keeps the last files written whole");
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            BenchResults r = latest;
            if (complete || r == null) return;
            long t0 = System.nanoTime();
            if (write(r, "cut off")) {
                log.printf(java.util.Locale.ROOT, "bench: stopped before the end; wrote the partial results (%d of %s runs) to %s in %.1f s%n",
                        r.runs().size(), runsPlanned < 0 ? "?" : String.valueOf(runsPlanned), dir, (System.nanoTime() - t0) / 1e9);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The results with the check that says how far the run got. */
    BenchResults marked(BenchResults r, String state) {
        List<BenchResults.Check> checks = new ArrayList<>(r.checks());
        checks.add(new BenchResults.Check("all runs done and checked", false, progressLine(r, state)));
        return new BenchResults(r.runs(), r.points(), r.peaks(), List.copyOf(checks));
    }

    private String progressLine(BenchResults r, String state) {
        return "partial results (" + state + "): " + r.runs().size() + " of " + (runsPlanned < 0 ? "?" : runsPlanned) + " runs done, "
                + r.checks().size() + " checks made";
    }

    private boolean write(BenchResults r, String state) {
        if (failed) return false;
        Map<String, Object> partial = new LinkedHashMap<>();
        partial.put("state", state);
        partial.put("runsDone", r.runs().size());
        partial.put("runsPlanned", runsPlanned);
        partial.put("checksMade", r.checks().size());
        try {
            ResultsWriter.writePartial(dir, marked(r, state), env, plan, partial);
            return true;
        } catch (IOException | RuntimeException e) {
            failed = true; // said once; the benchmark goes on and the final write reports its own failure
            log.println("bench: could not write partial results to " + dir + " (no more tries): " + e);
            return false;
        }
    }
}
