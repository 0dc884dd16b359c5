package io.macrodb.jdbc;

import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;
import io.macrodb.replica.Session;
import io.macrodb.sql.Dialect;
import io.macrodb.sql.InsertShape;
import io.macrodb.sql.Rewrite;
import io.macrodb.sql.Slot;
import io.macrodb.sql.SqlState;
import io.macrodb.sql.StatementRewriter;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Statement propagation (the paper's): each write statement of an update transaction is made
 * deterministic on the primary, run there, and recorded for replay on the secondaries in commit
 * order. Non-deterministic expressions are evaluated once on the primary and bound as parameters
 * (the rewriter decides which can be, and refuses the rest); an insert that would take identity
 * values from the engine is refused, because a rolled-back transaction consumes identity values on
 * the primary only and the replicas would then number rows differently.
 */
final class StatementModeWriter {
    private final MacroConnection conn;
    private final StatementRewriter rewriter;

    record Result(Statement statement, boolean hasResultSet) {}

    StatementModeWriter(MacroConnection conn, Dialect dialect) {
        this.conn = conn;
        this.rewriter = new StatementRewriter(dialect);
    }

    /**
     * @param bindings the caller's parameters, null for a plain statement. A parameter left unset is
     *                 left unset on the rewritten statement too, so the engine reports it; an index
     *                 beyond the statement's parameters is reported by the engine as well (by binding
     *                 the caller's parameters to the original statement), before anything runs.
     */
    Result execute(MacroStatement owner, Session s, String sql, Bindings bindings, GeneratedKeys keys) throws SQLException {
        Rewrite rw;
        try {
            rw = rewriter.rewrite(sql);
        } catch (StatementRewriter.Unparsed refusal) {
            // Perhaps a plain syntax error: let the engine say so in its own words (preparing runs nothing).
            // The engine accepts it: refuse it, nothing having run.
            s.connection().prepareStatement(sql).close();
            throw refusal;
        }
        int paramCount = 0;
        for (Slot slot : rw.slots()) if (slot instanceof Slot.Param) paramCount++;
        if (bindings != null && bindings.count() > paramCount) checkIndexes(s, sql, bindings, paramCount);
        checkGeneratedValues(rw.insert(), s, sql);
        Object[] all = new Object[rw.slots().size()];
        for (int i = 0; i < all.length; i++) {
            Slot slot = rw.slots().get(i);
            if (slot instanceof Slot.Param p) {
                all[i] = bindings == null ? null : bindings.value(p.originalIndex());
            } else if (slot instanceof Slot.Evaluate e) {
                all[i] = evaluate(s, e.expression());
            }
        }
        PreparedStatement ps = keys.prepare(s.connection(), rw.sql(), ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY,
                owner.holdability);
        boolean ok = false;
        try {
            owner.applyOptions(ps);
            for (int i = 0; i < all.length; i++) {
                if (rw.slots().get(i) instanceof Slot.Param p) {
                    // unset: left for the engine to report when the statement runs
                    if (bindings != null && bindings.isSet(p.originalIndex())) ps.setObject(i + 1, all[i]);
                } else {
                    ps.setObject(i + 1, all[i]);
                }
            }
            boolean hasResultSet = conn.transaction().guarded(ps, ps::execute);
            conn.transaction().changes().addStatement(new StatementChange(rw.sql(), all, false, s.connection().getSchema(), conn.timeZoneSetting()));
            ok = true;
            return new Result(ps, hasResultSet);
        } finally {
            if (!ok) ps.close();
        }
    }

    /**
     * A parameter index beyond the statement's parameters: binds the caller's parameters to the
     * original statement so that the engine reports the bad index as it would without MacroDB.
     */
    private static void checkIndexes(Session s, String sql, Bindings bindings, int paramCount) throws SQLException {
        try (PreparedStatement check = s.connection().prepareStatement(sql)) {
            bindings.applyTo(check, true);
        }
        throw new SQLException("MacroDB: parameter index " + bindings.count() + " is out of range; " + SqlStates.abbreviate(sql)
                + " has " + paramCount + " parameter(s)", SqlState.INVALID_DESCRIPTOR_INDEX.getState());
    }

    private static Object evaluate(Session s, String expression) throws SQLException {
        try (Statement st = s.connection().createStatement();
             ResultSet rs = st.executeQuery("VALUES (" + expression + ")")) {
            rs.next();
            return io.macrodb.engine.Values.detach(rs.getObject(1));
        }
    }

    private void checkGeneratedValues(InsertShape insert, Session s, String sql) throws SQLException {
        if (insert == null) return;
        String name = insert.table();
        String schema;
        String table;
        int dot = name.lastIndexOf('.');
        if (dot >= 0) {
            schema = name.substring(0, dot);
            table = name.substring(dot + 1);
        } else {
            schema = s.connection().getSchema();
            table = name;
        }
        TableShape shape = conn.replicaSet().shape(schema, table);
        if (shape == null) return;
        if (!insert.columns().isEmpty() || insert.fromQuery()) {
            for (String col : shape.volatileDefaults()) {
                if (insert.columns().stream().noneMatch(c -> c.equalsIgnoreCase(col))) {
                    throw SqlStates.unreplicable("statement propagation cannot replicate an insert into " + shape
                            + " that leaves " + col + " to its default, because the default differs on each replica"
                            + " (a random, time or sequence function); give " + col + " a value in the INSERT, or connect"
                            + " with propagation=row: " + SqlStates.abbreviate(sql));
                }
            }
        }
        if (shape.identityColumn() == null) return;
        boolean explicit = insert.columns().isEmpty() && !insert.fromQuery()
                || insert.columns().stream().anyMatch(c -> c.equalsIgnoreCase(shape.identityColumn()));
        if (!explicit) {
            throw SqlStates.unreplicable("statement propagation cannot replicate an insert into " + shape
                    + " that lets the engine generate " + shape.identityColumn() + ": a rolled-back transaction consumes"
                    + " identity values on the primary only, so the replicas would number rows differently. Give "
                    + shape.identityColumn() + " a value in the INSERT, or connect with propagation=row: "
                    + SqlStates.abbreviate(sql));
        }
    }
}
