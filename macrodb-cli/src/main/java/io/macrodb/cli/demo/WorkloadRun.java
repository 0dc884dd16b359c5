package io.macrodb.cli.demo;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs the bank workload against one JDBC URL: one {@link BankClient} thread per client, each on
 * its own connection and with its own teller row, for a fixed time, printing one progress line per
 * second.
 *
 * @param url              where the clients connect (a MacroDB or a plain engine URL); the bank must
 *                         exist with a teller per client
 * @param clients          client threads
 * @param readSharePercent share of read-only transactions, 0..100
 * @param seed             seed of the random choices; client {@code i} uses {@code seed + i}
 * @param seconds          how long the clients run
 */
record WorkloadRun(String url, int clients, int readSharePercent, long seed, int seconds) {

    /**
     * Runs the workload and returns what the clients did.
     *
     * @param replicas       replicas to count read-only transactions for (MacroDB's replica indexes)
     * @param progressDetail text appended to each progress line, such as replica versions
     */
    Tally.Totals run(Bank bank, int replicas, PrintWriter out, Supplier<String> progressDetail)
            throws SQLException, InterruptedException {
        Tally tally = new Tally(replicas, clients);
        List<Connection> connections = new ArrayList<>();
        try {
            List<BankClient> bankClients = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                Connection c = DriverManager.getConnection(url);
                connections.add(c);
                bankClients.add(new BankClient(i, clients, bank, c, new SplittableRandom(seed + i), readSharePercent, tally));
            }
            long start = System.nanoTime();
            long deadline = start + TimeUnit.SECONDS.toNanos(seconds);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                BankClient client = bankClients.get(i);
                Thread t = new Thread(() -> client.runUntil(deadline), "demo-client-" + i);
                threads.add(t);
                t.start();
            }
            printProgress(tally, start, out, progressDetail);
            for (Thread t : threads) t.join();
            return tally.totals((System.nanoTime() - start) / 1e9);
        } finally {
            for (Connection c : connections) c.close();
        }
    }

    /** One line per elapsed second: transactions per second in that second, and the detail. */
    private void printProgress(Tally tally, long start, PrintWriter out, Supplier<String> progressDetail)
            throws InterruptedException {
        long transfers = 0;
        long audits = 0;
        for (int second = 1; second <= seconds; second++) {
            long wait = start + TimeUnit.SECONDS.toNanos(second) - System.nanoTime();
            if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
            long t = tally.transfers();
            long a = tally.audits();
            out.printf("  %3ds  transfers %,8d/s  read-only %,8d/s%s%n", second, t - transfers, a - audits,
                    progressDetail.get());
            out.flush();
            transfers = t;
            audits = a;
        }
    }
}
