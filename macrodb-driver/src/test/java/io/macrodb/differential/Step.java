package io.macrodb.differential;

import java.util.Arrays;
import java.util.List;

/**
 * One thing a client does: run a SQL statement (with optional parameters, bound with
 * {@code setObject} as java.time / engine-native objects), or a JDBC transaction call, or close the
 * database and open it again.
 */
public record Step(Kind kind, String sql, List<Object> params) {

    public enum Kind {
        /** {@code Statement.execute(sql)}, or a {@code PreparedStatement} when there are parameters. */
        SQL,
        /** {@code setAutoCommit(false)}. */
        BEGIN,
        /** {@code commit()} then {@code setAutoCommit(true)}. */
        COMMIT,
        /** {@code rollback()} then {@code setAutoCommit(true)}. */
        ROLLBACK,
        /** Compare every replica, close every connection (MacroDB shuts the replica set down), open again. */
        REOPEN
    }

    public Step {
        params = params == null ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(params));
    }

    public static Step sql(String sql) { return new Step(Kind.SQL, sql, List.of()); }
    public static Step sql(String sql, List<Object> params) { return new Step(Kind.SQL, sql, params); }
    public static Step begin() { return new Step(Kind.BEGIN, null, List.of()); }
    public static Step commit() { return new Step(Kind.COMMIT, null, List.of()); }
    public static Step rollback() { return new Step(Kind.ROLLBACK, null, List.of()); }
    public static Step reopen() { return new Step(Kind.REOPEN, null, List.of()); }
    /** A REOPEN when {@code durability} is on, else a no-op statement. */
    public static Step reopenIf(boolean durability) { return durability ? reopen() : sql("VALUES (1)"); }

    /** Whether this is a schema change (for the refusal policy: MacroDB may refuse DDL it cannot replicate). */
    public boolean isDdl() {
        if (kind != Kind.SQL) return false;
        String s = sql.stripLeading().toUpperCase(java.util.Locale.ROOT);
        return s.startsWith("CREATE") || s.startsWith("ALTER") || s.startsWith("DROP");
    }

    @Override public String toString() {
        return switch (kind) {
            case SQL -> params.isEmpty() ? sql + ";" : sql + ";  -- params " + render(params);
            case BEGIN -> "-- setAutoCommit(false)";
            case COMMIT -> "-- commit()";
            case ROLLBACK -> "-- rollback()";
            case REOPEN -> "-- close every connection and open the database again (durability=log: recovery)";
        };
    }

    static String render(List<Object> params) {
        StringBuilder sb = new StringBuilder("[");
        for (Object p : params) {
            if (sb.length() > 1) sb.append(", ");
            if (p instanceof byte[] b) sb.append("bytes ").append(Rows.hex(b));
            else if (p == null) sb.append("NULL");
            else sb.append(p.getClass().getSimpleName()).append(' ').append(p);
        }
        return sb.append(']').toString();
    }

    /** For tests that build steps by hand. */
    public static List<Step> sqls(String... sqls) {
        return Arrays.stream(sqls).map(Step::sql).toList();
    }
}
