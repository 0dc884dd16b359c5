package io.macrodb.bench;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A terminal progress bar over the benchmark's run time (warm-up + measured windows; loading is
 * not counted, so the estimate runs a little short), moving while a run is in progress, with the
 * current point and the last result as its message.
 */
public final class ConsoleProgress implements BenchListener {
    private final PrintStream out;
    private ProgressBar bar;
    private ScheduledExecutorService ticker;
    private volatile long doneMillis, runStartNanos, runMillis;
    private volatile String current = "", last = "";

    public ConsoleProgress(PrintStream out) { this.out = out; }

    /**
     * The progress bar on stderr where stderr is a terminal; {@code otherwise} (a line per run, say)
     * where it is not: redirected to a file or a pipe (nohup, CI, a device machine), the bar's
     * carriage returns would fill the log with hundreds of redrawn lines.
     */
    public static BenchListener onStderr(BenchListener otherwise) {
        return stderrIsTerminal() ? new ConsoleProgress(System.err) : otherwise;
    }

    /**
     * Whether stderr is a terminal. {@code System.console()} alone does not tell: it looks at stdin
     * and stdout (before Java 22), so {@code macrodb bench 2>log} has a console and a redirected
     * stderr. On Linux the answer is where file descriptor 2 points ({@code /proc/self/fd/2}: a
     * {@code /dev/pts/N} or {@code /dev/ttyN} device is a terminal; a file, a pipe or
     * {@code /dev/null} is not); elsewhere, {@code System.console() != null}. A {@code TERM} of
     * {@code dumb} is never a terminal for the bar.
     */
    public static boolean stderrIsTerminal() {
        if ("dumb".equals(System.getenv("TERM"))) return false;
        Path fd2 = Path.of("/proc/self/fd/2");
        try {
            if (Files.isSymbolicLink(fd2)) return isTerminalDevice(Files.readSymbolicLink(fd2).toString());
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc not readable: fall back below
        }
        return System.console() != null;
    }

    /** Whether a file descriptor's target (as {@code /proc/self/fd/N} names it) is a terminal device. */
    static boolean isTerminalDevice(String target) {
        return target.startsWith("/dev/pts/") || target.matches("/dev/tty[A-Za-z]*[0-9]*") || target.equals("/dev/console");
    }

    @Override public void started(BenchPlan plan) {
        bar = new ProgressBarBuilder().setTaskName("bench").setInitialMax(Math.max(1, plan.runMillis() / 1000))
                .setStyle(ProgressBarStyle.ASCII).setUnit("s", 1).setUpdateIntervalMillis(500).showSpeed()
                .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(out)).build();
        ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-progress");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(this::tick, 250, 250, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        long in = runStartNanos == 0 ? 0 : Math.min(runMillis, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - runStartNanos));
        bar.stepTo((doneMillis + in) / 1000);
        bar.setExtraMessage(current + last);
    }

    @Override public void runStarting(String description, long millis) {
        current = description;
        runMillis = millis;
        runStartNanos = System.nanoTime();
    }

    @Override public void runFinished(RunResult r) {
        doneMillis += runMillis;
        runStartNanos = 0;
        last = String.format(Locale.ROOT, " %,.0f tx/s", r.tps());
    }

    @Override public void note(String message) {
        if (message.startsWith("loading")) current = message.replace("loading ", "load ");
    }

    @Override public void finished() {
        if (ticker != null) ticker.shutdownNow();
        if (bar != null) {
            tick();
            bar.close();
        }
    }
}
