package io.macrodb.replica;

import io.macrodb.jdbc.Internals;
import io.macrodb.log.Change;
import io.macrodb.log.ChangeRecord;
import io.macrodb.log.ReplicationLog;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * Keeps a database's replication log from now on (a cursor that never advances holds every later
 * record), so that a test that finds a divergence can print what the log shipped: each record's
 * version and, per table, the keys it deleted and the rows it wrote.
 */
public final class LogHistory implements AutoCloseable {
    private final ReplicationLog.Cursor hold;

    private LogHistory(ReplicationLog.Cursor hold) { this.hold = hold; }

    public static LogHistory keep(Connection c) throws SQLException {
        return new LogHistory(Internals.replicaSet(c).log().openCursor());
    }

    /** Every record kept, oldest first. */
    public java.util.List<ChangeRecord> records() {
        java.util.List<ChangeRecord> out = new java.util.ArrayList<>();
        for (ChangeRecord r = hold.current().next(); r != null; r = r.next()) out.add(r);
        return out;
    }

    /** Every record kept, one line each. */
    public String dump() {
        StringBuilder sb = new StringBuilder();
        for (ChangeRecord r = hold.current().next(); r != null; r = r.next()) {
            sb.append('v').append(r.version());
            for (Change ch : r.changes()) {
                if (ch instanceof RowChanges rc) {
                    sb.append(' ').append(rc.shape().table()).append('{');
                    for (Object[] k : rc.deletes()) sb.append(" -").append(Arrays.deepToString(k));
                    for (Object[] row : rc.updates()) sb.append(" ~").append(Arrays.deepToString(row));
                    for (Object[] row : rc.inserts()) sb.append(" +").append(Arrays.deepToString(row));
                    sb.append(" }");
                } else if (ch instanceof StatementChange st) {
                    sb.append(" sql{").append(st.sql()).append('}');
                } else {
                    sb.append(' ').append(ch.getClass().getSimpleName());
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Override public void close() { hold.close(); }
}
