package io.macrodb.cli.demo;

import io.macrodb.cli.TextTable;
import io.macrodb.log.Propagation;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.jdbc.MacroDriver;
import io.macrodb.jdbc.Route;
import io.macrodb.jdbc.RoutingCounts;
import io.macrodb.route.ReadWaits;
import io.macrodb.replica.ReplicaStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * {@code macrodb demo}: MacroDB's main job, shown in a few seconds on an embedded in-memory engine.
 *
 * <p>Client threads run transfers (update transactions, which MacroDB runs on the primary) and
 * audits (read-only transactions, which it runs on secondaries that have applied every update
 * committed before the audit began). The demo checks, and exits with status 1 otherwise, that
 * <ul>
 *   <li>every audit saw the bank's total unchanged: no read saw part of a transfer;</li>
 *   <li>every audit saw every transfer whose commit had returned before the audit began: no read
 *       ran on a secondary that was behind;</li>
 *   <li>once the secondaries caught up, every replica has the same content checksum;</li>
 *   <li>no client stopped on an error that retrying could not clear.</li>
 * </ul>
 * It then runs the same workload on the plain engine and prints the throughput ratio, which is a
 * demonstration, not a measurement.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Shows MacroDB at work: a bank workload, updates on the primary, read-only audits on secondaries.",
                "",
                "Client threads run transfers (update transactions) and audits (read-only transactions that sum"
                        + " every balance) through MacroDB. The demo checks that every audit sees the total unchanged"
                        + " and every transfer committed before it began, and that all replicas end with equal"
                        + " content checksums; then it runs the same workload on the plain engine and prints the"
                        + " throughput ratio.",
                ""},
        footer = {"", "Exit status: 0 all checks passed, 1 a check failed or an error stopped the demo, 2 invalid usage."})
public final class DemoCommand implements Callable<Integer> {
    private static final long CATCH_UP_MILLIS = 30_000;
    /**
     * Numbers the demos run in this JVM: each gets databases of its own, because an in-memory
     * HSQLDB database (MacroDB's primary included) lives until SHUTDOWN, not until its last
     * connection closes.
     */
    private static final AtomicInteger RUNS = new AtomicInteger();

    @Spec private CommandSpec spec;

    @Option(names = "--seconds", defaultValue = "10", description = "How long each run lasts (default: ${DEFAULT-VALUE}).")
    private int seconds;

    @Option(names = "--engine", defaultValue = "h2",
            description = "Embedded engine, in memory: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private EmbeddedEngine engine;

    @Option(names = "--replicas", defaultValue = "3", description = "Replicas, primary included (default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--clients", defaultValue = "4", description = "Client threads (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--read-share", paramLabel = "PCT", defaultValue = "80",
            description = "Percentage of transactions that are read-only audits (default: ${DEFAULT-VALUE}).")
    private int readShare;

    @Option(names = "--propagation", defaultValue = "row",
            description = "How updates reach the secondaries: row or statement (default: ${DEFAULT-VALUE}).")
    private Propagation propagation;

    @Option(names = "--accounts", defaultValue = "1000", description = "Bank accounts (default: ${DEFAULT-VALUE}).")
    private int accounts;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the random choices (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Override public Integer call() throws SQLException, InterruptedException {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        Bank bank = new Bank(accounts);
        String database = "demo" + RUNS.incrementAndGet() + "_bank";
        List<String> failures = new ArrayList<>();

        Tally.Totals macroTotals = runMacroDb(out, bank, database, failures);
        Tally.Totals plainTotals = runStandalone(out, bank, database + "_standalone", failures);
        printComparison(out, macroTotals, plainTotals);

        if (failures.isEmpty()) {
            out.println("\nResult: all checks passed.");
        } else {
            out.println("\nResult: FAILED: " + String.join("; ", failures) + ".");
        }
        out.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    /** The workload through MacroDB, its report, and the checks of reads and replica contents. */
    private Tally.Totals runMacroDb(PrintWriter out, Bank bank, String database, List<String> failures)
            throws SQLException, InterruptedException {
        // jmx=true: the replica set's MXBean is in this process's platform MBeanServer while the demo runs
        String url = engine.macroUrl(database,
                "replicas=" + replicas + "&propagation=" + propagation.name().toLowerCase(Locale.ROOT) + "&jmx=true");
        // This connection keeps the replica set open until the checksums are taken.
        try (Connection admin = DriverManager.getConnection(url)) {
            MacroConnection macro = admin.unwrap(MacroConnection.class);
            printHeader(out, admin.getMetaData(), macro, url);
            bank.create(admin, clients);
            printJmx(out, url);
            out.printf("%nMacroDB, %d s:%n", seconds);
            RoutingCounts routedBefore = macro.admin().routingCounts();
            ReadWaits.Stats waitsBefore = macro.admin().readWaits();
            Tally.Totals totals = workload(url).run(bank, replicas, out, () -> versions(macro));
            List<ReplicaStatus> atStop = macro.replicaStatus();
            printTransactions(out, totals);
            printReadsByReplica(out, totals, atStop);
            printRouting(out, macro.admin().routingCounts().minus(routedBefore), macro.admin().readWaits().minus(waitsBefore));
            printReplicaStatus(out, atStop);
            checkClients(out, "MacroDB", totals, failures);
            checkReads(out, "MacroDB", bank, totals, failures);
            checkChecksums(out, macro, failures);
            return totals;
        }
    }

    /** The same workload on the plain engine, configured as MacroDB configures its primary. */
    private Tally.Totals runStandalone(PrintWriter out, Bank bank, String database, List<String> failures)
            throws SQLException, InterruptedException {
        String url = engine.plainUrl(database);
        out.printf("%nStandalone %s (%s, configured as MacroDB configures its primary), same workload, %d s:%n",
                engine, url, seconds);
        Tally.Totals totals;
        // This connection keeps the in-memory database alive while the clients come and go.
        try (Connection admin = DriverManager.getConnection(url); Statement s = admin.createStatement()) {
            for (String sql : engine.primarySettings()) s.execute(sql);
            bank.create(admin, clients);
            totals = workload(url).run(bank, 0, out, () -> "");
            s.execute("SHUTDOWN"); // frees the in-memory database now (HSQLDB would keep it until the JVM ends)
        }
        printTransactions(out, totals);
        checkClients(out, "standalone", totals, failures);
        checkReads(out, "standalone", bank, totals, failures);
        return totals;
    }

    private void validate() {
        requireRange("--seconds", seconds, 1, 86_400);
        requireRange("--replicas", replicas, 2, 64); // at least one secondary, or there is nothing to show
        requireRange("--clients", clients, 1, 1024);
        requireRange("--read-share", readShare, 0, 100);
        requireRange("--accounts", accounts, 2, 10_000_000);
    }

    private void requireRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ParameterException(spec.commandLine(),
                    option + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    private WorkloadRun workload(String url) {
        return new WorkloadRun(url, clients, readShare, seed, seconds);
    }

    private void printHeader(PrintWriter out, DatabaseMetaData meta, MacroConnection macro, String url) throws SQLException {
        out.printf("MacroDB %s demo, seed %d%n", MacroDriver.VERSION, seed);
        out.printf("  engine      %s %s, in memory%n", meta.getDatabaseProductName(), meta.getDatabaseProductVersion());
        out.printf("  replicas    %d: 1 primary runs the updates, %d %s read-only transactions%n",
                replicas, replicas - 1, replicas == 2 ? "secondary serves" : "secondaries serve");
        out.printf("  options     %s propagation, %s consistency%n", propagation.name().toLowerCase(Locale.ROOT),
                macro.config().readConsistency());
        out.printf("  URL         %s%n", url);
        out.printf("  bank        %,d accounts of %,d: total %,d%n", accounts, Bank.INITIAL_BALANCE, (long) accounts * Bank.INITIAL_BALANCE);
        out.printf("  workload    %d clients; %d%% audits (read-only: sum of all balances, transfer count of every client),"
                + " %d%% transfers (update: two accounts and the client's transfer count)%n", clients, readShare, 100 - readShare);
        out.flush();
    }

    /** The progress detail of a MacroDB run: the version of every replica, primary first. */
    private static String versions(MacroConnection macro) {
        return macro.replicaStatus().stream()
                .map(r -> (r.role().equals("primary") ? "p" : "r" + r.index()) + "=" + r.version())
                .collect(Collectors.joining(" ", "  versions ", ""));
    }

    private static void printTransactions(PrintWriter out, Tally.Totals t) {
        out.printf("%nTransactions in %.1f s%n", t.seconds());
        new TextTable("kind", "committed", "retried", "per second")
                .row("transfer (update)", count(t.transfers()), count(t.transferRetries()), rate(t.perSecond(t.transfers())))
                .row("audit (read-only)", count(t.audits()), count(t.auditRetries()), rate(t.perSecond(t.audits())))
                .row("total", count(t.transactions()), count(t.transferRetries() + t.auditRetries()),
                        rate(t.perSecond(t.transactions())))
                .print(out, "  ");
    }

    private static void printReadsByReplica(PrintWriter out, Tally.Totals t, List<ReplicaStatus> replicas) {
        out.println("\nRead-only transactions by the replica they ran on (currentReplica() before commit)");
        TextTable table = new TextTable("replica", "role", "audits", "share");
        for (ReplicaStatus r : replicas) {
            long n = t.auditsByReplica()[r.index()];
            table.row(r.index(), r.role(), count(n), t.audits() == 0 ? "-" : String.format("%.1f%%", 100.0 * n / t.audits()));
        }
        table.print(out, "  ");
    }

    /** Where to find the replica set's MXBean while the demo runs. */
    private static void printJmx(PrintWriter out, String url) {
        String set = url.substring(0, url.indexOf('?'));
        try {
            javax.management.ObjectName name = new javax.management.ObjectName(
                    "io.macrodb:type=ReplicaSet,name=" + javax.management.ObjectName.quote(set));
            boolean there = java.lang.management.ManagementFactory.getPlatformMBeanServer().isRegistered(name);
            out.printf("  JMX         %s%s%n", name, there ? "" : " (NOT registered)");
            out.printf("              jconsole %d, tab MBeans (a longer --seconds leaves time to look)%n", ProcessHandle.current().pid());
        } catch (javax.management.MalformedObjectNameException e) {
            out.printf("  JMX         no MBean name for %s: %s%n", set, e.getMessage());
        }
        out.flush();
    }

    /** The driver's routing counters over the run: the figures the MBean and the Micrometer meters report. */
    private static void printRouting(PrintWriter out, RoutingCounts routed, ReadWaits.Stats waits) {
        out.println("\nRouting decisions (MacroAdmin.routingCounts(); meter macrodb.transactions{target,reason})");
        long all = routed.onSecondaries() + routed.onPrimary();
        TextTable table = new TextTable("began on", "why", "transactions", "share");
        for (Route r : Route.values()) {
            long n = routed.count(r);
            if (n == 0) continue;
            table.row(r == Route.MOVED_TO_PRIMARY ? "(moved)" : r.target(), r.reason(), count(n),
                    all == 0 || r == Route.MOVED_TO_PRIMARY ? "-" : String.format("%.1f%%", 100.0 * n / all));
        }
        table.print(out, "  ");
        out.printf("  read waits: %s%n", waits);
        String refusals = routed.refusalsBySqlState().entrySet().stream().filter(e -> e.getValue() > 0)
                .map(e -> e.getKey() + " " + count(e.getValue())).collect(Collectors.joining(", "));
        out.printf("  refusals by SQLState: %s%n", refusals.isEmpty() ? "none" : refusals);
    }

    private static void printReplicaStatus(PrintWriter out, List<ReplicaStatus> replicas) {
        out.println("\nReplicas when the clients stopped");
        TextTable table = new TextTable("replica", "role", "state", "version", "lag", "applied records", "apply groups",
                "records/group", "apply retries");
        for (ReplicaStatus r : replicas) {
            boolean primary = r.role().equals("primary");
            table.row(r.index(), r.role(), r.state(), count(r.version()), primary ? "-" : count(r.lag()),
                    primary ? "-" : count(r.appliedRecords()), primary ? "-" : count(r.applyGroups()),
                    primary || r.applyGroups() == 0 ? "-" : String.format("%.1f", (double) r.appliedRecords() / r.applyGroups()),
                    primary ? "-" : count(r.applyRetries()));
        }
        table.print(out, "  ");
    }

    private static void checkClients(PrintWriter out, String run, Tally.Totals t, List<String> failures) {
        if (t.failedClients() == 0) return;
        SQLException e = t.firstError();
        out.printf("%n%s: %d client(s) stopped on an error; the first: SQLState %s: %s%n", run, t.failedClients(),
                e.getSQLState(), e.getMessage());
        failures.add(run + ": " + t.failedClients() + " client(s) stopped on an error");
    }

    /** Reports the two checks every read-only transaction made (see {@link Bank}). */
    private static void checkReads(PrintWriter out, String run, Bank bank, Tally.Totals t, List<String> failures) {
        out.println();
        if (t.wrongTotals() == 0) {
            out.printf("Invariant: all %,d read-only transactions saw %,d accounts totalling %,d.%n",
                    t.audits(), bank.accounts(), bank.expectedTotal());
        } else {
            out.printf("Invariant VIOLATED in %,d of %,d read-only transactions; the first: %s.%n",
                    t.wrongTotals(), t.audits(), t.firstWrongTotal());
            failures.add(run + ": " + t.wrongTotals() + " read-only transactions saw a wrong total");
        }
        if (t.staleReads() == 0) {
            out.printf("Freshness: all %,d read-only transactions saw every transfer committed before they began.%n",
                    t.audits());
        } else {
            out.printf("Freshness VIOLATED in %,d of %,d read-only transactions; the first: %s.%n",
                    t.staleReads(), t.audits(), t.firstStaleRead());
            failures.add(run + ": " + t.staleReads() + " read-only transactions missed transfers committed before they began");
        }
    }

    private static void checkChecksums(PrintWriter out, MacroConnection macro, List<String> failures) throws SQLException {
        if (!macro.admin().awaitCaughtUp(CATCH_UP_MILLIS)) {
            out.printf("%nChecksums NOT compared: the secondaries did not catch up with the primary within %d s.%n",
                    CATCH_UP_MILLIS / 1000);
            failures.add("secondaries did not catch up");
            return;
        }
        List<String> sums = macro.admin().checksums();
        out.println("\nContent checksums after every secondary caught up with the primary");
        TextTable table = new TextTable("replica", "checksum");
        for (int i = 0; i < sums.size(); i++) table.row(i, Objects.requireNonNullElse(sums.get(i), "(replica failed)"));
        table.print(out, "  ");
        boolean equal = sums.get(0) != null && sums.stream().allMatch(sums.get(0)::equals);
        if (equal) {
            out.printf("Checksums: equal on all %d replicas.%n", sums.size());
        } else {
            out.printf("Checksums DIFFER: the replicas diverged.%n");
            failures.add("replica checksums differ");
        }
    }

    private static void printComparison(PrintWriter out, Tally.Totals macro, Tally.Totals plain) {
        double macroRate = macro.perSecond(macro.transactions());
        double plainRate = plain.perSecond(plain.transactions());
        if (plainRate == 0) {
            out.println("\nThroughput not compared: the standalone run committed no transaction.");
            return;
        }
        out.printf("%nThroughput MacroDB / standalone: %.2f (%s vs %s transactions/s)%n",
                macroRate / plainRate, rate(macroRate), rate(plainRate));
        out.printf("Note: one short run each (MacroDB's on a cold JVM), on %d processors; on a 2-core machine this ratio says little."
                + " Performance claims belong to the benchmarks (macrodb bench), not to this demo.%n",
                Runtime.getRuntime().availableProcessors());
    }

    private static String count(long n) {
        return String.format("%,d", n);
    }

    private static String rate(double perSecond) {
        return String.format("%,.0f", perSecond);
    }
}
