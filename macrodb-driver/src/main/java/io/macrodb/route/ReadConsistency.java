package io.macrodb.route;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * How fresh the secondary serving a read-only transaction must be (DESIGN.md §3), chosen per
 * connection.
 */
public sealed interface ReadConsistency {

    /**
     * The version a secondary must have reached before the transaction's first statement runs there.
     *
     * @param primaryVersion the database version when the transaction began
     * @param sessionVersion the version of this connection's last commit
     */
    long requiredVersion(long primaryVersion, long sessionVersion);

    /** Whether a replica this many nanoseconds stale is fresh enough whatever its version (time bounds only). */
    default boolean acceptsStaleness(long stalenessNanos) { return false; }

    /** Sees every update committed before the transaction began: the single-copy view. The default. */
    record Strict() implements ReadConsistency {
        @Override public long requiredVersion(long primaryVersion, long sessionVersion) { return primaryVersion; }
        @Override public String toString() { return "strict"; }
    }

    /** Sees this connection's own commits (read-your-writes) and never goes back in time (monotonic reads). */
    record Session() implements ReadConsistency {
        @Override public long requiredVersion(long primaryVersion, long sessionVersion) { return sessionVersion; }
        @Override public String toString() { return "session"; }
    }

    /** At most {@code versions} update transactions behind the primary, and never behind this connection's own commits. */
    record BoundedVersions(long versions) implements ReadConsistency {
        @Override public long requiredVersion(long primaryVersion, long sessionVersion) {
            return Math.max(sessionVersion, primaryVersion - versions);
        }
        @Override public String toString() { return "bounded:" + versions; }
    }

    /** Missing only updates committed less than {@code millis} ago, and never behind this connection's own commits. */
    record BoundedMillis(long millis) implements ReadConsistency {
        @Override public long requiredVersion(long primaryVersion, long sessionVersion) { return primaryVersion; }
        @Override public boolean acceptsStaleness(long stalenessNanos) {
            return stalenessNanos <= TimeUnit.MILLISECONDS.toNanos(millis);
        }
        @Override public String toString() { return "bounded:" + millis + "ms"; }
    }

    /**
     * Parses {@code strict}, {@code session}, {@code bounded:<versions>} or {@code bounded:<millis>ms}.
     *
     * @throws IllegalArgumentException with a message listing the accepted forms
     */
    static ReadConsistency parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("strict")) return new Strict();
        if (t.equals("session")) return new Session();
        if (t.startsWith("bounded:")) {
            String n = t.substring("bounded:".length());
            try {
                if (n.endsWith("ms")) {
                    long ms = Long.parseLong(n.substring(0, n.length() - 2));
                    if (ms >= 0) return new BoundedMillis(ms);
                } else {
                    long v = Long.parseLong(n);
                    if (v >= 0) return new BoundedVersions(v);
                }
            } catch (NumberFormatException ignored) {
                // falls through to the error below
            }
        }
        throw new IllegalArgumentException("consistency='" + text + "' is not one of strict, session,"
                + " bounded:<versions> (e.g. bounded:100) or bounded:<millis>ms (e.g. bounded:500ms)");
    }
}
