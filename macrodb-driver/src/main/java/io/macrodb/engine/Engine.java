package io.macrodb.engine;

import io.macrodb.log.Propagation;

import io.macrodb.log.TableShape;
import io.macrodb.sql.SqlState;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * What MacroDB must know about one SQL engine: how to name and configure its replicas, how to
 * capture the rows an update transaction changed, how to copy a replica, and its dialect. One
 * instance per engine, stateless and thread-safe.
 */
public interface Engine {

    /** Short name used in URLs and messages: {@code h2}, {@code hsqldb}. */
    String name();

    /** The dialect the SQL classifier parses for this engine. */
    io.macrodb.sql.Dialect dialect();

    /**
     * Builds the JDBC URL of secondary {@code index} (1-based) for a replica set whose primary is
     * {@code primary}. Secondaries are private in-memory databases named after {@code uniqueName}.
     */
    String secondaryUrl(EngineUrl primary, String uniqueName, int index);

    /**
     * {@link #secondaryUrl(EngineUrl, String, int)} for an engine whose replicas are servers the URL
     * names rather than databases MacroDB makes: {@code inUse} holds the URLs the primary and the other
     * secondaries use now, which after a promotion are no longer the URL's own order. Throws
     * SQLException when no named server is free.
     */
    default String secondaryUrl(EngineUrl primary, String uniqueName, int index, java.util.Set<String> inUse) throws SQLException {
        return secondaryUrl(primary, uniqueName, index);
    }

    /**
     * The JDBC URL MacroDB opens the primary with. Usually the application's URL without MacroDB's
     * options; an engine whose in-memory databases are private to one connection (SQLite) names a
     * database its own sessions can share.
     */
    default String primaryUrl(EngineUrl url) { return url.jdbcUrl(); }

    /**
     * The engine's own options in the MacroDB URL's query part or the connection properties (PostgreSQL:
     * {@code secondaries}, {@code capture}), lower case; none by default. MacroDB hands them to
     * {@link #withOptions} instead of refusing them as unknown; they are not MacroDB options.
     */
    default java.util.Set<String> urlOptions() { return java.util.Set.of(); }

    /**
     * The engine URL with the engine's own options applied and checked ({@link #urlOptions}; {@code
     * options} by lower-case name, empty when none was given); 08001 or 0AM00 with a message that says
     * what to change. {@code url} itself by default.
     */
    default EngineUrl withOptions(EngineUrl url, Map<String, String> options) throws SQLException { return url; }

    /**
     * How many replicas, primary included, the engine URL names itself (a server engine lists its
     * secondaries' servers); 0 when the engine makes its secondaries and {@code replicas} says how many.
     */
    default int replicasNamed(EngineUrl url) { return 0; }

    /**
     * Hands the rows the open update transaction on {@code c} changed to {@code into}, at commit, before
     * the record is built: for engines whose capture triggers run inside a server and cannot call into
     * MacroDB (PostgreSQL's PL/pgSQL), so record the changes in the server. Nothing by default: the
     * embedded engines' triggers report each row as it changes ({@link CaptureContext#fire}).
     */
    default void collectChanges(Connection c, CaptureContext into) throws SQLException {}

    /**
     * Opens capture from the engine's own log on the primary at {@code jdbcUrl} ({@link CommitDecoding}: each update
     * transaction's rows are read from it after the engine's commit), or returns null where the engine's triggers
     * capture the rows inside the transaction (every engine but PostgreSQL with {@code capture=decoding}). Called when
     * a replica set opens and when a secondary is promoted, before any update transaction commits there.
     *
     * @param name unique to the replica set (PostgreSQL names its replication slot after it)
     */
    default CommitDecoding startDecoding(EngineUrl url, String jdbcUrl, java.util.Properties properties, String name) throws SQLException {
        return null;
    }

    /**
     * Refuses, at connect time, what this engine cannot do with these options (SQLState 0AM00 and a
     * message that says what to change); nothing by default.
     */
    default void checkSupported(EngineUrl url, Propagation propagation, boolean durable) throws SQLException {}

    /** The isolation level a new connection has (the JDBC constant). */
    default int defaultIsolation() { return Connection.TRANSACTION_READ_COMMITTED; }

    /** The result set holdability a new connection has (the JDBC constant). */
    default int defaultHoldability() { return java.sql.ResultSet.HOLD_CURSORS_OVER_COMMIT; }

    /** Settings for the primary database, run once on its first session; {@code url} is the application's. */
    void configurePrimary(Connection c, Propagation propagation, EngineUrl url) throws SQLException;

    /** Settings for a secondary database, run once before anything is applied to it. */
    void configureSecondary(Connection c, Propagation propagation) throws SQLException;

    /** Per-session settings: bounded lock waits. */
    void configureSession(Connection c, long lockTimeoutMillis) throws SQLException;

    /**
     * Per-session settings of a session of the primary ({@code primary}) or of a secondary. A session
     * serves the role it was opened in: a promoted secondary's older sessions are not reused.
     */
    default void configureSession(Connection c, long lockTimeoutMillis, boolean primary) throws SQLException {
        configureSession(c, lockTimeoutMillis);
    }

    /** Installs the change-capture triggers on {@code table} unless they are there already. */
    void installCapture(Connection c, TableShape table) throws SQLException;

    /**
     * Makes every user table's capture triggers current after a schema change (new tables get
     * them; engines whose triggers remember a table's name re-create them).
     *
     * @return the shapes of all user tables
     */
    default List<TableShape> refreshCapture(Connection c) throws SQLException {
        List<TableShape> tables = tables(c);
        for (TableShape t : tables) installCapture(c, t);
        return tables;
    }

    /**
     * {@link #refreshCapture} for engines whose capture triggers remember a table's name or columns:
     * every capture trigger is dropped and made afresh.
     */
    default List<TableShape> recreateCapture(Connection c) throws SQLException {
        removeCapture(c);
        List<TableShape> tables = tables(c);
        for (TableShape t : tables) installCapture(c, t);
        return tables;
    }

    /**
     * The application's own triggers, by name, with the statement that creates each, read from the
     * catalog; null where the engine's catalog does not keep that statement, and they are read from
     * the primary's script instead.
     */
    default Map<String, String> applicationTriggerDdl(Connection c) throws SQLException { return null; }

    /**
     * The names of the application's own triggers now in the catalog, as {@link #applicationTriggerDdl} keys them or,
     * where that is null, as a trigger's statement names it (upper-cased unless quoted); null where the engine cannot
     * list them. A promotion puts back only the triggers the primary still had: one dropped with its table, or by a
     * statement MacroDB did not read as a DROP TRIGGER, failed the promotion when it was put back.
     */
    default java.util.Set<String> applicationTriggerNames(Connection c) throws SQLException {
        Map<String, String> ddl = applicationTriggerDdl(c);
        return ddl == null ? null : ddl.keySet();
    }

    /**
     * Drops the application's own triggers from a secondary in row propagation: their effects on
     * the primary arrive as captured rows, and firing them again while applying would apply those
     * effects twice.
     */
    void dropUserTriggers(Connection c) throws SQLException;

    /**
     * What a row-propagation secondary needs right after applying a schema change, before the rows after it in the same
     * record (a transaction's schema change, where DDL is transactional), inside the apply transaction and without
     * committing it: what {@link #dropUserTriggers} does (the application's triggers gone, and whatever else the engine
     * needs for rows that arrive as images). {@link #dropUserTriggers} where it commits nothing.
     */
    default void afterSchemaChangeInApply(Connection c) throws SQLException { dropUserTriggers(c); }

    /**
     * Runs on the session that is about to change the schema (the primary's, an applier's, recovery's),
     * in the transaction that will run the DDL. Engines whose capture triggers name a table's columns
     * and would block the change (SQLite refuses to drop a column a trigger reads) take them away
     * here; {@link #refreshCapture} puts them back after the change.
     */
    default void beforeSchemaChange(Connection c) throws SQLException {}

    /**
     * Called on the primary right after a schema change ran, in its transaction, before it is committed and logged (on
     * engines whose DDL is transactional; elsewhere the engine committed it already): an exception refuses the change,
     * which is rolled back, and the application gets it.
     */
    default void checkSchemaChange(Connection c) throws SQLException {}

    /**
     * Whether the engine's JDBC {@code Connection.rollback(Savepoint)} ends the {@code Savepoint} it was given (HSQLDB:
     * a second rollback to it fails with 3B001), where SQL's {@code ROLLBACK TO SAVEPOINT} keeps the savepoint. MacroDB
     * maps the SQL statement onto the JDBC call, and then sets the savepoint again.
     */
    default boolean rollbackToSavepointEndsIt() { return false; }

    /**
     * Whether the engine's schema changes are part of the transaction they run in (SQLite, Derby, PostgreSQL): a
     * rollback undoes them with the rows changed before and after them. MacroDB then runs a schema change inside the
     * application's open transaction and ships it in that transaction's record, between the rows changed before it
     * and those changed after it. Where it is false (H2, HSQLDB), the engine commits the open transaction before a
     * schema change, and so does MacroDB.
     */
    default boolean schemaChangesAreTransactional() { return false; }

    /**
     * Whether the engine refuses the schema change {@code sql} inside a transaction block (PostgreSQL's
     * {@code CREATE INDEX CONCURRENTLY}): the primary then runs it in autocommit, where nothing can be refused or
     * rolled back after it ran, and the secondaries apply {@link #schemaChangeOnSecondary}.
     */
    default boolean schemaChangeOutsideTransaction(String sql) { return false; }

    /**
     * Whether {@code sql} is maintenance of the engine's own storage that changes no row and that the engine refuses in
     * a transaction (PostgreSQL's {@code VACUUM}): it runs on the primary alone, in autocommit, is not logged, and waits
     * for no other transaction. In an update transaction it is refused with 25001, as the engine refuses it in a
     * transaction block.
     */
    default boolean maintenanceOnPrimary(String sql) { return false; }

    /**
     * The refusal of a statement MacroDB does not run on this engine, with what to do instead (SQLState 0AM00); null for
     * every statement it runs.
     */
    default SQLException unsupportedStatement(String sql) { return null; }

    /** The form of the schema change {@code sql} that a secondary applies, inside its apply transaction. */
    default String schemaChangeOnSecondary(String sql) { return sql; }

    /**
     * Before a schema change {@linkplain #schemaChangeOutsideTransaction outside a transaction} runs on the primary: what
     * {@link #undoFailedSchemaChange} needs to remove what a failure of it leaves behind (null: nothing).
     */
    default Object beforeSchemaChangeOutsideTransaction(Connection c) throws SQLException { return null; }

    /** After such a schema change failed: removes what it left behind, so that the primary is as it was. */
    default void undoFailedSchemaChange(Connection c, Object before) throws SQLException {}

    /**
     * The names the engine generated for constraints the application did not name, keyed by what each
     * constrains (its table, kind, columns, clause), where the engine draws them from a counter of each
     * database's own (HSQLDB's {@code SYS_PK_10105}), so that a replica's differ from the primary's; null
     * where names do not depend on a database's history. A schema change logs the primary's, and every replica
     * that runs it renames its own to match ({@link #alignGeneratedNames}): a later statement that names a
     * constraint by the primary's name ({@code ALTER TABLE t DROP CONSTRAINT SYS_CT_10125}, as a migration
     * tool writes it after reading the name) then finds the same constraint on every replica.
     */
    default Map<String, String> generatedNames(Connection c) throws SQLException { return null; }

    /**
     * Renames this replica's generated constraint names to {@code primary}'s ({@link #generatedNames} of the
     * primary), constraint by constraint, matched by what they constrain; one the primary does not name is left.
     */
    default void alignGeneratedNames(Connection c, Map<String, String> primary) throws SQLException {}

    /**
     * Closes the database {@code c} is connected to, for good (a secondary leaving the rotation, a set
     * closing): H2 and HSQLDB keep an in-memory database until {@code SHUTDOWN}. An engine whose
     * database goes with its last connection does nothing here.
     */
    default void shutdownDatabase(Connection c) throws SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }

    /**
     * The statement that gives a session back the engine's default time zone after a replayed
     * statement ran under one of its own (null: the engine has no session time zone).
     */
    default String timeZoneReset() { return "SET TIME ZONE LOCAL"; }

    /**
     * Where unqualified names resolve in session {@code c}, as MacroDB carries it to the engine's other sessions (a
     * connection's default, a schema change shipped to the secondaries): its current schema, and on PostgreSQL its whole
     * {@code search_path}, which can name several schemas. {@link #setSessionSchema} puts it on another session.
     */
    default String sessionSchema(Connection c) throws SQLException { return c.getSchema(); }

    /** Makes names resolve in session {@code c} as {@link #sessionSchema} said they did in another. */
    default void setSessionSchema(Connection c, String schema) throws SQLException { c.setSchema(schema); }

    /**
     * Undoes state of the engine's session that the application's connection held and that ends with a connection on the
     * engine (PostgreSQL's session-level advisory locks), as the connection closes and its primary session is kept for
     * another one. Nothing by default.
     */
    default void beforeReuse(Connection c) throws SQLException {}

    /**
     * A statement that gives another session the value session {@code c} now has of the session setting whose key is
     * {@code setting} ({@code SET name}, as the classifier keys it), after a query set it ({@code
     * io.macrodb.sql.Classification.Verb#SESSION_SET_CALL}); null where the engine has no such query.
     */
    default String sessionSettingStatement(Connection c, String setting) throws SQLException { return null; }

    /**
     * The URL that opens the database {@code url} names only if it exists: how MacroDB opens every
     * later session of a replica (a secondary it made, or the primary), whose database must not come
     * back empty after its engine was shut down. {@code url} itself where the engine has no such
     * setting.
     */
    default String existingOnlyUrl(String url) { return url; }

    /**
     * Called once MacroDB is done with a database it made (a secondary, an in-memory primary), after
     * {@link #shutdownDatabase}: an engine that keeps such databases in files removes them here.
     */
    default void discard(String jdbcUrl) {}

    /** Removes the capture triggers of every table (persistent primaries, on clean shutdown). */
    void removeCapture(Connection c) throws SQLException;

    /** Writes every schema object and row of the database to a script file (a snapshot). */
    void exportScript(Connection c, java.nio.file.Path file) throws SQLException;

    /** Runs a script written by {@link #exportScript} into an empty database. */
    void importScript(Connection c, java.nio.file.Path file) throws SQLException;

    /** Copies every schema object and row of {@code from} into the empty database of {@code to}. */
    default void copy(Connection from, Connection to) throws SQLException {
        try (ScriptFile script = ScriptFile.create()) {
            exportScript(from, script.path());
            importScript(to, script.path());
        }
    }

    /**
     * The next value of every user sequence, by quoted qualified name (engine-internal sequences of
     * identity columns excluded: {@link #alignIdentities} covers those).
     */
    Map<String, Long> sequencePositions(Connection c) throws SQLException;

    /** Makes {@code sequence} return at least {@code next} from now on. */
    default void restartSequence(Connection c, String sequence, long next) throws SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute("ALTER SEQUENCE " + sequence + " RESTART WITH " + next);
        }
    }

    /**
     * Restarts every identity column past the largest value in its table. Rows that reached a
     * database as images (a secondary, a recovery) carry identity values the engine did not
     * generate, and H2 does not advance its identity counters for them.
     */
    default void alignIdentities(Connection c) throws SQLException {
        alignIdentities(c, Map.of());
    }

    /**
     * The next value of every identity column the engine can tell ({@link #identityKey} to value),
     * shipped with a transaction's sequence positions, so that a promoted secondary's identities go on
     * where the primary's stopped, as if no failover had happened. Empty where the engine cannot
     * tell: a promotion then restarts identities past the largest value.
     */
    default Map<String, Long> identityPositions(Connection c) throws SQLException { return Map.of(); }

    /**
     * {@link #identityPositions(Connection)} of some tables only: what a commit that inserted into them ships. An
     * engine that can read one table's position without reading every table's overrides this; a commit pays for it.
     */
    default Map<String, Long> identityPositions(Connection c, java.util.Collection<io.macrodb.log.TableShape> tables) throws SQLException {
        if (tables.isEmpty()) return Map.of();
        Map<String, Long> all = identityPositions(c);
        Map<String, Long> out = new java.util.TreeMap<>();
        for (io.macrodb.log.TableShape t : tables) {
            String key = identityKey(t.qualifiedName());
            Long next = all.get(key);
            if (next != null) out.put(key, next);
        }
        return out;
    }

    /** How an identity column's position is named among sequence positions (never a sequence's name). */
    static String identityKey(String qualifiedTable) { return qualifiedTable + " IDENTITY"; }

    /**
     * {@link #alignIdentities(Connection)} after a promotion or a recovery: an identity column whose
     * position was shipped ({@code positions}, under {@link #identityKey}) restarts there, the next
     * value the failed primary would have handed out, never lower than the counter stands; any other
     * restarts past the largest value in its table.
     */
    default void alignIdentities(Connection c, Map<String, Long> positions) throws SQLException {
        Map<String, Long> counters = positions.isEmpty() ? Map.of() : identityPositions(c);
        for (io.macrodb.log.TableShape t : tables(c)) {
            if (t.identityColumn() == null) continue;
            String col = io.macrodb.log.TableShape.quote(t.identityColumn());
            Long shipped = positions.get(identityKey(t.qualifiedName()));
            if (shipped != null) {
                Long now = counters.get(identityKey(t.qualifiedName()));
                if (now == null || now < shipped) {
                    try (java.sql.Statement s = c.createStatement()) {
                        s.execute("ALTER TABLE " + t.qualifiedName() + " ALTER COLUMN " + col + " RESTART WITH " + shipped);
                    }
                }
                continue;
            }
            long max;
            try (java.sql.Statement s = c.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT MAX(" + col + ") FROM " + t.qualifiedName())) {
                rs.next();
                max = rs.getLong(1);
                if (rs.wasNull()) continue;
            }
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("ALTER TABLE " + t.qualifiedName() + " ALTER COLUMN " + col + " RESTART WITH " + (max + 1));
            }
        }
    }

    /**
     * The condition that a column holds exactly the value bound to parameter {@code parameter} (the
     * {@code parameter}-th {@code ?} of the statement, 1-based), for finding a row of a table without a
     * key by its image: {@code column = ?} where the engine's {@code =} tells apart every two values it
     * stores differently (it does on H2, HSQLDB, Derby and PostgreSQL, whose columns have one type).
     */
    default String sameValueSql(String column, int parameter) { return column + " = ?"; }

    /**
     * A DELETE of one row of {@code table} (qualified and quoted) that meets {@code condition}: how a
     * secondary removes one of several equal rows of a table without a key.
     */
    default String deleteOneRowSql(String table, String condition) {
        return "DELETE FROM " + table + " WHERE " + condition + " FETCH FIRST ROW ONLY";
    }

    /** Turns foreign-key checks (and cascades) on or off for the whole database. */
    void setReferentialIntegrity(Connection c, boolean on) throws SQLException;

    /**
     * Whether lock waits can only be bounded by cancelling the waiting statement (the engine has no
     * lock timeout of its own). MacroDB then cancels an update statement that runs longer than
     * {@code lockTimeout}.
     */
    default boolean boundsLockWaitsByCancel() { return false; }

    /**
     * Whether the engine runs one write transaction at a time per database (SQLite): MacroDB then
     * gives update transactions on the primary a turn each, from their start, instead of letting
     * them meet in the engine's locks.
     */
    default boolean oneWriterAtATime() { return false; }

    /**
     * How many transactions one instance of this engine should run at once (0: no limit): the
     * starting point of per-replica admission ({@code admission=auto}).
     */
    default int admissionProfile() { return 0; }

    /**
     * Most sessions a secondary of this engine should apply the log with by default (0: as many as
     * the processors allow). An engine whose concurrent write transactions cost more than they gain
     * says 1; the {@code applyThreads} option still chooses any number.
     */
    default int applySessionsProfile() { return 0; }

    /**
     * Whether a transaction can commit while one of its statements still has rows to hand out (an
     * {@code INSERT ... RETURNING} result): SQLite refuses ("SQL statements in progress"), and MacroDB
     * then reads such a result into memory before it commits an autocommit write.
     */
    default boolean commitsBesideOpenResults() { return true; }

    /** Most sessions a secondary of this engine can apply the log with at all (SQLite: one writer per database). */
    default int maxApplySessions() { return 64; }

    /**
     * How long the engine keeps the database {@code url} names after its last connection closes:
     * 0 closes it at once, -1 keeps it until it is shut down ({@code SHUTDOWN}) or the JVM exits,
     * N &gt; 0 keeps it N milliseconds. MacroDB keeps the replica set as long ({@code closeDelay=engine}),
     * so that opening a connection when none is open finds the replicas still built.
     *
     * @param properties the connection properties the application gave (user, password, engine settings)
     */
    default long closeDelayMillis(EngineUrl url, java.util.Properties properties) { return 0; }

    /**
     * Whether row capture must check, at every commit, that the capture triggers' images are the rows
     * the transaction reads back before it ships them. Engines whose transaction isolation can fail
     * under load say yes: a row another transaction changed behind this one's triggers (a dirty write)
     * is then caught before a secondary receives an image the primary does not hold, the transaction
     * is rolled back (40001) and the primary, whose engine can no longer be trusted, is replaced by a
     * secondary (docs/internals.md, "Images the engine did not keep"). It costs reading the changed rows
     * back: a query per 16 keys of a table (per key of a composite key, unless {@link #rowValueListsUseKeyIndex()}).
     */
    default boolean checksCaptureImages() { return false; }

    /**
     * Appended to the query with which an update transaction reads its own changed rows back at commit (rows whose
     * images the capture could not give, and the image check). The transaction holds those rows locked, so an
     * engine that locks on read (Derby) must read them without taking locks: its optimizer may scan the table, and a
     * scan waits for the rows other writers hold, which can deadlock two committing writers. Empty for engines that
     * read without locks.
     */
    default String ownRowsReadSuffix() { return ""; }

    /**
     * Whether the engine finds the rows of {@code WHERE (k1, k2) IN ((?, ?), ...)} through the primary key's index:
     * a commit that reads its changed rows back then reads a composite key's rows 16 keys a query instead of one
     * (H2: its plan names the key's index; where unsure, false keeps one query per key).
     */
    default boolean rowValueListsUseKeyIndex() { return false; }

    /**
     * Whether the engine's readers take row locks that its writers wait for, and wait for its writers' locks
     * (Derby: no row versions). Then a secondary's read-only transactions and its applier take turns
     * ({@code io.macrodb.replica.ReadApplyGate}) instead of meeting on rows in the engine, where they would wait for
     * each other and could deadlock, and where a {@code READ COMMITTED} scan could read part of an apply group.
     */
    default boolean readsTakeLocks() { return false; }

    /**
     * Whether a row trigger's old and new values can be older than the row it changed. Derby's can: an {@code UPDATE}
     * at {@code READ COMMITTED} that reads a row, waits for another writer's lock on it and then changes it fires its
     * triggers with the values it read before the wait (the row itself is right: only the columns it sets are
     * written). Row capture then ships no trigger image: every changed row is read back at commit, and a row the
     * triggers report under a key the read does not find there fails the commit with 40001.
     */
    default boolean triggerImagesMayBeStale() { return false; }

    /**
     * Whether the engine interrupts the threads that are inside a database it stops (Derby: dropping or shutting
     * down a database interrupts them, and the interrupt is still set when the JDBC call returns; and it closes a
     * session that an interrupted thread calls). Then a failure that made its replica leave the rotation returns
     * with the interrupt cleared: the application gets a retryable 40001, and neither its retry loop's sleep nor its
     * next statement on the new primary is cut short by an interrupt nobody in the application sent
     * ({@code io.macrodb.replica.Failover#replicaFailed}).
     */
    default boolean interruptsThreadsWhenStopped() { return false; }

    /**
     * Clears, on the calling thread, the interrupt that a stopped database left ({@link #interruptsThreadsWhenStopped}):
     * the thread's flag, and any interrupt the engine noted to set again later. Called once a failure was found to be
     * its replica's leaving the rotation, and outside any call into the engine.
     */
    default void clearStopInterrupt() { Thread.interrupted(); }

    /**
     * Whether the engine stopped the database under this session while a call on it ran
     * ({@link #interruptsThreadsWhenStopped}): asked after every call that began uninterrupted. The stop's interrupt can
     * reach a thread in its call's last steps, after the engine last looked for it, or just after the call returned;
     * nothing failed, so nothing cleared it, and it reached the thread's next call, on another replica (Derby closed
     * that session as if the application had interrupted it). Or the call failed for a reason of its own that does not
     * tell the engine gone (a deadlock's victim), with the replica still in the rotation. If this answers true,
     * {@link #clearStopInterrupt} drops it; the replica's next use finds it gone. The session may be one the engine closed
     * under the failure; one closed because the application interrupted the call must answer false. Asked on every call
     * of such an engine: it must be cheap.
     */
    default boolean stoppedUnder(Connection session) { return false; }

    /**
     * Called on the primary's session after a statement of an update transaction failed: whether that failure
     * ended the engine's transaction (then the session is left in a new one). SQLite's {@code INSERT OR ROLLBACK},
     * a column's {@code ON CONFLICT ROLLBACK} and a trigger's {@code RAISE(ROLLBACK, ...)} roll the whole transaction
     * back behind the driver: MacroDB then ends its transaction too (its captured changes were undone), instead of
     * running the next statements outside any transaction, where the engine committed them at once and no
     * secondary got them. No engine ends its transaction so by default.
     */
    default boolean failureEndedTransaction(Connection c) throws SQLException { return false; }

    /**
     * Whether a statement that fails on a constraint may keep the rows it wrote before the failure, which the
     * engine's autocommit then commits (SQLite's {@code INSERT OR FAIL}, a constraint's {@code ON CONFLICT FAIL}).
     * A failed autocommit statement then ends as in the engine: MacroDB commits what it left (a failed statement
     * makes the commit read its rows back), instead of rolling it back. No engine by default: H2, HSQLDB, Derby
     * and PostgreSQL undo a failed statement whole.
     */
    default boolean failedStatementsMayKeepRows() { return false; }

    /**
     * Whether MacroDB may bracket a write of an open transaction, where the database has a table without a primary
     * key, in an engine savepoint, and roll back to it when the statement fails. The capture triggers have then
     * reported rows the engine undid; a table with a key is read back at commit, but a row of a table without one is
     * known only by its values, so without the savepoint such a transaction could not commit ({@code 40001}). Rolled
     * back to the savepoint, the engine is exactly as before the statement, and what the statement's triggers reported
     * is cut back with it. Right where the engine undoes a failed statement whole anyway, so that the rollback changes
     * nothing the application sees: H2, HSQLDB and Derby. Not SQLite, whose {@code INSERT OR FAIL} keeps the rows
     * before the failure (and whose rows carry rowids to settle them by), nor PostgreSQL, where a failed statement
     * aborts the transaction until the application rolls back, which the savepoint would hide.
     */
    default boolean undoesFailedStatementsToASavepoint() { return false; }

    /**
     * Asks, per secondary, whether a database MacroDB built as a secondary before (a server's database outlives the
     * replica set) is kept as it is when the replica set opens, instead of being copied again: where it holds exactly
     * what the primary's holds now, in everything a copy of the primary would carry, and is then brought to what a copy
     * would leave besides (sequence positions). Asked at open only, with the primary's capture installed (writes from
     * outside MacroDB refused) and nothing served yet, so what the check reads of the primary is read once for every
     * secondary. Never by default: an in-memory secondary is new at every open.
     */
    default KeptCheck keptCheck(Connection primary) { return secondary -> false; }

    /** See {@link #keptCheck}. */
    @FunctionalInterface
    interface KeptCheck {
        /** Whether the database of {@code secondary} is kept as it is (and brought to the primary's sequence positions). */
        boolean keptAsItIs(Connection secondary) throws SQLException;
    }

    /**
     * Whether a secondary's database outlives the replica set (a server's), so that the next open may keep it as it is
     * ({@link #keptCheck}): a clean shutdown then lets the secondaries apply what is logged first (bounded), instead of
     * leaving them behind to be copied again. False by default: an in-memory secondary goes with the set.
     */
    default boolean secondariesOutliveTheSet() { return false; }

    /**
     * What a SQL {@code COMMIT} ({@code commit}) or {@code ROLLBACK} run with no transaction open (in
     * autocommit) does in the engine: null where it succeeds doing nothing (H2, HSQLDB, Derby; PostgreSQL
     * warns), else the engine's own error, which MacroDB then reports as the engine would (SQLite: "cannot
     * commit - no transaction is active").
     */
    default SQLException noTransactionToEnd(boolean commit) { return null; }

    /**
     * The statement MacroDB's monitor runs on the primary every 100 ms, and runs on a new session to ask whether an
     * engine is gone ({@link #mayBeEngineGone}): it must fail when the database can no longer be used. {@code VALUES
     * (1)} for an engine whose sessions fail once their database is shut down.
     */
    default String probeSql() { return "VALUES (1)"; }

    /** Whether an exception means the engine itself is gone (closed, shut down, connection broken). */
    default boolean isEngineGone(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("08");
    }

    /**
     * Whether an exception may mean the engine is gone, or may be one statement's failure: an error
     * class that both give (H2's general error 50000 is its shutdown races and a user aggregate's
     * exception alike). MacroDB then asks the engine itself: a new session on the replica runs a
     * probe, and only if that fails is the engine taken for gone. A statement's failure must not
     * fail a replica over: the application retries it, and each successor would fail over in turn.
     */
    default boolean mayBeEngineGone(SQLException e) { return false; }

    /**
     * The engine's exception with the SQLState the JDBC standard gives its condition, where the
     * engine's driver gives none (SQLite's): applications and pools tell a constraint violation
     * (23xxx) from other failures by it. Engines that report SQLStates return {@code e} itself.
     */
    default SQLException withSqlState(SQLException e) { return e; }

    /** Whether an exception means a lock wait timed out or a deadlock was broken (retryable). */
    boolean isRetryable(SQLException e);

    /** User tables, with their replicated shape, in a stable order. */
    default List<TableShape> tables(Connection c) throws SQLException {
        return Catalog.readTables(c);
    }
}
