package io.macrodb.differential;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs one script through MacroDB and, in the same order, through a plain engine of the same kind,
 * and checks that they agree: each statement succeeds on both (with the same update count) or fails
 * on both (with the same SQLState), and at every {@link Step.Kind#REOPEN} and at the end every
 * replica (primary and each secondary, read on its own engine) holds exactly the plain engine's rows.
 *
 * <p>MacroDB may refuse a statement with SQLState 0AM01 (what it cannot replicate faithfully): the
 * plain engine then skips it too and the refusal is recorded (the properties count them by reason).
 * With {@code -Dmacrodb.differential.strictRefusals=true} a refused DML statement is a failure
 * (every DML statement the generators write is deterministic); refused DDL is always accepted.
 */
public final class Differential {
    static final boolean ALLOW_DML_REFUSALS = !Boolean.getBoolean("macrodb.differential.strictRefusals");

    private Differential() {}

    /** What a successful run saw. */
    public record Result(List<String> refusals, List<String> transcript) {}

    public static Result check(DiffConfig config, List<Step> steps) throws SQLException {
        return check(config, steps, ALLOW_DML_REFUSALS);
    }

    /** As {@link #check(DiffConfig, List)}; {@code allowDmlRefusals}: a DML statement MacroDB refuses is skipped and recorded, not a failure. */
    public static Result check(DiffConfig config, List<Step> steps, boolean allowDmlRefusals) throws SQLException {
        return check(config, steps, allowDmlRefusals, actual -> { });
    }

    /** Something done to the system under test after the script, before the last comparison (to test the harness). */
    interface Tamper {
        void apply(Target actual) throws SQLException;
    }

    static Result check(DiffConfig config, List<Step> steps, boolean allowDmlRefusals, Tamper tamper) throws SQLException {
        if (config.jvmZone() == null) return run(config, steps, allowDmlRefusals, tamper);
        java.util.TimeZone before = java.util.TimeZone.getDefault();
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone(config.jvmZone()));
        org.h2.util.DateTimeUtils.resetCalendar(); // H2 caches the JVM's zone
        try {
            return run(config, steps, allowDmlRefusals, tamper);
        } finally {
            java.util.TimeZone.setDefault(before);
            org.h2.util.DateTimeUtils.resetCalendar();
        }
    }

    private static Result run(DiffConfig config, List<Step> steps, boolean allowDmlRefusals, Tamper tamper) throws SQLException {
        List<String> transcript = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        boolean inTransaction = false;
        try (Target expected = new Target.Plain(config.engine());
             Target actual = config.plainOnBothSides() ? new Target.Plain(config.engine()) : new Target.Macro(config)) {
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                String where = "step " + (i + 1) + ": " + step;
                if (step.kind() == Step.Kind.REOPEN) {
                    if (inTransaction) throw new IllegalArgumentException("REOPEN inside a transaction: " + steps);
                    compare(config, steps, transcript, refusals, expected, actual, "before closing at step " + (i + 1));
                    try {
                        actual.reopen();
                    } catch (SQLException | RuntimeException e) {
                        fail(config, steps, transcript, refusals, "MacroDB could not open the database again at " + where + ": "
                                + e.getClass().getSimpleName() + " " + (e instanceof SQLException se ? se.getSQLState() + " " : "")
                                + Rows.firstLine(e.getMessage()));
                    }
                    expected.reopen();
                    transcript.add(where);
                    compare(config, steps, transcript, refusals, expected, actual, "after opening again at step " + (i + 1));
                    continue;
                }
                Target.Outcome a = actual.run(step);
                if (a.refused() && !config.plainOnBothSides()) {
                    transcript.add(where + "\n      MacroDB REFUSED: " + a.message() + " (skipped on the plain engine)");
                    refusals.add(step + "  -> " + a.message());
                    if (!step.isDdl() && !allowDmlRefusals) {
                        fail(config, steps, transcript, refusals, "MacroDB refused a deterministic DML statement (0AM01) at " + where
                                + "\n  " + a.message());
                    }
                    continue;
                }
                if ((step.kind() == Step.Kind.COMMIT || sqlCommit(step)) && refusedKeylessCommit(config, a)) {
                    // MacroDB's documented refusal: a failed statement had changed a table without a key,
                    // and it cannot tell what of it the engine undid. It rolled back; so does the plain engine.
                    Step rollback = step.kind() == Step.Kind.COMMIT ? Step.rollback() : Step.sql("ROLLBACK");
                    Target.Outcome e = expected.run(rollback);
                    // MacroDB's commit() threw before the step turned autocommit back on: end the
                    // transaction there the same way, so both sides are where the step leaves them
                    // (a SQL ROLLBACK after a SQL COMMIT MacroDB refused may find no transaction: either is fine)
                    Target.Outcome back = actual.run(rollback);
                    transcript.add(where + "\n      MacroDB REFUSED THE COMMIT: " + a.message() + "\n      plain: rolled back " + e
                            + "\n      MacroDB: rolled back " + back);
                    refusals.add(step + "  -> " + a.message());
                    inTransaction = false;
                    continue;
                }
                Target.Outcome e = expected.run(step);
                transcript.add(where + "\n      plain: " + e + "\n      MacroDB: " + a);
                boolean same = a.ok() == e.ok()
                        && (a.ok() ? a.updateCount() == e.updateCount() || !countsRows(config, step) : sameFailure(config, a, e));
                if (!same) {
                    fail(config, steps, transcript, refusals, "the statement behaved differently at " + where
                            + "\n  plain engine: " + e + "\n  MacroDB:      " + a);
                }
                if (step.kind() == Step.Kind.BEGIN && a.ok()) inTransaction = true;
                if ((step.kind() == Step.Kind.COMMIT || step.kind() == Step.Kind.ROLLBACK) && a.ok()) inTransaction = false;
            }
            if (inTransaction) {
                Target.Outcome a = actual.run(Step.commit());
                Target.Outcome e = expected.run(refusedKeylessCommit(config, a) ? Step.rollback() : Step.commit());
                transcript.add("final commit\n      plain: " + e + "\n      MacroDB: " + a);
                if (!refusedKeylessCommit(config, a) && a.ok() != e.ok()) fail(config, steps, transcript, refusals, "the final commit behaved differently");
            }
            if (actual instanceof Target.Macro m && !m.macro().admin().awaitCaughtUp(30_000)) {
                fail(config, steps, transcript, refusals, "the secondaries did not catch up in 30 s: " + m.macro().replicaStatus());
            }
            tamper.apply(actual);
            compare(config, steps, transcript, refusals, expected, actual, "at the end");
        }
        return new Result(refusals, transcript);
    }

    /**
     * Whether a statement's update count is a count of rows: on SQLite only a DML statement's is.
     * xerial's driver reports {@code sqlite3_changes()} after any statement, so a {@code BEGIN},
     * {@code SAVEPOINT} or {@code CREATE} there repeats the previous DML statement's count; MacroDB
     * reports 0 for some of them, as JDBC has it for a statement that returns nothing.
     */
    private static boolean countsRows(DiffConfig config, Step step) {
        if (!config.sqlite() || step.kind() != Step.Kind.SQL) return true;
        String s = step.sql().stripLeading().toUpperCase(java.util.Locale.ROOT);
        return s.startsWith("INSERT") || s.startsWith("UPDATE") || s.startsWith("DELETE") || s.startsWith("REPLACE");
    }

    /**
     * Two failures are the same one when they carry the same SQLState; on SQLite, whose driver reports
     * none (MacroDB gives its result codes the standard's, README "SQLite"), when they carry the same
     * extended result code.
     */
    private static boolean sameFailure(DiffConfig config, Target.Outcome a, Target.Outcome e) {
        if (config.sqlite() && e.sqlState() == null) return a.errorCode() == e.errorCode();
        return java.util.Objects.equals(a.sqlState(), e.sqlState());
    }

    /** A COMMIT in SQL (SQLite's {@code COMMIT} or {@code END}, where a script began with SQL's {@code BEGIN}). */
    private static boolean sqlCommit(Step step) {
        if (step.kind() != Step.Kind.SQL) return false;
        String s = step.sql().strip().toUpperCase(java.util.Locale.ROOT);
        return s.equals("COMMIT") || s.equals("END");
    }

    /**
     * MacroDB refused a commit because a failed statement of the transaction had changed a table
     * without a primary key: a documented refusal, not a divergence. Not on H2, HSQLDB or Derby, where
     * MacroDB rolls a failed write back to a savepoint of its own and the commit goes through
     * ({@code Engine.undoesFailedStatementsToASavepoint}): there such a refusal fails the run.
     */
    private static boolean refusedKeylessCommit(DiffConfig config, Target.Outcome a) {
        if (java.util.Set.of("h2", "hsqldb", "derby").contains(config.engine().toLowerCase(java.util.Locale.ROOT))) return false;
        return !a.ok() && "40001".equals(a.sqlState()) && a.message() != null && a.message().contains("a table without a primary key");
    }

    private static void compare(DiffConfig config, List<Step> steps, List<String> transcript, List<String> refusals,
                                Target expected, Target actual, String when) throws SQLException {
        List<Rows.Table> tables = Rows.tables(expected.connection());
        Map<String, List<String>> reference = expected.contents(tables).values().iterator().next();
        StringBuilder diff = new StringBuilder();
        for (Map.Entry<String, Map<String, List<String>>> copy : actual.contents(tables).entrySet()) {
            for (Map.Entry<String, List<String>> t : copy.getValue().entrySet()) {
                List<String> want = reference.getOrDefault(t.getKey(), List.of());
                List<String> have = t.getValue();
                if (want.equals(have)) continue;
                Rows.Table table = tables.stream().filter(x -> x.name().equals(t.getKey())).findFirst().orElse(null);
                diff.append("  ").append(copy.getKey()).append(", table ").append(t.getKey())
                        .append(table == null ? "" : " (" + table.header() + ")").append(":\n");
                for (String r : minus(want, have)) diff.append("      - ").append(r).append("   (plain engine has it, this copy does not)\n");
                for (String r : minus(have, want)) diff.append("      + ").append(r).append("   (this copy has it, the plain engine does not)\n");
            }
        }
        if (diff.length() > 0) {
            fail(config, steps, transcript, refusals, "replica contents differ from the plain engine " + when + ":\n" + diff
                    + "  plain engine:\n" + render(reference));
        }
    }

    private static String render(Map<String, List<String>> tables) {
        StringBuilder sb = new StringBuilder();
        tables.forEach((t, rows) -> {
            sb.append("      ").append(t).append(':');
            if (rows.isEmpty()) sb.append(" (empty)");
            sb.append('\n');
            for (String r : rows) sb.append("        ").append(r).append('\n');
        });
        return sb.toString();
    }

    /** Multiset difference. */
    private static List<String> minus(List<String> a, List<String> b) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String s : b) counts.merge(s, 1, Integer::sum);
        List<String> out = new ArrayList<>();
        for (String s : a) {
            Integer n = counts.get(s);
            if (n == null || n == 0) out.add(s);
            else counts.put(s, n - 1);
        }
        return out;
    }

    private static void fail(DiffConfig config, List<Step> steps, List<String> transcript, List<String> refusals, String what) {
        StringBuilder sb = new StringBuilder("MacroDB diverged from the plain engine (").append(config).append(")\n").append(what);
        sb.append("\nscript:\n").append(script(steps));
        if (!refusals.isEmpty()) sb.append("refused by MacroDB (skipped on the plain engine):\n");
        for (String r : refusals) sb.append("  ").append(r).append('\n');
        sb.append("transcript:\n");
        for (String t : transcript) sb.append("  ").append(t).append('\n');
        throw new AssertionError(sb.toString());
    }

    static String script(List<Step> steps) {
        StringBuilder sb = new StringBuilder();
        for (Step s : steps) sb.append("  ").append(s).append('\n');
        return sb.toString();
    }
}
