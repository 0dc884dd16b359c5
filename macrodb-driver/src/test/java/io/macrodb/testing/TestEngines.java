package io.macrodb.testing;

import io.macrodb.log.Propagation;
import org.junit.jupiter.params.provider.Arguments;

import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The engines the engine-parameterised suites (convergence, bank, consistency, undeclared
 * transactions, durability, faults) run over: a new engine joins every one of them by being added
 * here, and {@link TestDb#url} knows its in-memory URL. Use with
 * {@code @MethodSource("io.macrodb.testing.TestEngines#all")} or {@code #withPropagation}.
 */
public final class TestEngines {
    /** Every engine MacroDB supports, in the order the suites run them. */
    // Derby runs every suite, the failover suites included (-Dmacrodb.derbyFailoverUnderLoad=false leaves it out of
    // PrimaryFailoverTest). The failover suites fail a SQLite primary by overwriting its files (Failovers.shutDown).
    // PostgreSQL runs over the servers PgCluster starts from Debian's binaries (skipped with the reason when they
    // are missing); its primary and secondaries are separate servers, so it also shows MacroDB over the network.
    public static final List<String> ENGINES = selected(List.of("h2", "hsqldb", "sqlite", "derby", "postgresql"));

    /**
     * {@code -Dmacrodb.testEngines=postgresql,h2} runs the suites over those engines only (to work on one
     * engine without running the others); all of them by default.
     */
    private static List<String> selected(List<String> all) {
        String only = System.getProperty("macrodb.testEngines", "").trim();
        if (only.isEmpty()) return all;
        List<String> wanted = List.of(only.toLowerCase(Locale.ROOT).split("\\s*,\\s*"));
        return all.stream().filter(wanted::contains).toList();
    }

    private TestEngines() {}

    /** Every engine's name. */
    public static Stream<String> all() {
        return ENGINES.stream();
    }

    /**
     * Every engine with each propagation mode it offers: arguments (engine, "row" or "statement").
     * SQLite, Derby and PostgreSQL offer row propagation only (it refuses statement mode at connect time).
     */
    public static Stream<Arguments> withPropagation() {
        return ENGINES.stream().flatMap(e -> Stream.of(Propagation.values())
                .filter(p -> p == Propagation.ROW || !e.equals("sqlite") && !e.equals("derby") && !e.equals("postgresql"))
                .map(p -> Arguments.of(e, p.name().toLowerCase(Locale.ROOT))));
    }
}
