package io.macrodb.jdbc;

import io.macrodb.replica.ReplicaStatus;
import io.macrodb.route.ReadWaits;
import io.macrodb.route.ShapeLearning;

import java.sql.SQLException;
import java.util.List;

/**
 * MacroDB's operator face for one replicated database: what its replicas are doing, and the few
 * things an operator (or a test) may ask of them. Reached from any connection to the database:
 *
 * <pre>{@code
 * MacroAdmin admin = connection.unwrap(MacroAdmin.class);   // or macroConnection.admin()
 * admin.replicaStatus();               // per replica: role, state and reason, version, lag ...
 * admin.awaitCaughtUp(5_000);          // every active secondary has applied every commit so far
 * admin.checksums();                   // content checksum per replica, primary first
 * }</pre>
 *
 * <p>Everything here is about the database, not the connection it was reached from; where a call
 * ran is on {@link MacroConnection} ({@code currentReplica()}, {@code lastReplica()}). The face is
 * deliberately narrow: records and the operations below, no access to the replica set's internals,
 * which change from release to release. Every method fails with SQLState {@code 08003} once the
 * connection it was reached from is closed (the database may be gone with its last connection).
 */
public interface MacroAdmin {
    /** The version of the last commit the primary has published (every earlier one is published too). */
    long version() throws SQLException;

    /** Versions, lag, state (with its reason), readers, apply and admission counters of every replica, primary first. */
    List<ReplicaStatus> replicaStatus() throws SQLException;

    /**
     * Waits until every active secondary has applied everything committed when the call began.
     *
     * @return true if they did within the timeout; false otherwise (nothing is cancelled)
     */
    boolean awaitCaughtUp(long timeoutMillis) throws SQLException;

    /**
     * A content checksum of every replica, primary first (a failed replica reports null): every
     * stored column, generated and invisible ones too, dates and times as {@code java.time} values.
     * Equal checksums mean equal rows. Meaningful when no update transaction runs and
     * {@link #awaitCaughtUp} returned true.
     */
    List<String> checksums() throws SQLException;

    /**
     * Holds secondary {@code index} still (or lets it go on): it stays in the rotation, falls behind,
     * and read-only transactions that need newer data go elsewhere. For copying a replica by hand,
     * and for tests that need a lagging secondary.
     *
     * @throws SQLException {@code HY024} if there is no secondary with that index
     */
    void pauseApplying(int index, boolean paused) throws SQLException;

    /**
     * Rebuilds failed secondary {@code index} now, online, from the freshest healthy replica (for
     * {@code rebuild=manual}; with {@code rebuild=auto} the monitor does it).
     *
     * @throws SQLException {@code HY024} if there is no secondary with that index, {@code 55000} if
     *                      it is active (only a failed one is rebuilt)
     */
    void rebuild(int index) throws SQLException;

    /**
     * Takes a snapshot now (from a secondary held still for the copy, or else from the primary with
     * updates held back) and lets older log segments go.
     *
     * @return the snapshot's version
     * @throws SQLException if the database was opened without {@code durability=log:<dir>}
     */
    long snapshot() throws SQLException;

    /** What start-up recovered, the durable version, the log directory and fsync policy; "none" without durability. */
    String durabilityStatus() throws SQLException;

    /**
     * How the primary's rows are captured: "triggers"; with PostgreSQL's {@code capture=decoding} the primary's stream,
     * whether it runs (or why it stopped), how many transactions came out of it and when the last committed; "none"
     * for a database of one replica without durability (nothing is shipped).
     */
    String captureStatus() throws SQLException;

    /** Update transactions held back at begin because a secondary was more than {@code maxLag} behind. */
    long throttledTransactions() throws SQLException;

    /** Read-only transactions of the database: on a fresh secondary at once, after waiting, on the primary. */
    ReadWaits.Stats readWaits() throws SQLException;

    /**
     * What routing has learned about transactions that never declare themselves read-only, per
     * shape of their first statement: how many started on a secondary, moved to the primary, failed
     * there because what they read had changed, and whether the shape now goes to the primary first.
     */
    List<ShapeLearning.ShapeStats> routingStats() throws SQLException;

    /**
     * The database's routing counters since it opened: every transaction by where it began and why
     * ({@link Route}), read-only transactions per replica, and MacroDB's own refusals by SQLState.
     * Cumulative (subtract two with {@link RoutingCounts#minus}); what a metrics registry samples.
     */
    RoutingCounts routingCounts() throws SQLException;
}
