package io.macrodb.jdbc;

import io.macrodb.engine.EngineUrl;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The MXBean's name: the set's engine URL under {@code jdbc:macrodb:}, passwords left out, quoted. */
class ReplicaSetJmxNameTest {
    @Test
    void passwordsAreLeftOutOfTheName() {
        assertEquals("jdbc:macrodb:h2:mem:shop;MODE=PostgreSQL",
                ReplicaSetJmx.displayUrl(EngineUrl.parse("h2:mem:shop;PASSWORD=secret;MODE=PostgreSQL;FILE_PASSWORD=x")));
        assertEquals("jdbc:macrodb:hsqldb:mem:a", ReplicaSetJmx.displayUrl(EngineUrl.parse("hsqldb:mem:a;password=pw")));
        assertEquals("io.macrodb:type=ReplicaSet,name=\"jdbc:macrodb:h2:mem:a\\\\b,c=d\"",
                ReplicaSetJmx.objectName("jdbc:macrodb:h2:mem:a\\b,c=d").toString());
    }
}
