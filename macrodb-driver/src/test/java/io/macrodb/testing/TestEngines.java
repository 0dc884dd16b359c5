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
    public static final List<String> ENGINES = List.of("h2", "hsqldb");

    private TestEngines() {}

    /** Every engine's name. */
    public static Stream<String> all() {
        return ENGINES.stream();
    }

    /** Every engine with each propagation mode: arguments (engine, "row" or "statement"). */
    public static Stream<Arguments> withPropagation() {
        return ENGINES.stream().flatMap(e -> Stream.of(Propagation.values())
                .map(p -> Arguments.of(e, p.name().toLowerCase(Locale.ROOT))));
    }
}
