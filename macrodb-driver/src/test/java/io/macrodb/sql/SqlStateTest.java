package io.macrodb.sql;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SQLStates MacroDB reports: well formed, one constant each, and only the meant ones fatal to a pool. */
class SqlStateTest {

    /** The states HikariCP 6 evicts a connection on besides class 08 (ProxyConnection.ERROR_STATES). */
    private static final Set<String> HIKARI_FATAL = Set.of("0A000", "57P01", "57P02", "57P03", "01002", "JZ0C0", "JZ0C1");

    /** The only states MacroDB means a pool to take for a dead connection. */
    private static final Set<SqlState> MEANT_FATAL = EnumSet.of(SqlState.CONNECTION_REJECTED, SqlState.CONNECTION_DOES_NOT_EXIST);

    @Test
    void everyStateHasFiveCharactersAndIsUnique() {
        Set<String> seen = new HashSet<>();
        for (SqlState s : SqlState.values()) {
            assertTrue(s.getState().matches("[0-9A-Z]{5}"), () -> s + ": " + s.getState());
            assertTrue(seen.add(s.getState()), () -> s + " repeats " + s.getState());
        }
    }

    @Test
    void onlyTheClosedAndRejectedConnectionStatesAreOnesAPoolEvictsOn() throws Exception {
        Set<String> fatal = new HashSet<>(HIKARI_FATAL);
        fatal.addAll(hikariErrorStates()); // follows the HikariCP on the classpath, should it add states
        for (SqlState s : SqlState.values()) {
            boolean evicts = s.getState().startsWith("08") || fatal.contains(s.getState());
            assertEquals(MEANT_FATAL.contains(s), evicts, () -> s + " (" + s.getState() + ")");
        }
    }

    @Test
    void refusalsAreImplementationDefinedSubclassesOfFeatureNotSupported() {
        for (SqlState s : EnumSet.of(SqlState.FEATURE_NOT_OFFERED, SqlState.STATEMENT_NOT_REPLICABLE)) {
            assertTrue(s.getState().startsWith("0A"), s::toString);
            char subclass = s.getState().charAt(2);
            assertTrue(subclass >= 'I' && subclass <= 'Z', () -> s + ": subclass " + subclass + " is not implementation-defined");
            assertFalse(HIKARI_FATAL.contains(s.getState()), s::toString);
        }
        assertEquals("0AM00", SqlState.FEATURE_NOT_OFFERED.getState());
        assertEquals("0AM01", SqlState.STATEMENT_NOT_REPLICABLE.getState());
    }

    @SuppressWarnings("unchecked")
    private static Set<String> hikariErrorStates() throws Exception {
        Field f = Class.forName("com.zaxxer.hikari.pool.ProxyConnection").getDeclaredField("ERROR_STATES");
        f.setAccessible(true);
        Set<String> states = (Set<String>) f.get(null);
        assertTrue(states.containsAll(HIKARI_FATAL), () -> "HikariCP's fatal states changed: " + states);
        return states;
    }
}
