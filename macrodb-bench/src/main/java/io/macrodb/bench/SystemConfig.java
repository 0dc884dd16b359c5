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
 * {@code macrodb:4:freshest:session}; otherwise the run's defaults apply. Any further MacroDB URL
 * option goes in a part of its own written {@code name=value}, anywhere after N:
 * {@code macrodb:2:admission=off}, {@code macrodb:4:freshest:admission=2:applyThreads=1}. The
 * driver checks names and values when the configuration opens; the options appear in the label
 * ({@code macrodb-2-admission=off}) so that configurations that differ only in them stay apart.
 *
 * @param options extra MacroDB URL options, {@code name=value} joined with {@code &}, in the order
 *                given; empty for none (never null)
 */
public record SystemConfig(Kind kind, int n, String balancer, String consistency, String options) {
    public enum Kind { STANDALONE, MACRODB, INDEPENDENT }

    public SystemConfig {
        if (n < 1) throw new IllegalArgumentException("a configuration needs at least 1 replica or engine, got " + n);
        if (kind == Kind.STANDALONE && n != 1) throw new IllegalArgumentException("standalone is one engine");
        options = options == null ? "" : options;
        if (kind != Kind.MACRODB && !options.isEmpty()) throw new IllegalArgumentException("only MacroDB configurations take URL options");
    }

    public SystemConfig(Kind kind, int n, String balancer, String consistency) { this(kind, n, balancer, consistency, ""); }

    public static SystemConfig standalone() { return new SystemConfig(Kind.STANDALONE, 1, null, null); }

    /** The same configuration with {@code name=value} URL options added ({@code &}-joined). */
    public SystemConfig withOptions(String more) {
        if (more == null || more.isBlank()) return this;
        return new SystemConfig(kind, n, balancer, consistency, options.isEmpty() ? more : options + "&" + more);
    }

    /**
     * Parses {@code standalone}, {@code macrodb:N[:balancer[:consistency]][:option=value]...},
     * {@code independent:N}. Missing balancer or consistency take {@code defaultBalancer} /
     * {@code defaultConsistency}. Parts of a MacroDB configuration that contain {@code =} are URL
     * options ({@code admission=off}); the others are the balancer and the consistency, in that order.
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
                    if (p.length < 2) throw new IllegalArgumentException("write macrodb:N[:balancer[:consistency]][:option=value]...");
                    java.util.List<String> positional = new java.util.ArrayList<>();
                    java.util.List<String> opts = new java.util.ArrayList<>();
                    for (int i = 2; i < p.length; i++) {
                        String part = p[i].trim();
                        if (!part.contains("=")) {
                            positional.add(part);
                            continue;
                        }
                        for (String o : part.split("&")) {
                            int eq = o.indexOf('=');
                            if (eq <= 0 || eq == o.length() - 1) {
                                throw new IllegalArgumentException("configuration '" + s + "': URL option '" + o + "' must be name=value");
                            }
                            String name = o.substring(0, eq).trim();
                            if (name.equalsIgnoreCase("replicas")) {
                                throw new IllegalArgumentException("configuration '" + s + "': the replicas are the N of macrodb:N");
                            }
                            opts.add(name + "=" + o.substring(eq + 1).trim());
                        }
                    }
                    String bal = !positional.isEmpty() && !positional.get(0).isBlank() ? positional.get(0) : defaultBalancer;
                    // bounded:N has a colon of its own
                    String cons = positional.size() > 1 ? String.join(":", positional.subList(1, positional.size())) : defaultConsistency;
                    yield new SystemConfig(Kind.MACRODB, Integer.parseInt(p[1]), bal, cons, String.join("&", opts));
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
        if (readWaitMillis >= 0 && !hasOption("readWait")) o.append("&readWait=").append(readWaitMillis);
        if (!options.isEmpty()) o.append('&').append(options);
        return o.toString();
    }

    /** Whether the extra URL options name {@code option} (case-insensitive). */
    public boolean hasOption(String option) {
        for (String o : options.split("&")) {
            int eq = o.indexOf('=');
            if (eq > 0 && o.substring(0, eq).equalsIgnoreCase(option)) return true;
        }
        return false;
    }

    /** Short label used in tables, files and charts: {@code standalone}, {@code macrodb-4}, {@code macrodb-2-admission=off}, {@code independent-4}. */
    public String label() {
        return switch (kind) {
            case STANDALONE -> "standalone";
            case INDEPENDENT -> "independent-" + n;
            case MACRODB -> "macrodb-" + n + (balancer == null || balancer.equalsIgnoreCase("leastActive") ? "" : "-" + balancer)
                    + (consistency == null || consistency.equalsIgnoreCase("strict") ? "" : "-" + consistency.replace(':', '_'))
                    + (options.isEmpty() ? "" : "-" + options.replace('&', '-'));
        };
    }

    @Override public String toString() { return label(); }
}
