package io.macrodb.log;

import java.util.Map;

/**
 * The next value of every sequence of the primary, taken at the commit of a transaction that may
 * have drawn from one. Secondaries do not apply it (sequence values reach them inside rows or
 * statements); it is what a recovered or promoted primary restarts its sequences from, so that it
 * never hands out a value twice.
 *
 * @param next quoted qualified sequence name to the next value it would return
 */
public record SequencePositions(Map<String, Long> next) implements Change {
    public SequencePositions {
        next = Map.copyOf(next);
    }
}
