package io.macrodb.jdbc;

import io.macrodb.engine.Values;
import io.macrodb.sql.SqlState;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Parameter values of a prepared statement, kept by MacroDB rather than set on one physical
 * statement, because each execution may run on a different replica. Streams and LOB handles are
 * read once into plain values: they can then be bound again and shipped to the secondaries.
 */
final class Bindings {
    /** Sets one parameter on a physical statement. */
    @FunctionalInterface
    interface Binder {
        void bind(PreparedStatement p, int index) throws SQLException;
    }

    private Binder[] binders = new Binder[8];
    private Object[] values = new Object[8];
    /** Highest parameter index set, and how many indexes up to it are set (equal when there is no gap). */
    private int count, set;

    void set(int index, Object value, Binder binder) throws SQLException {
        if (index < 1) throw new SQLException("MacroDB: parameter index " + index + " is out of range; indexes start at 1", SqlState.INVALID_DESCRIPTOR_INDEX.getState());
        if (index > binders.length) {
            int n = Math.max(index, binders.length * 2);
            binders = java.util.Arrays.copyOf(binders, n);
            values = java.util.Arrays.copyOf(values, n);
        }
        if (binders[index - 1] == null) set++;
        binders[index - 1] = binder;
        values[index - 1] = value;
        count = Math.max(count, index);
    }

    void clear() {
        java.util.Arrays.fill(binders, null);
        java.util.Arrays.fill(values, null);
        count = 0;
        set = 0;
    }

    Bindings copy() {
        Bindings b = new Bindings();
        b.binders = binders.clone();
        b.values = values.clone();
        b.count = count;
        b.set = set;
        return b;
    }

    /** Highest parameter index set (0 when none). */
    int count() { return count; }

    /** Whether every index from 1 to {@link #count} is set. */
    boolean complete() { return set == count; }

    /**
     * Binds every set parameter on {@code p}; an unset one is left for the engine to report, so
     * {@code clearFirst} must be true unless every value {@code p} holds is about to be overwritten.
     */
    void applyTo(PreparedStatement p, boolean clearFirst) throws SQLException {
        if (clearFirst) p.clearParameters();
        for (int i = 0; i < count; i++) {
            if (binders[i] != null) binders[i].bind(p, i + 1);
        }
    }

    /** Whether parameter {@code index} (1-based) is set. */
    boolean isSet(int index) {
        return index >= 1 && index <= count && binders[index - 1] != null;
    }

    /** The plain value of parameter {@code index} (1-based), null when unset. */
    Object value(int index) {
        return isSet(index) ? values[index - 1] : null;
    }

    /** Binds parameter {@code index} (which must be set) at position {@code target} of {@code p}. */
    void bindAt(PreparedStatement p, int target, int index) throws SQLException {
        binders[index - 1].bind(p, target);
    }

    /** The plain values, for statement-mode replay on the secondaries. */
    Object[] values() {
        return java.util.Arrays.copyOf(values, count);
    }

    static byte[] read(InputStream in) throws SQLException {
        if (in == null) return null;
        try (in) {
            return in.readAllBytes();
        } catch (IOException | RuntimeException e) { // the application's stream: an SQLException, as H2 and Derby report it
            throw new SQLException("MacroDB: could not read the stream given as a parameter: " + e, SqlState.DATA_EXCEPTION.getState(), e);
        }
    }

    static String read(Reader in) throws SQLException {
        if (in == null) return null;
        try (in) {
            StringBuilder sb = new StringBuilder();
            char[] buf = new char[8192];
            int n;
            while ((n = in.read(buf)) > 0) sb.append(buf, 0, n);
            return sb.toString();
        } catch (IOException | RuntimeException e) {
            throw new SQLException("MacroDB: could not read the reader given as a parameter: " + e, SqlState.DATA_EXCEPTION.getState(), e);
        }
    }

    /** A value that can be bound again later and on another replica. */
    static Object plain(Object v) throws SQLException {
        if (v instanceof InputStream in) return read(in);
        if (v instanceof Reader r) return read(r);
        return Values.detach(v);
    }
}
