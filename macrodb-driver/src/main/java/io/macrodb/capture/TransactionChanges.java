package io.macrodb.capture;

import io.macrodb.engine.CaptureContext;
import io.macrodb.engine.EngineTemporal;
import io.macrodb.engine.Values;
import io.macrodb.log.Propagation;
import io.macrodb.log.Change;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.log.RowKey;
import io.macrodb.log.TableShape;
import io.macrodb.replica.PendingChanges;
import io.macrodb.replica.StatementCache;
import io.macrodb.sql.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one update transaction has changed so far on the primary, kept in the order it happened so
 * that a savepoint or a failed statement can cut it back exactly ({@link #mark()} / {@link
 * #rollbackTo(int)}). In statement mode the connection records each successful write statement.
 *
 * <p>In row mode the capture triggers report each changed row: its keys, and the row as the
 * statement left it. At commit {@link #build} ships, per touched key, the image of the row as it
 * is at the end of the transaction. That is the image the last event of the key left (an AFTER ROW
 * trigger sees the row as stored, defaults, identities and BEFORE triggers' changes included) as long
 * as nothing can have changed it behind the events: then no query runs at commit. It reads the
 * final images back inside the still-open transaction instead when a statement failed (the engine
 * undid all or part of it, after its triggers fired), when the application has triggers of its own
 * (one could change the row again around MacroDB's), when a table has generated columns, or when a
 * value is of a type that a trigger hands over differently from a result set. A savepoint rollback
 * is exact either way: it cuts the events back to the savepoint. With {@code
 * -Dmacrodb.verifyTriggerImages=true} (the driver's tests run so) every build computes both and
 * fails if they differ. An engine whose isolation can fail ({@link
 * io.macrodb.engine.Engine#checksCaptureImages()}: H2) has every trusted image checked that way in
 * production: a difference means the engine changed a row behind this transaction's triggers, and
 * the commit fails with {@link io.macrodb.engine.EngineDiverged} instead of shipping an image the primary does not hold.
 *
 * <p>Two cases need more than the last event of a key:
 * <ul>
 *   <li><b>Keys that move within one statement</b> ({@code UPDATE t SET id = id + 1}, a swap, a MERGE
 *   that changes a key): the engine moves every row at once, but its triggers report the rows one
 *   by one, so an event can name as its old key a key that an earlier event of the same statement
 *   made new. The order of events then no longer tells which row a key held. Such a table is shipped
 *   in {@linkplain RowChanges#replace() replace form}: every touched key is removed and every final
 *   image, read back, inserted.</li>
 *   <li><b>Tables without a primary key</b>: a row is known by its values. The events add up to a
 *   multiset of images removed and added, which is exact whatever order the triggers fired in; a
 *   secondary removes one row equal to each removed image and inserts each added one.</li>
 * </ul>
 *
 * <p>Values travel in the engine's own representation: dates and times as java.time values (never
 * through java.sql.Date/Timestamp and the JVM's time zone, which shift dates before 1582 and local
 * times in a daylight-saving gap), binary values as byte arrays.
 */
public final class TransactionChanges extends CaptureContext implements PendingChanges {
    private final Propagation propagation;
    private final ShapeResolver shapes;
    private static final boolean VERIFY_IMAGES = Boolean.getBoolean("macrodb.verifyTriggerImages");
    /**
     * Built from the rows of the engine's own log ({@link #buildDecoded}): the images are the rows as the engine logged
     * them, and nothing is read back (the transaction is committed already).
     */
    private boolean decoded;
    /** {@link #decoded}: whether the old row of the event being recorded is whole (the table's replica identity is FULL). */
    private boolean wholeOldRow;
    private static final java.util.concurrent.atomic.LongAdder FROM_TRIGGERS = new java.util.concurrent.atomic.LongAdder();
    private static final java.util.concurrent.atomic.LongAdder READ_BACK = new java.util.concurrent.atomic.LongAdder();
    private static final java.util.concurrent.atomic.LongAdder DIVERGED = new java.util.concurrent.atomic.LongAdder();

    /** How many commits in this JVM found their engine's rows different from their triggers' images. */
    public static long divergences() { return DIVERGED.sum(); }

    /** How many table images commits in this JVM have taken from the triggers, and how many they read back. */
    public record ImageSources(long fromTriggers, long readBack) {}

    public static ImageSources imageSources() { return new ImageSources(FROM_TRIGGERS.sum(), READ_BACK.sum()); }

    private final ArrayList<Object> events = new ArrayList<>();
    /**
     * What the transaction shipped before its last schema change ({@link #schemaChanged}): its changes up to each
     * schema change, built in the schema they were made in, then the change itself; {@link #build} adds the rest.
     */
    private final List<Change> beforeSchemaChange = new ArrayList<>();
    /** The schema changes of the transaction (an engine whose DDL is transactional), in order. */
    private final List<StatementChange> schemaChanges = new ArrayList<>();
    /** How many events the schema changes took into {@link #beforeSchemaChange}: marks count from the transaction's start. */
    private int base;
    /**
     * Per schema change of the transaction: where in {@link #beforeSchemaChange} the rows before it go, and the shapes
     * they were made in. Used where the rows are known only after the commit ({@link #buildDecoded}).
     */
    private record Deferred(int at, ShapeResolver shapes) {}

    private final List<Deferred> deferred = new ArrayList<>();
    private boolean usesSequences;
    /** The tables with an identity column this transaction inserted into: their positions travel with the commit. */
    private final java.util.Map<String, TableShape> identityTables = new java.util.LinkedHashMap<>();
    /**
     * Whether the triggers' images may be trusted at all (no application triggers; false from a schema change of the
     * transaction that left some), and whether they still are.
     */
    private boolean trustImages;
    private final boolean ships;
    /** Whether trusted images are checked against the rows read back before they are shipped. */
    private final boolean checkImages;
    /** The engine's trigger images may be older than the rows: read every changed row back ({@link #build}). */
    private final boolean staleImages;
    private boolean imagesTrusted;
    /** The tables a failed statement of the transaction had changed rows of: the engine may have undone rows its triggers reported there. */
    private final java.util.Set<TableShape> failedStatementTables = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    /** Tables without a key that a failed statement changed rows of, with rowids: settled by rowid at commit ({@link #statementFailed}). */
    private final java.util.Set<TableShape> settledByRowid = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    /** Appended to the read-back query ({@link io.macrodb.engine.Engine#ownRowsReadSuffix()}). */
    private final String readBackSuffix;
    /** Composite keys are read back a chunk at a time ({@link io.macrodb.engine.Engine#rowValueListsUseKeyIndex()}). */
    private final boolean rowValueLists;
    /** Numbers the statements: {@link #mark()} starts a new one. */
    private int statement;
    private int statementStart;
    /** Index of the first event of a failed statement that touched a table without a key, or -1. */
    private int keylessUncertainAt = -1;
    private String keylessUncertainTable;

    /**
     * A key the transaction touched: its old key (update/delete), new key (insert/update) and the
     * new row's image in {@link TableShape#columns()} order (null for a delete, or when images are
     * not trusted).
     */
    private record RowEvent(TableShape shape, RowKey oldKey, RowKey newKey, Object[] image, int statement, Long oldRowid,
                            Long newRowid, boolean removable, Object[] oldImage) {
        RowEvent(TableShape shape, RowKey oldKey, RowKey newKey, Object[] image, int statement) {
            this(shape, oldKey, newKey, image, statement, null, null, false, null);
        }

        RowEvent(TableShape shape, RowKey oldKey, RowKey newKey, Object[] image, int statement, Long oldRowid, Long newRowid,
                 boolean removable) {
            this(shape, oldKey, newKey, image, statement, oldRowid, newRowid, removable, null);
        }
    }

    /**
     * @param trustImages whether the capture triggers' images may stand for the final rows (false
     *                    when the application has triggers of its own)
     */
    public TransactionChanges(Propagation propagation, ShapeResolver shapes, boolean trustImages) {
        this(propagation, shapes, trustImages, true);
    }

    /**
     * @param ships whether the changes are shipped at all: a database of one replica and no log
     *              ships to nobody, so its transactions record only that they changed something
     *              (its commits take a version all the same)
     */
    public TransactionChanges(Propagation propagation, ShapeResolver shapes, boolean trustImages, boolean ships) {
        this(propagation, shapes, trustImages, ships, false, "", false, false);
    }

    /**
     * @param engine      the primary's engine: what it appends to the query that reads the transaction's own changed
     *                    rows back ({@link io.macrodb.engine.Engine#ownRowsReadSuffix()}), whether it reads a list of
     *                    composite keys through the key's index ({@link io.macrodb.engine.Engine#rowValueListsUseKeyIndex()}),
     *                    and whether its trigger images can be older than the rows
     *                    ({@link io.macrodb.engine.Engine#triggerImagesMayBeStale()}: every changed row is then read back)
     * @param checkImages whether the engine's isolation can fail, so that every trusted image is
     *                    checked against the row read back before it is shipped
     *                    ({@link io.macrodb.engine.Engine#checksCaptureImages()})
     */
    public TransactionChanges(Propagation propagation, ShapeResolver shapes, boolean trustImages, boolean ships,
                              io.macrodb.engine.Engine engine, boolean checkImages) {
        this(propagation, shapes, trustImages, ships, checkImages, engine.ownRowsReadSuffix(), engine.rowValueListsUseKeyIndex(),
                engine.triggerImagesMayBeStale());
    }

    private TransactionChanges(Propagation propagation, ShapeResolver shapes, boolean trustImages, boolean ships, boolean checkImages,
                               String readBackSuffix, boolean rowValueLists, boolean staleImages) {
        this.checkImages = checkImages;
        this.readBackSuffix = readBackSuffix;
        this.rowValueLists = rowValueLists;
        this.staleImages = staleImages;
        this.propagation = propagation;
        this.shapes = shapes;
        this.ships = ships;
        this.trustImages = trustImages;
        this.imagesTrusted = trustImages;
    }

    /**
     * A statement of the transaction failed: the engine undid what it did (all of it, or, as SQLite's
     * {@code INSERT OR FAIL}, what came after the failure), after its triggers fired. A table with a key
     * is read back at commit. A table without one whose events carry rowids (SQLite) is settled by rowid
     * at commit: each row the transaction touched, as it was before and as it is now. Any other table
     * without a key cannot be read back (a row is known only by its values), so if the failed statement
     * changed one, the transaction cannot commit.
     */
    public void statementFailed() {
        imagesTrusted = false;
        for (int i = statementStart; i < events.size(); i++) {
            if (events.get(i) instanceof RowEvent ev) {
                failedStatementTables.add(ev.shape);
                if (!ev.shape.hasKey() && carriesRowids(ev)) settledByRowid.add(ev.shape);
            }
        }
        if (keylessUncertainAt >= 0) return;
        for (int i = statementStart; i < events.size(); i++) {
            if (events.get(i) instanceof RowEvent ev && !ev.shape.hasKey() && !ev.removable && !carriesRowids(ev)) {
                keylessUncertainAt = i;
                keylessUncertainTable = ev.shape.toString();
                return;
            }
        }
    }

    /** Whether a keyless table's event names the rowid of every row it reports. */
    private static boolean carriesRowids(RowEvent ev) {
        return (ev.oldKey == null || ev.oldRowid != null) && (ev.newKey == null || ev.newRowid != null);
    }

    @Override public void onRow(String schema, String table, Object[] oldRow, Object[] newRow) throws SQLException {
        onRow(schema, table, oldRow, newRow, null, null);
    }

    /**
     * A row of a table without a key that the engine knows by a rowid (SQLite): the rowids let
     * {@link #build} settle the rows {@link #onRemovable} reported, by reading them back.
     */
    @Override public void onRow(String schema, String table, Object[] oldRow, Object[] newRow, Long oldRowid, Long newRowid)
            throws SQLException {
        if (propagation == Propagation.STATEMENT) return; // the statement itself is what gets shipped
        TableShape shape = shapes.shape(schema, table);
        if (shape == null) {
            throw new SQLException("MacroDB: no replicated shape for " + schema + "." + table, SqlState.INTERNAL_ERROR.getState());
        }
        if (!shape.volatileDefaults().isEmpty()) usesSequences = true; // a default may draw from a sequence
        if (oldRow == null && shape.identityColumn() != null) identityTables.putIfAbsent(shape.qualifiedName(), shape);
        if (!ships) {
            events.add(NOT_SHIPPED); // nobody reads the changes: only that there are some counts
            return;
        }
        if (!shape.hasKey()) {
            // a row is known by its values: the images are all there is, so they must be exact
            Object[] before = oldRow == null ? null : keylessImage(shape, oldRow);
            Object[] after = newRow == null ? null : keylessImage(shape, newRow);
            events.add(new RowEvent(shape, before == null ? null : new RowKey(before), after == null ? null : new RowKey(after), after,
                    statement, oldRowid, newRowid, false));
            return;
        }
        Object[] image = null;
        if (imagesTrusted && newRow != null) {
            image = decoded ? loggedImage(shape, newRow) : image(shape, newRow);
            if (image == null) imagesTrusted = false;
        }
        // from the engine's log, a whole old row says which of two rows briefly holding one key a removal names
        Object[] oldImage = decoded && wholeOldRow && oldRow != null ? loggedImage(shape, oldRow) : null;
        events.add(new RowEvent(shape, oldRow == null ? null : key(shape, oldRow), newRow == null ? null : key(shape, newRow), image,
                statement, null, null, false, oldImage));
    }

    /**
     * A row the running statement may remove unseen (SQLite's REPLACE with {@code recursive_triggers}
     * off): recorded as touched, so that {@link #build} reads it back and ships it as it is at commit,
     * gone or not. Its key counts as one that existed before (it held a row when reported). A table
     * with a key is read back by key, which the triggers' images no longer stand for; a table without
     * one by rowid ({@code rowid}), its rows shipped as the images they had and have.
     */
    @Override public void onRemovable(String schema, String table, Object[] row, Long rowid) throws SQLException {
        if (propagation == Propagation.STATEMENT || !ships) return;
        TableShape shape = shapes.shape(schema, table);
        if (shape == null) {
            throw new SQLException("MacroDB: no replicated shape for " + schema + "." + table, SqlState.INTERNAL_ERROR.getState());
        }
        if (shape.hasKey()) {
            events.add(new RowEvent(shape, key(shape, row), null, null, statement, null, null, true));
            imagesTrusted = false;
            return;
        }
        if (rowid == null) {
            throw new SQLException("MacroDB: a row of " + shape + ", a table without a key, was reported without its rowid",
                    SqlState.INTERNAL_ERROR.getState());
        }
        events.add(new RowEvent(shape, new RowKey(keylessImage(shape, row)), null, null, statement, rowid, null, true));
    }

    /** What stands for a value that a trigger hands over in a form MacroDB cannot ship as it is. */
    private static final Object UNSUPPORTED = new Object();

    /**
     * The row a trigger saw as MacroDB ships it (the replicated columns, in the engine's own
     * representation), or null when it cannot stand for the row read back: a value is of a type that
     * a trigger hands over differently from a result set (arrays, JSON, intervals, objects, LOBs).
     */
    private static Object[] image(TableShape shape, Object[] row) throws SQLException {
        if (row.length != shape.ordinalCount()) return null;
        Object[] out = new Object[shape.columns().size()];
        for (int i = 0; i < out.length; i++) {
            Object v = portable(shape.columnType(i), row[shape.columnOrdinal(i)]);
            if (v == UNSUPPORTED) return null;
            out[i] = v;
        }
        return out;
    }

    /**
     * The image of a row from the engine's own log ({@link #decoded}): exact whatever its types, read as a read of the
     * engine reads them (a value no trigger could hand over, an array or a JSON document, included).
     */
    private static Object[] loggedImage(TableShape shape, Object[] row) throws SQLException {
        Object[] out = new Object[shape.columns().size()];
        for (int i = 0; i < out.length; i++) out[i] = Values.detach(row[shape.columnOrdinal(i)]);
        return out;
    }

    /** The image of a row of a table without a key: exact, or the write is refused. */
    private static Object[] keylessImage(TableShape shape, Object[] row) throws SQLException {
        if (row.length != shape.ordinalCount()) {
            throw new SQLException("MacroDB: a trigger saw " + row.length + " columns of " + shape + ", which has "
                    + shape.ordinalCount() + "; reconnect so that MacroDB reads the table's shape again", SqlState.INTERNAL_ERROR.getState());
        }
        Object[] out = new Object[shape.columns().size()];
        for (int i = 0; i < out.length; i++) {
            int type = shape.columnType(i);
            Object v = portable(type, row[shape.columnOrdinal(i)]);
            if (v == UNSUPPORTED || type == java.sql.Types.BLOB || type == java.sql.Types.CLOB || type == java.sql.Types.NCLOB
                    || v instanceof Object[] || v instanceof Double d && d.isNaN() || v instanceof Float f && f.isNaN()) {
                throw new SQLException("MacroDB: table " + shape + " has no primary key, so row propagation knows a row by"
                        + " its values, and column " + shape.columns().get(i) + " holds a value it cannot compare exactly ("
                        + (v == UNSUPPORTED || v == null ? "type " + type : v.getClass().getSimpleName()) + "). Add a primary key"
                        + " (ALTER TABLE " + shape.qualifiedName() + " ADD PRIMARY KEY (...)) or connect with propagation=statement",
                        SqlState.STATEMENT_NOT_REPLICABLE.getState());
            }
            out[i] = v;
        }
        return out;
    }

    /**
     * A value as it is shipped: LOB handles detached, HSQLDB's internal dates and times turned into
     * the java.time value of the column's type; {@link #UNSUPPORTED} for what is not a plain value.
     */
    private static Object portable(int type, Object raw) throws SQLException {
        Object v = Values.detach(raw);
        if (v instanceof EngineTemporal t) return temporal(type, t);
        if (v instanceof java.sql.Timestamp || v instanceof java.sql.Date || v instanceof java.sql.Time) {
            return UNSUPPORTED; // zone-dependent: read the row back as java.time instead
        }
        return isPlain(v) ? v : UNSUPPORTED;
    }

    /**
     * HSQLDB keeps a date or timestamp as seconds since 1970-01-01T00:00 (UTC for the WITH TIME ZONE
     * types, local otherwise), counted as java.time counts them; its {@code setObject} takes java.time
     * values the same way, so these values land on a secondary as the very same seconds.
     */
    private static Object temporal(int type, EngineTemporal t) {
        switch (type) {
            case java.sql.Types.DATE:
                return java.time.LocalDate.ofEpochDay(Math.floorDiv(t.seconds(), 86_400L));
            case java.sql.Types.TIMESTAMP:
                return java.time.LocalDateTime.ofEpochSecond(t.seconds(), t.nanos(), java.time.ZoneOffset.UTC);
            case java.sql.Types.TIMESTAMP_WITH_TIMEZONE:
                return java.time.OffsetDateTime.ofInstant(java.time.Instant.ofEpochSecond(t.seconds(), t.nanos()),
                        java.time.ZoneOffset.ofTotalSeconds(t.zoneSeconds()));
            case java.sql.Types.TIME:
                return t.time() && t.zoneSeconds() == 0
                        ? java.time.LocalTime.ofNanoOfDay(Math.floorMod(t.seconds(), 86_400L) * 1_000_000_000L + t.nanos())
                        : UNSUPPORTED;
            default:
                return UNSUPPORTED; // TIME WITH TIME ZONE and anything unforeseen: read back
        }
    }

    private static boolean isPlain(Object v) {
        return v == null || v instanceof String || v instanceof Integer || v instanceof Long || v instanceof java.math.BigDecimal
                || v instanceof Boolean || v instanceof Double || v instanceof Short || v instanceof Byte || v instanceof Float
                || v instanceof java.math.BigInteger || v instanceof byte[] || v instanceof java.util.UUID
                || v instanceof java.time.LocalDate || v instanceof java.time.LocalDateTime || v instanceof java.time.LocalTime
                || v instanceof java.time.OffsetDateTime || v instanceof java.time.OffsetTime;
    }

    private static RowKey key(TableShape shape, Object[] row) throws SQLException {
        Object[] k = new Object[shape.keyCount()];
        for (int i = 0; i < k.length; i++) {
            Object raw = row[shape.keyOrdinal(i)];
            Object v = portable(shape.columnType(shape.keyIndex(i)), raw);
            if (v == UNSUPPORTED) {
                throw new SQLException("MacroDB: the primary key of " + shape + " has a column type that row capture"
                        + " cannot read from a trigger (" + raw.getClass().getSimpleName() + "); use an integer,"
                        + " character, decimal, boolean, binary, date or timestamp key, or propagation=statement", SqlState.STATEMENT_NOT_REPLICABLE.getState());
            }
            k[i] = v;
        }
        return new RowKey(k);
    }

    /** Records a statement to replay (statement mode writes). */
    public void addStatement(StatementChange change) {
        events.add(change);
    }

    /** The transaction may have drawn from a sequence: its commit records the sequences' positions. */
    public void noteSequences() { usesSequences = true; }

    public boolean usesSequences() { return usesSequences; }

    @Override public boolean insertsIdentities() { return !identityTables.isEmpty(); }

    @Override public java.util.Collection<TableShape> identityTables() { return java.util.List.copyOf(identityTables.values()); }

    /**
     * A position to roll back to: before a statement runs, or at a savepoint. It also starts a new
     * statement: the events that follow, up to the next mark, are one statement's.
     */
    public int mark() {
        statement++;
        statementStart = events.size();
        return base + statementStart;
    }

    /**
     * Whether {@link #rollbackTo} can go back to {@code mark}: not to one taken before a schema change of the
     * transaction, whose changes up to it were built then, in the schema they were made in.
     */
    public boolean canRollBackTo(int mark) { return mark >= base; }

    /**
     * Forgets everything recorded after {@code mark}.
     *
     * @throws IllegalStateException if the mark was taken before a schema change of the transaction ({@link #canRollBackTo})
     */
    public void rollbackTo(int mark) {
        if (!canRollBackTo(mark)) throw new IllegalStateException("MacroDB: mark " + mark + " is before a schema change of the transaction");
        int at = mark - base;
        if (at < events.size()) events.subList(at, events.size()).clear();
        if (keylessUncertainAt >= at) keylessUncertainAt = -1;
        statementStart = Math.min(statementStart, events.size());
    }

    public boolean isEmpty() { return events.isEmpty() && schemaChanges.isEmpty(); }

    /** What {@link #beforeSchemaChange} set aside, for {@link #schemaChangeFailed} to put back. */
    private record SetAside(int built, List<Object> events, boolean imagesTrusted, List<TableShape> failedStatementTables,
                            List<TableShape> settledByRowid, int keylessUncertainAt, String keylessUncertainTable,
                            int statementStart) {}

    private SetAside setAside;

    /**
     * A schema change is about to run inside the transaction (an engine whose DDL is transactional): the changes so far
     * are built now, in the schema they were made in, read inside the open transaction on {@code c}, and kept to ship
     * before it. The events start afresh; sequences and identity tables noted so far stay noted. Once the change has
     * run ({@link #schemaChanged}), a mark taken before this can no longer be rolled back to ({@link #canRollBackTo});
     * if it fails ({@link #schemaChangeFailed}), all is as it was. In a database that ships nothing, nothing is built.
     */
    public void beforeSchemaChange(Connection c, StatementCache cache) throws SQLException {
        beforeSchemaChange(c, cache, shapes);
    }

    /**
     * {@link #beforeSchemaChange(Connection, StatementCache)}, with the shapes the transaction's rows so far were made
     * in ({@code shapesSoFar}: they stay as they are until the commit), for rows known only after the commit
     * ({@link #buildDecoded}).
     */
    public void beforeSchemaChange(Connection c, StatementCache cache, ShapeResolver shapesSoFar) throws SQLException {
        int built = beforeSchemaChange.size();
        if (ships && !events.isEmpty()) beforeSchemaChange.addAll(buildSegment(c, cache));
        setAside = new SetAside(built, List.copyOf(events), imagesTrusted, List.copyOf(failedStatementTables),
                List.copyOf(settledByRowid), keylessUncertainAt, keylessUncertainTable, statementStart);
        deferred.add(new Deferred(beforeSchemaChange.size(), shapesSoFar));
        // one more than the events: a mark taken before this is refused even where no event was recorded (rows that
        // come from the engine's log after the commit), since the schema change cannot be rolled back out of the record
        base += events.size() + 1;
        events.clear();
        imagesTrusted = trustImages;
        failedStatementTables.clear();
        settledByRowid.clear();
        keylessUncertainAt = -1;
        keylessUncertainTable = null;
        statementStart = 0;
    }

    /**
     * The schema change {@code change} ran inside the transaction, after {@link #beforeSchemaChange}: it is shipped
     * there, with {@code computed}, the rows it computed on the primary that the secondaries take instead of computing
     * their own (null: none). With {@code applicationTriggers} (the schema now has triggers of the application's own)
     * the capture triggers' images are no longer trusted for the rest of the transaction.
     */
    public void schemaChanged(StatementChange change, List<Change> computed, boolean applicationTriggers) {
        setAside = null;
        schemaChanges.add(change);
        if (ships) {
            beforeSchemaChange.add(change);
            if (computed != null) beforeSchemaChange.addAll(computed);
        }
        if (applicationTriggers) {
            trustImages = false;
            imagesTrusted = false;
        }
    }

    /**
     * The schema change after {@link #beforeSchemaChange} failed, and the engine is back where it was before it (an
     * engine savepoint): the changes built for it are dropped and the events put back, so that a savepoint set before
     * it can still be rolled back to. Nothing was recorded since: the statement ran without capture.
     */
    public void schemaChangeFailed() {
        SetAside a = setAside;
        if (a == null) return;
        setAside = null;
        beforeSchemaChange.subList(a.built(), beforeSchemaChange.size()).clear();
        deferred.remove(deferred.size() - 1);
        base -= a.events().size() + 1;
        events.clear();
        events.addAll(a.events());
        imagesTrusted = a.imagesTrusted();
        failedStatementTables.clear();
        failedStatementTables.addAll(a.failedStatementTables());
        settledByRowid.clear();
        settledByRowid.addAll(a.settledByRowid());
        keylessUncertainAt = a.keylessUncertainAt();
        keylessUncertainTable = a.keylessUncertainTable();
        statementStart = a.statementStart();
    }

    /** The schema changes that ran inside the transaction, in order. */
    @Override public List<StatementChange> schemaChanges() { return schemaChanges.isEmpty() ? List.of() : List.copyOf(schemaChanges); }

    /** What the events say of one table, as {@link #build} goes through them. */
    private static final class TableEvents {
        /** Per touched key: whether it existed before the transaction (its first event was not an insert). */
        final LinkedHashMap<RowKey, Boolean> existed = new LinkedHashMap<>();
        /** With trusted images: the row each key holds after the events so far ({@link #ABSENT}: none). */
        final Map<RowKey, Object[]> rows = new java.util.HashMap<>();
        /**
         * Rows from the engine's log with whole old rows ({@link #decoded}): per key, the images the transaction put there
         * and still holds, in order. A key holds two rows for a moment where the primary key is deferrable; a removal
         * names its row by its whole old image, and one the transaction did not put there existed before it.
         */
        Map<RowKey, List<Object[]>> held;
        /** Keys that events of the current statement made new. */
        final java.util.Set<RowKey> newInStatement = new java.util.HashSet<>();
        int statement = -1;
        /** A statement moved a key onto a key an earlier event of it had vacated or filled: ship in replace form. */
        boolean moved;
        /** A table without a key: how many rows of each image the transaction added (negative: removed). */
        final LinkedHashMap<RowKey, int[]> delta = new LinkedHashMap<>();
        /**
         * A table without a key whose events carry rowids: per rowid, the row it held before its first
         * event ({@link #ABSENT}: none). Used where a row may have been removed unseen ({@link #byRowid}).
         */
        final LinkedHashMap<Long, Object[]> before = new LinkedHashMap<>();
        /** Whether every event of the table carried rowids. */
        boolean rowids = true;
        /** A row reported removable: the table's change is what its rows were and are, by rowid. */
        boolean byRowid;
    }

    /**
     * The changes to ship, computed inside the open transaction on the primary session {@code c}.
     * Row mode, per table (first-touched first): the final image of every touched row that exists
     * now, split by whether its key existed before the transaction, and the keys that existed before
     * and exist no more; or the replace form, or for a table without a key the images removed and added.
     */
    public List<Change> build(Connection c, StatementCache cache) throws SQLException {
        if (!ships) throw new IllegalStateException("MacroDB: the changes of a database that ships none were not recorded");
        if (beforeSchemaChange.isEmpty()) return buildSegment(c, cache);
        List<Change> out = new ArrayList<>(beforeSchemaChange);
        out.addAll(buildSegment(c, cache));
        return out;
    }

    @Override public List<Change> buildDecoded(List<List<io.macrodb.engine.CommitDecoding.Row>> segments) throws SQLException {
        if (!ships) throw new IllegalStateException("MacroDB: the changes of a database that ships none were not recorded");
        if (segments.size() != deferred.size() + 1) {
            throw new SQLException("MacroDB: the engine's log gave " + segments.size() + " part(s) of a transaction with "
                    + deferred.size() + " schema change(s)", SqlState.INTERNAL_ERROR.getState());
        }
        List<Change> out = new ArrayList<>();
        int from = 0;
        for (int k = 0; k < deferred.size(); k++) {
            Deferred d = deferred.get(k);
            out.addAll(beforeSchemaChange.subList(from, d.at()));
            out.addAll(decodedSegment(segments.get(k), d.shapes()));
            from = d.at();
        }
        out.addAll(beforeSchemaChange.subList(from, beforeSchemaChange.size()));
        out.addAll(decodedSegment(segments.get(deferred.size()), shapes));
        return out;
    }

    /**
     * The changes of one part of a decoded transaction, in the shapes {@code resolver} gives. Each row is a statement
     * of its own: the log's rows come in the order the engine changed them, and an old key names the row that key held
     * just before (a key held twice at once, which only a deferrable key allows, is refused by capture).
     */
    private List<Change> decodedSegment(List<io.macrodb.engine.CommitDecoding.Row> rows, ShapeResolver resolver) throws SQLException {
        if (rows.isEmpty()) return List.of();
        TransactionChanges part = new TransactionChanges(propagation, resolver, true, true, false, "", false, false);
        part.decoded = true;
        IdentityHashMap<String[], int[]> positions = new IdentityHashMap<>();
        for (io.macrodb.engine.CommitDecoding.Row r : rows) {
            TableShape shape = resolver.shape(r.schema(), r.table());
            if (shape == null) {
                throw new SQLException("MacroDB: no replicated shape for " + r.schema() + "." + r.table() + ", changed in the engine's log",
                        SqlState.INTERNAL_ERROR.getState());
            }
            int[] at = positions.get(r.columns());
            if (at == null || at.length != shape.ordinalCount()) {
                at = ordinals(shape, r.columns());
                positions.put(r.columns(), at);
            }
            part.statement++;
            part.wholeOldRow = r.oldRowWhole();
            part.onRow(r.schema(), r.table(), decodedRow(shape, at, r.oldValues()), decodedRow(shape, at, r.newValues()));
        }
        if (part.usesSequences) usesSequences = true;
        for (Map.Entry<String, TableShape> e : part.identityTables.entrySet()) identityTables.putIfAbsent(e.getKey(), e.getValue());
        return part.buildSegment(null, null);
    }

    /** Per ordinal of {@code shape}: the position of its column among the log's {@code columns} (-1: not replicated). */
    private static int[] ordinals(TableShape shape, String[] columns) throws SQLException {
        int[] at = new int[shape.ordinalCount()];
        Arrays.fill(at, -1);
        Map<String, Integer> byName = new java.util.HashMap<>();
        for (int j = 0; j < columns.length; j++) byName.put(columns[j], j);
        for (int i = 0; i < shape.columns().size(); i++) {
            Integer j = byName.remove(shape.columns().get(i));
            if (j == null) {
                throw new SQLException("MacroDB: the engine's log has no column " + shape.columns().get(i) + " of " + shape
                        + " (it has " + Arrays.toString(columns) + ")", SqlState.INTERNAL_ERROR.getState());
            }
            at[shape.columnOrdinal(i)] = j;
        }
        if (!byName.isEmpty()) {
            throw new SQLException("MacroDB: the engine's log has columns " + byName.keySet() + " of " + shape + " that it does not"
                    + " replicate", SqlState.INTERNAL_ERROR.getState());
        }
        return at;
    }

    private static Object[] decodedRow(TableShape shape, int[] at, Object[] values) {
        if (values == null) return null;
        Object[] row = new Object[at.length];
        for (int i = 0; i < at.length; i++) if (at[i] >= 0) row[i] = values[at[i]];
        return row;
    }

    /** {@link #build} of the events since the transaction's last schema change (all of them, if it made none). */
    private List<Change> buildSegment(Connection c, StatementCache cache) throws SQLException {
        List<Change> out = new ArrayList<>();
        if (propagation == Propagation.STATEMENT) {
            for (Object e : events) out.add((StatementChange) e);
            return out;
        }
        if (keylessUncertainAt >= 0) {
            throw new SQLException("MacroDB: a statement of this transaction failed after changing rows of " + keylessUncertainTable
                    + ", a table without a primary key, and the engine may have undone only part of it; MacroDB cannot tell"
                    + " which of those rows remain, so the transaction cannot commit. Roll it back and run it again (or roll"
                    + " back to a savepoint taken before the failed statement)", SqlState.SERIALIZATION_FAILURE.getState());
        }
        Map<TableShape, TableEvents> touched = new IdentityHashMap<>();
        List<TableShape> order = new ArrayList<>();
        for (Object e : events) {
            RowEvent ev = (RowEvent) e;
            TableEvents t = touched.get(ev.shape);
            if (t == null) {
                t = new TableEvents();
                touched.put(ev.shape, t);
                order.add(ev.shape);
            }
            if (!ev.shape.hasKey()) {
                if (ev.removable) {
                    t.byRowid = true;
                    t.before.putIfAbsent(ev.oldRowid, ev.oldKey.values());
                    continue;
                }
                if (ev.oldKey != null && ev.oldRowid == null || ev.newKey != null && ev.newRowid == null) t.rowids = false;
                if (ev.oldRowid != null) t.before.putIfAbsent(ev.oldRowid, ev.oldKey.values());
                if (ev.newRowid != null) t.before.putIfAbsent(ev.newRowid, ABSENT);
                if (ev.oldKey != null) t.delta.computeIfAbsent(ev.oldKey, k -> new int[1])[0]--;
                if (ev.newKey != null) t.delta.computeIfAbsent(ev.newKey, k -> new int[1])[0]++;
                continue;
            }
            if (decoded) {
                heldByLoggedRows(t, ev);
                continue;
            }
            if (ev.statement != t.statement) {
                t.statement = ev.statement;
                t.newInStatement.clear();
            }
            if (ev.oldKey != null) {
                // an update that keeps its key moves nothing, even where that key was made new earlier: a row updated
                // again (PostgreSQL's trigger capture hands a transaction's events over at commit, as one statement)
                if (!ev.oldKey.equals(ev.newKey) && t.newInStatement.contains(ev.oldKey)) t.moved = true;
                t.existed.putIfAbsent(ev.oldKey, Boolean.TRUE);
                t.rows.put(ev.oldKey, ABSENT);
            }
            if (ev.newKey != null) {
                t.newInStatement.add(ev.newKey);
                t.existed.putIfAbsent(ev.newKey, Boolean.FALSE);
                t.rows.put(ev.newKey, ev.image);
            }
        }
        for (TableShape shape : order) {
            TableEvents t = touched.get(shape);
            if (t.held != null) settleHeld(shape, t);
            if (!shape.hasKey()) {
                List<Object[]> removed = new ArrayList<>();
                List<Object[]> added = new ArrayList<>();
                if (t.byRowid || settledByRowid.contains(shape)) {
                    if (!t.rowids) {
                        throw new SQLException("MacroDB: a row of " + shape + " may have been removed unseen, or changed by a"
                                + " statement that failed, and some of its changes came without rowids", SqlState.INTERNAL_ERROR.getState());
                    }
                    netByRowid(c, cache, shape, t, removed, added);
                    if (!removed.isEmpty() || !added.isEmpty()) out.add(new RowChanges(shape, removed, List.of(), added));
                    continue;
                }
                for (Map.Entry<RowKey, int[]> d : t.delta.entrySet()) {
                    int n = d.getValue()[0];
                    for (int i = 0; i < Math.abs(n); i++) (n < 0 ? removed : added).add(d.getKey().values());
                }
                if (!removed.isEmpty() || !added.isEmpty()) out.add(new RowChanges(shape, removed, List.of(), added));
                continue;
            }
            List<Object[]> images;
            if (!imagesTrusted || t.moved || staleImages) {
                images = readImages(c, cache, shape, t.existed.keySet(), readBackSuffix, rowValueLists);
                READ_BACK.increment();
                // Derby's key-only triggers pass no images (imagesTrusted is false for them), but the keys they report
                // must still be the rows: unless a failed statement changed rows of the table (the engine undid rows its
                // triggers reported), a key reported present must be read back present and one reported absent, absent
                if (staleImages && trustImages && !failedStatementTables.contains(shape) && !t.moved) checkSameRows(shape, t, images);
                images = oneRowPerKey(shape, images);
            } else {
                FROM_TRIGGERS.increment();
                images = new ArrayList<>(t.existed.size());
                for (RowKey k : t.existed.keySet()) {
                    Object[] row = t.rows.get(k);
                    if (row != ABSENT) images.add(row);
                }
                if (!decoded && (checkImages || VERIFY_IMAGES)) {
                    try {
                        verify(shape, images, readImages(c, cache, shape, t.existed.keySet(), readBackSuffix, rowValueLists), checkImages);
                    } catch (io.macrodb.engine.EngineDiverged | IllegalStateException e) {
                        // what the triggers reported, in order, for whoever explains it
                        StringBuilder sb = new StringBuilder(e.getMessage()).append(" [events of ").append(shape).append(':');
                        for (Object o : events) {
                            if (o instanceof RowEvent ev && ev.shape == shape) {
                                sb.append(" s").append(ev.statement).append(' ').append(ev.oldKey == null ? "-" : Arrays.deepToString(ev.oldKey.values()))
                                        .append("->").append(ev.newKey == null ? "-" : Arrays.deepToString(ev.image));
                            }
                        }
                        sb.append(']');
                        if (e instanceof io.macrodb.engine.EngineDiverged) throw new io.macrodb.engine.EngineDiverged(sb.toString());
                        throw new IllegalStateException(sb.toString());
                    }
                }
            }
            if (t.moved) {
                // which key held which row before is unknown: remove every touched key, insert every final image
                List<Object[]> keys = new ArrayList<>(t.existed.size());
                for (RowKey k : t.existed.keySet()) keys.add(k.values());
                out.add(RowChanges.replace(shape, keys, images));
                continue;
            }
            List<Object[]> updates = new ArrayList<>();
            List<Object[]> inserts = new ArrayList<>();
            java.util.Set<RowKey> present = new java.util.HashSet<>();
            for (Object[] row : images) {
                RowKey key = RowKey.of(shape, row);
                present.add(key);
                if (Boolean.TRUE.equals(t.existed.get(key))) updates.add(row);
                else inserts.add(row);
            }
            List<Object[]> deletes = new ArrayList<>();
            for (Map.Entry<RowKey, Boolean> k : t.existed.entrySet()) {
                if (k.getValue() && !present.contains(k.getKey())) deletes.add(k.getKey().values());
            }
            if (!deletes.isEmpty() || !updates.isEmpty() || !inserts.isEmpty()) {
                out.add(new RowChanges(shape, deletes, updates, inserts));
            }
        }
        return out;
    }

    /** One event of the engine's log ({@link TableEvents#held}), in the order the engine logged it. */
    private static void heldByLoggedRows(TableEvents t, RowEvent ev) {
        if (t.held == null) t.held = new java.util.HashMap<>();
        if (ev.oldKey != null) {
            List<Object[]> held = t.held.computeIfAbsent(ev.oldKey, k -> new ArrayList<>(1));
            int at = -1;
            if (ev.oldImage != null) {
                for (int i = 0; i < held.size() && at < 0; i++) if (Arrays.deepEquals(held.get(i), ev.oldImage)) at = i;
            }
            if (ev.oldImage == null) {
                held.clear(); // the old row's key only: the row that key holds
                t.existed.putIfAbsent(ev.oldKey, Boolean.TRUE);
            } else if (at >= 0) {
                held.remove(at);
                t.existed.putIfAbsent(ev.oldKey, Boolean.TRUE);
            } else {
                t.existed.put(ev.oldKey, Boolean.TRUE); // a row the transaction had not put there: it was there before
            }
        }
        if (ev.newKey != null) {
            t.existed.putIfAbsent(ev.newKey, Boolean.FALSE);
            t.held.computeIfAbsent(ev.newKey, k -> new ArrayList<>(1)).add(ev.image);
        }
    }

    /** The final image of each key {@link TableEvents#held} names: at most one row per key once the transaction committed. */
    private static void settleHeld(TableShape shape, TableEvents t) throws SQLException {
        for (Map.Entry<RowKey, List<Object[]>> e : t.held.entrySet()) {
            List<Object[]> held = e.getValue();
            if (held.size() > 1) {
                throw new SQLException("MacroDB: the engine's log leaves " + held.size() + " rows with key " + e.getKey() + " in "
                        + shape + " at commit", SqlState.INTERNAL_ERROR.getState());
            }
            t.rows.put(e.getKey(), held.isEmpty() ? ABSENT : held.get(0));
        }
    }

    private static final Object[] ABSENT = new Object[0];
    private static final Object NOT_SHIPPED = new Object();

    /**
     * The triggers' final images must be the rows read back, as multisets by key. Where the engine's
     * isolation is known to fail ({@code engineMayDiverge}) a difference is the engine's: {@link
     * io.macrodb.engine.EngineDiverged}. Elsewhere (test mode, {@code -Dmacrodb.verifyTriggerImages=true}) it is
     * MacroDB's own bug: {@link IllegalStateException}. A
     * {@code CHAR(n)} value is compared without its trailing spaces: an engine may store it unpadded,
     * hand the trigger that, and pad it only in result sets (H2 in PostgreSQL mode), the same value.
     */
    private static void verify(TableShape shape, List<Object[]> fromTriggers, List<Object[]> readBack, boolean engineMayDiverge)
            throws io.macrodb.engine.EngineDiverged {
        Map<RowKey, Object[]> back = new java.util.HashMap<>();
        for (Object[] row : readBack) {
            Object[] r = unpadded(shape, row);
            back.put(RowKey.of(shape, r), r);
        }
        boolean same = back.size() == fromTriggers.size();
        for (Object[] image : fromTriggers) {
            Object[] row = unpadded(shape, image);
            Object[] other = back.get(RowKey.of(shape, row));
            if (!same || other == null || !new RowKey(row).equals(new RowKey(other))) {
                same = false;
                break;
            }
        }
        if (!same) {
            StringBuilder sb = new StringBuilder("MacroDB: the capture triggers' final images of " + shape + " differ from the rows read back;"
                    + " triggers:");
            for (Object[] row : fromTriggers) sb.append(' ').append(Arrays.deepToString(row));
            sb.append("; read back:");
            for (Object[] row : readBack) sb.append(' ').append(Arrays.deepToString(row));
            if (engineMayDiverge) {
                DIVERGED.increment();
                throw new io.macrodb.engine.EngineDiverged(sb + ". No statement of the transaction failed, so the engine changed those rows"
                        + " behind it (an isolation failure of the engine); nothing was committed, and the primary is replaced"
                        + " by a secondary. Retry the transaction");
            }
            throw new IllegalStateException(sb.toString());
        }
    }

    /** {@code row} with the trailing spaces of its {@code CHAR} values removed (a copy where any changed). */
    private static Object[] unpadded(TableShape shape, Object[] row) {
        Object[] out = row;
        for (int i = 0; i < row.length && i < shape.columns().size(); i++) {
            if (shape.columnType(i) == java.sql.Types.CHAR && row[i] instanceof String v && !v.equals(v.stripTrailing())) {
                if (out == row) out = row.clone();
                out[i] = v.stripTrailing();
            }
        }
        return out;
    }

    /**
     * On an engine whose trigger images can be stale, the rows read back must be the rows the triggers left: the
     * non-key values come from the read, but a row is found by the key its trigger reported. If another writer moved
     * that row's key before this transaction changed it, the trigger reported the old key, the read finds nothing
     * there, and shipping "absent" would lose the row on the secondaries: the commit fails with 40001 instead (the
     * retry reads the moved row afresh).
     */
    private static void checkSameRows(TableShape shape, TableEvents t, List<Object[]> images) throws SQLException {
        java.util.Set<RowKey> read = new java.util.HashSet<>();
        for (Object[] row : images) read.add(key(shape, row));
        for (RowKey k : t.existed.keySet()) {
            boolean triggersSayPresent = t.rows.get(k) != ABSENT;
            if (triggersSayPresent != read.contains(k)) {
                throw new java.sql.SQLTransactionRollbackException("MacroDB: the engine's capture triggers reported row " + k
                        + " of " + shape + " as " + (triggersSayPresent ? "present" : "absent") + " and it is "
                        + (triggersSayPresent ? "absent" : "present") + ": another writer changed the row's key while this"
                        + " transaction waited for it; nothing was committed, retry the transaction",
                        SqlState.SERIALIZATION_FAILURE.getState());
            }
        }
    }

    /**
     * The change of a table without a key whose events carry rowids, by rowid: each touched rowid's row
     * before its first event against the row it holds now (read back), equal images cancelling out. Exact
     * whatever removed a row unseen, as long as every row that changed was touched: a row removed unseen
     * was reported removable first, or came to collide through an event.
     */
    private static void netByRowid(Connection c, StatementCache cache, TableShape shape, TableEvents t, List<Object[]> removed,
                                   List<Object[]> added) throws SQLException {
        String rowid = rowidName(shape);
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < shape.columns().size(); i++) sql.append(i == 0 ? "" : ", ").append(TableShape.quote(shape.columns().get(i)));
        sql.append(" FROM ").append(shape.qualifiedName()).append(" WHERE ").append(rowid).append(" = ?");
        LinkedHashMap<RowKey, int[]> delta = new LinkedHashMap<>();
        PreparedStatement ps = cache.prepare(sql.toString());
        try {
            for (Map.Entry<Long, Object[]> e : t.before.entrySet()) {
                if (e.getValue() != ABSENT) delta.computeIfAbsent(new RowKey(e.getValue()), k -> new int[1])[0]--;
                ps.setLong(1, e.getKey());
                List<Object[]> now = new ArrayList<>(1);
                readInto(ps, shape, now);
                for (Object[] row : now) delta.computeIfAbsent(new RowKey(row), k -> new int[1])[0]++;
            }
        } finally {
            cache.release(sql.toString(), ps);
        }
        for (Map.Entry<RowKey, int[]> d : delta.entrySet()) {
            int n = d.getValue()[0];
            for (int i = 0; i < Math.abs(n); i++) (n < 0 ? removed : added).add(d.getKey().values());
        }
    }

    /** The name that reaches a SQLite table's rowid, as its capture triggers use it: one no column hides. */
    private static String rowidName(TableShape shape) {
        if (shape.rowidColumn() != null) return shape.rowidColumn();
        for (String n : new String[] {"rowid", "_rowid_", "oid"}) {
            boolean hidden = false;
            for (String col : shape.columns()) hidden |= col.equalsIgnoreCase(n);
            if (!hidden) return n;
        }
        return "rowid";
    }

    /**
     * The rows read back, one per key. A read that does not lock (Derby's {@code WITH UR}) has returned a key twice
     * (two inserts of one key in a record, which every secondary then refuses as a duplicate): an identical repeat is
     * dropped; two different rows for one key leave the final image unknown, and the commit fails with 40001 instead
     * of shipping either.
     */
    private static List<Object[]> oneRowPerKey(TableShape shape, List<Object[]> images) throws SQLException {
        if (images.size() < 2 || !shape.hasKey()) return images; // a table without a key may hold equal rows: each is one
        LinkedHashMap<RowKey, Object[]> byKey = new LinkedHashMap<>();
        for (Object[] row : images) {
            RowKey k = RowKey.of(shape, row);
            Object[] before = byKey.putIfAbsent(k, row);
            if (before != null && !new RowKey(before).equals(new RowKey(row))) {
                throw new java.sql.SQLTransactionRollbackException("MacroDB: reading back the rows of " + shape + " that this"
                        + " transaction changed returned two different rows for key " + k + " (" + Arrays.deepToString(before)
                        + ", " + Arrays.deepToString(row) + "); nothing was committed, retry the transaction",
                        SqlState.SERIALIZATION_FAILURE.getState());
            }
        }
        return byKey.size() == images.size() ? images : new ArrayList<>(byKey.values());
    }

    private static final int IN_CHUNK = 16;

    /**
     * The rows of {@code keys} as the transaction sees them now: {@link #IN_CHUNK} keys a query where the key is one
     * column, or where {@code rowValueLists} lets a composite key be listed ({@code (k1, k2) IN ((?, ?), ...)}); else
     * one query a key. The last chunk repeats its last key: one statement for every chunk, the same rows.
     */
    private static List<Object[]> readImages(Connection c, StatementCache cache, TableShape shape,
                                             java.util.Collection<RowKey> keys, String suffix, boolean rowValueLists) throws SQLException {
        List<Object[]> rows = new ArrayList<>(keys.size());
        boolean chunked = shape.keyCount() == 1 || rowValueLists && shape.keyCount() > 1;
        int chunk = keys.size() == 1 || !chunked ? 1 : IN_CHUNK;
        // without a key a row is found by its values, and an unlocked read could count another writer's equal row
        String select = shape.selectByKeySql(chunk, rowValueLists);
        String sql = suffix.isEmpty() || !shape.hasKey() ? select : select + suffix;
        PreparedStatement ps = cache.prepare(sql);
        try {
            if (chunked) {
                List<RowKey> all = new ArrayList<>(keys);
                int width = shape.keyCount();
                for (int from = 0; from < all.size(); from += chunk) {
                    for (int i = 0; i < chunk; i++) {
                        Object[] key = all.get(Math.min(from + i, all.size() - 1)).values();
                        for (int j = 0; j < width; j++) Values.bind(ps, i * width + j + 1, key[j]);
                    }
                    readInto(ps, shape, rows);
                }
            } else {
                for (RowKey k : keys) {
                    for (int i = 0; i < k.values().length; i++) Values.bind(ps, i + 1, k.values()[i]);
                    readInto(ps, shape, rows);
                }
            }
        } finally {
            cache.release(sql, ps);
        }
        return rows;
    }
    private static void readInto(PreparedStatement ps, TableShape shape, List<Object[]> rows) throws SQLException {
        int n = shape.columns().size();
        boolean hsqldb = Values.isHsqldb(ps.getConnection());
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) row[i] = Values.read(rs, i + 1, shape.columnType(i), hsqldb);
                rows.add(row);
            }
        }
    }
}
