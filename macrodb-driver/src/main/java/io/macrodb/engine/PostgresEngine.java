package io.macrodb.engine;

import io.macrodb.log.Propagation;
import io.macrodb.log.TableShape;
import io.macrodb.sql.Dialect;
import io.macrodb.sql.SqlState;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * PostgreSQL as a remote engine, through pgjdbc: the primary and every secondary are PostgreSQL
 * servers (or databases of one) named in the URL,
 * {@code jdbc:macrodb:postgresql://host:port/db?secondaries=host2:port,host3:port[/db]&capture=decoding} (or
 * {@code capture=triggers}).
 * MacroDB keeps its own log, versions and consistency levels over them as over embedded engines; the
 * secondaries are MacroDB's replicas, not PostgreSQL standbys. pgjdbc's own settings (user, password,
 * sslmode...) are connection properties and apply to every server.
 *
 * <p><b>Capture ({@code capture=triggers})</b>, docs/postgresql-engine.md §2a: every user table with a
 * primary key gets an {@code AFTER INSERT OR UPDATE OR DELETE ... FOR EACH ROW} trigger
 * {@value #TRIGGER} whose PL/pgSQL function ({@code macrodb.capture_<table oid>}) records the row's old and
 * new primary key, as text, in the session's temporary table {@code pg_temp.macrodb_changes} (created
 * by each primary session: no WAL, no contention; each row carries its transaction's id, a rollback
 * to a savepoint or of a failed statement cuts the rows back exactly, and {@link #collectChanges}
 * deletes them with the query that reads them, so the table is empty between transactions). At commit, inside the
 * still-open transaction, {@link #collectChanges} reads the keys back in capture order, cast to the key
 * columns' own types, joined with the table's current row of each new key: that row is the key's final
 * image, read with its native types. They go to the commit path as row events, which builds the record,
 * takes its version from {@code CommitOrder} while the transaction still holds its row locks, and
 * commits, exactly as for the embedded engines (internals.md §3).
 *
 * <p><b>Capture ({@code capture=decoding})</b>, §2b and §0 "capture=decoding as built": the rows come from the
 * primary's logical decoding stream after the commit ({@link PostgresDecoder}, opened by {@link #startDecoding});
 * {@link #collectChanges} does nothing, the primary sessions keep no change table and commit with {@code
 * synchronous_commit = local}, each table's trigger is a statement-level guard ({@code installGuard}: writes the
 * stream cannot carry are refused) and its replica identity {@code FULL}, and a schema change is marked in the
 * stream ({@link #beforeSchemaChange}, {@link #checkSchemaChange}).
 *
 * <p>The trigger captures only in MacroDB's sessions: a primary session sets {@code macrodb.capture =
 * 'on'}; a write from any other session (psql, another application) fails with SQLState 55000 instead
 * of leaving the secondaries behind. A table without a primary key gets a trigger that refuses writes
 * (SQLState 0AM00): a key-only capture cannot tell its rows apart.
 *
 * <p><b>Secondaries</b> run their sessions with {@code session_replication_role = replica}: no trigger
 * fires and no foreign key is checked while the log is applied (rows arrive table by table; a cascade
 * arrives as the rows it changed), which needs a superuser or, from PostgreSQL 15, {@code GRANT SET ON
 * PARAMETER session_replication_role}. A secondary's database is replaced by a copy of the primary
 * ({@link #exportScript}/{@link #importScript}): schemas, sequences, functions, tables, constraints,
 * indexes, views and rows. MacroDB refuses a secondary that holds tables it did not put there (no
 * {@code macrodb.replica} mark, which MacroDB puts in its primary and its secondaries), so a mistyped URL never wipes a database.
 */
public final class PostgresEngine implements Engine {
    /** The capture trigger's name on every table. */
    static final String TRIGGER = "macrodb_capture";
    /** The trigger on every table that refuses a TRUNCATE MacroDB would not ship ({@link #ensureTruncateGuard}). */
    static final String TRUNCATE_TRIGGER = "macrodb_capture_truncate";
    /** MacroDB's triggers, as a condition on {@code g.tgname}: not the application's. */
    static final String OWN_TRIGGER = "g.tgname IN ('" + TRIGGER + "', '" + TRUNCATE_TRIGGER + "')";
    /** The engine URL setting that carries the secondaries (from the {@code secondaries} option). */
    static final String SECONDARIES = "secondaries";
    /** The engine URL setting that carries the capture method (from the {@code capture} option). */
    static final String CAPTURE = "capture";
    static final int DEFAULT_PORT = 5432;
    /** The session advisory lock a replica set holds on its primary's database ("MacroDB" in ASCII). */
    static final long LOCK_KEY = 0x4d6163726f4442L;

    @Override public String name() { return "postgresql"; }

    /**
     * PostgreSQL's: the classifier takes only PostgreSQL's side-effect-free built-ins for pure (JSON, arrays, ranges,
     * text search, {@code generate_series}...; not H2's or HSQLDB's names, which here could be the application's own
     * functions), {@code @>}-style operators and {@code ::type(n)} casts. A statement it cannot prove a pure read
     * (a function off its whitelist, {@code FOR UPDATE}, {@code nextval}) runs on the primary.
     */
    @Override public Dialect dialect() { return Dialect.POSTGRESQL; }

    /**
     * {@code capture=decoding}: rows come from the primary's logical decoding stream after each commit ({@link
     * PostgresDecoder}); the tables' triggers only refuse what the stream cannot carry. Otherwise {@code capture=triggers}.
     */
    private volatile boolean decoding;

    /** pgjdbc reads a whole result into memory unless a fetch size is set, and reports this. */
    @Override public int defaultHoldability() { return java.sql.ResultSet.CLOSE_CURSORS_AT_COMMIT; }

    // ---------------------------------------------------------------- URL

    /** {@code secondaries} and {@code capture}: the PostgreSQL engine's own options in the MacroDB URL. */
    @Override public Set<String> urlOptions() { return Set.of(SECONDARIES, CAPTURE); }

    /**
     * Checks the URL ({@code //host:port/database}, no {@code ;} settings), {@code capture} ({@code decoding}, the
     * default, or {@code triggers}) and {@code secondaries} ({@code host[:port][/database]}, comma
     * separated, each a database of its own), and keeps them in the engine URL's settings, where
     * {@link #secondaryUrl} finds them and the replica set's identity includes them.
     */
    @Override public EngineUrl withOptions(EngineUrl url, Map<String, String> options) throws SQLException {
        if (!url.settings().isEmpty()) {
            throw refused("the PostgreSQL URL takes no ;KEY=VALUE settings (" + url.settings().keySet() + "); give pgjdbc's"
                    + " settings (user, password, sslmode...) as connection properties", "08001");
        }
        // decoding by default: the design's choice, measured cheaper for the primary (docs/postgresql-engine.md §0)
        String capture = options.getOrDefault(CAPTURE, "decoding").trim().toLowerCase(Locale.ROOT);
        if (!capture.equals("triggers") && !capture.equals("decoding")) {
            throw refused("capture='" + options.get(CAPTURE) + "' must be decoding or triggers", "08001");
        }
        decoding = capture.equals("decoding");
        Endpoint primary = primaryEndpoint(url);
        List<String> list = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        seen.add(primary.key());
        String secondaries = options.get(SECONDARIES);
        if (secondaries != null && !secondaries.isBlank()) {
            for (String part : secondaries.split(",")) {
                Endpoint e = Endpoint.parse(part.trim(), primary.database, "secondaries");
                if (!seen.add(e.key())) {
                    throw refused("secondaries names " + e.key() + " twice, or the primary itself; each replica must be a"
                            + " database of its own", "08001");
                }
                list.add(e.url());
            }
        }
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(SECONDARIES, String.join(",", list));
        settings.put(CAPTURE, capture);
        return new EngineUrl(url.engine(), url.database(), settings);
    }

    /** host, port and database of one replica. */
    record Endpoint(String host, int port, String database) {
        String key() { return host.toLowerCase(Locale.ROOT) + ":" + port + "/" + database; }

        String url() { return "jdbc:postgresql://" + host + ":" + port + "/" + database; }

        /** {@code host[:port][/database]}; {@code [v6]:port} for IPv6 addresses. */
        static Endpoint parse(String text, String defaultDatabase, String what) throws SQLException {
            String s = text;
            String db = defaultDatabase;
            int slash = s.indexOf('/');
            if (slash >= 0) {
                db = s.substring(slash + 1);
                s = s.substring(0, slash);
            }
            String host = s;
            int port = DEFAULT_PORT;
            int colon = s.startsWith("[") ? s.indexOf(':', Math.max(0, s.indexOf(']'))) : s.lastIndexOf(':');
            if (colon >= 0) {
                host = s.substring(0, colon);
                try {
                    port = Integer.parseInt(s.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
            }
            if (host.isEmpty() || port < 1 || port > 65535 || db == null || db.isEmpty() || !db.matches("[A-Za-z0-9_.$-]+")
                    || host.matches(".*[\\s,?&;/].*")) {
                throw refused(what + " entry '" + text + "' must be host[:port][/database] (e.g. db2.example.com:5432 or"
                        + " 10.0.0.3:5433/shop), port 1..65535, database name of letters, digits, _ . $ -", "08001");
            }
            return new Endpoint(host, port, db);
        }
    }

    /** The primary's host, port and database from the URL's database part ({@code //host:port/db}). */
    private static Endpoint primaryEndpoint(EngineUrl url) throws SQLException {
        String d = url.database();
        if (!d.startsWith("//") || d.indexOf('/', 2) < 0) {
            throw refused("a PostgreSQL URL names a server and a database: jdbc:macrodb:postgresql://host:port/database"
                    + "?secondaries=host2:port,host3:port&capture=triggers (got postgresql:" + d + ")", "08001");
        }
        int slash = d.indexOf('/', 2);
        return Endpoint.parse(d.substring(2, slash) + d.substring(slash), null, "the primary");
    }

    private static List<String> secondaryUrls(EngineUrl url) {
        String s = url.setting(SECONDARIES);
        if (s == null || s.isEmpty()) return List.of();
        return List.of(s.split(","));
    }

    @Override public int replicasNamed(EngineUrl url) {
        return 1 + secondaryUrls(url).size();
    }

    @Override public String primaryUrl(EngineUrl url) {
        try {
            return primaryEndpoint(url).url();
        } catch (SQLException e) {
            return "jdbc:postgresql:" + url.database(); // withOptions refused it already
        }
    }

    @Override public String secondaryUrl(EngineUrl primary, String uniqueName, int index) {
        List<String> urls = secondaryUrls(primary);
        if (index < 1 || index > urls.size()) {
            throw new IllegalArgumentException("secondary " + index + " is not named in secondaries= (" + urls.size() + " are)");
        }
        return urls.get(index - 1);
    }

    /**
     * The servers are the URL's: secondary {@code index} is the one named at that place (0: the
     * primary's, the index a failed primary leaves to its replacement) unless another
     * replica uses it now (after a promotion a secondary's server is the primary), else the first named
     * server no replica uses (the failed primary's, after a promotion). Never a database in use:
     * building a secondary replaces its database.
     */
    @Override public String secondaryUrl(EngineUrl primary, String uniqueName, int index, Set<String> inUse) throws SQLException {
        String own = index == 0 ? primaryUrl(primary) : secondaryUrl(primary, uniqueName, index); // 0: the first primary's place
        if (!inUse.contains(own)) return own;
        List<String> all = new ArrayList<>();
        all.add(primaryUrl(primary));
        all.addAll(secondaryUrls(primary));
        for (String u : all) if (!inUse.contains(u)) return u;
        throw new SQLException("MacroDB: every PostgreSQL server the URL names serves as a replica already (" + inUse + ");"
                + " a new secondary needs a database of its own", SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
    }

    @Override public void checkSupported(EngineUrl url, Propagation propagation, boolean durable) throws SQLException {
        try {
            Class.forName("org.postgresql.Driver");
        } catch (ClassNotFoundException e) {
            throw refused("PostgreSQL's JDBC driver (org.postgresql:postgresql, pgjdbc 42.x) is not on the classpath; add it", "08001");
        }
        if (propagation != Propagation.ROW) {
            throw refused("propagation=statement is not offered on PostgreSQL: its READ COMMITTED and serializable snapshot"
                    + " isolation do not serialise transactions in commit order the way statement replay needs; use"
                    + " propagation=row (the default)", "0AM00");
        }
        if (durable) {
            throw refused("durability=log is for in-memory engines; PostgreSQL servers keep their own data durable. Drop the"
                    + " durability option", "0AM00");
        }
    }

    private static SQLException refused(String message, String state) {
        String m = "MacroDB: " + message;
        return state.startsWith("0A") ? new SQLFeatureNotSupportedException(m, state) : new SQLException(m, state);
    }

    // ---------------------------------------------------------------- settings and checks

    /**
     * Connect-time checks of the primary: a server that is not a standby, PostgreSQL 12 or later, no
     * objects that a copy to a secondary would leave out, MacroDB's schema {@code macrodb} creatable. Then the capture triggers are installed (by
     * {@link #refreshCapture}, as for every engine).
     */
    @Override public void configurePrimary(Connection c, Propagation propagation, EngineUrl url) throws SQLException {
        decoding = "decoding".equals(url.settings().get(CAPTURE));
        checkServer(c, "the primary (" + primaryUrl(url) + ")");
        // One MacroDB replica set per database: its log and versions live in one process, two would diverge.
        // The lock is the catalog session's, held while the set is open (released when that session closes).
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_try_advisory_lock(" + LOCK_KEY + ")")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                throw new SQLException("MacroDB: another MacroDB replica set (in this or another process) already drives "
                        + primaryUrl(url) + "; two would keep two logs and diverge. Share one: connect with the same URL in one"
                        + " process, or through macrodb serve. Nothing was changed", SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
            }
        }
        PostgresCopy.refuseWhatIsNotCopied(c); // before MacroDB puts anything into the database
        refuseObjectsInOwnSchema(c, "the primary (" + primaryUrl(url) + ")");
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false); // the schema and the mark come, and go again if refused, in one transaction
        try (Statement s = c.createStatement()) {
            try {
                withoutEventTriggers(c, () -> {
                    s.execute("CREATE SCHEMA IF NOT EXISTS macrodb");
                    // the mark of a database MacroDB drives: one that is a secondary later (after a promotion) may be rebuilt
                    s.execute("CREATE TABLE IF NOT EXISTS macrodb.replica (since timestamptz NOT NULL DEFAULT now())");
                    return null;
                });
            } catch (SQLException e) {
                throw new SQLException("MacroDB: cannot create schema macrodb on the primary (" + e.getMessage() + "); MacroDB keeps its"
                        + " capture functions there: connect as a user with CREATE on the database, or create the schema for it",
                        e.getSQLState(), e);
            }
            try (ResultSet rs = s.executeQuery("SELECT current_schema() = 'macrodb', current_user, current_setting('search_path')")) {
                rs.next();
                if (rs.getBoolean(1)) {
                    throw new SQLException("MacroDB: user " + rs.getString(2) + "'s search_path (" + rs.getString(3) + ") puts what"
                            + " is created without a schema into schema macrodb, which is MacroDB's own: such tables would not be"
                            + " replicated, and MacroDB drops the schema when the database closes. Connect as another user, or give"
                            + " this one another search_path (ALTER ROLE " + rs.getString(2) + " SET search_path = public). Nothing"
                            + " was changed", RESERVED_NAME);
                }
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    /** DDL is transactional: a rollback undoes a {@code CREATE} or an {@code ALTER} with the rows around it. */
    @Override public boolean schemaChangesAreTransactional() { return true; }

    /**
     * Comments and blanks before a statement's first word. The patterns that start with it are matched with {@code
     * lookingAt}, from the statement's start only: three of them are tried on every statement of a PostgreSQL
     * connection, and {@code find} would try every position of a long statement for an anchor that fails there.
     */
    private static final String LEADING = "^(?:\\s+|--[^\\n]*(?:\\n|$)|/\\*.*?\\*/)*";

    /**
     * {@code CREATE [UNIQUE] INDEX CONCURRENTLY}, {@code DROP INDEX CONCURRENTLY} and {@code REINDEX [(options)] {INDEX |
     * TABLE} CONCURRENTLY}: the part before the keyword, and it.
     */
    private static final java.util.regex.Pattern CONCURRENTLY = java.util.regex.Pattern.compile(LEADING
            + "((?:create\\s+(?:unique\\s+)?|drop\\s+)index|reindex\\s*(?:\\([^)]*\\)\\s*)?(?:index|table))\\s+concurrently\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /**
     * Maintenance of the server's own storage that PostgreSQL refuses in a transaction block: {@code VACUUM} in any form,
     * {@code REINDEX [(options)] {SCHEMA | DATABASE | SYSTEM}}, and {@code CLUSTER} without a table (every table clustered
     * before).
     */
    private static final java.util.regex.Pattern MAINTENANCE = java.util.regex.Pattern.compile(LEADING
            + "(?:vacuum\\b|reindex\\s*(?:\\([^)]*\\)\\s*)?(?:schema|database|system)\\b|cluster\\s*(?:\\([^)]*\\)\\s*)?(?:verbose\\s*)?(?:;\\s*)?$)",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /**
     * Statements of the server's shared catalogs, not of the database: {@code CREATE | ALTER | DROP} of a role (user,
     * group), a database or a tablespace, {@code ALTER SYSTEM}, a role's membership granted or revoked ({@code GRANT r1
     * TO r2}: no {@code ON}), and comments or security labels on those objects. Shipped to the secondaries they ran
     * once per secondary database: a second secondary on one server failed on the role it already had, and a
     * {@code CREATE DATABASE} or {@code ALTER SYSTEM} failed with 25001 in MacroDB's transaction.
     */
    private static final java.util.regex.Pattern SERVER_LEVEL = java.util.regex.Pattern.compile(LEADING
            + "(?:(?:create|alter|drop)\\s+(?:role|user(?!\\s+mapping\\b)|group|database|tablespace)\\b|alter\\s+system\\b"
            + "|grant\\s+(?:(?!\\bon\\b)[^;])*\\bto\\b|revoke\\s+(?:(?!\\bon\\b)[^;])*\\bfrom\\b"
            + "|(?:comment|security\\s+label(?:\\s+for\\s+\\S+)?)\\s+on\\s+(?:role|database|tablespace)\\b)",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /**
     * {@code ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY}: PostgreSQL runs it as two transactions of its own, and
     * refuses it in a transaction block.
     */
    private static final java.util.regex.Pattern DETACH_CONCURRENTLY = java.util.regex.Pattern.compile(LEADING
            + "alter\\s+table\\b(?:(?!;).)*?\\bdetach\\s+partition\\b(?:(?!;).)*\\bconcurrently\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /**
     * What would take MacroDB's own session settings away: {@code DISCARD ALL}, {@code RESET ALL}, and setting or
     * resetting {@code session_replication_role} or a {@code macrodb.} setting.
     */
    private static final java.util.regex.Pattern SESSION_RESET = java.util.regex.Pattern.compile(LEADING
            + "(?:discard\\s+all|reset\\s+all|(?:set|reset)\\s+(?:session\\s+|local\\s+)?(?:session_replication_role|\"?macrodb\\.))\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /** A call of {@code set_config} anywhere in a statement that names a setting of {@link #SESSION_RESET}'s. */
    private static final java.util.regex.Pattern OWN_SETTING_CALL = java.util.regex.Pattern.compile(
            "\\bset_config\\s*\\(\\s*'(?:session_replication_role|macrodb\\.)", java.util.regex.Pattern.CASE_INSENSITIVE);

    /**
     * PostgreSQL refuses {@code CREATE INDEX CONCURRENTLY}, {@code DROP INDEX CONCURRENTLY} and {@code REINDEX ...
     * CONCURRENTLY} inside a transaction block (25001): the primary runs them in autocommit, as the application meant
     * (building the index without blocking its writers), and the secondaries build, drop or rebuild the index plainly,
     * inside their apply transaction.
     */
    @Override public boolean schemaChangeOutsideTransaction(String sql) {
        return CONCURRENTLY.matcher(sql).lookingAt();
    }

    /** The invalid indexes there are now: a failed {@code CREATE INDEX CONCURRENTLY} leaves one more. */
    @Override public Object beforeSchemaChangeOutsideTransaction(Connection c) throws SQLException {
        return invalidIndexes(c);
    }

    /**
     * A failed {@code CREATE INDEX CONCURRENTLY} leaves its index behind, invalid: it is dropped, so that the primary is
     * as it was (the change was not logged, so no secondary has it, and a later {@code DROP INDEX} of it would fail
     * on every secondary).
     */
    @Override public void undoFailedSchemaChange(Connection c, Object before) throws SQLException {
        if (!(before instanceof Set<?> known)) return;
        for (String index : invalidIndexes(c)) {
            if (known.contains(index)) continue;
            try (Statement s = c.createStatement()) {
                s.execute("DROP INDEX IF EXISTS " + index);
            }
        }
    }

    private static Set<String> invalidIndexes(Connection c) throws SQLException {
        Set<String> out = new LinkedHashSet<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT n.nspname, x.relname FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid"
                     + " JOIN pg_namespace n ON n.oid = x.relnamespace WHERE NOT i.indisvalid")) {
            while (rs.next()) out.add(PostgresCatalog.quoted(rs.getString(1), rs.getString(2)));
        }
        return out;
    }

    /**
     * {@code VACUUM} (with {@code FULL}, {@code ANALYZE}, any options), {@code REINDEX SCHEMA | DATABASE | SYSTEM} and a
     * bare {@code CLUSTER}: they change no row, and PostgreSQL refuses them in a transaction block. The primary runs them
     * in autocommit; every secondary is a server of its own, whose autovacuum keeps its storage.
     */
    @Override public boolean maintenanceOnPrimary(String sql) {
        return MAINTENANCE.matcher(sql).lookingAt();
    }

    /**
     * MacroDB's sessions carry settings of its own: {@code macrodb.capture} (a primary's session captures, a secondary's
     * applies) and {@code session_replication_role}. {@code DISCARD ALL} and {@code RESET ALL} would reset them too, and
     * the session's next write would be refused as made outside MacroDB, or a secondary's triggers would fire again;
     * so would setting them by hand. Refused, naming what to run instead, as {@code DETACH PARTITION ... CONCURRENTLY}
     * is ({@link #DETACH_CONCURRENTLY}).
     */
    @Override public SQLException unsupportedStatement(String sql) {
        java.util.regex.Matcher server = SERVER_LEVEL.matcher(sql);
        if (server.lookingAt()) {
            return refused(abbreviate(sql) + " changes the server, not the database MacroDB replicates: roles, databases,"
                    + " tablespaces and server settings belong to each replica's server, and a secondary's server may hold"
                    + " several replicas or none of them. Run it on each server that needs it, past MacroDB (psql), then use"
                    + " what it made through MacroDB", "0AM00");
        }
        if (DETACH_CONCURRENTLY.matcher(sql).lookingAt()) {
            // run concurrently on the primary, a detach interrupted in its wait would leave the partition pending there, out
            // of the partitioned table's reads, while the secondaries still read it
            return refused(abbreviate(sql) + ": MacroDB makes a schema change in one transaction on every replica, and"
                    + " PostgreSQL runs DETACH PARTITION ... CONCURRENTLY only outside one. Run it without CONCURRENTLY (it"
                    + " then holds an ACCESS EXCLUSIVE lock on the partitioned table while it changes the catalog)", "0AM00");
        }
        if (!SESSION_RESET.matcher(sql).lookingAt() && !OWN_SETTING_CALL.matcher(sql).find()) return null;
        return refused("this statement would reset the settings MacroDB keeps on its sessions (macrodb.capture,"
                + " session_replication_role), and MacroDB runs the connection's statements on several servers' sessions;"
                + " it is not supported through MacroDB: " + abbreviate(sql) + ". RESET the settings you changed one by one"
                + " (RESET work_mem), and DEALLOCATE ALL for prepared statements", "0AM00");
    }

    private static String abbreviate(String sql) {
        String s = sql.strip().replaceAll("\\s+", " ");
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    @Override public String schemaChangeOnSecondary(String sql) {
        java.util.regex.Matcher m = CONCURRENTLY.matcher(sql);
        if (m.lookingAt()) return sql.substring(0, m.start(1)) + m.group(1) + sql.substring(m.end());
        if (PRIVILEGES.matcher(sql).lookingAt() && !sql.contains("?")) return leavingOutMissingRoles(sql);
        java.util.regex.Matcher schema = SCHEMA_AUTHORIZATION.matcher(sql);
        if (schema.lookingAt() && !sql.contains("?")) return ownedByTheUserWhereTheRoleIsMissing(sql, schema);
        java.util.regex.Matcher policy = POLICY_ROLES.matcher(sql);
        if (policy.lookingAt() && !sql.contains("?")) return forTheRolesTheServerHas(sql, policy);
        java.util.regex.Matcher drop = DROP_POLICY.matcher(sql);
        if (drop.lookingAt()) return sql.substring(0, drop.end()) + " IF EXISTS" + sql.substring(drop.end());
        return sql;
    }

    /** {@code sql} without the blanks around it and the semicolons that end it: what {@code EXECUTE} in a block takes. */
    private static String statementText(String sql) {
        String s = sql.strip();
        while (s.endsWith(";")) s = s.substring(0, s.length() - 1).strip();
        return s;
    }

    private static final String IDENTIFIER = "(?:\"(?:[^\"]|\"\")*\"|[\\w$]+)";

    /**
     * {@code CREATE POLICY name ON table [AS ...] [FOR ...] TO role [, ...]} or {@code ALTER POLICY name ON table TO role
     * [, ...]}, up to the end of the role list, followed by {@code USING}, {@code WITH CHECK} or the end: group
     * {@code head} the statement before {@code TO}, {@code verb}, {@code name}, {@code table}, and {@code roles}.
     */
    private static final java.util.regex.Pattern POLICY_ROLES = java.util.regex.Pattern.compile(LEADING
            + "(?<head>(?<verb>create|alter)\\s+policy\\s+(?<name>" + IDENTIFIER + ")\\s+on\\s+(?<table>" + IDENTIFIER + "(?:\\."
            + IDENTIFIER + ")?)(?:\\s+as\\s+\\w+)?(?:\\s+for\\s+\\w+)?)\\s+to\\s+(?<roles>" + IDENTIFIER + "(?:\\s*,\\s*"
            + IDENTIFIER + ")*)(?=\\s+using\\b|\\s+with\\s+check\\b|\\s*;?\\s*$)",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /** {@code DROP POLICY} without {@code IF EXISTS}, up to where that would go. */
    private static final java.util.regex.Pattern DROP_POLICY = java.util.regex.Pattern.compile(LEADING
            + "drop\\s+policy(?!\\s+if\\s+exists\\b)", java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /**
     * A policy for roles that a secondary's server may lack, made there for the roles it has, as a copy makes it; left out
     * with a warning in the server's log where it has none of them (no session there can be any of them, so the policy
     * would hide nothing from anyone). It failed every such secondary, which was rebuilt. A policy altered to such roles
     * only is dropped there, with the same warning, and one that is left out is dropped there with {@code IF EXISTS}. An
     * {@code ALTER POLICY} of a policy left out there fails, and the secondary's rebuild makes it as the primary holds it
     * for the roles that server has: the statement does not say the rest of the policy.
     */
    private static String forTheRolesTheServerHas(String sql, java.util.regex.Matcher m) {
        StringBuilder roles = new StringBuilder();
        int ordinal = 0;
        for (String role : m.group("roles").split("\\s*,\\s*(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
            role = role.strip();
            String lower = role.toLowerCase(Locale.ROOT);
            String name = role.startsWith("\"") ? role.substring(1, role.length() - 1).replace("\"\"", "\"")
                    : List.of("public", "current_role", "current_user", "session_user").contains(lower) ? null : lower;
            roles.append(roles.length() == 0 ? "" : ", ").append('(').append(++ordinal).append(", ").append(literal(role)).append(", ")
                    .append(name == null ? "NULL" : literal(name)).append(')');
        }
        String body = statementText(sql);
        String before = sql.substring(0, m.end("head")) + " TO ";
        String after = statementText(sql.substring(m.end("roles")));
        after = after.isEmpty() ? "" : " " + after;
        String none = m.group("verb").equalsIgnoreCase("alter")
                ? "EXECUTE " + literal("DROP POLICY IF EXISTS " + m.group("name") + " ON " + m.group("table")) + "; RAISE WARNING"
                        + " 'MacroDB: dropped on this secondary, whose server has none of the roles it now names: %', " + literal(body)
                : "RAISE WARNING 'MacroDB: left out on this secondary, whose server has none of its roles: %', " + literal(body);
        return "DO " + dollarQuoted("DECLARE present text; BEGIN SELECT string_agg(r, ', ' ORDER BY i) INTO present FROM (VALUES "
                + roles + ") v(i, r, name) WHERE name IS NULL OR EXISTS (SELECT 1 FROM pg_roles WHERE rolname = name); IF present IS"
                + " NULL THEN " + none + "; ELSE EXECUTE " + literal(before) + " || present || " + literal(after) + "; END IF; END");
    }

    /**
     * {@code CREATE SCHEMA [IF NOT EXISTS] [name] AUTHORIZATION role ...}: group 1 {@code IF NOT EXISTS}, 2 the name, 3
     * the role, and what follows (the schema's elements) from {@code end()}.
     */
    private static final java.util.regex.Pattern SCHEMA_AUTHORIZATION = java.util.regex.Pattern.compile(LEADING
            + "create\\s+schema\\s+(if\\s+not\\s+exists\\s+)?(?:(\"(?:[^\"]|\"\")*\"|[\\w$]+)\\s+)?authorization\\s+"
            + "(\"(?:[^\"]|\"\")*\"|[\\w$]+)", java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /**
     * A schema owned by a role that a secondary's server may lack. There the schema is made as the user MacroDB connects
     * as (a copy makes its objects so too), with a warning in the server's log, instead of failing the secondary, which
     * was rebuilt and failed again at the next such statement. Without a name the schema is named after the role, as
     * PostgreSQL names it. Any other failure fails as before; the test is on the English message, as for grants.
     */
    private static String ownedByTheUserWhereTheRoleIsMissing(String sql, java.util.regex.Matcher m) {
        String ifNotExists = m.group(1) == null ? "" : "IF NOT EXISTS ";
        String name = m.group(2) != null ? m.group(2) : m.group(3);
        String rest = statementText(sql.substring(m.end()));
        String body = statementText(sql);
        String owned = "CREATE SCHEMA " + ifNotExists + name + (rest.isEmpty() ? "" : " " + rest);
        return "DO " + dollarQuoted("BEGIN EXECUTE " + literal(body) + "; EXCEPTION WHEN undefined_object THEN IF SQLERRM LIKE"
                + " 'role \"%\" does not exist' THEN EXECUTE " + literal(owned) + "; RAISE WARNING 'MacroDB: made by this secondary''s"
                + " user, as its server lacks the role: %', SQLERRM; ELSE RAISE; END IF; END");
    }

    /**
     * A grant, a revocation, default privileges or an owner change: it names roles, and a secondary's server may lack a
     * role that the primary's has (roles belong to the server). Every secondary then failed on it, was rebuilt, and failed
     * again. The copy that builds a secondary leaves out a grant to a role its server lacks, with a notice; a shipped one
     * is left out the same way ({@link #leavingOutMissingRoles}).
     */
    private static final java.util.regex.Pattern PRIVILEGES = java.util.regex.Pattern.compile(LEADING
            + "(?:grant\\s+[^;]*?\\bon\\b|revoke\\s+[^;]*?\\bon\\b|alter\\s+default\\s+privileges\\b|alter\\s+[^;]*\\bowner\\s+to\\b)",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);

    /**
     * {@code sql} run so that, where the secondary's server has no such role, it is left out with a warning in the
     * server's log instead of failing the secondary; any other failure fails as before. The test is on the message,
     * {@code role "..." does not exist}: a server whose {@code lc_messages} is not English fails the secondary as before.
     */
    static String leavingOutMissingRoles(String sql) {
        String body = statementText(sql);
        return "DO " + dollarQuoted("BEGIN EXECUTE " + literal(body) + "; EXCEPTION WHEN undefined_object THEN IF SQLERRM LIKE"
                + " 'role \"%\" does not exist' THEN RAISE WARNING 'MacroDB: left out on this secondary, whose server lacks the"
                + " role: %', SQLERRM; ELSE RAISE; END IF; END");
    }

    /**
     * SQLState {@code 42939} (reserved name): what the application put, or would put, into schema {@code macrodb},
     * which MacroDB keeps for itself.
     */
    private static final String RESERVED_NAME = "42939";

    /**
     * Up to ten objects of schema {@code macrodb} that are not MacroDB's own (its mark table {@code replica}, its table {@code full_identity} and its capture
     * functions {@code capture_<oid>}), as "kind name". MacroDB leaves that schema out of every catalog read, copy and
     * checksum, and drops it when the database closes: an object of the application there would not be replicated.
     */
    private static List<String> objectsInOwnSchema(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT kind || ' ' || name FROM ("
                     + "SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN"
                     + " 'materialized view' WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' WHEN 'f' THEN 'foreign table'"
                     + " WHEN 'c' THEN 'type' ELSE 'relation' END AS kind, c.relname AS name"
                     + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                     + " WHERE n.nspname = 'macrodb' AND NOT (c.relname IN ('replica', '" + FULL_IDENTITY + "') AND c.relkind = 'r')"
                     + " UNION ALL SELECT 'function', p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                     + " WHERE n.nspname = 'macrodb' AND p.proname !~ '^capture_([0-9]+|truncate)$' AND p.proname <> '" + GUARD + "'"
                     + " UNION ALL SELECT 'type', t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace"
                     + " WHERE n.nspname = 'macrodb' AND t.typtype IN ('b', 'd', 'e', 'm', 'r') AND t.typcategory <> 'A') o ORDER BY 1 LIMIT 10")) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    private static void refuseObjectsInOwnSchema(Connection c, String what) throws SQLException {
        List<String> objects = objectsInOwnSchema(c);
        if (objects.isEmpty()) return;
        throw new SQLException("MacroDB: schema macrodb of " + what + " holds objects that MacroDB did not make (" + String.join(", ", objects)
                + "); MacroDB keeps its own objects in that schema, leaves it out of replication and drops it when the database"
                + " closes. Rename the schema (ALTER SCHEMA macrodb RENAME TO ...) and connect again. Nothing was changed", RESERVED_NAME);
    }

    /**
     * A schema change that put an object into schema {@code macrodb} (named there, or created without a schema under a
     * search_path that starts there) is refused with {@code 42939} and rolled back with it: MacroDB would not replicate it,
     * and would drop it with the schema. So is, with {@code 0AM00}, one after which the database holds what a copy cannot
     * carry ({@link PostgresCopy#notCopied}: a materialized view, an unlogged or inherited table...): the secondaries
     * would take it, but the next rebuild or open would be refused, and the database could no longer be opened.
     */
    @Override public void checkSchemaChange(Connection c) throws SQLException {
        List<String> written = tablesWrittenBySchemaChange(c);
        if (!written.isEmpty()) {
            throw new SQLFeatureNotSupportedException("MacroDB: this schema change wrote rows of " + String.join(", ", written)
                    + " (an event trigger, a trigger on TRUNCATE, or a function the statement calls did). MacroDB ships a schema"
                    + " change as its statement, and a secondary runs it without the application's triggers, so those rows would"
                    + " be on the primary only. Nothing was changed. Make the change with that trigger disabled (ALTER EVENT"
                    + " TRIGGER ... DISABLE, or ALTER TABLE ... DISABLE TRIGGER), and write such rows in a statement of their own",
                    SqlState.FEATURE_NOT_OFFERED.getState());
        }
        List<String> objects = objectsInOwnSchema(c);
        if (objects.isEmpty()) {
            List<String> notCopied = PostgresCopy.notCopied(c);
            if (!notCopied.isEmpty()) {
                throw new java.sql.SQLFeatureNotSupportedException("MacroDB: after this schema change the database would hold"
                        + " objects that MacroDB cannot copy to a secondary: " + String.join(", ", notCopied) + ". A secondary"
                        + " rebuilt, or the replica set opened again, would then be refused. " + PostgresCopy.COPIED
                        + ". Nothing was changed", SqlState.FEATURE_NOT_OFFERED.getState());
            }
            PostgresCopy.refuseRowSecurity(c, "after this schema change the database would hold");
            if (decoding) markSchemaChange(c, 'e');
            return;
        }
        throw new SQLException("MacroDB: this schema change puts " + String.join(", ", objects) + " into schema macrodb, which is"
                + " MacroDB's own (it is not replicated, and MacroDB drops it when the database closes); create it in another"
                + " schema. Nothing was changed", RESERVED_NAME);
    }

    /**
     * {@code capture=decoding}: a schema change about to run in a primary session's transaction, inside its engine
     * savepoint. Marked in the stream, so that the rows before it and after it are told apart ({@link PostgresDecoder}).
     */
    @Override public void beforeSchemaChange(Connection c) throws SQLException {
        if (decoding) markSchemaChange(c, 'b');
        Map<Long, Long> counts = rowsWritten(c);
        if (counts != null) rowsBeforeSchemaChange.put(c, counts);
        else rowsBeforeSchemaChange.remove(c);
    }

    /** The counts of {@link #rowsWritten} before the schema change each primary session is making. */
    private final Map<Connection, Map<Long, Long>> rowsBeforeSchemaChange =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /**
     * In a primary session ({@code macrodb.capture} on), the rows this session has inserted, updated and deleted in each
     * user table so far and not yet reported to the statistics collector ({@code pg_stat_xact_user_tables}: nothing is
     * reported inside a transaction), by table oid, with an entry 0 that says it is one; null in any other session.
     */
    private static Map<Long, Long> rowsWritten(Connection c) throws SQLException {
        Map<Long, Long> out = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT t.relid, t.n_tup_ins + t.n_tup_upd + t.n_tup_del FROM pg_stat_xact_user_tables t"
                     + " WHERE current_setting('macrodb.capture', true) = 'on' AND t.schemaname NOT IN ('macrodb')"
                     + " AND t.schemaname NOT LIKE 'pg\\_temp\\_%' UNION ALL SELECT 0, 0 WHERE current_setting('macrodb.capture',"
                     + " true) = 'on'")) {
            while (rs.next()) out.put(rs.getLong(1), rs.getLong(2));
        }
        return out.isEmpty() ? null : out;
    }

    /**
     * The user tables whose rows the schema change of session {@code c} wrote (those that existed before it), as
     * {@code schema.table}: an event trigger, a trigger on {@code TRUNCATE}, or a function the statement calls did.
     */
    private List<String> tablesWrittenBySchemaChange(Connection c) throws SQLException {
        Map<Long, Long> before = rowsBeforeSchemaChange.remove(c);
        Map<Long, Long> after = before == null ? null : rowsWritten(c);
        if (after == null) return List.of();
        List<Long> written = new ArrayList<>();
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            Long was = before.get(e.getKey());
            if (was != null && e.getValue() > was) written.add(e.getKey());
        }
        if (written.isEmpty()) return List.of();
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT format('%I.%I', n.nspname, k.relname) FROM pg_class k JOIN"
                + " pg_namespace n ON n.oid = k.relnamespace WHERE k.oid = ANY (?) ORDER BY 1")) {
            ps.setArray(1, c.createArrayOf("bigint", written.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) names.add(rs.getString(1));
            }
        }
        return names;
    }

    /**
     * The mark {@code b} (a schema change begins) or {@code e} (it ended, and MacroDB took it), in a primary session
     * only (a secondary applies a schema change through the same calls, and is not decoded).
     */
    private static void markSchemaChange(Connection c, char mark) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT CASE WHEN current_setting('macrodb.capture', true) = 'on' THEN pg_logical_emit_message(true, '"
                    + PostgresDecoder.PREFIX + "', '" + mark + "') END");
        }
    }

    /** {@code capture=decoding}: the primary's stream, read by a {@link PostgresDecoder}. */
    @Override public CommitDecoding startDecoding(EngineUrl url, String jdbcUrl, java.util.Properties properties, String name)
            throws SQLException {
        if (!"decoding".equals(url.settings().get(CAPTURE))) return null;
        return new PostgresDecoder(jdbcUrl, properties, name, 60_000);
    }

    private static void checkServer(Connection c, String what) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int, pg_is_in_recovery()")) {
            rs.next();
            if (rs.getInt(1) < 120000) {
                throw refused(what + " runs PostgreSQL " + rs.getInt(1) + "; MacroDB needs PostgreSQL 12 or later", "0AM00");
            }
            if (rs.getBoolean(2)) {
                throw refused(what + " is a standby (pg_is_in_recovery()); MacroDB's replicas are independent servers that"
                        + " MacroDB writes to itself. Name a server that accepts writes", "0AM00");
            }
        }
    }

    /**
     * Connect-time checks of a secondary: not a standby, PostgreSQL 12 or later, and no tables that
     * MacroDB did not put there (its database is replaced by a copy of the primary's): a database MacroDB
     * drove before (a secondary, or a primary that failed over) has the mark {@code macrodb.replica}. Such a database
     * loses the replication slots MacroDB left on it as a primary ({@link PostgresDecoder#dropLeftSlots}): they would
     * pin its server's WAL.
     */
    @Override public void configureSecondary(Connection c, Propagation propagation) throws SQLException {
        String url = c.getMetaData().getURL();
        checkServer(c, "secondary " + url);
        if (hasMarker(c)) PostgresDecoder.dropLeftSlots(c);
        else refuseObjectsInOwnSchema(c, "secondary " + url); // a copy drops the schema with what is in it
        if (!PostgresCatalog.tableNames(c).isEmpty() && !hasMarker(c)) {
            throw new SQLException("MacroDB: secondary " + url + " holds tables that MacroDB did not put there; MacroDB replaces"
                    + " a secondary's database with a copy of the primary's, so it must be empty (CREATE DATABASE for it) or one"
                    + " MacroDB built before. Nothing was changed", SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState());
        }
    }

    private static boolean hasMarker(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT to_regclass('macrodb.replica') IS NOT NULL")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    @Override public void configureSession(Connection c, long lockTimeoutMillis) throws SQLException {
        configureSession(c, lockTimeoutMillis, true);
    }

    /**
     * Bounded lock waits ({@code lock_timeout}, which ends in 55P03). A primary session captures
     * ({@code macrodb.capture = on} and its temporary change table); a secondary's session applies with
     * {@code session_replication_role = replica} (see the class comment), refused with the grant to give
     * when the user may not set it.
     */
    @Override public void configureSession(Connection c, long lockTimeoutMillis, boolean primary) throws SQLException {
        boolean auto = c.getAutoCommit();
        if (!auto) c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("SET lock_timeout = " + Math.max(1, Math.min(Integer.MAX_VALUE, lockTimeoutMillis)));
            if (primary) {
                // replica while MacroDB makes its own temporary table (no event trigger of the application fires for it)
                s.execute("SET session_replication_role = replica");
                s.execute("SET macrodb.capture = 'on'");
                if (decoding) {
                    // a walsender decodes only WAL that is flushed: a commit that waits for its decoding must flush it
                    // (with synchronous_commit off each such commit waited for the WAL writer, about 200 ms); raised from
                    // off only, so that a server that waits for synchronous standbys (on, remote_apply) still does
                    s.execute("SELECT set_config('synchronous_commit', 'local', false) WHERE current_setting('synchronous_commit') = 'off'");
                } else {
                    // not ON COMMIT DELETE ROWS: truncating the table at every commit cut a one-row update's
                    // throughput to a quarter (docs/postgresql-engine.md §0); collectChanges deletes the rows instead
                    s.execute("CREATE TEMPORARY TABLE IF NOT EXISTS macrodb_changes (seq bigint GENERATED ALWAYS AS IDENTITY,"
                            + " xid bigint NOT NULL DEFAULT txid_current(), rel oid NOT NULL, old_key text[], new_key text[])");
                }
                s.execute("SET session_replication_role = origin");
            } else {
                s.execute("SET macrodb.capture = 'apply'");
                try {
                    s.execute("SET session_replication_role = replica");
                } catch (SQLException e) {
                    throw new SQLException("MacroDB: secondary " + c.getMetaData().getURL() + " does not let user "
                            + c.getMetaData().getUserName() + " SET session_replication_role (" + e.getMessage() + "); MacroDB"
                            + " applies the log with it set to replica (no triggers, no foreign-key checks). Connect as a"
                            + " superuser, or GRANT SET ON PARAMETER session_replication_role TO " + c.getMetaData().getUserName()
                            + " (PostgreSQL 15+)", SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.getState(), e);
                }
            }
        } finally {
            if (!auto) c.setAutoCommit(false);
        }
    }

    // ---------------------------------------------------------------- capture

    /** The shapes from pg_catalog ({@link PostgresCatalog}). */
    @Override public List<TableShape> tables(Connection c) throws SQLException {
        return Catalog.readTables(c);
    }

    private static String functionName(long oid) {
        return "macrodb.capture_" + oid;
    }

    private static long oid(Connection c, TableShape t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT ?::regclass::oid")) {
            ps.setString(1, t.qualifiedName());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * (Re)creates the table's capture function and trigger: after a schema change the key's columns
     * may have changed, so the function is always written afresh ({@code CREATE OR REPLACE}).
     */
    @Override public void installCapture(Connection c, TableShape t) throws SQLException {
        if (decoding) {
            installGuard(c, t);
            return;
        }
        long oid = oid(c, t);
        String refuseOutside = "RAISE EXCEPTION USING ERRCODE = '55000', MESSAGE = " + literal("MacroDB: " + t.qualifiedName()
                + " was changed outside MacroDB; every write to a replicated database must go through its jdbc:macrodb: URL");
        StringBuilder body = new StringBuilder();
        body.append("BEGIN\n");
        body.append("IF current_setting('macrodb.capture', true) IS DISTINCT FROM 'on' THEN\n");
        body.append("  IF current_setting('macrodb.capture', true) = 'apply' THEN RETURN NULL; END IF;\n");
        body.append("  ").append(refuseOutside).append(";\nEND IF;\n");
        if (!t.hasKey()) {
            body.append("RAISE EXCEPTION USING ERRCODE = '0AM00', MESSAGE = ").append(literal("MacroDB: table " + t.qualifiedName()
                    + " has no primary key, and PostgreSQL's trigger capture knows a row by its key; add one (ALTER TABLE "
                    + t.qualifiedName() + " ADD PRIMARY KEY (...)), or connect with capture=decoding, which takes such"
                    + " tables")).append(";\n");
        } else {
            StringBuilder oldKey = new StringBuilder("ARRAY[");
            StringBuilder newKey = new StringBuilder("ARRAY[");
            for (int i = 0; i < t.keyCount(); i++) {
                String col = TableShape.quote(t.columns().get(t.keyIndex(i)));
                oldKey.append(i == 0 ? "" : ", ").append("OLD.").append(col).append("::text");
                newKey.append(i == 0 ? "" : ", ").append("NEW.").append(col).append("::text");
            }
            oldKey.append(']');
            newKey.append(']');
            String insert = "INSERT INTO pg_temp.macrodb_changes(rel, old_key, new_key) VALUES (TG_RELID, ";
            body.append("IF TG_OP = 'INSERT' THEN ").append(insert).append("NULL, ").append(newKey).append(");\n");
            body.append("ELSIF TG_OP = 'UPDATE' THEN ").append(insert).append(oldKey).append(", ").append(newKey).append(");\n");
            body.append("ELSE ").append(insert).append(oldKey).append(", NULL);\nEND IF;\n");
        }
        body.append("RETURN NULL;\nEND");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION " + functionName(oid) + "() RETURNS trigger LANGUAGE plpgsql AS "
                    + dollarQuoted(body.toString()));
            Boolean perRow = captureTriggerPerRow(c, oid);
            if (perRow != null && !perRow) s.execute("DROP TRIGGER " + TRIGGER + " ON " + t.qualifiedName()); // made by capture=decoding
            if (perRow == null || !perRow) {
                s.execute("CREATE TRIGGER " + TRIGGER + " AFTER INSERT OR UPDATE OR DELETE ON " + t.qualifiedName()
                        + " FOR EACH ROW EXECUTE FUNCTION " + functionName(oid) + "()");
            }
        }
        ensureTruncateGuard(c, oid, t);
    }

    /**
     * {@code capture=decoding} (its replica identity made FULL is noted in {@code macrodb.full_identity} and put back when
     * the set closes): the table's trigger only refuses, once per statement, what the stream cannot carry: a
     * write from a session outside MacroDB (55000), or a write to a table without a primary key that has a column whose
     * values cannot be compared exactly ({@link #inexactColumn}) (0AM00). An unlogged table, whose rows the stream would
     * not carry, is refused before it exists ({@link PostgresCopy#notCopied}: at open and as a schema change). The table's
     * replica identity is made {@code FULL}: an update that leaves a TOASTed value unchanged sends the new row without it,
     * and the old row then carries it; where a deferrable primary key lets two rows hold one key for a moment, the whole
     * old row says which of them an update or a delete names; and a table without a key has its rows known by the whole
     * old row, as a secondary finds one of several equal rows by all its values.
     */
    private void installGuard(Connection c, TableShape t) throws SQLException {
        long oid = oid(c, t);
        char identity;
        boolean partition;
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relreplident, c.relispartition FROM pg_class c WHERE c.oid = ?")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                identity = rs.getString(1).charAt(0);
                partition = rs.getBoolean(2);
            }
        }
        StringBuilder body = new StringBuilder("BEGIN\n");
        body.append("IF current_setting('macrodb.capture', true) IS DISTINCT FROM 'on' THEN\n");
        body.append("  IF current_setting('macrodb.capture', true) = 'apply' THEN RETURN NULL; END IF;\n");
        body.append("  RAISE EXCEPTION USING ERRCODE = '55000', MESSAGE = ").append(literal("MacroDB: " + t.qualifiedName()
                + " was changed outside MacroDB; every write to a replicated database must go through its jdbc:macrodb: URL")).append(";\n");
        body.append("END IF;\n");
        String refusal = null;
        String inexact = t.hasKey() ? null : inexactColumn(c, oid, t);
        if (inexact != null) {
            refusal = "table " + t.qualifiedName() + " has no primary key, so its rows are known by their values, and " + inexact
                    + "; add a primary key (ALTER TABLE " + t.qualifiedName() + " ADD PRIMARY KEY (...))";
        }
        if (refusal != null) {
            body.append("RAISE EXCEPTION USING ERRCODE = '0AM00', MESSAGE = ").append(literal("MacroDB: " + refusal)).append(";\n");
        }
        // a table without a key is known by its values: a numeric NaN or infinity comes out of the stream as a double, which
        // a secondary could not find again exactly; such a table's guard runs per row and refuses those values before the commit
        List<String> numeric = refusal == null && !t.hasKey() ? numericColumns(c, oid, t) : List.of();
        if (!numeric.isEmpty()) {
            body.append("IF TG_OP <> 'DELETE' AND (");
            for (int i = 0; i < numeric.size(); i++) {
                body.append(i == 0 ? "" : " OR ").append("NEW.").append(TableShape.quote(numeric.get(i)))
                        .append("::text IN ('NaN', 'Infinity', '-Infinity')");
            }
            body.append(") THEN RAISE EXCEPTION USING ERRCODE = '0AM00', MESSAGE = ").append(literal("MacroDB: table " + t.qualifiedName()
                    + " has no primary key, so its rows are known by their values, and a numeric NaN or infinity cannot be found"
                    + " again exactly on a secondary; add a primary key (ALTER TABLE " + t.qualifiedName() + " ADD PRIMARY KEY (...))"))
                    .append("; END IF;\n");
        }
        body.append("RETURN NULL;\nEND");
        // AFTER ... FOR EACH ROW, whose result is ignored, as capture=triggers makes it. A partition's guard runs per row too: a
        // statement trigger fires on the table the statement names, and a write through the partitioned table names that
        boolean wantPerRow = !numeric.isEmpty() || partition;
        try (Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION " + functionName(oid) + "() RETURNS trigger LANGUAGE plpgsql AS "
                    + dollarQuoted(body.toString()));
            Boolean perRow = captureTriggerPerRow(c, oid);
            if (perRow != null && perRow != wantPerRow) s.execute("DROP TRIGGER " + TRIGGER + " ON " + t.qualifiedName());
            if (perRow == null || perRow != wantPerRow) {
                s.execute("CREATE TRIGGER " + TRIGGER + (wantPerRow ? " AFTER" : " BEFORE") + " INSERT OR UPDATE OR DELETE ON "
                        + t.qualifiedName() + (wantPerRow ? " FOR EACH ROW" : " FOR EACH STATEMENT") + " EXECUTE FUNCTION "
                        + functionName(oid) + "()");
            }
            if (identity != 'f') {
                // noted, so that closing puts back what the application had (removeCapture)
                s.execute("CREATE TABLE IF NOT EXISTS macrodb." + FULL_IDENTITY + " (rel oid NOT NULL)");
                s.execute("ALTER TABLE " + t.qualifiedName() + " REPLICA IDENTITY FULL");
                s.execute("INSERT INTO macrodb." + FULL_IDENTITY + " SELECT " + oid + " WHERE NOT EXISTS (SELECT 1 FROM macrodb."
                        + FULL_IDENTITY + " WHERE rel = " + oid + ")");
            }
        }
        ensureTruncateGuard(c, oid, t);
    }

    /**
     * The types whose values a row of a table without a key is known by under {@code capture=decoding}: each value
     * comes back from the stream as a plain Java value that equals only itself, and a secondary finds the row again
     * with {@code =} on a parameter of the same type. Not floats (NaN), arrays, JSON, {@code char(n)} (its padding
     * is dropped by the comparison with a text parameter), enums and other types pgjdbc hands over as objects: the
     * rows reach MacroDB only after the commit, too late to refuse one value, so the table is refused whole.
     */
    private static final java.util.Set<Long> EXACT_TYPES = java.util.Set.of(
            16L /* bool */, 17L /* bytea */, 20L /* int8 */, 21L /* int2 */, 23L /* int4 */, 25L /* text */, 1043L /* varchar */,
            1082L /* date */, 1083L /* time */, 1114L /* timestamp */, 1184L /* timestamptz */, 1700L /* numeric */, 2950L /* uuid */);

    /**
     * For a table without a key under {@code capture=decoding}: the first replicated column whose values cannot be
     * compared exactly ({@link #EXACT_TYPES}, and a non-deterministic collation), said for the refusal, or null.
     */
    private static String inexactColumn(Connection c, long oid, TableShape t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, a.atttypid, format_type(a.atttypid, a.atttypmod),"
                + " COALESCE(co.collisdeterministic, true) FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation"
                + " WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!t.columns().contains(rs.getString(1))) continue; // computed by each replica, not shipped
                    if (!EXACT_TYPES.contains(rs.getLong(2))) {
                        return "column " + TableShape.quote(rs.getString(1)) + " is of type " + rs.getString(3)
                                + ", whose values MacroDB cannot compare exactly";
                    }
                    if (!rs.getBoolean(4)) {
                        return "column " + TableShape.quote(rs.getString(1)) + " has a non-deterministic collation, under which"
                                + " different values compare equal";
                    }
                }
            }
        }
        return null;
    }

    /** The replicated {@code numeric} columns of a table, by name. */
    private static List<String> numericColumns(Connection c, long oid, TableShape t) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT a.attname FROM pg_attribute a WHERE a.attrelid = ? AND a.attnum > 0"
                + " AND NOT a.attisdropped AND a.atttypid = 1700 ORDER BY a.attnum")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) if (t.columns().contains(rs.getString(1))) out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** MacroDB's table of the tables whose replica identity it made {@code FULL} ({@code capture=decoding}). */
    private static final String FULL_IDENTITY = "full_identity";

    /** Whether the table's capture trigger fires per row (capture=triggers) or per statement; null if it has none. */
    private static Boolean captureTriggerPerRow(Connection c, long oid) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT tgtype & 1 = 1 FROM pg_trigger WHERE tgrelid = ? AND tgname = '" + TRIGGER + "'")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBoolean(1) : null;
            }
        }
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static String dollarQuoted(String body) {
        String tag = "$macrodb$";
        while (body.contains(tag)) tag = "$macrodb" + Long.toHexString(System.nanoTime()) + "$";
        return tag + body + tag;
    }

    /**
     * Drops every capture trigger and MacroDB's schema (its functions and the {@code macrodb.replica}
     * mark): called on the primary when its replica set closes cleanly (or its opening was refused), which
     * leaves the database as the application had it.
     */
    @Override public void removeCapture(Connection c) throws SQLException {
        withoutEventTriggers(c, () -> {
            removeCaptureNow(c);
            return null;
        });
    }

    private static void removeCaptureNow(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT g.tgname, n.nspname, c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid"
                     + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE " + OWN_TRIGGER)) {
            while (rs.next()) {
                drops.add("DROP TRIGGER IF EXISTS " + rs.getString(1) + " ON " + PostgresCatalog.quoted(rs.getString(2), rs.getString(3)));
            }
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                     + " WHERE n.nspname = 'macrodb' AND p.proname LIKE 'capture\\_%'")) {
            while (rs.next()) drops.add("DROP FUNCTION IF EXISTS macrodb." + TableShape.quote(rs.getString(1)) + "()");
        }
        // the guard's event triggers, which only a superuser may drop; for another user they stay, with their function
        // and so the schema (dropped without CASCADE below, which then leaves it in place with a warning)
        boolean guardStays = false;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT evtname, current_setting('is_superuser') = 'on' FROM pg_event_trigger WHERE"
                     + " evtname IN ('" + GUARD + "', '" + GUARD + "_drop')")) {
            while (rs.next()) {
                if (rs.getBoolean(2)) drops.add("DROP EVENT TRIGGER IF EXISTS " + rs.getString(1));
                else guardStays = true;
            }
        }
        if (!guardStays) drops.add("DROP FUNCTION IF EXISTS macrodb." + GUARD + "()");
        drops.add("DROP TABLE IF EXISTS macrodb.replica");
        // the replica identities capture=decoding made FULL go back to what they were (DEFAULT); those the application set stay
        boolean noted;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT to_regclass('macrodb." + FULL_IDENTITY + "') IS NOT NULL")) {
            noted = rs.next() && rs.getBoolean(1);
        }
        if (noted) {
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT n.nspname, k.relname FROM macrodb." + FULL_IDENTITY + " f JOIN pg_class k ON k.oid = f.rel"
                         + " JOIN pg_namespace n ON n.oid = k.relnamespace WHERE k.relreplident = 'f'")) {
                while (rs.next()) drops.add("ALTER TABLE " + PostgresCatalog.quoted(rs.getString(1), rs.getString(2)) + " REPLICA IDENTITY DEFAULT");
            }
            drops.add("DROP TABLE macrodb." + FULL_IDENTITY);
        }
        execute(c, drops);
        // Not CASCADE: what MacroDB did not make (refused at connect and at every schema change, but a session outside
        // MacroDB may have put something there since) stays, and so does the schema then.
        try (Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS macrodb");
        } catch (SQLException e) {
            if (!"2BP01".equals(e.getSQLState())) throw e;
            java.util.logging.Logger.getLogger(PostgresEngine.class.getName()).warning("MacroDB: schema macrodb of "
                    + c.getMetaData().getURL() + " was left in place: it holds objects MacroDB did not make (" + e.getMessage() + ")");
        }
    }

    private static void execute(Connection c, List<String> statements) throws SQLException {
        if (statements.isEmpty()) return;
        try (Statement s = c.createStatement()) {
            for (String sql : statements) s.execute(sql);
        }
    }

    /**
     * The tables the open transaction changed, by first change: their oids only (this runs at every
     * commit; what MacroDB needs to know of each table is read from the catalog once and kept, see
     * {@link #describe}). A constant text: pgjdbc prepares it on the server once per session.
     */
    private static final String TOUCHED = "SELECT rel FROM pg_temp.macrodb_changes WHERE xid = txid_current_if_assigned()"
            + " GROUP BY rel ORDER BY min(seq)";

    /**
     * What {@link #collectTable} needs of tables (by oid, {@code = ANY(?)}): schema, name, the primary key's
     * column types, names and 1-based positions among the table's columns, and every column's name and type in
     * {@code attnum} order.
     */
    private static final String DESCRIBE;

    static {
        String keyColumns = " FROM pg_index i, unnest(i.indkey) WITH ORDINALITY k(attnum, ord), pg_attribute a WHERE i.indrelid = c.oid"
                + " AND i.indisprimary AND a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.ord)";
        String allColumns = " FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum)";
        DESCRIBE = "SELECT c.oid, n.nspname, c.relname, ARRAY(SELECT format_type(a.atttypid, a.atttypmod)" + keyColumns
                + ", ARRAY(SELECT a.attname::text" + keyColumns + ", ARRAY(SELECT (SELECT count(*)::int FROM pg_attribute b"
                + " WHERE b.attrelid = c.oid AND b.attnum > 0 AND NOT b.attisdropped AND b.attnum <= a.attnum)" + keyColumns
                + ", ARRAY(SELECT a.attname::text" + allColumns + ", ARRAY(SELECT format_type(a.atttypid, a.atttypmod)" + allColumns
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ANY(?::oid[])";
    }

    /**
     * Counts the schema changes this database has seen through MacroDB: each ends with {@link #refreshCapture}
     * on the primary (while no update transaction is open), which moves it on, and every session's
     * {@link #described} tables are read afresh after that. A table's columns and key can change only by a
     * schema change, and MacroDB runs every one (DDL from outside MacroDB is outside its contract: the
     * secondaries would not get it either).
     */
    private final java.util.concurrent.atomic.AtomicLong schemaGeneration = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Per primary session (a session stays on the server it was opened on, so oids keep their meaning): the
     * tables described so far, valid while {@link #schemaGeneration} is what they were read at.
     */
    private final Map<Connection, Described> described = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private static final class Described {
        long generation = -1;
        final Map<Long, TouchedTable> tables = new HashMap<>();
    }

    @Override public List<TableShape> refreshCapture(Connection c) throws SQLException {
        return inNewSchemaGeneration(c, () -> {
            installSchemaChangeGuard(c);
            installTruncateFunction(c);
            return Engine.super.refreshCapture(c);
        });
    }

    @Override public List<TableShape> recreateCapture(Connection c) throws SQLException {
        return inNewSchemaGeneration(c, () -> {
            installSchemaChangeGuard(c);
            installTruncateFunction(c);
            return Engine.super.recreateCapture(c);
        });
    }

    /**
     * The function of every table's {@value #TRUNCATE_TRIGGER} ({@link #ensureTruncateGuard}): MacroDB ships a {@code
     * TRUNCATE} as its statement, and no row trigger or stream row carries what one removes. So one made inside another
     * statement (a {@code DO} block, a {@code CALL}, a function a query calls, a trigger) is refused with {@code 0AM00},
     * as is, with {@code 55000}, one from a session outside MacroDB. Before 2026-11-28 such a truncation was lost on
     * every secondary under {@code capture=triggers}, and under {@code capture=decoding} it made MacroDB fail the primary
     * over after the commit.
     */
    private static void installTruncateFunction(Connection c) throws SQLException {
        String body = "BEGIN\n"
                + "IF current_setting('macrodb.capture', true) = 'apply' THEN RETURN NULL; END IF;\n"
                + "IF current_setting('macrodb.capture', true) IS DISTINCT FROM 'on' THEN RAISE EXCEPTION USING ERRCODE = '55000',"
                + " MESSAGE = 'MacroDB: ' || quote_ident(tg_table_schema) || '.' || quote_ident(tg_table_name) || ' was truncated"
                + " outside MacroDB; every write to a replicated database must go through its jdbc:macrodb: URL'; END IF;\n"
                + "IF lower(regexp_replace(current_query(), '^(\\s+|--[^\\n]*(\\n|$)|/\\*.*?\\*/)*', '')) !~ '^truncate\\M' THEN"
                + " RAISE EXCEPTION USING ERRCODE = '0AM00', MESSAGE = 'MacroDB: TRUNCATE of ' || quote_ident(tg_table_schema) || '.'"
                + " || quote_ident(tg_table_name) || ' ran inside a statement that is not a TRUNCATE (a DO block, a CALL, a function a"
                + " query calls, or a trigger): MacroDB ships a TRUNCATE as its statement, so the secondaries would keep the rows."
                + " Nothing was changed. Run TRUNCATE as a statement of its own'; END IF;\n"
                + "RETURN NULL;\nEND";
        try (Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION macrodb.capture_truncate() RETURNS trigger LANGUAGE plpgsql AS " + dollarQuoted(body));
        }
    }

    /** The table's {@value #TRUNCATE_TRIGGER} ({@link #installTruncateFunction}), made unless it is there. */
    private static void ensureTruncateGuard(Connection c, long oid, TableShape t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_trigger WHERE tgrelid = ? AND tgname = '" + TRUNCATE_TRIGGER + "'")) {
            ps.setLong(1, oid);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) return;
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TRIGGER " + TRUNCATE_TRIGGER + " BEFORE TRUNCATE ON " + t.qualifiedName()
                    + " FOR EACH STATEMENT EXECUTE FUNCTION macrodb.capture_truncate()");
        }
    }

    /** The event triggers of {@link #installSchemaChangeGuard}, and their function's name in schema macrodb. */
    static final String GUARD = "macrodb_guard";

    /** Whether a replica set of this engine found that it may not make {@link #GUARD} (said once). */
    private final java.util.concurrent.atomic.AtomicBoolean guardRefusedSaid = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Event triggers ({@code ddl_command_end} and {@code sql_drop}, both named {@value #GUARD}) that refuse, with
     * {@code 0AM00}, a schema change that a primary session of MacroDB makes inside a statement that is not one: a
     * {@code DO} block, a {@code CALL}, or a function a query, an insert or an update calls. MacroDB ships a schema change
     * as its statement; one inside another statement ran on the primary alone, so the secondaries lacked what it made,
     * and a later write to a table it changed made MacroDB fail the primary over. Temporary objects are let through:
     * they belong to the session. The top-level statement is told by its first word ({@code current_query()}), so a
     * schema change that a function called by a schema change makes ({@code CREATE TABLE t AS SELECT f()}) is not
     * caught. Only a superuser makes event triggers: for another user no guard is made, and it is said once. Every replica
     * gets it (a promoted secondary guards as the primary did); it fires in primary sessions only ({@code macrodb.capture}
     * on, and {@code session_replication_role} origin), and never for MacroDB's own statements (run as a replica).
     */
    private void installSchemaChangeGuard(Connection c) throws SQLException {
        boolean superuser;
        boolean present;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('is_superuser') = 'on', EXISTS (SELECT 1 FROM pg_event_trigger"
                     + " WHERE evtname = '" + GUARD + "')")) {
            rs.next();
            superuser = rs.getBoolean(1);
            present = rs.getBoolean(2);
        }
        if (present) return;
        if (!superuser) {
            if (guardRefusedSaid.compareAndSet(false, true)) {
                java.util.logging.Logger.getLogger(PostgresEngine.class.getName()).warning("MacroDB: " + c.getMetaData().getURL()
                        + ": user " + c.getMetaData().getUserName() + " is not a superuser, so MacroDB cannot make the event"
                        + " triggers that refuse a schema change made inside a DO block, a CALL or a function: such a change"
                        + " would run on the primary alone. Make schema changes as statements of their own");
            }
            return;
        }
        String refusal = "MacroDB: ' || tg_tag || ' ran inside a statement that is not a schema change (a DO block, a CALL, or"
                + " a function a query calls): MacroDB ships a schema change as its statement, so this one would be on the primary"
                + " alone. Nothing was changed. Run it as a statement of its own";
        String body = "DECLARE q text; BEGIN\n"
                + "IF current_setting('macrodb.capture', true) IS DISTINCT FROM 'on' THEN RETURN; END IF;\n"
                + "q := lower(regexp_replace(current_query(), '^(\\s+|--[^\\n]*(\\n|$)|/\\*.*?\\*/)*', ''));\n"
                + "IF q !~ '^(do|call|select|insert|update|delete|merge|with|values|execute|table|copy|explain|fetch|move)\\M'"
                + " OR q ~ '^do\\s+\\$macrodb' THEN RETURN; END IF;\n"
                + "IF tg_event = 'sql_drop' THEN\n"
                + "  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() WHERE NOT is_temporary) THEN RETURN; END IF;\n"
                + "ELSIF NOT EXISTS (SELECT 1 FROM pg_event_trigger_ddl_commands() WHERE schema_name IS NULL OR schema_name NOT LIKE"
                + " 'pg\\_temp%') THEN RETURN; END IF;\n"
                + "RAISE EXCEPTION USING ERRCODE = '0AM00', MESSAGE = '" + refusal + "';\n"
                + "END";
        try (Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE FUNCTION macrodb." + GUARD + "() RETURNS event_trigger LANGUAGE plpgsql AS " + dollarQuoted(body));
            s.execute("CREATE EVENT TRIGGER " + GUARD + " ON ddl_command_end EXECUTE FUNCTION macrodb." + GUARD + "()");
            s.execute("CREATE EVENT TRIGGER " + GUARD + "_drop ON sql_drop EXECUTE FUNCTION macrodb." + GUARD + "()");
        }
    }

    /**
     * Runs a change of the capture triggers with {@link #schemaGeneration} moved on before it, and again once the
     * triggers are current: a commit that described a table in between reads it again.
     */
    private List<TableShape> inNewSchemaGeneration(Connection c, CaptureWork<List<TableShape>> change) throws SQLException {
        schemaGeneration.incrementAndGet();
        try {
            return withoutEventTriggers(c, change);
        } finally {
            schemaGeneration.incrementAndGet();
        }
    }

    /**
     * Runs MacroDB's own statements (its schema and mark at open, a function and a trigger per table made afresh after
     * every schema change) with the application's event triggers kept from firing, where the session may do that: they
     * are not the application's schema changes, and what an event trigger wrote for them would be on the primary only
     * (no secondary runs them). An event trigger enabled as usual does not fire in a session whose
     * {@code session_replication_role} is {@code replica}; setting it takes a superuser, or on PostgreSQL 15 the
     * {@code SET} privilege on it (which a primary session needs anyway), so another user's event triggers still fire for
     * them (README).
     */
    private static <T> T withoutEventTriggers(Connection c, CaptureWork<T> work) throws SQLException {
        String role = null;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_setting('session_replication_role'), current_setting('is_superuser') = 'on',"
                     + " current_setting('server_version_num')::int >= 150000 WHERE EXISTS (SELECT 1 FROM pg_event_trigger WHERE"
                     + " evtenabled = 'O')")) {
            if (rs.next()) {
                boolean may = rs.getBoolean(2);
                if (!may && rs.getBoolean(3)) {
                    try (Statement q = c.createStatement();
                         ResultSet p = q.executeQuery("SELECT has_parameter_privilege('session_replication_role', 'SET')")) {
                        may = p.next() && p.getBoolean(1);
                    }
                }
                if (may) role = rs.getString(1);
            }
        }
        if (role == null || role.equals("replica")) return work.run();
        if (!c.getAutoCommit()) { // for the transaction only: should a statement fail, the setting ends with it
            setReplicationRole(c, "replica", true);
            T out = work.run();
            setReplicationRole(c, role, true);
            return out;
        }
        setReplicationRole(c, "replica", false);
        try {
            return work.run();
        } finally {
            setReplicationRole(c, role, false);
        }
    }

    /** Statements of MacroDB's own, run by {@link #withoutEventTriggers}. */
    private interface CaptureWork<T> {
        T run() throws SQLException;
    }

    private static void setReplicationRole(Connection c, String role, boolean local) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config('session_replication_role', ?, ?)")) {
            ps.setString(1, role);
            ps.setBoolean(2, local);
            ps.execute();
        }
    }

    /**
     * Hands the rows the transaction changed to {@code into}, in capture order, inside the still-open
     * transaction on the primary session {@code c}: per table, the old and new key of each event, cast
     * back from text to the key columns' types, and for an event's new key the table's current row
     * with that key, which is the key's final image (a later event of the same key removes it or
     * replaces it). One round trip for the tables the transaction changed, and one per such table, which
     * also deletes that table's rows (prepared statements, planned once per session); a table this session
     * has not described since the last schema change costs one more, to the catalog.
     */
    @Override public void collectChanges(Connection c, CaptureContext into) throws SQLException {
        if (into == null || decoding) return; // capture=decoding: the rows come from the stream after the commit
        List<Long> oids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(TOUCHED); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) oids.add(rs.getLong(1));
        }
        if (oids.isEmpty()) return;
        Described known = described.computeIfAbsent(c, k -> new Described());
        long generation = schemaGeneration.get();
        if (known.generation != generation) {
            known.tables.clear();
            known.generation = generation;
        }
        List<Long> unknown = new ArrayList<>();
        for (Long oid : oids) if (!known.tables.containsKey(oid)) unknown.add(oid);
        if (!unknown.isEmpty()) describe(c, unknown, known.tables);
        for (Long oid : oids) {
            TouchedTable t = known.tables.get(oid);
            if (t == null) {
                throw new SQLException("MacroDB: a table this transaction changed (oid " + oid + ") was dropped before its commit;"
                        + " its rows cannot be replicated. Roll back", SqlState.SERIALIZATION_FAILURE.getState());
            }
            collectTable(c, into, t);
        }
    }

    /** Reads what {@link #collectTable} needs of the tables {@code oids} into {@code into}, by oid. */
    private static void describe(Connection c, List<Long> oids, Map<Long, TouchedTable> into) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(DESCRIBE)) {
            ps.setArray(1, c.createArrayOf("int8", oids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Integer[] positions = (Integer[]) rs.getArray(6).getArray();
                    int[] ordinals = new int[positions.length];
                    for (int i = 0; i < ordinals.length; i++) ordinals[i] = positions[i] - 1;
                    into.put(rs.getLong(1), new TouchedTable(rs.getLong(1), rs.getString(2), rs.getString(3),
                            (String[]) rs.getArray(4).getArray(), (String[]) rs.getArray(5).getArray(), ordinals,
                            (String[]) rs.getArray(7).getArray(), (String[]) rs.getArray(8).getArray()));
                }
            }
        }
    }

    /**
     * A table the transaction changed: its oid, names, its primary key's column types, names and 0-based
     * positions, and every column's name and type.
     */
    private record TouchedTable(long oid, String schema, String table, String[] keyTypes, String[] keyNames, int[] keyOrdinals,
                                String[] columnNames, String[] columnTypes) {}

    /**
     * One query: the table's events in capture order, keys cast back to their types, joined to the
     * current row of each new key. Its text names every column with its type, so a schema change makes
     * it a new statement rather than a prepared one whose result no longer fits.
     */
    private static void collectTable(Connection c, CaptureContext into, TouchedTable t) throws SQLException {
        int k = t.keyTypes.length;
        String quoted = PostgresCatalog.quoted(t.schema, t.table);
        if (k == 0) {
            throw new SQLException("MacroDB: " + quoted + " lost its primary key during the transaction; its changed rows cannot"
                    + " be told apart. Roll back", SqlState.SERIALIZATION_FAILURE.getState());
        }
        // the table's rows are deleted by the query that reads them (the table is not emptied at commit, see
        // configureSession); rows of another transaction, which only a commit outside this path could leave, are
        // deleted and ignored
        StringBuilder sql = new StringBuilder("WITH ch AS (DELETE FROM pg_temp.macrodb_changes WHERE rel = ").append(t.oid)
                .append(" RETURNING seq, xid, old_key, new_key) SELECT ");
        StringBuilder join = new StringBuilder();
        for (int i = 0; i < k; i++) {
            sql.append("ch.old_key[").append(i + 1).append("]::").append(t.keyTypes[i]).append(", ");
            sql.append("ch.new_key[").append(i + 1).append("]::").append(t.keyTypes[i]).append(", ");
            join.append(i == 0 ? "" : " AND ").append("t.").append(TableShape.quote(t.keyNames[i]))
                    .append(" = ch.new_key[").append(i + 1).append("]::").append(t.keyTypes[i]);
        }
        sql.append("t.").append(TableShape.quote(t.keyNames[0])).append(" IS NULL AND ch.new_key IS NOT NULL");
        for (int j = 0; j < t.columnNames.length; j++) {
            sql.append(", t.").append(TableShape.quote(t.columnNames[j])).append("::").append(t.columnTypes[j]);
        }
        sql.append(" FROM ch LEFT JOIN ").append(quoted).append(" t ON ").append(join)
                .append(" WHERE ch.xid = txid_current_if_assigned() ORDER BY ch.seq");
        List<Object[][]> events = new ArrayList<>();
        Map<List<Object>, Integer> lastRemoval = new HashMap<>();
        Map<List<Object>, Integer> missingAt = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.toString()); ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            int first = 2 * k + 2;
            int n = md.getColumnCount() - first + 1;
            int[] types = new int[n];
            for (int j = 0; j < n; j++) types[j] = PostgresCatalog.jdbcType(md.getColumnTypeName(first + j), "");
            while (rs.next()) {
                Object[] oldRow = null;
                Object[] newRow = null;
                Object[] oldKey = new Object[k];
                Object[] newKey = new Object[k];
                for (int i = 0; i < k; i++) {
                    int type = types[t.keyOrdinals[i]];
                    oldKey[i] = Values.read(rs, 2 * i + 1, type, false);
                    newKey[i] = Values.read(rs, 2 * i + 2, type, false);
                }
                if (rs.getObject(1) != null) {
                    oldRow = new Object[n];
                    for (int i = 0; i < k; i++) oldRow[t.keyOrdinals[i]] = oldKey[i];
                    lastRemoval.put(java.util.Arrays.asList(oldKey), events.size());
                }
                if (rs.getObject(2) != null) {
                    newRow = new Object[n];
                    if (rs.getBoolean(2 * k + 1)) {
                        // the row left again later in the transaction: a later event must say so
                        for (int i = 0; i < k; i++) newRow[t.keyOrdinals[i]] = newKey[i];
                        missingAt.put(java.util.Arrays.asList(newKey), events.size());
                    } else {
                        for (int j = 0; j < n; j++) newRow[j] = Values.read(rs, first + j, types[j], false);
                    }
                }
                events.add(new Object[][] {oldRow, newRow});
            }
        }
        for (Map.Entry<List<Object>, Integer> m : missingAt.entrySet()) {
            Integer removed = lastRemoval.get(m.getKey());
            if (removed == null || removed <= m.getValue()) {
                throw new SQLException("MacroDB: row " + m.getKey() + " of " + quoted + " was captured but is gone without a"
                        + " captured delete (a TRUNCATE or a write with triggers disabled in this transaction?); the transaction"
                        + " cannot be replicated. Roll it back", SqlState.SERIALIZATION_FAILURE.getState());
            }
        }
        for (Object[][] ev : events) into.onRow(t.schema, t.table, ev[0], ev[1]);
    }

    // ---------------------------------------------------------------- triggers of the application

    /**
     * By table and name (a trigger's name is its table's in PostgreSQL: two tables' triggers may share one). A trigger
     * that is not enabled as usual comes with the statement that sets it so ({@code DISABLE}, {@code ENABLE REPLICA},
     * {@code ENABLE ALWAYS}), both in one {@code DO} block: {@code pg_get_triggerdef} leaves that out. A row trigger of a
     * partitioned table comes alone: its partitions' clones of it ({@code tgparentid}) are made with it, and cannot be
     * made, nor dropped, on their own.
     */
    @Override public Map<String, String> applicationTriggerDdl(Connection c) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT format('%I.%I.%I', n.nspname, c.relname, g.tgname), pg_get_triggerdef(g.oid),"
                     + " CASE g.tgenabled WHEN 'D' THEN 'DISABLE' WHEN 'R' THEN 'ENABLE REPLICA' WHEN 'A' THEN 'ENABLE ALWAYS' END"
                     + " || format(' TRIGGER %I', g.tgname), format('%I.%I', n.nspname, c.relname) FROM pg_trigger g JOIN pg_class c"
                     + " ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT g.tgisinternal AND"
                     + " g.tgparentid = 0 AND NOT " + OWN_TRIGGER + " AND " + PostgresCatalog.USER_SCHEMA + " ORDER BY g.oid")) {
            while (rs.next()) {
                String create = rs.getString(2);
                String state = rs.getString(3);
                out.put(rs.getString(1), state == null ? create : "DO " + dollarQuoted("BEGIN EXECUTE " + literal(create)
                        + "; EXECUTE " + literal("ALTER TABLE " + rs.getString(4) + " " + state) + "; END"));
            }
        }
        return out;
    }

    @Override public void dropUserTriggers(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT g.tgname, n.nspname, c.relname FROM pg_trigger g JOIN pg_class c ON"
                     + " c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT g.tgisinternal AND"
                     + " g.tgparentid = 0 AND NOT " + OWN_TRIGGER + " AND " + PostgresCatalog.USER_SCHEMA)) {
            while (rs.next()) {
                drops.add("DROP TRIGGER IF EXISTS " + TableShape.quote(rs.getString(1)) + " ON "
                        + PostgresCatalog.quoted(rs.getString(2), rs.getString(3)));
            }
        }
        execute(c, drops);
    }

    // ---------------------------------------------------------------- copies

    /**
     * Writes the database's user schema objects and rows: a list of SQL statements (schemas,
     * sequences, functions, tables with their columns, defaults and NOT NULL, then constraints, indexes
     * and views, as {@code pg_get_*def} gives them) and each table's rows as {@code COPY ... (FORMAT
     * binary)}, all read in one REPEATABLE READ snapshot. Objects that are not copied (types of the
     * application's own, extensions that own tables, materialized views, inherited tables) are refused with 0AM00.
     */
    @Override public void exportScript(Connection c, Path file) throws SQLException {
        inTransactionOf(c, Connection.TRANSACTION_REPEATABLE_READ, () -> {
            try {
                PostgresCopy.export(c, file);
            } catch (IOException e) {
                throw new SQLException("MacroDB: cannot write the copy of the PostgreSQL database to " + file + ": " + e.getMessage(),
                        SqlState.IO_ERROR.getState(), e);
            }
            return null;
        });
    }

    /**
     * A secondary MacroDB built before ({@code macrodb.replica}) is kept at open where its {@link PostgresCopy#fingerprint}
     * equals the primary's: the statements a copy would run, byte for byte, and every table's row count and row hash,
     * each computed by its own server, so no row crosses the network. Its sequences are then set where the primary's are,
     * as a copy sets them (a secondary's sequences do not move with the primary's: MacroDB keeps the positions in memory
     * for a promotion, and they are gone when the set closes). Each side is read in one snapshot, with the
     * settings that a value's text depends on fixed (so that the text is exact: floats to the last digit, times in UTC).
     * Anything else (a row, a column or a default changed past MacroDB while it was closed) and the secondary is copied
     * again, as before. A restarted application used to copy every secondary whole. The primary's fingerprint and
     * sequence positions are read once, for the first secondary that may be kept, and compared with each.
     */
    @Override public KeptCheck keptCheck(Connection primary) {
        return new KeptCheck() {
            /** The primary's fingerprint and sequence positions, read for the first secondary that may be kept. */
            private byte[] expected;
            private List<PostgresCopy.Position> positions;

            @Override public boolean keptAsItIs(Connection secondary) throws SQLException {
                if (!hasMarker(secondary)) return false;
                if (expected == null) {
                    expected = fingerprint(primary); // what the primary cannot be copied with is refused here, as by the copy
                    positions = PostgresCopy.sequencePositions(primary);
                }
                try {
                    if (!java.util.Arrays.equals(expected, fingerprint(secondary))) return false;
                } catch (SQLException e) {
                    return false; // an object on the secondary that a copy would not make: the copy replaces it
                }
                return inTransactionOf(secondary, Connection.TRANSACTION_READ_COMMITTED, () -> {
                    try (Statement s = secondary.createStatement()) {
                        for (PostgresCopy.Position p : positions) s.execute(p.setval());
                    }
                    return true;
                });
            }
        };
    }

    @Override public boolean secondariesOutliveTheSet() { return true; }

    private static byte[] fingerprint(Connection c) throws SQLException {
        return inTransactionOf(c, Connection.TRANSACTION_REPEATABLE_READ, () -> {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL extra_float_digits = 3; SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL IntervalStyle = 'postgres';"
                        + " SET LOCAL TimeZone = 'UTC'; SET LOCAL bytea_output = 'hex'; SET LOCAL lc_monetary = 'C'");
            }
            return PostgresCopy.fingerprint(c);
        });
    }

    private interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * {@code work} in a transaction of its own on {@code c} at {@code isolation} (an open one committed first), committed,
     * or rolled back if it fails; {@code c}'s autocommit and isolation put back as they were.
     */
    private static <T> T inTransactionOf(Connection c, int isolation, Work<T> work) throws SQLException {
        boolean auto = c.getAutoCommit();
        int before = c.getTransactionIsolation();
        try {
            if (!auto) c.commit();
            c.setAutoCommit(false);
            c.setTransactionIsolation(isolation);
            T result = work.run();
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setTransactionIsolation(before);
            c.setAutoCommit(auto);
        }
    }

    /**
     * Replaces the user schema objects and rows of the database of {@code c} (a secondary) with the copy
     * {@link #exportScript} wrote, in one transaction, and marks the database as MacroDB's
     * ({@code macrodb.replica}).
     */
    @Override public void importScript(Connection c, Path file) throws SQLException {
        inTransactionOf(c, c.getTransactionIsolation(), () -> {
            try {
                PostgresCopy.importInto(c, file);
            } catch (IOException e) {
                throw new SQLException("MacroDB: cannot read the copy of the PostgreSQL database from " + file + ": " + e.getMessage(),
                        SqlState.IO_ERROR.getState(), e);
            }
            return null;
        });
    }

    // ---------------------------------------------------------------- life, sequences, errors

    /** A remote server is never shut down by MacroDB: its sessions just close. */
    @Override public void shutdownDatabase(Connection c) {
    }

    @Override public String timeZoneReset() { return "SET TIME ZONE DEFAULT"; }

    /**
     * The session's {@code search_path}. Before 2026-11-29 MacroDB carried the current schema, its first schema, and set
     * it on every session through pgjdbc's {@code setSchema}, which makes it the whole path: with a path of several
     * schemas ({@code app, public} by {@code ALTER DATABASE ... SET search_path}, or a user whose name a schema bears)
     * every statement through MacroDB lost the others, and {@code SELECT * FROM t} of a table in {@code public} failed
     * with 42P01, on the primary too (PostgresSearchPathTest).
     */
    @Override public String sessionSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_setting('search_path')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * Session-level advisory locks ({@code pg_advisory_lock}) end with the application's connection, as they end with a
     * connection to the server. Before 2026-11-29 one the application had not unlocked stayed with the session in MacroDB's
     * pool: no session outside it got the lock again, and the next connection given that session held it unasked
     * (PostgresSessionStateTest). Flyway takes such a lock for a migration.
     */
    @Override public void beforeReuse(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_unlock_all()");
        }
    }

    /**
     * {@code SELECT set_config('name', 'value', false)}, the value read back from {@code c}: the setting as the query
     * left it, whatever its value was an expression of. Before 2026-11-29 such a query (Flyway changes the search_path so)
     * set the primary's session alone, and a read of the connection on a secondary ran without it
     * (PostgresSearchPathTest).
     */
    @Override public String sessionSettingStatement(Connection c, String setting) throws SQLException {
        String name = setting.substring("SET ".length());
        if (name.equals("TIME ZONE")) name = "TimeZone";
        try (PreparedStatement ps = c.prepareStatement("SELECT current_setting(?)")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return "SELECT set_config(" + literal(name) + ", " + literal(rs.getString(1)) + ", false)";
            }
        }
    }

    @Override public void setSessionSchema(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config('search_path', ?, false)")) {
            ps.setString(1, schema);
            ps.execute();
        }
    }

    /** The next value of every user sequence ({@code pg_sequences}), keyed {@code "schema"."name"}. */
    @Override public Map<String, Long> sequencePositions(Connection c) throws SQLException {
        Map<String, Long> out = new TreeMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT schemaname, sequencename, COALESCE(last_value + increment_by, start_value)"
                     + " FROM pg_sequences WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'macrodb')")) {
            while (rs.next()) out.put(PostgresCatalog.quoted(rs.getString(1), rs.getString(2)), rs.getLong(3));
        }
        return out;
    }

    @Override public String deleteOneRowSql(String table, String condition) {
        return "DELETE FROM " + table + " WHERE ctid = (SELECT ctid FROM " + table + " WHERE " + condition + " LIMIT 1)";
    }

    /** Per session: {@code session_replication_role} {@code origin} (checks on) or {@code replica} (off). */
    @Override public void setReferentialIntegrity(Connection c, boolean on) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET session_replication_role = " + (on ? "origin" : "replica"));
        }
    }

    /** Serialization failure (40001), deadlock (40P01), lock wait ended by {@code lock_timeout} (55P03). */
    @Override public boolean isRetryable(SQLException e) {
        String s = e.getSQLState();
        return "40001".equals(s) || "40P01".equals(s) || "55P03".equals(s);
    }

    /**
     * Connection failures (08xxx, pgjdbc's own for a broken or closed connection), and the server
     * going away: administrator shutdown (57P01), crash shutdown (57P02), cannot connect now while it
     * starts or stops (57P03).
     */
    @Override public boolean isEngineGone(SQLException e) {
        String s = e.getSQLState();
        return Engine.super.isEngineGone(e) || "57P01".equals(s) || "57P02".equals(s) || "57P03".equals(s);
    }
}
