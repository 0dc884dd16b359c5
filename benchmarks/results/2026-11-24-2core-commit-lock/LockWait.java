import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Summarises lock waits of the benchmark threads in a JFR recording of CommitPathBench.update_*.
 *
 * <pre>java LockWait.java recording.jfr COMMITS THREADS SECONDS</pre>
 *
 * COMMITS: committed transactions while the recording ran (JMH's per-iteration scores x iteration
 * time); THREADS x SECONDS: benchmark thread time, to put the wait in proportion.
 *
 * Counted: jdk.ThreadPark, jdk.JavaMonitorEnter and jdk.JavaMonitorWait events on threads named
 * "*jmh-worker*" whose stack holds CommitPathBench$Client.updateAndCommit (so JMH's own iteration
 * barriers and the per-iteration catch-up teardown are left out). Each event is filed under
 * (top frame outside java.*, jdk.*, sun.*) + (the blocking object's class).
 *
 * "episodes": per thread, consecutive events of the same group (MacroDB = top non-JDK frame in
 * io.macrodb, engine = anything else) that follow each other with less than GAP_NS between the end
 * of one and the start of the next are one wait (a lock acquire that parks, wakes, loses the race and
 * parks again). episodes / commits estimates the share of commits that waited at least once.
 */
public class LockWait {
    static final long GAP_NS = 5_000;

    record Ev(String thread, long startNs, long endNs, String category, String group) {}

    static final class Agg {
        long count;
        long totalNs;
        long episodes;
        final List<Long> durations = new ArrayList<>();
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        double commits = Double.parseDouble(args[1]);
        int threads = Integer.parseInt(args[2]);
        double seconds = Double.parseDouble(args[3]);

        List<Ev> evs = new ArrayList<>();
        long skippedNotInOp = 0, skippedTruncated = 0;
        Map<String, long[]> otherThreads = new TreeMap<>();
        try (RecordingFile rf = new RecordingFile(file)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                String type = e.getEventType().getName();
                String kind;
                String blocker;
                switch (type) {
                    case "jdk.ThreadPark" -> {
                        kind = "park";
                        blocker = e.getClass("parkedClass") == null ? "?" : e.getClass("parkedClass").getName();
                    }
                    case "jdk.JavaMonitorEnter" -> {
                        kind = "monitor-enter";
                        blocker = e.getClass("monitorClass").getName();
                    }
                    case "jdk.JavaMonitorWait" -> {
                        kind = "monitor-wait";
                        blocker = e.getClass("monitorClass").getName();
                    }
                    default -> {
                        continue;
                    }
                }
                String thread = e.getThread("eventThread") == null ? "?" : e.getThread("eventThread").getJavaName();
                long dur = e.getDuration().toNanos();
                RecordedStackTrace st = e.getStackTrace();
                if (thread == null || !thread.contains("jmh-worker")) {
                    long[] a = otherThreads.computeIfAbsent(thread + " " + kind + " " + shortName(blocker), k -> new long[2]);
                    a[0]++;
                    a[1] += dur;
                    continue;
                }
                boolean inOp = false;
                String site = null;
                if (st != null) {
                    for (RecordedFrame f : st.getFrames()) {
                        String m = f.getMethod().getType().getName() + "." + f.getMethod().getName();
                        if (site == null && !m.startsWith("java.") && !m.startsWith("jdk.") && !m.startsWith("sun.")) site = m;
                        if (m.equals("io.macrodb.jmh.CommitPathBench$Client.updateAndCommit")) inOp = true;
                    }
                    if (!inOp && st.isTruncated()) skippedTruncated++;
                }
                if (!inOp) {
                    skippedNotInOp++;
                    continue;
                }
                String group = site != null && site.startsWith("io.macrodb.") ? "MacroDB" : "engine";
                String category = site + " [" + kind + " " + shortName(blocker) + "]";
                evs.add(new Ev(thread, toNs(e.getStartTime()), toNs(e.getEndTime()), category, group));
            }
        }

        Map<String, Agg> byCat = new TreeMap<>();
        Map<String, Agg> byGroup = new TreeMap<>();
        Agg all = new Agg();
        for (Ev ev : evs) {
            for (Agg a : new Agg[] {byCat.computeIfAbsent(ev.category, k -> new Agg()), byGroup.computeIfAbsent(ev.group, k -> new Agg()), all}) {
                a.count++;
                a.totalNs += ev.endNs - ev.startNs;
                a.durations.add(ev.endNs - ev.startNs);
            }
        }
        // episodes: per thread, per category (for byCat), per group (for byGroup), any (for all)
        Map<String, List<Ev>> perThread = new HashMap<>();
        for (Ev ev : evs) perThread.computeIfAbsent(ev.thread, k -> new ArrayList<>()).add(ev);
        for (List<Ev> l : perThread.values()) {
            l.sort((x, y) -> Long.compare(x.startNs, y.startNs));
            Map<String, Long> lastEndCat = new HashMap<>();
            Map<String, Long> lastEndGroup = new HashMap<>();
            long lastEndAll = Long.MIN_VALUE / 2;
            for (Ev ev : l) {
                Long lc = lastEndCat.get(ev.category);
                if (lc == null || ev.startNs - lc > GAP_NS) byCat.get(ev.category).episodes++;
                lastEndCat.put(ev.category, ev.endNs);
                Long lg = lastEndGroup.get(ev.group);
                if (lg == null || ev.startNs - lg > GAP_NS) byGroup.get(ev.group).episodes++;
                lastEndGroup.put(ev.group, ev.endNs);
                if (ev.startNs - lastEndAll > GAP_NS) all.episodes++;
                lastEndAll = Math.max(lastEndAll, ev.endNs);
            }
        }

        double wallPerCommitUs = threads * seconds * 1e6 / commits;
        System.out.printf(Locale.ROOT, "file=%s%ncommits=%.0f threads=%d seconds=%.1f thread-wall-per-commit-us=%.2f%n",
                file.getFileName(), commits, threads, seconds, wallPerCommitUs);
        System.out.printf(Locale.ROOT, "events counted=%d, skipped on worker threads outside updateAndCommit=%d (of which truncated stacks=%d)%n%n",
                evs.size(), skippedNotInOp, skippedTruncated);
        String hdr = String.format(Locale.ROOT, "%-100s %9s %11s %12s %10s %10s %10s %10s %9s",
                "site [wait blocker]", "events", "total-ms", "us/commit", "%wall", "ev/commit", "episodes", "share", "p50-us");
        System.out.println(hdr);
        List<Map.Entry<String, Agg>> cats = new ArrayList<>(byCat.entrySet());
        cats.sort((a, b) -> Long.compare(b.getValue().totalNs, a.getValue().totalNs));
        for (Map.Entry<String, Agg> en : cats) row(en.getKey(), en.getValue(), commits, wallPerCommitUs);
        System.out.println();
        for (Map.Entry<String, Agg> en : byGroup.entrySet()) row("GROUP " + en.getKey(), en.getValue(), commits, wallPerCommitUs);
        row("ALL", all, commits, wallPerCommitUs);
        if (!otherThreads.isEmpty()) {
            System.out.println("\nother threads (not counted):");
            for (Map.Entry<String, long[]> en : otherThreads.entrySet()) {
                System.out.printf(Locale.ROOT, "  %-110s %9d events %11.1f ms%n", en.getKey(), en.getValue()[0], en.getValue()[1] / 1e6);
            }
        }
    }

    static void row(String name, Agg a, double commits, double wallPerCommitUs) {
        Collections.sort(a.durations);
        double p50 = a.durations.isEmpty() ? 0 : a.durations.get(a.durations.size() / 2) / 1e3;
        double perCommitUs = a.totalNs / 1e3 / commits;
        System.out.printf(Locale.ROOT, "%-100s %9d %11.1f %12.3f %9.2f%% %10.4f %10d %9.2f%% %9.1f%n",
                name, a.count, a.totalNs / 1e6, perCommitUs, 100 * perCommitUs / wallPerCommitUs,
                a.count / commits, a.episodes, 100.0 * a.episodes / commits, p50);
    }

    static String shortName(String cls) {
        int i = cls.lastIndexOf('.');
        return i < 0 ? cls : cls.substring(i + 1);
    }

    static long toNs(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
