package io.macrodb.jdbc;

import java.util.Map;

/**
 * The JMX face of one replicated database, registered in the platform MBeanServer as
 * {@code io.macrodb:type=ReplicaSet,name="jdbc:macrodb:<engine url without passwords>"} while the
 * replica set is open, when a connection asks for it with {@code jmx=true} (see the README's "Metrics,
 * JMX and the routing log"). The same figures as {@link MacroAdmin}, in open types that jconsole and
 * every JMX client read without MacroDB's classes: maps keyed by replica index, SQLState or route.
 *
 * <p>Operations fail with an {@link IllegalArgumentException} or {@link IllegalStateException} whose
 * message starts with the SQLState MacroAdmin would report (no driver or engine exception crosses the
 * wire).
 */
public interface ReplicaSetMXBean {
    /** The URL the set was opened with, options left out and passwords removed (as in the MBean's name). */
    String getUrl();

    /** The version of the primary's last published commit. */
    long getVersion();

    /** Replicas in the set, primary included. */
    int getReplicas();

    /** The index of the primary now (0 until a failover). */
    int getPrimaryIndex();

    /** One line per replica, primary first: index, role, state and reason, version, lag, readers, applied records. */
    String[] getReplicaStatus();

    /** Per replica index: "primary" or "secondary". */
    Map<Integer, String> getRoles();

    /** Per replica index: ACTIVE, FAILED, ... */
    Map<Integer, String> getStates();

    /** Per replica index: versions behind the primary (0 for the primary). */
    Map<Integer, Long> getLag();

    /** Per replica index: milliseconds since the oldest commit it has not applied. */
    Map<Integer, Double> getStalenessMillis();

    /** Per replica index: log records applied (cumulative; their rate is the apply rate). */
    Map<Integer, Long> getAppliedRecords();

    /** Per replica index: read-only transactions begun there. */
    Map<Integer, Long> getReadsByReplica();

    /** Transactions by route (see {@link Route}), e.g. {@code secondary_fresh}, {@code primary_update}. */
    Map<String, Long> getTransactionsByRoute();

    /** Transactions that began on a secondary. */
    long getTransactionsOnSecondaries();

    /** Transactions that began on the primary. */
    long getTransactionsOnPrimary();

    /** MacroDB's own refusals and failures by SQLState. */
    Map<String, Long> getRefusalsBySqlState();

    /** Total time read-only transactions waited for a secondary to catch up, in milliseconds. */
    double getReadWaitMillis();

    /** Update transactions held back because a secondary was more than {@code maxLag} behind. */
    long getThrottledTransactions();

    /** What start-up recovered, the durable version, the log directory and fsync policy; "none" without durability. */
    String getDurabilityStatus();

    /** {@link MacroAdmin#captureStatus()}. */
    String getCaptureStatus();

    /** {@link MacroAdmin#rebuild(int)}: rebuilds failed secondary {@code index} now. */
    void rebuild(int index);

    /** {@link MacroAdmin#snapshot()}: takes a snapshot now; returns its version. */
    long snapshot();

    /** {@link MacroAdmin#awaitCaughtUp(long)}: true if every active secondary caught up within the timeout. */
    boolean awaitCaughtUp(long timeoutMillis);

    /** {@link MacroAdmin#pauseApplying(int, boolean)}: holds a secondary still, or lets it go on. */
    void pauseApplying(int index, boolean paused);
}
