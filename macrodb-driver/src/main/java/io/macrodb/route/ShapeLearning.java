package io.macrodb.route;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What MacroDB has learned about transactions that never declare themselves read-only, per shape of
 * their first statement. Such a transaction starts optimistically on a secondary; if it turns out to
 * write, it moves to the primary (a promotion), which costs re-running its reads there. A shape
 * whose transactions keep being promoted, or whose reads were too large to remember, is sent to the
 * primary from the start; one in {@value #REPROBE_EVERY} of those transactions still starts on a
 * secondary, so that a shape whose behaviour changes is learned again.
 */
public final class ShapeLearning {
    /** Transactions of a shape seen before its counters can decide anything. */
    static final int MIN_SAMPLES = 8;
    static final int REPROBE_EVERY = 64;
    private static final int MAX_SHAPES = 10_000;

    private final ConcurrentHashMap<String, Shape> shapes = new ConcurrentHashMap<>();

    /** Counters of one shape. */
    static final class Shape {
        final AtomicLong optimistic = new AtomicLong();
        final AtomicLong promoted = new AtomicLong();
        final AtomicLong conflicts = new AtomicLong();
        final AtomicLong tooLarge = new AtomicLong();
        final AtomicLong sentToPrimary = new AtomicLong();

        boolean primaryFirst() {
            if (tooLarge.get() > 0) return true;
            long n = optimistic.get();
            long moved = promoted.get() + conflicts.get();
            return n >= MIN_SAMPLES && moved * 2 > n;
        }
    }

    /** A snapshot of one shape's counters, for the inspection API. */
    public record ShapeStats(String shape, long optimistic, long promoted, long conflicts, long tooLarge,
                             long sentToPrimary, boolean primaryFirst) {}

    private Shape shape(String fingerprint) {
        Shape s = shapes.get(fingerprint);
        if (s != null) return s;
        if (shapes.size() >= MAX_SHAPES) shapes.clear(); // bounded memory; the learning starts over
        return shapes.computeIfAbsent(fingerprint, k -> new Shape());
    }

    /**
     * Whether a transaction starting with {@code fingerprint} should start optimistically on a
     * secondary (and is counted as such), or on the primary.
     */
    public boolean startOptimistic(String fingerprint) {
        Shape s = shape(fingerprint);
        if (s.primaryFirst() && s.sentToPrimary.incrementAndGet() % REPROBE_EVERY != 0) return false;
        s.optimistic.incrementAndGet();
        return true;
    }

    /** An optimistic transaction of this shape wrote, and its reads still held on the primary. */
    public void promoted(String fingerprint) { shape(fingerprint).promoted.incrementAndGet(); }

    /** An optimistic transaction of this shape wrote, but what it had read had changed: it failed with 40001. */
    public void conflicted(String fingerprint) { shape(fingerprint).conflicts.incrementAndGet(); }

    /** An optimistic transaction of this shape read more than MacroDB remembers for a promotion. */
    public void tooLarge(String fingerprint) { shape(fingerprint).tooLarge.incrementAndGet(); }

    /** Every shape seen, most promoted first. */
    public List<ShapeStats> stats() {
        List<ShapeStats> out = new ArrayList<>();
        shapes.forEach((k, s) -> out.add(new ShapeStats(k, s.optimistic.get(), s.promoted.get(), s.conflicts.get(),
                s.tooLarge.get(), s.sentToPrimary.get(), s.primaryFirst())));
        out.sort(Comparator.comparingLong((ShapeStats s) -> s.promoted() + s.conflicts()).reversed()
                .thenComparing(ShapeStats::shape));
        return out;
    }
}
