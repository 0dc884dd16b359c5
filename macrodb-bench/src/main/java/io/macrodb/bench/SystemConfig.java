package io.macrodb.bench;

import java.util.Locale;

/**
 * One configuration measured side by side with the others:
 * <ul>
 *   <li>{@code standalone}: the plain engine, every client on one database;</li>
 *   <li>{@code macrodb:N}: MacroDB with N replicas (N=1 measures its overhead: no secondaries);</li>
 *   <li>{@code independent:N}: N separate plain databases with the same data, client i on database
 *       i mod N, throughput summed: the upper bound of N replicas that never coordinate (thesis
 *       §3.1.3), not a correct database.</li>
 * </ul>
 * A MacroDB configuration may name its balancer and consistency level:
 * {@code macrodb:4:freshest:session}; otherwise the run's defaults apply.
 */
public record SystemConfig(Kind kind, int n, String balancer, String consistency) {
    public enum Kind { STANDALONE, MACRODB, INDEPENDENT }

    public SystemConfig {
        if (n < 1) throw new IllegalArgumentException("a configuration needs at least 1 replica or engine, got " + n);
        if (kind == Kind.STANDALONE && n != 1) throw new IllegalArgumentException("standalone is one engine");
    }

    public static SystemConfig standalone() { return new SystemConfig(Kind.STANDALONE, 1, null, null); }

    /**
     * Parses {@code standalone}, {@code macrodb:N[:balancer[:consistency]]}, {@code independent:N}.
     * Missing balancer or consistency take {@code defaultBalancer} / {@code defaultConsistency}.
     */
    public static SystemConfig parse(String s, String defaultBalancer, String defaultConsistency) {
        String[] p = s.trim().split(":");
        String head = p[0].toLowerCase(Locale.ROOT);
        try {
            return switch (head) {
                case "standalone", "plain" -> {
                    if (p.length != 1) throw new IllegalArgumentException("standalone takes no arguments");
                    yield standalone();
                }
                case "macrodb", "macro" -> {
                    if (p.length < 2) throw new IllegalArgumentException("write macrodb:N[:balancer[:consistency]]");
                    String bal = p.length > 2 && !p[2].isBlank() ? p[2] : defaultBalancer;
                    // bounded:N has a colon of its own
                    String cons = p.length > 3 ? String.join(":", java.util.Arrays.copyOfRange(p, 3, p.length)) : defaultConsistency;
                    yield new SystemConfig(Kind.MACRODB, Integer.parseInt(p[1]), bal, cons);
                }
                case "independent", "indep" -> {
                    if (p.length != 2) throw new IllegalArgumentException("write independent:N");
                    yield new SystemConfig(Kind.INDEPENDENT, Integer.parseInt(p[1]), null, null);
                }
                default -> throw new IllegalArgumentException("'" + head + "' is not standalone, macrodb:N or independent:N");
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("configuration '" + s + "': N must be a number");
        }
    }

    /** MacroDB URL options for this configuration. */
    public String macroOptions(long readWaitMillis) {
        StringBuilder o = new StringBuilder("replicas=").append(n);
        if (balancer != null) o.append("&balancer=").append(balancer);
        if (consistency != null) o.append("&consistency=").append(consistency);
        if (readWaitMillis >= 0) o.append("&readWait=").append(readWaitMillis);
        return o.toString();
    }

    /** Short label used in tables, files and charts: {@code standalone}, {@code macrodb-4}, {@code independent-4}. */
    public String label() {
        return switch (kind) {
            case STANDALONE -> "standalone";
            case INDEPENDENT -> "independent-" + n;
            case MACRODB -> "macrodb-" + n + (balancer == null || balancer.equalsIgnoreCase("leastActive") ? "" : "-" + balancer)
                    + (consistency == null || consistency.equalsIgnoreCase("strict") ? "" : "-" + consistency.replace(':', '_'));
        };
    }

    @Override public String toString() { return label(); }
}
