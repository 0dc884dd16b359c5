package io.macrodb.jdbc;

import io.macrodb.replica.Replica;
import io.macrodb.replica.Session;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The secondary sessions one connection has borrowed, and the rule for when each goes back.
 *
 * <p><b>The session-hold rule.</b> A borrowed secondary session stays with the connection while
 * anything can still read from it, counted here and nowhere else: one hold for the read-only
 * transaction that borrowed it (taken in {@link #borrow}, given back when {@link Transaction} ends the
 * read), and one for each {@link MacroStatement} attached to it (its {@code attach} to its
 * {@code detach}: the statement's result set is closed, it executes again, or it is closed). So an
 * autocommit query's result set, read after its transaction has ended, keeps its session, and a
 * session is never pooled under an open result. At zero holds the session's engine transaction is
 * rolled back if it may still be open, and the session goes back to its replica's pool; unless it
 * carries this connection's session-level {@code SET}s ({@link Session#isDedicated()}): such a
 * session is kept for this connection's next reads on that replica until the connection closes (or
 * it breaks), since another connection must not inherit its settings. The primary session is never
 * counted: the connection owns it for its whole life.
 *
 * <p>On an engine whose reads take locks (Derby) a held session also holds its secondary's turn beside the applier
 * ({@link Replica#enterRead}): taken before the first hold, given back after the last, once the session's engine
 * transaction has ended. So the applier writes nothing there while anything can still read from the session, and
 * an autocommit query's result set, read after its transaction has ended, reads one committed state too.
 *
 * <p>Used by the connection's thread only, except {@link #all()}, which {@code abort} reads from
 * another thread while tolerating a race.
 */
final class SessionHolds {
    /** How many holders each borrowed secondary session has. */
    private final Map<Session, Holders> holds = new IdentityHashMap<>();
    /** Secondary sessions that carry this connection's session-level SETs: kept, never pooled. */
    private final Map<Replica, Session> dedicated = new IdentityHashMap<>();

    private static final class Holders {
        int count;
        /** Whether these holders hold the replica's turn beside its applier ({@link Replica#enterRead}). */
        boolean turn;
    }

    /**
     * A session on secondary {@code r} for a read-only transaction, synced to {@code settings} and
     * held once for the transaction. If it cannot be started, the session is discarded (marked
     * broken, given back) and the error rethrown: nothing ran on it. Where the engine's reads take
     * locks, the replica's turn beside its applier is taken first (unless this connection's session
     * there holds it already).
     *
     * @return null if the applier kept the turn for {@code turnTimeoutMillis}: nothing was borrowed
     */
    Session borrow(Replica r, Session.Settings settings, boolean autoCommit, long turnTimeoutMillis) throws SQLException {
        Session s = dedicated.get(r);
        Holders already = s == null ? null : holds.get(s);
        boolean turn = already == null || !already.turn;
        if (turn && !r.enterRead(turnTimeoutMillis)) return null;
        try {
            if (s == null) s = r.borrow();
            s.sync(settings, autoCommit);
        } catch (SQLException e) {
            dedicated.remove(r);
            if (s != null) {
                s.markBroken();
                r.release(s);
            }
            if (turn) r.leaveRead();
            throw e;
        }
        if (s.isDedicated()) dedicated.put(r, s);
        hold(s);
        if (turn) {
            Holders h = holds.get(s);
            if (h != null) h.turn = true;
            else r.leaveRead(); // r was promoted meanwhile: a primary's session is not counted, and needs no turn
        }
        return s;
    }

    /** One more holder of {@code s}; the primary session is not counted. */
    void hold(Session s) {
        if (s.isPrimary()) return;
        holds.computeIfAbsent(s, k -> new Holders()).count++;
    }

    /** One holder fewer of {@code s}; the primary session is not counted. */
    void release(Session s) { release(s, false); }

    /** @param ended the session's engine transaction was just committed or rolled back: nothing to roll back */
    void release(Session s, boolean ended) {
        Holders h = holds.get(s);
        if (h == null) return;
        if (--h.count > 0) return;
        holds.remove(s);
        try {
            if (!ended && !s.connection().getAutoCommit()) s.connection().rollback();
        } catch (SQLException e) {
            s.markBroken();
        }
        if (h.turn) s.replica().leaveRead(); // nothing reads from the session any more
        if (dedicated.get(s.replica()) != s || s.isBroken()) {
            dedicated.remove(s.replica(), s);
            s.replica().release(s);
        }
    }

    /** The connection closes: every session, held or kept, is rolled back and given back. */
    void releaseAll() {
        for (Session s : dedicated.values()) {
            if (!holds.containsKey(s)) holds.put(s, new Holders());
        }
        dedicated.clear();
        for (Session s : new ArrayList<>(holds.keySet())) {
            Holders h = holds.remove(s);
            try {
                if (!s.connection().getAutoCommit()) s.connection().rollback();
            } catch (SQLException e) {
                s.markBroken();
            }
            if (h.turn) s.replica().leaveRead();
            s.replica().release(s);
        }
    }

    /** Every session held or kept, for {@code abort} (another thread: the owner may be changing them). */
    List<Session> all() {
        List<Session> sessions = new ArrayList<>(List.copyOf(holds.keySet()));
        sessions.addAll(List.copyOf(dedicated.values()));
        return sessions;
    }
}
