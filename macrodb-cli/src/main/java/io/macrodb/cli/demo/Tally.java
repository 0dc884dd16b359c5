package io.macrodb.cli.demo;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/** Live counters of one workload run, updated by its client threads and read by the progress line. */
final class Tally {
    private final LongAdder transfers = new LongAdder();
    /** Committed transfers by client (teller), each counted after its commit returned. */
    private final AtomicLongArray transfersByTeller;
    private final LongAdder transferRetries = new LongAdder();
    private final LongAdder audits = new LongAdder();
    private final LongAdder auditRetries = new LongAdder();
    private final Check wrongTotals = new Check();
    private final Check staleReads = new Check();
    private final LongAdder failedClients = new LongAdder();
    /** Read-only transactions by the index of the replica they ran on (MacroDB runs only). */
    private final AtomicLongArray auditsByReplica;
    private final AtomicReference<SQLException> firstError = new AtomicReference<>();

    /** How often a check failed, and what the first failure saw. */
    private static final class Check {
        final LongAdder failures = new LongAdder();
        final AtomicReference<String> first = new AtomicReference<>();

        void failed(String what) {
            failures.increment();
            first.compareAndSet(null, what);
        }
    }

    /** The counters of a finished run, with its duration. The {@code first*} fields are null when none happened. */
    record Totals(long transfers, long transferRetries, long audits, long auditRetries,
                  long wrongTotals, String firstWrongTotal, long staleReads, String firstStaleRead,
                  long failedClients, SQLException firstError, long[] auditsByReplica, double seconds) {
        long transactions() {
            return transfers + audits;
        }

        double perSecond(long count) {
            return count / seconds;
        }
    }

    Tally(int replicas, int tellers) {
        auditsByReplica = new AtomicLongArray(replicas);
        transfersByTeller = new AtomicLongArray(tellers);
    }

    /** Counts a transfer of this teller whose commit has returned. */
    void transferCommitted(int teller) {
        transfersByTeller.incrementAndGet(teller);
        transfers.increment();
    }

    /** How many transfers of this teller had committed; every read that begins later must see them. */
    long transfersCommittedBy(int teller) {
        return transfersByTeller.get(teller);
    }

    void transferRetried() {
        transferRetries.increment();
    }

    /** Counts a committed read-only transaction that ran on the replica with this index (-1: not known). */
    void auditCommitted(int replica) {
        audits.increment();
        if (replica >= 0) auditsByReplica.incrementAndGet(replica);
    }

    void auditRetried() {
        auditRetries.increment();
    }

    /** A read-only transaction saw a count or total of accounts other than the bank's. */
    void wrongTotal(String what) {
        wrongTotals.failed(what);
    }

    /** A read-only transaction missed an update committed before it began. */
    void staleRead(String what) {
        staleReads.failed(what);
    }

    /** A client stopped on an error that retrying cannot clear. */
    void clientFailed(SQLException e) {
        failedClients.increment();
        firstError.compareAndSet(null, e);
    }

    long transfers() {
        return transfers.sum();
    }

    long audits() {
        return audits.sum();
    }

    Totals totals(double seconds) {
        long[] byReplica = new long[auditsByReplica.length()];
        for (int i = 0; i < byReplica.length; i++) byReplica[i] = auditsByReplica.get(i);
        return new Totals(transfers.sum(), transferRetries.sum(), audits.sum(), auditRetries.sum(),
                wrongTotals.failures.sum(), wrongTotals.first.get(), staleReads.failures.sum(), staleReads.first.get(),
                failedClients.sum(), firstError.get(), byReplica, seconds);
    }
}
