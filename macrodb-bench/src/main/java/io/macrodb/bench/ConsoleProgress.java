package io.macrodb.bench;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintStream;
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
