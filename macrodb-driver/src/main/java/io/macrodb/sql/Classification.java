package io.macrodb.sql;

import java.util.Objects;
import java.util.Set;

/**
 * Every fact about one SQL string that routing needs, found in one analysis of its text (and cached
 * with it by {@link SqlClassifier}): the driver looks at a statement's text nowhere else.
 *
 * @param kind     what the statement does
 * @param pureRead true only if the statement may run on any replica with the same committed data and give
 *                 the same result without changing anything
 * @param tables   upper-cased (quoted parts keep their case) table names referenced, best effort; empty when unknown
 * @param reason   short human text why it is not a pure read; null if it is one
 * @param runsAsSchemaChange a statement that is not DDL but must run as one: TRUNCATE (engines do not
 *                 roll it back like a row change) and EXECUTE IMMEDIATE (dynamic SQL may be DDL)
 * @param verb     which of the statements MacroDB treats specially this is, beyond its kind
 *                 ({@link Verb#OTHER} for all the rest)
 * @param argument what the verb acts on: a savepoint's name as written, the schema of
 *                 {@link Verb#SET_SCHEMA}, the setting a {@link Verb#SESSION_SET} changes; null otherwise
 * @param drawsFromSequence the text draws from a sequence ({@code NEXT VALUE FOR}, {@code NEXTVAL}...), so
 *                 a commit that ran it records sequence positions
 * @param temporaryTable the statement creates a temporary table
 * @param unsafeSchemaChange why this schema change would leave replicas different, or null (only looked
 *                 for in statements that run as schema changes)
 * @param locksOnly the statement takes locks and changes nothing: a query that would be a pure read but
 *                 for a locking clause ({@code FOR UPDATE}, {@code FOR SHARE}, {@code NOWAIT}...), or
 *                 {@link Verb#LOCK_TABLE}; an update transaction may run it before it holds the update
 *                 gate (see {@link #mayWrite})
 * @param readsCatalog a query that changes nothing and reads the engine's catalog ({@code INFORMATION_SCHEMA},
 *                 PostgreSQL's {@code pg_catalog}, Derby's {@code SYS}, SQLite's {@code sqlite_schema}), which
 *                 differs between replicas: only the primary has the application's triggers in row
 *                 propagation, the sequences' and identities' positions, and the names an engine generates
 *                 (HSQLDB's {@code SYS_PK_n}, routines' {@code SPECIFIC_NAME}) from counters of each database's own.
 *                 Not a pure read: it runs on the primary, as a read ({@link #mayWrite} is false)
 */
public record Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason, boolean runsAsSchemaChange,
                             Verb verb, String argument, boolean drawsFromSequence, boolean temporaryTable,
                             String unsafeSchemaChange, boolean locksOnly, boolean readsCatalog) {

    /**
     * The statements MacroDB does something with beyond what their kind says. Transaction control
     * and {@code SET AUTOCOMMIT} are mapped onto the connection's methods (matched as whole
     * statements, with at most a trailing {@code ;}); session-level {@code SET}s run on every
     * session the connection uses; the rest are schema changes that are refused, or not replicated.
     */
    public enum Verb {
        /** Nothing beyond its kind. */
        OTHER,
        /** {@code COMMIT} or {@code END}, optionally {@code WORK} or {@code TRANSACTION}. */
        COMMIT,
        /** {@code ROLLBACK}, optionally {@code WORK} or {@code TRANSACTION}. */
        ROLLBACK,
        /** {@code BEGIN} or {@code START TRANSACTION}, optionally {@code WORK} or {@code TRANSACTION}. */
        BEGIN,
        /** {@code SET AUTOCOMMIT [= | TO] TRUE | ON | 1}. */
        AUTOCOMMIT_ON,
        /** {@code SET AUTOCOMMIT [= | TO] FALSE | OFF | 0}. */
        AUTOCOMMIT_OFF,
        /**
         * HSQLDB's {@code LOCK TABLE name {READ | WRITE} [, ...]}: table locks for the rest of the
         * transaction, taken on the primary in an update transaction (Flyway locks its history table
         * this way on HSQLDB). It changes nothing and is not replicated.
         */
        LOCK_TABLE,
        /** {@code SAVEPOINT name}. */
        SAVEPOINT,
        /** {@code RELEASE [SAVEPOINT] name}. */
        RELEASE_SAVEPOINT,
        /** {@code ROLLBACK [WORK] TO [SAVEPOINT] name}. */
        ROLLBACK_TO_SAVEPOINT,
        /** {@code SET SCHEMA name} or {@code USE name}: the argument is the schema, unquoted or upper-cased. */
        SET_SCHEMA,
        /** A {@code SET} (or {@code USE}) that changes only the session it runs in; every other SET changes the database. */
        SESSION_SET,
        /**
         * A query whose one effect besides its row is a session setting: PostgreSQL's {@code SELECT set_config('name',
         * value, false)}, which Flyway runs to change the search_path. It runs where its kind sends it (the primary), and
         * the setting as it then stands there is carried to the connection's other sessions, under the key a {@link
         * #SESSION_SET} of the same setting has (the argument).
         */
        SESSION_SET_CALL,
        /**
         * A setting for the rest of the transaction only: PostgreSQL's {@code SET LOCAL} and {@code SET CONSTRAINTS}. It
         * runs on the primary, inside the update transaction it begins or belongs to, as a write would, and is neither
         * logged nor carried to other sessions.
         */
        TRANSACTION_SET,
        /**
         * A database setting that secondaries keep their own value of: how they control transactions
         * (always MVCC, so readers never block the applier) and exclusive mode.
         */
        PRIMARY_ONLY_SET,
        /** Foreign-key checks, which secondaries keep off in row propagation: rows arrive as final images. */
        ROW_MODE_PRIMARY_ONLY_SET,
        /** {@code CREATE [OR REPLACE] TRIGGER}. */
        CREATE_TRIGGER,
        /**
         * {@code ALTER TABLE name ADD ...} with a random, time or sequence default that each replica
         * would compute for the table's existing rows (the argument is the table, as written).
         * {@code unsafeSchemaChange} says why, and holds unless the table is empty or its rows, as
         * the primary computed them, are shipped with the statement.
         */
        FILLS_EXISTING_ROWS,
        /**
         * {@code CREATE TABLE name ... AS SELECT ...} whose query calls a random, time or sequence
         * function (the argument is the new table, as written): safe once the primary's rows are
         * shipped in place of each replica's own. {@code unsafeSchemaChange} says why otherwise.
         */
        CREATES_FROM_QUERY,
        /**
         * {@code SCRIPT} (H2, HSQLDB), whose dump would carry MacroDB's capture triggers: as a result
         * (argument null), or to a file named by a string literal, written as plain text (the
         * argument is the file name). A dump compressed, encrypted or to a file named by a parameter
         * is {@link #OTHER}.
         */
        SCRIPT,
        /**
         * {@code SHUTDOWN}, optionally with one word ({@code IMMEDIATELY}, {@code COMPACT}, {@code
         * DEFRAG}, {@code SCRIPT}; the argument): closes the whole database, every replica, as the
         * engine closes its database.
         */
        SHUTDOWN
    }

    public Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason, boolean runsAsSchemaChange,
                          Verb verb, String argument, boolean drawsFromSequence, boolean temporaryTable,
                          String unsafeSchemaChange, boolean locksOnly) {
        this(kind, pureRead, tables, reason, runsAsSchemaChange, verb, argument, drawsFromSequence, temporaryTable,
                unsafeSchemaChange, locksOnly, false);
    }

    public Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason, boolean runsAsSchemaChange) {
        this(kind, pureRead, tables, reason, runsAsSchemaChange, Verb.OTHER, null, false, false, null, false);
    }

    public Classification(StatementKind kind, boolean pureRead, Set<String> tables, String reason) {
        this(kind, pureRead, tables, reason, false);
    }

    public Classification {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(verb, "verb");
        tables = tables == null ? Set.of() : Set.copyOf(tables);
        if (pureRead && kind != StatementKind.READ) throw new IllegalArgumentException("pureRead requires kind READ");
        if (locksOnly && kind != StatementKind.READ && verb != Verb.LOCK_TABLE) {
            throw new IllegalArgumentException("locksOnly requires kind READ or LOCK TABLE");
        }
        if (pureRead && locksOnly) throw new IllegalArgumentException("a statement that locks is not a pure read");
        if (readsCatalog && (pureRead || kind != StatementKind.READ)) {
            throw new IllegalArgumentException("readsCatalog requires kind READ, and is not a pure read");
        }
    }

    /**
     * Whether the statement may change data (rows, sequences, anything a replica must replay): false
     * only for a pure read, a statement that only locks and a read of the catalog. An update transaction enters the update gate before
     * its first such statement, so a transaction that has only read and locked rows does not hold
     * back a schema change on another connection (Flyway holds {@code SELECT ... FOR UPDATE} on its
     * history table while it migrates on another connection; plain engines run that DDL at once).
     */
    public boolean mayWrite() {
        return !pureRead && !locksOnly && !readsCatalog;
    }

    static Classification pure(Set<String> tables) {
        return new Classification(StatementKind.READ, true, tables, null);
    }

    /** This classification with the facts the text shows beside its kind. */
    Classification with(boolean runsAsSchemaChange, Verb verb, String argument, boolean drawsFromSequence, boolean temporaryTable,
                        String unsafeSchemaChange) {
        return new Classification(kind, pureRead, tables, reason, runsAsSchemaChange, verb, argument, drawsFromSequence,
                temporaryTable, unsafeSchemaChange, locksOnly || verb == Verb.LOCK_TABLE, readsCatalog);
    }

    /** A query that changes nothing and reads the engine's catalog (see {@link #readsCatalog}). */
    static Classification catalogRead(Set<String> tables, String reason) {
        return new Classification(StatementKind.READ, false, tables, reason, false, Verb.OTHER, null, false, false, null, false, true);
    }

    /** A query that changes nothing but locks the rows it reads. */
    static Classification locking(Set<String> tables, String reason) {
        return new Classification(StatementKind.READ, false, tables, reason, false, Verb.OTHER, null, false, false, null, true);
    }

    static Classification notPure(StatementKind kind, Set<String> tables, String reason) {
        return new Classification(kind, false, tables, reason == null ? "not a pure read" : reason);
    }
}
