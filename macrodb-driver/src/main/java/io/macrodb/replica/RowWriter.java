package io.macrodb.replica;

import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;
import io.macrodb.sql.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes change records into a secondary's session: the delete-then-insert of {@link RowChanges},
 * batched per table, and replayed statements. Statements are prepared once per table shape; a new
 * shape (after DDL) gets new statements.
 */
final class RowWriter implements AutoCloseable {
    private final Connection c;
    private final Map<TableShape, PreparedStatement[]> prepared = new IdentityHashMap<>();
    /** The applier session's current schema, as last set for a replayed statement. */
    private String schema;
    /** The session's time zone statement as last set for a replayed statement (null: the default). */
    private String zone;
    /** Whether {@link #zone} is what the session has (false at first and after {@link #clear}). */
    private boolean zoneKnown;

    private final io.macrodb.engine.Engine engine;

    /**
     * Rows per JDBC batch: a large transaction's rows go to the engine in batches of this many, and each batch counts as
     * progress ({@link #rowsWritten}), so that the monitor tells an applier busy with a large record from a stuck one.
     */
    static final int BATCH_ROWS = 1000;

    /** Rows this writer sent to its engine so far (written by the applier's thread, read by the monitor). */
    private volatile long rowsWritten;

    /** Rows sent to the engine so far: it moves while a large record is applied. */
    long rowsWritten() { return rowsWritten; }

    /** Runs the batch of {@code ps} and counts its rows as written. */
    private int[] executeBatch(PreparedStatement ps, int rows) throws SQLException {
        int[] counts = ps.executeBatch();
        rowsWritten += rows; // one writing thread
        return counts;
    }

    RowWriter(Connection c, io.macrodb.engine.Engine engine) {
        this(c, engine, false);
    }

    /**
     * @param withoutUserTriggers a secondary in row propagation, which carries none of the application's triggers: after
     *                            a schema change where DDL is transactional, in the apply transaction and before the rows
     *                            after it in the same record, it does what it does after every schema change
     *                            ({@code Engine.afterSchemaChangeInApply}): a trigger the change created would fire a
     *                            second time for those rows, and on Derby a new identity column or foreign key would
     *                            refuse them
     */
    RowWriter(Connection c, io.macrodb.engine.Engine engine, boolean withoutUserTriggers) {
        this.c = c;
        this.engine = engine;
        this.withoutUserTriggers = withoutUserTriggers;
    }

    private final boolean withoutUserTriggers;

    /**
     * Applies one table's changes. Fast: delete, update, insert exactly what changed. Safe (after a
     * unique-constraint collision in the fast order): delete every touched key, then insert every
     * final image, which cannot collide because the final images satisfied the constraints on the
     * primary.
     */
    void apply(RowChanges rc, boolean safe) throws SQLException {
        apply(rc, safe, false);
    }

    /**
     * @param idempotent with {@code safe}: remove the inserted keys too ({@link RowChanges#everyKey()}), so that a
     *                   change the session holds already (a secondary's group applied again after its engine commit
     *                   failed) gives the same rows; recovery leaves it off, so that a record whose inserted row the
     *                   snapshot already holds is reported as damage
     */
    void apply(RowChanges rc, boolean safe, boolean idempotent) throws SQLException {
        TableShape shape = rc.shape();
        PreparedStatement[] ps = prepared.get(shape);
        if (ps == null) {
            ps = shape.hasKey()
                    ? new PreparedStatement[] {c.prepareStatement(deleteSql(shape)), c.prepareStatement(updateSql(shape)),
                        c.prepareStatement(insertSql(shape))}
                    : new PreparedStatement[] {null, null, c.prepareStatement(insertSql(shape))};
            prepared.put(shape, ps);
        }
        if (!shape.hasKey()) {
            // one row equal to each removed image, then the added images; equal rows are interchangeable
            for (Object[] image : rc.deletes()) deleteOne(shape, image);
            insertRows(ps[2], shape, rc.inserts());
            return;
        }
        if (safe || rc.replace()) {
            // an earlier fast attempt was rolled back, but be lenient
            deleteKeys(ps[0], shape, idempotent ? rc.everyKey() : rc.touchedKeys(), false);
            insertRows(ps[2], shape, rc.images());
            return;
        }
        // A row must be there to be deleted, or this secondary has diverged; except where the engine's triggers can
        // report rows as they were before a wait (Derby): a DELETE that waited for a writer who deleted the same row
        // fires for it, and ships its delete after the other one's.
        deleteKeys(ps[0], shape, rc.deletes(), !engine.triggerImagesMayBeStale());
        if (!rc.updates().isEmpty()) {
            if (shape.rowidColumn() != null) {
                updateKeepingRowids(shape, rc.updates());
            } else {
                PreparedStatement upd = ps[1];
                int[] order = updateOrder(shape);
                int batched = 0;
                for (Object[] row : rc.updates()) {
                    for (int i = 0; i < order.length; i++) io.macrodb.engine.Values.bind(upd, i + 1, row[order[i]]);
                    upd.addBatch();
                    if (++batched == BATCH_ROWS) {
                        checkCounts(executeBatch(upd, batched), shape, "updating");
                        batched = 0;
                    }
                }
                if (batched > 0) checkCounts(executeBatch(upd, batched), shape, "updating");
            }
        }
        insertRows(ps[2], shape, rc.inserts());
    }

    /** Per shape that replicates a rowid: its update of a row whose rowid stays ({@link #updateKeepingRowids}). */
    private final Map<TableShape, PreparedStatement> sameRowid = new IdentityHashMap<>();

    /**
     * The updates of a table whose rowid travels as a column ({@link TableShape#rowidColumn()}, SQLite):
     * each row is updated where its key still holds the image's rowid, without writing the rowid (SQLite
     * rewrites the row and every index entry of it when an UPDATE sets the rowid, even to the value it
     * has: about 3x the engine's work of a plain update); a row whose rowid the transaction moved (a
     * REPLACE that wrote its key again, {@code UPDATE ... SET rowid = ...}) then gets it set with the
     * rest. A move onto a rowid that another row of this change still holds fails on SQLite's rowid
     * constraint, and the applier applies the group the safe way.
     */
    private void updateKeepingRowids(TableShape shape, List<Object[]> rows) throws SQLException {
        PreparedStatement keep = sameRowid.get(shape);
        if (keep == null) {
            keep = c.prepareStatement(updateSameRowidSql(shape));
            sameRowid.put(shape, keep);
        }
        int[] order = updateSameRowidOrder(shape);
        for (Object[] row : rows) {
            for (int i = 0; i < order.length; i++) io.macrodb.engine.Values.bind(keep, i + 1, row[order[i]]);
            keep.addBatch();
        }
        int[] counts = executeBatch(keep, rows.size());
        PreparedStatement move = prepared.get(shape)[1];
        int[] order1 = updateOrder(shape);
        for (int r = 0; r < counts.length; r++) {
            if (counts[r] == 1) continue;
            if (counts[r] != 0) checkCounts(new int[] {counts[r]}, shape, "updating");
            Object[] row = rows.get(r);
            for (int i = 0; i < order1.length; i++) io.macrodb.engine.Values.bind(move, i + 1, row[order1[i]]);
            checkCounts(new int[] {move.executeUpdate()}, shape, "updating (and moving the rowid of)");
        }
    }

    /** Parameter order of {@link #updateSameRowidSql}: the columns but the key and the rowid, the key columns, the rowid. */
    private static int[] updateSameRowidOrder(TableShape t) {
        int[] all = updateOrder(t);
        int rowid = t.columns().size() - 1;
        int[] out = new int[all.length];
        int k = 0;
        for (int i : all) if (i != rowid) out[k++] = i;
        out[k] = rowid;
        return out;
    }

    /** {@code UPDATE t SET <columns but the key and the rowid> = ? WHERE <key> = ? AND <rowid> = ?}. */
    static String updateSameRowidSql(TableShape t) {
        int[] order = updateSameRowidOrder(t);
        int set = order.length - 1 - t.keyCount();
        StringBuilder sb = new StringBuilder("UPDATE ").append(t.qualifiedName()).append(" SET ");
        if (set == 0) {
            String k0 = TableShape.quote(t.columns().get(t.keyIndex(0)));
            sb.append(k0).append(" = ").append(k0);
        }
        for (int i = 0; i < set; i++) sb.append(i == 0 ? "" : ", ").append(TableShape.quote(t.columns().get(order[i]))).append(" = ?");
        sb.append(" WHERE ");
        for (int i = 0; i < t.keyCount(); i++) {
            sb.append(i == 0 ? "" : " AND ").append(TableShape.quote(t.columns().get(t.keyIndex(i)))).append(" = ?");
        }
        return sb.append(" AND ").append(t.rowidColumn()).append(" = ?").toString();
    }

    /** Per table without a key and pattern of NULL columns: its statement deleting one row equal to an image. */
    private final Map<TableShape, Map<java.util.BitSet, PreparedStatement>> deleteOne = new IdentityHashMap<>();

    /** Deletes one row equal to {@code image}, which must exist: otherwise this secondary has diverged. */
    private void deleteOne(TableShape shape, Object[] image) throws SQLException {
        java.util.BitSet nulls = new java.util.BitSet(image.length);
        for (int i = 0; i < image.length; i++) if (image[i] == null) nulls.set(i);
        Map<java.util.BitSet, PreparedStatement> byNulls = deleteOne.computeIfAbsent(shape, s -> new java.util.HashMap<>());
        PreparedStatement ps = byNulls.get(nulls);
        if (ps == null) {
            ps = c.prepareStatement(deleteOneSql(shape, nulls, engine));
            byNulls.put(nulls, ps);
        }
        int p = 1;
        for (Object v : image) if (v != null) io.macrodb.engine.Values.bind(ps, p++, v);
        checkCounts(new int[] {ps.executeUpdate()}, shape, "deleting");
        rowsWritten++;
    }

    /**
     * Deletes one row whose every replicated column equals the image's: {@link io.macrodb.engine.Engine#sameValueSql}
     * ({@code = ?}), or {@code IS NULL} where the image holds NULL (HSQLDB cannot type a parameter in {@code IS NOT
     * DISTINCT FROM ?}).
     */
    static String deleteOneSql(TableShape t, java.util.BitSet nulls, io.macrodb.engine.Engine engine) {
        StringBuilder sb = new StringBuilder();
        int p = 0;
        for (int i = 0; i < t.columns().size(); i++) {
            String col = TableShape.quote(t.columns().get(i));
            sb.append(i == 0 ? "" : " AND ").append(nulls.get(i) ? col + " IS NULL" : engine.sameValueSql(col, ++p));
        }
        return engine.deleteOneRowSql(t.qualifiedName(), sb.toString());
    }

    private void deleteKeys(PreparedStatement del, TableShape shape, java.util.List<Object[]> keys, boolean mustExist)
            throws SQLException {
        int batched = 0;
        for (Object[] key : keys) {
            for (int i = 0; i < key.length; i++) io.macrodb.engine.Values.bind(del, i + 1, key[i]);
            del.addBatch();
            if (++batched == BATCH_ROWS) {
                int[] counts = executeBatch(del, batched);
                if (mustExist) checkCounts(counts, shape, "deleting");
                batched = 0;
            }
        }
        if (batched > 0) {
            int[] counts = executeBatch(del, batched);
            if (mustExist) checkCounts(counts, shape, "deleting");
        }
    }

    private void insertRows(PreparedStatement ins, TableShape shape, java.util.List<Object[]> rows) throws SQLException {
        int n = shape.columns().size();
        int batched = 0;
        for (Object[] row : rows) {
            for (int i = 0; i < n; i++) io.macrodb.engine.Values.bind(ins, i + 1, row[i]);
            ins.addBatch();
            if (++batched == BATCH_ROWS) {
                checkCounts(executeBatch(ins, batched), shape, "inserting");
                batched = 0;
            }
        }
        if (batched > 0) checkCounts(executeBatch(ins, batched), shape, "inserting");
    }

    /** Exactly one row per image, or the secondary has diverged: fail the apply rather than go on. */
    private static void checkCounts(int[] counts, TableShape shape, String what) throws SQLException {
        for (int count : counts) {
            if (count != 1 && count != PreparedStatement.SUCCESS_NO_INFO) {
                throw new SQLException("MacroDB: " + what + " a row image of " + shape + " affected " + count
                        + " rows; this secondary no longer matches the primary", SqlState.INTERNAL_ERROR.getState());
            }
        }
    }

    /** Parameter order of {@link #updateSql}: the non-key columns, then the key columns. */
    private static int[] updateOrder(TableShape t) {
        int n = t.columns().size();
        int[] order = new int[n];
        int k = 0;
        java.util.Set<Integer> keys = new java.util.HashSet<>();
        for (int i = 0; i < t.keyCount(); i++) keys.add(t.keyIndex(i));
        for (int i = 0; i < n; i++) if (!keys.contains(i)) order[k++] = i;
        for (int i = 0; i < t.keyCount(); i++) order[k++] = t.keyIndex(i);
        return order;
    }

    static String updateSql(TableShape t) {
        StringBuilder sb = new StringBuilder("UPDATE ").append(t.qualifiedName()).append(" SET ");
        int[] order = updateOrder(t);
        int nonKey = t.columns().size() - t.keyCount();
        if (nonKey == 0) {
            // a key-only table: nothing to update; a no-op that still matches the row keeps counts uniform
            String k0 = TableShape.quote(t.columns().get(t.keyIndex(0)));
            sb.append(k0).append(" = ").append(k0);
        }
        for (int i = 0; i < nonKey; i++) {
            sb.append(i == 0 ? "" : ", ").append(TableShape.quote(t.columns().get(order[i]))).append(" = ?");
        }
        sb.append(" WHERE ");
        for (int i = 0; i < t.keyCount(); i++) {
            sb.append(i == 0 ? "" : " AND ").append(TableShape.quote(t.columns().get(t.keyIndex(i)))).append(" = ?");
        }
        return sb.toString();
    }

    /** Sequence positions are kept for a recovered or promoted primary; a secondary has nothing to do. */
    void apply(io.macrodb.log.SequencePositions ignored) {
    }

    void apply(StatementChange sc) throws SQLException {
        // the application's triggers are not carried here (ReplicaSet.changesOnlyATrigger): a change of them alone is not run
        if (sc.ddl() && withoutUserTriggers && ReplicaSet.changesOnlyATrigger(sc.sql())) return;
        if (sc.ddl()) {
            clear(); // shapes change; statements prepared against the old ones may be invalid
            engine.beforeSchemaChange(c);
        }
        if (sc.schema() != null && !sc.schema().equals(schema)) {
            engine.setSessionSchema(c, sc.schema());
            schema = sc.schema();
        }
        if (!zoneKnown || !java.util.Objects.equals(sc.zone(), zone)) setZone(sc.zone());
        try (PreparedStatement ps = c.prepareStatement(sc.ddl() ? engine.schemaChangeOnSecondary(sc.sql()) : sc.sql())) {
            Object[] p = sc.params();
            for (int i = 0; i < p.length; i++) io.macrodb.engine.Values.bind(ps, i + 1, p[i]);
            ps.execute();
        }
        if (sc.names() != null) engine.alignGeneratedNames(c, sc.names());
        // a transaction's schema change may have rows after it in this record: they arrive as images, as after a commit
        if (sc.ddl() && withoutUserTriggers && engine.schemaChangesAreTransactional()) engine.afterSchemaChangeInApply(c);
    }

    static String deleteSql(TableShape t) {
        StringBuilder sb = new StringBuilder("DELETE FROM ").append(t.qualifiedName()).append(" WHERE ");
        for (int i = 0; i < t.keyCount(); i++) {
            sb.append(i == 0 ? "" : " AND ").append(TableShape.quote(t.columns().get(t.keyIndex(i)))).append(" = ?");
        }
        return sb.toString();
    }

    static String insertSql(TableShape t) {
        StringBuilder sb = new StringBuilder("INSERT INTO ").append(t.qualifiedName()).append(" (");
        List<String> cols = t.columns();
        for (int i = 0; i < cols.size(); i++) sb.append(i == 0 ? "" : ", ").append(TableShape.quote(cols.get(i)));
        sb.append(')');
        if (t.alwaysIdentity()) sb.append(" OVERRIDING SYSTEM VALUE");
        sb.append(" VALUES (");
        for (int i = 0; i < cols.size(); i++) sb.append(i == 0 ? "?" : ", ?");
        return sb.append(')').toString();
    }

    /** Runs the statement with the primary session's time zone: its SET TIME ZONE, or back to the default. */
    private void setZone(String set) throws SQLException {
        String sql = set != null ? set : engine.timeZoneReset();
        if (sql != null) {
            try (java.sql.Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }
        zone = set;
        zoneKnown = true;
    }

    /** Forgets prepared statements and the schema (after a failed attempt, the session's state is unknown). */
    void clear() {
        schema = null;
        zoneKnown = false;
        for (PreparedStatement[] ps : prepared.values()) {
            for (PreparedStatement p : ps) {
                if (p == null) continue;
                try {
                    p.close();
                } catch (SQLException ignored) {
                    // the session may be broken already
                }
            }
        }
        prepared.clear();
        for (PreparedStatement p : sameRowid.values()) {
            try {
                p.close();
            } catch (SQLException ignored) {
                // the session may be broken already
            }
        }
        sameRowid.clear();
        for (Map<java.util.BitSet, PreparedStatement> byNulls : deleteOne.values()) {
            for (PreparedStatement p : byNulls.values()) {
                try {
                    p.close();
                } catch (SQLException ignored) {
                    // the session may be broken already
                }
            }
        }
        deleteOne.clear();
    }

    /** Leaves the session in its default time zone (recovery goes on using it) and forgets everything. */
    @Override public void close() {
        if (zoneKnown && zone != null) {
            try {
                setZone(null);
            } catch (SQLException ignored) {
                // the session is closing or broken
            }
        }
        clear();
    }
}
