package io.macrodb.server;

import io.macrodb.jdbc.MacroConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One client connection's protocol state machine: startup and authentication, then simple and extended queries,
 * owning one MacroDB JDBC connection. Messages arrive from the event loop through {@link #receive} and are handled
 * one at a time, in order, on a worker thread (JDBC blocks; the event loop must not). Transaction control
 * statements are not passed to the engine but mapped onto the JDBC connection, which is how MacroDB routes:
 * {@code BEGIN READ ONLY} becomes {@code setReadOnly(true); setAutoCommit(false)}, so that the transaction runs on
 * a caught-up secondary.
 */
final class PgSession {
    /** Queued by the channel when the client's connection is gone. */
    static final Object DISCONNECTED = new Object();
    /** Queued by the channel when nothing was read or written for the idle timeout. */
    static final Object IDLE = new Object();
    private static final String SERVER_VERSION = "14.0";
    private static final int FLUSH_AT = 64 * 1024;
    private static final int MAX_QUEUED = 256;

    private enum Phase { STARTUP, SASL_FIRST, SASL_FINAL, PASSWORD, READY, CLOSED }

    /** A parsed statement: its text for the engine ($n as ?), which $n each ? is, and declared parameter types. */
    private static final class Prepared {
        final String sql;
        final Command command;
        final String jdbcSql;
        final int[] order;
        int[] oids;
        PreparedStatement ps;
        /** The portal whose rows are still open on {@link #ps}, if any: another portal then gets a statement of its own. */
        Portal openOn;
        /** PostgreSQL's names for the result's columns ({@link ColumnNames}), read at first need; null: the engine's labels. */
        List<String> columnNames;
        boolean columnNamesRead;

        Prepared(String sql, Command command, String jdbcSql, int[] order, int[] oids) {
            this.sql = sql;
            this.command = command;
            this.jdbcSql = jdbcSql;
            this.order = order;
            this.oids = oids;
        }
    }

    /** A bound statement and, once executed, its open result. */
    private static final class Portal {
        final Prepared statement;
        final Object[] args;
        final short[] resultFormats;
        ResultSet rs;
        Statement owner;
        int[] columnOids;
        long rowsSent;
        boolean done;
        /** Whether {@link #owner} is this portal's own statement, closed with it. */
        boolean ownsStatement;
        String tag;
        /** A catalog query's answer, computed at Describe or first Execute. */
        PgCatalog.Answer catalog;

        Portal(Prepared statement, Object[] args, short[] resultFormats) {
            this.statement = statement;
            this.args = args;
            this.resultFormats = resultFormats;
        }
    }

    private final PgServer server;
    private final Channel channel;
    private final Executor executor;
    private final ArrayDeque<Object> inbox = new ArrayDeque<>();
    private boolean draining;
    private Phase phase = Phase.STARTUP;
    private ByteBuf out = Unpooled.buffer();
    private int pid;
    private int secret;
    private String user;
    private String database;
    /** Whether the engine folds unquoted names to upper case (asked once). */
    private Boolean upperCaseEngine;
    /** The statement prepared or run last: an engine's error is translated with it in view. */
    private String lastSql;
    private Scram.ServerExchange scram;
    /** The user's line when it authenticates with MD5 or a clear-text password, and the MD5 challenge's salt. */
    private UserStore.Entry passwordEntry;
    private byte[] md5Salt;
    private Connection conn;
    private final Map<String, String> settings = new LinkedHashMap<>();
    /** The settings as the session began (startup parameters, reported values): what RESET restores. */
    private final Map<String, String> startupSettings = new HashMap<>();
    private ZoneId zone = ZoneOffset.UTC;
    private boolean inBlock;
    private boolean failed;
    private boolean ignoreTillSync;
    /**
     * An implicit transaction of the extended protocol is open: begun by the first Execute of a query or DML statement
     * outside a transaction block, committed at Sync, rolled back by an error before it (as PostgreSQL runs the
     * statements between two Syncs).
     */
    private boolean implicitExtended;
    private boolean defaultReadOnly;
    private int statementsInBlock;
    private long reportedCommit = -1;
    private volatile Statement running;
    /**
     * A CancelRequest arrived while the session was busy (PostgreSQL's QueryCancelPending): the statement running
     * then, or the next one started before the session goes idle, fails with 57014. Cleared when the session goes
     * idle; a CancelRequest for an idle session does nothing, as in PostgreSQL.
     */
    private volatile boolean cancelPending;
    private long lastActivity = System.nanoTime();
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    /** A COPY FROM STDIN in progress: the statement, its data so far, and the rest of the query string. */
    private Copy copyIn;
    private java.io.ByteArrayOutputStream copyData;
    private List<String> copyRest;
    /** Most bytes one COPY FROM STDIN may send (it is held in memory until CopyDone). */
    private static final int MAX_COPY_BYTES = 256 << 20;

    PgSession(PgServer server, Channel channel, Executor executor) {
        this.server = server;
        this.channel = channel;
        this.executor = executor;
    }

    void setKey(int pid, int secret) {
        this.pid = pid;
        this.secret = secret;
    }

    int pid() { return pid; }

    int secret() { return secret; }

    /**
     * Cancels the statement running now, or the next one this busy session starts (from a CancelRequest or
     * shutdown; any thread). The statement fails with 57014, as in PostgreSQL, whatever state the engine gives a
     * cancelled statement (HSQLDB's is an aborted transaction).
     */
    void cancel() {
        synchronized (inbox) {
            if (!draining) return; // idle: nothing to cancel
            cancelPending = true;
        }
        Statement s = running;
        if (s != null) {
            try {
                s.cancel();
            } catch (SQLException ignored) {
                // nothing running any more, or the engine cannot cancel: the request is best effort, as in PostgreSQL
            }
        }
    }

    // ---- message intake: in order, one at a time, off the event loop -------------------------------------------

    void receive(Object msg) {
        boolean start;
        synchronized (inbox) {
            inbox.add(msg);
            if (inbox.size() > MAX_QUEUED) channel.config().setAutoRead(false);
            start = !draining;
            draining = true;
        }
        if (start) {
            try {
                executor.execute(this::drain);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                drain(); // the server is shutting down: finish (roll back, close) on this thread
            }
        }
    }

    /** Whether the client got past authentication (the server closes connections that take too long to). */
    boolean authenticated() {
        return phase == Phase.READY || phase == Phase.CLOSED && conn != null;
    }

    private void drain() {
        while (true) {
            Object msg;
            synchronized (inbox) {
                msg = inbox.poll();
                if (msg == null) {
                    draining = false;
                    cancelPending = false;
                    if (!channel.config().isAutoRead() && phase != Phase.CLOSED) channel.config().setAutoRead(true);
                    return;
                }
            }
            try {
                handle(msg);
            } catch (RuntimeException | Error e) {
                fatal("XX000", "internal error: " + e);
            }
        }
    }

    private void handle(Object msg) {
        if (msg == DISCONNECTED) { closeSession(); return; }
        if (msg == IDLE) {
            // queued behind whatever ran: idle only if nothing has happened for the whole timeout since
            long timeout = server.config().idleTimeoutMillis();
            if (phase == Phase.READY && System.nanoTime() - lastActivity >= timeout * 1_000_000L) {
                if (inBlock) fatal("25P03", "terminating connection due to idle-in-transaction timeout");
                else fatal("57P05", "terminating connection due to idle-session timeout");
            }
            return;
        }
        lastActivity = System.nanoTime();
        if (phase == Phase.CLOSED) return;
        if (msg instanceof FrontendMessage.Startup s) { startup(s); return; }
        PgFrameDecoder.Frame f = (PgFrameDecoder.Frame) msg;
        FrontendMessage m;
        try {
            m = MessageDecoder.decode(f.type(), f.body(), phase == Phase.SASL_FIRST);
        } catch (ProtocolException e) {
            fatal(e.sqlState(), e.getMessage());
            return;
        }
        if (phase == Phase.SASL_FIRST || phase == Phase.SASL_FINAL) { authenticate(m); return; }
        if (phase == Phase.PASSWORD) { checkPassword(m); return; }
        if (copyIn != null) { copyInMessage(m); return; }
        if (m instanceof FrontendMessage.Terminate) { closeSession(); channel.close(); return; }
        if (ignoreTillSync && !(m instanceof FrontendMessage.Sync)) return;
        if (m instanceof FrontendMessage.Query q) simpleQuery(q.sql());
        else if (m instanceof FrontendMessage.Parse p) guarded(() -> parse(p));
        else if (m instanceof FrontendMessage.Bind b) guarded(() -> bind(b));
        else if (m instanceof FrontendMessage.Describe d) guarded(() -> describe(d));
        else if (m instanceof FrontendMessage.Execute e) guarded(() -> execute(e));
        else if (m instanceof FrontendMessage.Close c) guarded(() -> close(c));
        else if (m instanceof FrontendMessage.Sync) sync();
        else if (m instanceof FrontendMessage.Flush) flush();
        else if (m instanceof FrontendMessage.CopyMessage) {
            // COPY is not served, so no COPY is in progress: PostgreSQL ignores stray CopyData/CopyDone/CopyFail too
            return;
        } else fatal("08P01", "unexpected message type '" + f.type() + "'");
    }

    // ---- startup and authentication ----------------------------------------------------------------------------

    private void startup(FrontendMessage.Startup s) {
        if (s.major() != 3) {
            fatal("0A000", "unsupported frontend protocol " + s.major() + "." + s.minor() + ": server supports 3.0 to 3.0");
            return;
        }
        List<String> unknownOptions = new ArrayList<>();
        for (String k : s.parameters().keySet()) if (k.startsWith("_pq_.")) unknownOptions.add(k);
        if (s.minor() > 0 || !unknownOptions.isEmpty()) BackendMessages.negotiateProtocolVersion(out, 0, unknownOptions);
        user = s.parameters().get("user");
        if (user == null || user.isEmpty()) {
            fatal("28000", "no PostgreSQL user name specified in startup packet");
            return;
        }
        database = s.parameters().getOrDefault("database", user);
        if (database == null || database.isEmpty()) database = user;
        settings.put("application_name", s.parameters().getOrDefault("application_name", ""));
        for (Map.Entry<String, String> e : s.parameters().entrySet()) {
            if (!e.getKey().startsWith("_pq_.") && !e.getKey().equals("user") && !e.getKey().equals("database")
                    && !e.getKey().equals("options") && !e.getKey().equals("replication")) {
                settings.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue());
            }
        }
        String options = s.parameters().get("options");
        if (options != null) {
            // libpq's PGOPTIONS / pgjdbc's options: "-c name=value" (or "--name=value") pairs
            String[] w = options.strip().split("\\s+");
            for (int i = 0; i < w.length; i++) {
                String kv = w[i].equals("-c") && i + 1 < w.length ? w[++i] : w[i].startsWith("-c") ? w[i].substring(2)
                        : w[i].startsWith("--") ? w[i].substring(2) : null;
                int eq = kv == null ? -1 : kv.indexOf('=');
                if (eq > 0) settings.put(kv.substring(0, eq).toLowerCase(Locale.ROOT).replace('-', '_'), kv.substring(eq + 1));
            }
        }
        if (settings.containsKey("timezone")) setZone(settings.get("timezone"));
        if (server.config().users() == null) { admitAndStart(); return; }
        UserStore.Entry entry = server.config().users().entry(user);
        if (entry != null && entry.method() != UserStore.Method.SCRAM_SHA_256) {
            // MD5 or clear text only for a user whose line in the users file asks for it
            passwordEntry = entry;
            if (entry.method() == UserStore.Method.MD5) {
                md5Salt = new byte[4];
                new java.security.SecureRandom().nextBytes(md5Salt);
                BackendMessages.authenticationMd5(out, md5Salt);
            } else {
                BackendMessages.authenticationCleartext(out);
            }
            phase = Phase.PASSWORD;
            flush();
            return;
        }
        scram = new Scram.ServerExchange(server.config().users().verifier(user));
        BackendMessages.authenticationSasl(out, List.of(Scram.MECHANISM));
        phase = Phase.SASL_FIRST;
        flush();
    }

    private void authenticate(FrontendMessage m) {
        try {
            if (phase == Phase.SASL_FIRST && m instanceof FrontendMessage.SaslInitialResponse r) {
                if (!Scram.MECHANISM.equals(r.mechanism())) {
                    fatal("08P01", "client selected an invalid SASL authentication mechanism");
                    return;
                }
                String first = scram.first(new String(r.data(), StandardCharsets.UTF_8));
                BackendMessages.authenticationSaslContinue(out, first.getBytes(StandardCharsets.UTF_8));
                phase = Phase.SASL_FINAL;
                flush();
            } else if (phase == Phase.SASL_FINAL && m instanceof FrontendMessage.SaslResponse r) {
                String last = scram.last(new String(r.data(), StandardCharsets.UTF_8));
                BackendMessages.authenticationSaslFinal(out, last.getBytes(StandardCharsets.UTF_8));
                admitAndStart();
            } else {
                fatal("08P01", "expected SASL response, got message type " + m.getClass().getSimpleName());
            }
        } catch (Scram.AuthFailed e) {
            if (e.malformed()) fatal("08P01", e.getMessage());
            else {
                server.counters().authFailures().increment();
                fatal("28P01", "password authentication failed for user \"" + user + "\"");
            }
        }
    }

    /** The PasswordMessage answering an MD5 or clear-text request. */
    private void checkPassword(FrontendMessage m) {
        if (!(m instanceof FrontendMessage.SaslResponse r)) {
            fatal("08P01", "expected password response, got message type " + m.getClass().getSimpleName());
            return;
        }
        byte[] d = r.data();
        if (d.length == 0 || d[d.length - 1] != 0) {
            fatal("08P01", "invalid password packet size");
            return;
        }
        String answer = new String(d, 0, d.length - 1, StandardCharsets.UTF_8);
        boolean ok = md5Salt != null ? UserStore.checkMd5(passwordEntry, md5Salt, answer) : UserStore.checkPassword(passwordEntry, user, answer);
        passwordEntry = null;
        if (!ok) {
            server.counters().authFailures().increment();
            fatal("28P01", "password authentication failed for user \"" + user + "\"");
            return;
        }
        admitAndStart();
    }

    private void admitAndStart() {
        if (!server.admit(this)) {
            fatal("53300", "sorry, too many clients already");
            return;
        }
        try {
            conn = server.openConnection();
        } catch (SQLException e) {
            fatal("08006", "cannot open the database: " + e.getMessage());
            return;
        }
        for (String name : List.of("macrodb.consistency", "macrodb.read_at_least", "default_transaction_read_only")) {
            String v = settings.remove(name);
            if (v == null) continue;
            int mark = out.writerIndex();
            try {
                set(Command.setting(name, v));
            } catch (SQLException e) {
                fatal(e.getSQLState() == null ? "22023" : e.getSQLState(), e.getMessage());
                return;
            }
            out.writerIndex(mark); // set() wrote a CommandComplete, which startup does not send
        }
        BackendMessages.authenticationOk(out);
        phase = Phase.READY;
        status("server_version", SERVER_VERSION);
        status("server_encoding", "UTF8");
        status("client_encoding", "UTF8");
        status("DateStyle", "ISO, MDY");
        status("IntervalStyle", "postgres");
        status("integer_datetimes", "on");
        status("standard_conforming_strings", "on");
        status("TimeZone", zone.getId());
        status("application_name", settings.get("application_name"));
        status("is_superuser", "off");
        status("session_authorization", user);
        reportedCommit = lastCommit();
        status("macrodb.last_commit", Long.toString(reportedCommit));
        startupSettings.putAll(settings);
        BackendMessages.backendKeyData(out, pid, secret);
        readyForQuery();
    }

    private void status(String name, String value) {
        settings.put(name.toLowerCase(Locale.ROOT), value);
        BackendMessages.parameterStatus(out, name, value);
    }

    private void setZone(String tz) {
        try {
            zone = ZoneId.of(tz.equalsIgnoreCase("utc") || tz.equalsIgnoreCase("gmt") ? "UTC" : tz);
        } catch (DateTimeException e) {
            zone = ZoneOffset.UTC;
        }
    }

    // ---- simple query ------------------------------------------------------------------------------------------

    private void simpleQuery(String text) {
        if (implicitExtended) endImplicitExtended(true);
        List<String> parts = SqlText.split(text);
        if (parts.isEmpty()) {
            BackendMessages.emptyQueryResponse(out);
        }
        runStatements(parts);
    }

    /** Runs statements of a simple query until one fails or a COPY FROM STDIN waits for its data. */
    private void runStatements(List<String> parts) {
        boolean implicit = implicitTransaction(parts);
        if (implicit) {
            try {
                conn.setReadOnly(defaultReadOnly);
                conn.setAutoCommit(false);
            } catch (SQLException e) {
                error(e);
                readyForQuery();
                return;
            }
        }
        boolean ok = true;
        for (int k = 0; k < parts.size(); k++) {
            String sql = parts.get(k);
            try {
                Copy copy;
                try {
                    copy = Copy.parse(sql);
                } catch (IllegalArgumentException e) {
                    throw new SQLException(e.getMessage(), "0A000");
                }
                PgCatalog.Answer catalog = failed ? null : PgCatalog.answer(sql, List.of(), catalogContext());
                if (catalog != null) {
                    rowDescription(catalogFields(catalog, new short[0]));
                    BackendMessages.commandComplete(out, "SELECT " + sendCatalogRows(catalog, new short[0], 0, 0));
                    continue;
                }
                if (copy != null) {
                    if (failed) throw new SQLException("current transaction is aborted, commands ignored until end of transaction block", "25P02");
                    if (copy.in) {
                        // the table's columns now: an unknown table fails before any data is asked for, and
                        // CopyInResponse counts the columns, as PostgreSQL's does
                        int columns = copy.columns.isEmpty() ? columnsOf(copy.table).size() : copy.columns.size();
                        copyIn = copy;
                        copyData = new java.io.ByteArrayOutputStream();
                        copyRest = parts.subList(k + 1, parts.size());
                        BackendMessages.copyResponse(out, 'G', columns);
                        flush();
                        return;
                    }
                    copyOut(copy);
                    continue;
                }
                Portal p = new Portal(prepare(sql, new int[0], false), new Object[0], new short[0]);
                try {
                    run(p, 0, true);
                } finally {
                    release(p);
                }
            } catch (SQLException e) {
                error(e);
                ok = false;
                break;
            }
        }
        if (implicit) endImplicit(ok);
        readyForQuery();
    }

    /**
     * Whether the statements of one simple query run as one transaction, as PostgreSQL runs them outside a
     * transaction block: when there are several and all are queries or DML (DDL, transaction control, SET and COPY
     * keep their own handling, so each commits as it goes).
     */
    private boolean implicitTransaction(List<String> parts) {
        if (inBlock || parts.size() < 2) return false;
        for (String sql : parts) {
            Command c = Command.of(sql);
            if (c.kind != Command.Kind.ENGINE || !Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "MERGE").contains(c.tagWord)) return false;
            if (c.tagWord.equals("SELECT") && !sql.strip().toUpperCase(Locale.ROOT).startsWith("SELECT")) return false;
        }
        return true;
    }

    /** Ends a simple query's implicit transaction: commit if every statement succeeded, else roll back. */
    private void endImplicit(boolean ok) {
        try {
            try {
                if (ok) conn.commit(); else conn.rollback();
            } finally {
                conn.setAutoCommit(true);
            }
            if (ok) reportCommit();
        } catch (SQLException e) {
            if (ok) error(e);
        }
    }

    // ---- COPY --------------------------------------------------------------------------------------------------

    private void copyInMessage(FrontendMessage m) {
        if (m instanceof FrontendMessage.CopyMessage c) {
            if (c.type() == 'd') {
                if (copyData.size() + (long) c.data().length > MAX_COPY_BYTES) {
                    endCopy();
                    error(new SQLException("COPY data exceeds " + MAX_COPY_BYTES + " bytes", "54000"));
                    readyForQuery();
                    return;
                }
                copyData.writeBytes(c.data());
                return;
            }
            if (c.type() == 'f') {
                endCopy();
                error(new SQLException("COPY from stdin failed: " + new String(c.data(), StandardCharsets.UTF_8).replace("\0", ""), "57014"));
                readyForQuery();
                return;
            }
            Copy copy = copyIn;
            String data = copyData.toString(StandardCharsets.UTF_8);
            List<String> rest = copyRest;
            endCopy();
            try {
                copyFrom(copy, data);
            } catch (SQLException e) {
                error(e);
                readyForQuery();
                return;
            }
            runStatements(rest);
            return;
        }
        if (m instanceof FrontendMessage.Flush || m instanceof FrontendMessage.Sync) return;
        endCopy();
        error(new SQLException("unexpected message type during COPY from stdin", "08P01"));
        readyForQuery();
    }

    private void endCopy() {
        copyIn = null;
        copyData = null;
        copyRest = null;
    }

    private void copyFrom(Copy copy, String data) throws SQLException {
        List<String[]> rows;
        try {
            rows = copy.rows(data);
        } catch (IllegalArgumentException e) {
            throw new SQLException(e.getMessage(), "22P04");
        }
        List<String> cols = copy.columns.isEmpty() ? columnsOf(copy.table) : copy.columns;
        String sql = "INSERT INTO " + copy.table + " (" + String.join(", ", cols) + ") VALUES ("
                + String.join(", ", java.util.Collections.nCopies(cols.size(), "?")) + ")";
        boolean own = !inBlock;
        if (own) {
            conn.setReadOnly(defaultReadOnly);
            conn.setAutoCommit(false);
        } else {
            statementsInBlock++;
        }
        long count = 0;
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            running = ps;
            ParameterMetaData md = safeParameterMetaData(ps);
            int[] oids = new int[cols.size()];
            for (int i = 0; i < oids.length; i++) oids[i] = md == null ? PgTypes.TEXT : inferred(md, i + 1);
            for (String[] row : rows) {
                count++;
                if (row.length < cols.size()) throw new SQLException("missing data for column \"" + cols.get(row.length) + "\" (row " + count + ")", "22P04");
                if (row.length > cols.size()) throw new SQLException("extra data after last expected column (row " + count + ")", "22P04");
                for (int i = 0; i < row.length; i++) {
                    try {
                        ps.setObject(i + 1, row[i] == null ? null : PgTypes.decodeText(row[i], oids[i]));
                    } catch (RuntimeException e) {
                        throw new SQLException("invalid input for column " + cols.get(i) + " (row " + count + "): " + e.getMessage(), "22P02");
                    }
                }
                ps.addBatch();
                if (count % 1000 == 0) {
                    throwIfCancelled();
                    ps.executeBatch();
                }
            }
            throwIfCancelled();
            ps.executeBatch();
            if (own) conn.commit();
        } catch (SQLException e) {
            if (own) conn.rollback();
            throw cancelled(e);
        } finally {
            running = null;
            if (own) conn.setAutoCommit(true);
        }
        BackendMessages.commandComplete(out, "COPY " + count);
        reportCommit();
    }

    /** The columns of a table, in order, from the engine's metadata (names as the engine stores them). */
    private List<String> columnsOf(String table) throws SQLException {
        String schema = null;
        String name = table;
        int dot = table.lastIndexOf('.');
        if (dot > 0) {
            schema = table.substring(0, dot);
            name = table.substring(dot + 1);
        }
        for (String candidate : List.of(unquote(name), name.toLowerCase(Locale.ROOT), name.toUpperCase(Locale.ROOT))) {
            List<String> cols = new ArrayList<>();
            try (ResultSet rs = conn.getMetaData().getColumns(null, schema == null ? null : unquote(schema), candidate, null)) {
                while (rs.next()) cols.add("\"" + rs.getString("COLUMN_NAME") + "\"");
            }
            if (!cols.isEmpty()) return cols;
        }
        throw new SQLException("relation \"" + table + "\" does not exist", "42P01");
    }

    private static String unquote(String s) {
        return s.startsWith("\"") && s.endsWith("\"") && s.length() > 1 ? s.substring(1, s.length() - 1) : s;
    }

    private void copyOut(Copy copy) throws SQLException {
        String sql = copy.query != null ? copy.query
                : "SELECT " + (copy.columns.isEmpty() ? "*" : String.join(", ", copy.columns)) + " FROM " + copy.table;
        if (inBlock) statementsInBlock++;
        else conn.setReadOnly(defaultReadOnly);
        long count = 0;
        try (Statement s = conn.createStatement()) {
            running = s;
            throwIfCancelled();
            try (ResultSet rs = s.executeQuery(sql)) {
                ResultSetMetaData md = rs.getMetaData();
                int n = md.getColumnCount();
                int[] oids = new int[n];
                for (int i = 0; i < n; i++) oids[i] = PgTypes.oidOf(md.getColumnType(i + 1), md.getColumnTypeName(i + 1));
                BackendMessages.copyResponse(out, 'H', n);
                if (copy.header) {
                    List<String> pgNames = ColumnNames.of(sql);
                    String[] names = new String[n];
                    for (int i = 0; i < n; i++) names[i] = name(md, i + 1, pgNames);
                    BackendMessages.copyData(out, copy.format(names).getBytes(StandardCharsets.UTF_8));
                }
                while (rs.next()) {
                    throwIfCancelled();
                    String[] v = new String[n];
                    for (int i = 0; i < n; i++) {
                        byte[] b = PgTypes.encode(rs, i + 1, oids[i], false, zone);
                        v[i] = b == null ? null : new String(b, StandardCharsets.UTF_8);
                    }
                    BackendMessages.copyData(out, copy.format(v).getBytes(StandardCharsets.UTF_8));
                    count++;
                    if (out.readableBytes() > FLUSH_AT) flushWithBackPressure();
                }
            }
        } catch (SQLException e) {
            throw cancelled(e);
        } finally {
            running = null;
        }
        BackendMessages.copyDone(out);
        BackendMessages.commandComplete(out, "COPY " + count);
    }

    // ---- extended query ----------------------------------------------------------------------------------------

    private interface Step { void run() throws SQLException; }

    private void guarded(Step step) {
        try {
            step.run();
        } catch (SQLException e) {
            error(e);
            ignoreTillSync = true;
            if (implicitExtended) endImplicitExtended(false);
        }
    }

    /**
     * Before an Execute outside a transaction block: a query or DML statement opens the implicit transaction that
     * Sync commits; any other statement (DDL) runs by itself, as the simple protocol runs it, after committing what
     * the implicit transaction holds so far.
     */
    private void beginImplicitExtended(Command c) throws SQLException {
        if (inBlock || c.kind != Command.Kind.ENGINE) return;
        if (!Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "MERGE").contains(c.tagWord)) {
            if (implicitExtended) {
                implicitExtended = false;
                try {
                    conn.commit();
                } finally {
                    conn.setAutoCommit(true);
                }
            }
            return;
        }
        if (implicitExtended) return;
        conn.setReadOnly(defaultReadOnly);
        conn.setAutoCommit(false);
        implicitExtended = true;
    }

    /** Commits (or rolls back) the implicit extended-protocol transaction; a failed commit is reported. */
    private void endImplicitExtended(boolean commit) {
        implicitExtended = false;
        for (String name : new ArrayList<>(portals.keySet())) closePortal(name);
        try {
            try {
                if (commit) conn.commit(); else conn.rollback();
            } finally {
                conn.setAutoCommit(true);
            }
            if (commit) reportCommit();
        } catch (SQLException e) {
            if (commit) error(e);
        }
    }

    private void parse(FrontendMessage.Parse p) throws SQLException {
        if (!p.name().isEmpty() && statements.containsKey(p.name())) {
            throw new SQLException("prepared statement \"" + p.name() + "\" already exists", "42P05");
        }
        List<String> parts = SqlText.split(p.sql());
        if (parts.size() > 1) throw new SQLException("cannot insert multiple commands into a prepared statement", "42601");
        Prepared old = statements.remove(p.name());
        if (old != null) closeQuietly(old.ps);
        statements.put(p.name(), prepare(parts.isEmpty() ? "" : parts.get(0), p.parameterTypes(), true));
        BackendMessages.parseComplete(out);
    }

    private Prepared prepare(String sql, int[] declared, boolean extended) throws SQLException {
        lastSql = sql;
        if (failed && !Command.of(sql).endsBlock()) {
            throw new SQLException("current transaction is aborted, commands ignored until end of transaction block", "25P02");
        }
        String tag = PgCompat.noOpTag(sql);
        if (tag != null) return new Prepared(sql, Command.noOp(tag), sql, new int[0], declared);
        Command c = Command.of(sql);
        if (c.kind == Command.Kind.ENGINE && PgCatalog.recognizes(sql)) {
            SqlText.Placeholders ph = SqlText.placeholders(sql);
            int n = ph.order().length == 0 ? 0 : java.util.Arrays.stream(ph.order()).max().getAsInt();
            int[] oids = java.util.Arrays.copyOf(declared, Math.max(n, declared.length));
            for (int i = 0; i < oids.length; i++) if (oids[i] == PgTypes.UNSPECIFIED) oids[i] = PgTypes.TEXT;
            return new Prepared(sql, Command.catalog(), sql, new int[0], oids);
        }
        if (c.kind != Command.Kind.ENGINE) return new Prepared(sql, c, sql, new int[0], declared);
        SqlText.Placeholders ph = SqlText.placeholders(PgCompat.rewrite(sql));
        int n = ph.order().length == 0 ? 0 : java.util.Arrays.stream(ph.order()).max().getAsInt();
        int[] oids = java.util.Arrays.copyOf(declared, Math.max(n, declared.length));
        Prepared prepared = new Prepared(sql, c, ph.sql(), ph.order(), oids);
        if (extended) {
            prepared.ps = conn.prepareStatement(ph.sql());
            ParameterMetaData md;
            try {
                // MacroDB prepares on the engine lazily; asking for the parameters prepares now, so that an error in
                // the statement's text (syntax, unknown table or column) is reported at Parse, as PostgreSQL does
                md = prepared.ps.getParameterMetaData();
            } catch (java.sql.SQLFeatureNotSupportedException e) {
                md = null;
            } catch (SQLException e) {
                closeQuietly(prepared.ps);
                throw e;
            }
            for (int j = 0; j < ph.order().length; j++) {
                int idx = ph.order()[j] - 1;
                if (oids[idx] == PgTypes.UNSPECIFIED) oids[idx] = md == null ? PgTypes.TEXT : inferred(md, j + 1);
            }
        }
        return prepared;
    }

    private static ParameterMetaData safeParameterMetaData(PreparedStatement ps) {
        try {
            return ps.getParameterMetaData();
        } catch (SQLException e) {
            return null;
        }
    }

    private static int inferred(ParameterMetaData md, int i) {
        try {
            int t = md.getParameterType(i);
            return t == Types.NULL || t == Types.OTHER && md.getParameterTypeName(i) == null ? PgTypes.TEXT
                    : PgTypes.oidOf(t, md.getParameterTypeName(i));
        } catch (SQLException e) {
            return PgTypes.TEXT;
        }
    }

    private void bind(FrontendMessage.Bind b) throws SQLException {
        Prepared st = statements.get(b.statement());
        if (st == null) throw new SQLException("prepared statement \"" + b.statement() + "\" does not exist", "26000");
        if (!b.portal().isEmpty() && portals.containsKey(b.portal())) {
            throw new SQLException("portal \"" + b.portal() + "\" already exists", "42P03");
        }
        if (failed && !st.command.endsBlock()) {
            throw new SQLException("current transaction is aborted, commands ignored until end of transaction block", "25P02");
        }
        int n = st.oids.length;
        if (b.values().size() != n) {
            throw new SQLException("bind message supplies " + b.values().size() + " parameters, but prepared statement \""
                    + b.statement() + "\" requires " + n, "08P01");
        }
        Object[] args = new Object[n];
        for (int i = 0; i < n; i++) {
            boolean binary = b.parameterFormats().length == 1 ? b.parameterFormats()[0] == 1
                    : b.parameterFormats().length > i && b.parameterFormats()[i] == 1;
            try {
                args[i] = PgTypes.decodeParameter(b.values().get(i), binary, st.oids[i], Types.NULL, null);
            } catch (RuntimeException e) {
                throw new SQLException(binary ? "incorrect binary data format in bind parameter " + (i + 1)
                        : "invalid input syntax for parameter " + (i + 1) + ": " + e.getMessage(), binary ? "22P03" : "22P02");
            }
        }
        closePortal(b.portal());
        portals.put(b.portal(), new Portal(st, args, b.resultFormats()));
        BackendMessages.bindComplete(out);
    }

    private void describe(FrontendMessage.Describe d) throws SQLException {
        if (d.kind() == 'S') {
            Prepared st = statements.get(d.name());
            if (st == null) throw new SQLException("prepared statement \"" + d.name() + "\" does not exist", "26000");
            BackendMessages.parameterDescription(out, st.oids);
            describeRows(st, null);
        } else {
            Portal p = portals.get(d.name());
            if (p == null) throw new SQLException("portal \"" + d.name() + "\" does not exist", "34000");
            describeRows(p.statement, p);
        }
    }

    private void describeRows(Prepared st, Portal p) throws SQLException {
        if (st.command.kind == Command.Kind.CATALOG) {
            PgCatalog.Answer a;
            if (p == null) a = PgCatalog.answer(st.sql, null, catalogContext());
            else {
                if (p.catalog == null) p.catalog = PgCatalog.answer(st.sql, catalogParams(p), catalogContext());
                a = p.catalog;
            }
            rowDescription(catalogFields(a, p == null ? new short[0] : p.resultFormats));
            return;
        }
        if (st.command.kind == Command.Kind.SHOW) {
            rowDescription(List.of(new BackendMessages.Field(showName(st.command.name), 0, 0, PgTypes.TEXT, -1, -1, 0)));
            return;
        }
        ResultSetMetaData md = p != null && p.rs != null ? p.rs.getMetaData() : st.ps == null ? null : st.ps.getMetaData();
        if (md == null || md.getColumnCount() == 0 || !st.command.returnsRows()) {
            BackendMessages.noData(out);
            return;
        }
        rowDescription(fields(md, p == null ? new short[0] : p.resultFormats, columnNames(st)));
    }

    private void rowDescription(List<BackendMessages.Field> f) { BackendMessages.rowDescription(out, f); }

    /** PostgreSQL's names for a query's result columns (null where the engine's labels stand). */
    private static List<String> columnNames(Prepared st) {
        if (!st.columnNamesRead) {
            st.columnNames = st.command.kind == Command.Kind.ENGINE ? ColumnNames.of(st.sql) : null;
            st.columnNamesRead = true;
        }
        return st.columnNames;
    }

    /** Column {@code i}'s name: PostgreSQL's from the query's text where known, else the engine's label. */
    private String name(ResultSetMetaData md, int i, List<String> names) throws SQLException {
        String n = names != null && names.size() == md.getColumnCount() ? names.get(i - 1) : null;
        return n != null ? n : label(md, i);
    }

    /**
     * A result column's name as PostgreSQL would give it: an engine that folds unquoted names to upper case
     * (HSQLDB) labels {@code SELECT id} as ID, which clients that read columns by exact name (node-postgres,
     * psycopg's dict rows) would not find; PostgreSQL folds to lower case, so such a label is sent in lower case.
     */
    private String label(ResultSetMetaData md, int i) throws SQLException {
        String l = md.getColumnLabel(i);
        if (l == null) return "?column?";
        if (upperCaseEngine == null) upperCaseEngine = conn.getMetaData().storesUpperCaseIdentifiers();
        return upperCaseEngine && l.equals(l.toUpperCase(Locale.ROOT)) ? l.toLowerCase(Locale.ROOT) : l;
    }

    // ---- catalog queries answered by PgCatalog ------------------------------------------------------------------

    private PgCatalog.Context catalogContext() {
        List<String> users = server.config().users() == null ? List.of(user) : server.config().users().names();
        String db = database;
        try {
            String c = conn.getCatalog();
            if (c != null && !c.isEmpty()) db = c.equals(c.toUpperCase(Locale.ROOT)) ? c.toLowerCase(Locale.ROOT) : c;
        } catch (SQLException e) {
            // the name the client asked for, then
        }
        return new PgCatalog.Context(conn, user, db, server.catalogOids(), users);
    }

    private static List<String> catalogParams(Portal p) {
        List<String> l = new ArrayList<>();
        for (Object a : p.args) l.add(a == null ? null : a.toString());
        return l;
    }

    private static List<BackendMessages.Field> catalogFields(PgCatalog.Answer a, short[] formats) {
        List<BackendMessages.Field> f = new ArrayList<>();
        for (int i = 0; i < a.columns().size(); i++) {
            int oid = a.columns().get(i).oid();
            f.add(new BackendMessages.Field(a.columns().get(i).name(), 0, 0, oid, PgTypes.typeSize(oid), -1, format(formats, i, oid)));
        }
        return f;
    }

    /** Sends rows {@code from}.. of a catalog answer (at most {@code maxRows}, 0: all); the number sent. */
    private long sendCatalogRows(PgCatalog.Answer a, short[] formats, long from, int maxRows) {
        long sent = 0;
        for (long k = from; k < a.rows().size() && (maxRows == 0 || sent < maxRows); k++) {
            String[] row = a.rows().get((int) k);
            byte[][] r = new byte[row.length][];
            for (int i = 0; i < row.length; i++) {
                int oid = a.columns().get(i).oid();
                if (row[i] == null) continue;
                if (format(formats, i, oid) == 1) {
                    Object v = switch (oid) {
                        case PgTypes.BOOL -> row[i].equals("t");
                        case PgTypes.INT2, PgTypes.INT4, PgTypes.INT8 -> Long.parseLong(row[i]);
                        case PgTypes.FLOAT4 -> Float.parseFloat(row[i]);
                        default -> row[i];
                    };
                    r[i] = PgTypes.encodeBinary(v, oid);
                } else {
                    r[i] = row[i].getBytes(StandardCharsets.UTF_8);
                }
            }
            BackendMessages.dataRow(out, r);
            sent++;
        }
        return sent;
    }

    private List<BackendMessages.Field> fields(ResultSetMetaData md, short[] formats, List<String> names) throws SQLException {
        List<BackendMessages.Field> f = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            int oid = PgTypes.oidOf(md.getColumnType(i), md.getColumnTypeName(i));
            f.add(new BackendMessages.Field(name(md, i, names), 0, 0, oid, PgTypes.typeSize(oid), -1, format(formats, i - 1, oid)));
        }
        return f;
    }

    private static int format(short[] formats, int i, int oid) {
        int f = formats.length == 0 ? 0 : formats.length == 1 ? formats[0] : i < formats.length ? formats[i] : 0;
        return f == 1 && PgTypes.hasBinary(oid) ? 1 : 0;
    }

    private void execute(FrontendMessage.Execute e) throws SQLException {
        Portal p = portals.get(e.portal());
        if (p == null) throw new SQLException("portal \"" + e.portal() + "\" does not exist", "34000");
        if (failed && !p.statement.command.endsBlock()) {
            throw new SQLException("current transaction is aborted, commands ignored until end of transaction block", "25P02");
        }
        beginImplicitExtended(p.statement.command);
        run(p, Math.max(0, e.maxRows()), false);
    }

    private void close(FrontendMessage.Close c) {
        if (c.kind() == 'S') {
            Prepared st = statements.remove(c.name());
            if (st != null) closeQuietly(st.ps);
        } else {
            closePortal(c.name());
        }
        BackendMessages.closeComplete(out);
    }

    private void sync() {
        ignoreTillSync = false;
        if (implicitExtended) endImplicitExtended(true);
        if (!inBlock) {
            for (String name : new ArrayList<>(portals.keySet())) closePortal(name);
        }
        readyForQuery();
    }

    // ---- running a statement (both protocols) ------------------------------------------------------------------

    /** Runs or resumes a portal; in the simple protocol ({@code describe}) a RowDescription comes first. */
    private void run(Portal p, int maxRows, boolean describe) throws SQLException {
        Command c = p.statement.command;
        lastSql = p.statement.sql;
        if (p.done) {
            BackendMessages.commandComplete(out, p.tag);
            return;
        }
        switch (c.kind) {
            case EMPTY: BackendMessages.emptyQueryResponse(out); return;
            case BEGIN: begin(c); return;
            case COMMIT: commit(); return;
            case ROLLBACK: rollback(); return;
            case SET_TRANSACTION: setTransaction(c); return;
            case SET: set(c); return;
            case SHOW: show(c, describe); return;
            case NO_OP: BackendMessages.commandComplete(out, c.tagWord); return;
            case DEALLOCATE: deallocate(c.name); return;
            case RESET: reset(c.name); BackendMessages.commandComplete(out, "RESET"); return;
            case DISCARD: discard(c); return;
            case CATALOG: {
                if (p.catalog == null) p.catalog = PgCatalog.answer(p.statement.sql, catalogParams(p), catalogContext());
                if (describe) rowDescription(catalogFields(p.catalog, p.resultFormats));
                long sent = sendCatalogRows(p.catalog, p.resultFormats, p.rowsSent, maxRows);
                p.rowsSent += sent;
                if (p.rowsSent < p.catalog.rows().size()) {
                    BackendMessages.portalSuspended(out);
                } else {
                    p.done = true;
                    p.tag = "SELECT " + p.rowsSent;
                    BackendMessages.commandComplete(out, "SELECT " + sent);
                }
                return;
            }
            default:
        }
        if (p.rs == null) {
            server.counters().statements().increment();
            if (inBlock) statementsInBlock++;
            else if (!implicitExtended) conn.setReadOnly(defaultReadOnly);
            Statement s;
            boolean hasRows;
            try {
                if (p.statement.ps != null) {
                    PreparedStatement ps = p.statement.ps;
                    if (p.ownsStatement) {
                        ps = (PreparedStatement) p.owner;
                    } else if (p.statement.openOn != null && p.statement.openOn != p) {
                        ps = conn.prepareStatement(p.statement.jdbcSql);
                        p.ownsStatement = true;
                        p.owner = ps;
                    }
                    ps.clearParameters();
                    int[] order = p.statement.order;
                    for (int j = 0; j < order.length; j++) ps.setObject(j + 1, p.args[order[j] - 1]);
                    s = ps;
                    running = s;
                    throwIfCancelled();
                    hasRows = ps.execute();
                } else {
                    s = conn.createStatement();
                    running = s;
                    try {
                        throwIfCancelled();
                        List<String> parts = PgCompat.expand(p.statement.jdbcSql);
                        hasRows = false;
                        for (String part : parts) hasRows = s.execute(part);
                    } catch (SQLException e) {
                        closeQuietly(s);
                        throw e;
                    }
                }
            } catch (SQLException e) {
                throw cancelled(e);
            } finally {
                running = null;
            }
            p.owner = s;
            if (!hasRows) {
                long count = s.getLargeUpdateCount();
                p.done = true;
                p.tag = c.tag(Math.max(0, count));
                BackendMessages.commandComplete(out, p.tag);
                reportCommit();
                return;
            }
            p.rs = s.getResultSet();
            if (!p.ownsStatement && p.statement.ps != null) p.statement.openOn = p;
            ResultSetMetaData md = p.rs.getMetaData();
            p.columnOids = new int[md.getColumnCount()];
            for (int i = 0; i < p.columnOids.length; i++) p.columnOids[i] = PgTypes.oidOf(md.getColumnType(i + 1), md.getColumnTypeName(i + 1));
            if (describe) rowDescription(fields(md, new short[0], columnNames(p.statement)));
        }
        long sentNow = 0;
        int n = p.columnOids.length;
        while (maxRows == 0 || sentNow < maxRows) {
            throwIfCancelled(); // a cancel while rows are sent stops the result, as PostgreSQL's executor does
            if (!p.rs.next()) {
                p.done = true;
                p.tag = c.tag(p.rowsSent);
                BackendMessages.commandComplete(out, c.kind == Command.Kind.ENGINE && c.rowsTag ? c.tag(sentNow) : p.tag);
                p.rs.close();
                if (p.statement.ps == null || p.ownsStatement) p.owner.close();
                if (p.statement.openOn == p) p.statement.openOn = null;
                reportCommit();
                return;
            }
            byte[][] row = new byte[n][];
            for (int i = 0; i < n; i++) {
                row[i] = PgTypes.encode(p.rs, i + 1, p.columnOids[i], format(p.resultFormats, i, p.columnOids[i]) == 1, zone);
            }
            BackendMessages.dataRow(out, row);
            sentNow++;
            p.rowsSent++;
            if (out.readableBytes() > FLUSH_AT) flushWithBackPressure();
        }
        BackendMessages.portalSuspended(out);
    }

    /** DEALLOCATE name (a named statement, as Close does) or, with a null name, DEALLOCATE ALL. */
    private void deallocate(String name) throws SQLException {
        if (name == null) {
            for (Map.Entry<String, Prepared> e : statements.entrySet()) if (!e.getKey().isEmpty()) closeQuietly(e.getValue().ps);
            statements.keySet().removeIf(k -> !k.isEmpty());
            BackendMessages.commandComplete(out, "DEALLOCATE ALL");
            return;
        }
        Prepared st = statements.remove(name);
        if (st == null) throw new SQLException("prepared statement \"" + name + "\" does not exist", "26000");
        closeQuietly(st.ps);
        BackendMessages.commandComplete(out, "DEALLOCATE");
    }

    private void begin(Command c) throws SQLException {
        if (implicitExtended) {
            // as in PostgreSQL, BEGIN turns the implicit transaction (and what it did so far) into a block
            implicitExtended = false;
            inBlock = true;
            statementsInBlock = 1;
        } else if (inBlock) {
            BackendMessages.notice(out, "WARNING", "25001", "there is already a transaction in progress");
        } else {
            conn.setReadOnly(c.readOnly != null ? c.readOnly : defaultReadOnly);
            conn.setAutoCommit(false);
            if (c.isolation >= 0) conn.setTransactionIsolation(c.isolation);
            inBlock = true;
            statementsInBlock = 0;
        }
        BackendMessages.commandComplete(out, "BEGIN");
    }

    private void commit() throws SQLException {
        if (!inBlock && implicitExtended) {
            BackendMessages.notice(out, "WARNING", "25P01", "there is no transaction in progress");
            implicitExtended = false;
            try {
                conn.commit();
            } finally {
                conn.setAutoCommit(true);
            }
            BackendMessages.commandComplete(out, "COMMIT");
            reportCommit();
            return;
        }
        if (!inBlock) {
            BackendMessages.notice(out, "WARNING", "25P01", "there is no transaction in progress");
            BackendMessages.commandComplete(out, "COMMIT");
            return;
        }
        if (failed) {
            rollback();
            return;
        }
        try {
            conn.commit();
        } finally {
            endBlock();
        }
        BackendMessages.commandComplete(out, "COMMIT");
        reportCommit();
    }

    private void rollback() throws SQLException {
        if (!inBlock && implicitExtended) {
            BackendMessages.notice(out, "WARNING", "25P01", "there is no transaction in progress");
            implicitExtended = false;
            try {
                conn.rollback();
            } finally {
                conn.setAutoCommit(true);
            }
        } else if (!inBlock) {
            BackendMessages.notice(out, "WARNING", "25P01", "there is no transaction in progress");
        } else {
            try {
                conn.rollback();
            } finally {
                endBlock();
            }
        }
        BackendMessages.commandComplete(out, "ROLLBACK");
    }

    private void endBlock() throws SQLException {
        inBlock = false;
        failed = false;
        for (String name : new ArrayList<>(portals.keySet())) closePortal(name);
        conn.setAutoCommit(true);
        conn.setReadOnly(defaultReadOnly);
    }

    private void setTransaction(Command c) throws SQLException {
        if (c.session) {
            if (c.readOnly != null) defaultReadOnly = c.readOnly;
            BackendMessages.commandComplete(out, "SET");
            return;
        }
        if (!inBlock) {
            BackendMessages.notice(out, "WARNING", "25P01", "SET TRANSACTION can only be used in transaction blocks");
        } else {
            if (statementsInBlock > 0) {
                throw new SQLException("SET TRANSACTION ISOLATION LEVEL must be called before any query", "25001");
            }
            if (c.readOnly != null) conn.setReadOnly(c.readOnly);
            if (c.isolation >= 0) conn.setTransactionIsolation(c.isolation);
        }
        BackendMessages.commandComplete(out, "SET");
    }

    private void set(Command c) throws SQLException {
        if (c.name.equals("transaction_read_only")) {
            setTransaction(Command.transaction(bool(c.name, c.value), -1, false));
            return;
        }
        applySetting(c.name, c.value);
        BackendMessages.commandComplete(out, "SET");
    }

    private static boolean bool(String name, String value) throws SQLException {
        try {
            return (Boolean) PgTypes.decodeText(value, PgTypes.BOOL);
        } catch (IllegalArgumentException e) {
            throw new SQLException("parameter \"" + name + "\" requires a Boolean value", "22023");
        }
    }

    /** Sets a session setting, with its effect (routing, time zone, consistency) and ParameterStatus where reported. */
    private void applySetting(String name, String value) throws SQLException {
        switch (name) {
            case "default_transaction_read_only":
                defaultReadOnly = bool(name, value);
                if (!inBlock && !implicitExtended) conn.setReadOnly(defaultReadOnly);
                value = defaultReadOnly ? "on" : "off";
                break;
            case "timezone":
                try {
                    ZoneId.of(value.equalsIgnoreCase("utc") || value.equalsIgnoreCase("gmt") ? "UTC" : value);
                } catch (DateTimeException e) {
                    throw new SQLException("invalid value for parameter \"TimeZone\": \"" + value + "\"", "22023");
                }
                setZone(value);
                value = zone.getId();
                BackendMessages.parameterStatus(out, "TimeZone", value);
                break;
            case "client_encoding":
                if (!value.equalsIgnoreCase("utf8") && !value.equalsIgnoreCase("utf-8") && !value.equalsIgnoreCase("unicode")) {
                    throw new SQLException("this server speaks UTF8 only; client_encoding " + value + " is not supported", "0A000");
                }
                value = "UTF8";
                break;
            case "application_name":
                BackendMessages.parameterStatus(out, "application_name", value);
                break;
            case "macrodb.last_commit":
                throw new SQLException("parameter \"macrodb.last_commit\" cannot be changed", "55P02");
            case "macrodb.consistency": {
                MacroConnection mc = conn.unwrap(MacroConnection.class);
                mc.setReadConsistency(value.equalsIgnoreCase("default") ? mc.config().readConsistency() : value);
                value = mc.readConsistency();
                break;
            }
            case "macrodb.read_at_least": {
                long v;
                try {
                    v = Long.parseLong(value.strip());
                } catch (NumberFormatException e) {
                    v = -1;
                }
                if (v < 0) {
                    throw new SQLException("invalid value for parameter \"macrodb.read_at_least\": \"" + value
                            + "\" (a commit version, such as macrodb.last_commit reports)", "22023");
                }
                conn.unwrap(MacroConnection.class).readAtLeast(v);
                value = Long.toString(v);
                break;
            }
            default:
        }
        settings.put(name, value);
    }

    /** RESET name, or RESET ALL (null): the value the session started with, or the server's default. */
    private void reset(String name) throws SQLException {
        if (name == null) {
            for (String n : new ArrayList<>(settings.keySet())) if (!startupSettings.containsKey(n)) resetOne(n);
            for (String n : new ArrayList<>(startupSettings.keySet())) resetOne(n);
            resetOne("default_transaction_read_only");
            resetOne("macrodb.consistency");
        } else {
            if (name.equals("macrodb.last_commit")) throw new SQLException("parameter \"macrodb.last_commit\" cannot be changed", "55P02");
            resetOne(name);
        }
    }

    private void resetOne(String name) throws SQLException {
        String initial = startupSettings.get(name);
        switch (name) {
            case "default_transaction_read_only": applySetting(name, initial == null ? "off" : initial); return;
            case "macrodb.consistency": applySetting(name, "default"); return;
            case "timezone": applySetting(name, initial == null ? "UTC" : initial); return;
            case "application_name": applySetting(name, initial == null ? "" : initial); return;
            default:
                if (initial != null) settings.put(name, initial);
                else settings.remove(name);
        }
    }

    /** DISCARD ALL: outside a transaction block, closes every portal and named statement and resets every setting. */
    private void discard(Command c) throws SQLException {
        if (!c.value.equals("ALL")) {
            BackendMessages.commandComplete(out, "DISCARD " + c.value);
            return;
        }
        if (inBlock || implicitExtended) throw new SQLException("DISCARD ALL cannot run inside a transaction block", "25001");
        for (String name : new ArrayList<>(portals.keySet())) closePortal(name);
        for (Map.Entry<String, Prepared> e : statements.entrySet()) if (!e.getKey().isEmpty()) closeQuietly(e.getValue().ps);
        statements.keySet().removeIf(k -> !k.isEmpty());
        reset(null);
        BackendMessages.commandComplete(out, "DISCARD ALL");
    }

    private void show(Command c, boolean describe) throws SQLException {
        String name = c.name;
        String v;
        switch (name) {
            case "macrodb.last_commit": v = Long.toString(lastCommit()); break;
            case "macrodb.consistency": v = conn.unwrap(MacroConnection.class).readConsistency(); break;
            case "macrodb.read_at_least": v = settings.getOrDefault(name, "0"); break;
            case "transaction_read_only": v = conn.isReadOnly() ? "on" : "off"; break;
            case "default_transaction_read_only": v = defaultReadOnly ? "on" : "off"; break;
            case "transaction_isolation": v = isolationName(conn.getTransactionIsolation()); break;
            default:
                v = settings.get(name);
                if (v == null) throw new SQLException("unrecognized configuration parameter \"" + name + "\"", "42704");
        }
        if (describe) rowDescription(List.of(new BackendMessages.Field(showName(name), 0, 0, PgTypes.TEXT, -1, -1, 0)));
        BackendMessages.dataRow(out, new byte[][] {v.getBytes(StandardCharsets.UTF_8)});
        BackendMessages.commandComplete(out, "SHOW");
    }

    /** The column SHOW names: the setting as PostgreSQL spells it (SHOW timezone answers a column TimeZone). */
    private static String showName(String name) {
        switch (name) {
            case "timezone": return "TimeZone";
            case "datestyle": return "DateStyle";
            case "intervalstyle": return "IntervalStyle";
            default: return name;
        }
    }

    private static String isolationName(int level) {
        switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED: return "read uncommitted";
            case Connection.TRANSACTION_REPEATABLE_READ: return "repeatable read";
            case Connection.TRANSACTION_SERIALIZABLE: return "serializable";
            default: return "read committed";
        }
    }

    private long lastCommit() {
        try {
            return conn.unwrap(MacroConnection.class).lastCommitVersion();
        } catch (SQLException e) {
            return -1;
        }
    }

    /** After a commit: a ParameterStatus {@code macrodb.last_commit} with the version it published. */
    private void reportCommit() {
        if (inBlock || implicitExtended) return;
        long v = lastCommit();
        if (v != reportedCommit) {
            reportedCommit = v;
            status("macrodb.last_commit", Long.toString(v));
        }
    }

    // ---- cancel ----------------------------------------------------------------------------------------------

    /** Fails with 57014 if a CancelRequest is pending: the statement about to start (or the result being sent) stops. */
    private void throwIfCancelled() throws SQLException {
        if (cancelPending) throw cancelled(null);
    }

    /**
     * The error of a statement a CancelRequest stopped, as PostgreSQL reports it (57014), whatever the engine said
     * (H2: 57014; HSQLDB: "statement execution aborted", which MacroDB reports as a rolled-back transaction,
     * 40001); {@code e} itself when no cancel is pending.
     */
    private SQLException cancelled(SQLException e) {
        if (!cancelPending) return e;
        cancelPending = false;
        return new SQLException("canceling statement due to user request", "57014", e);
    }

    // ---- errors, output, end ----------------------------------------------------------------------------------

    private void error(SQLException e) {
        server.counters().errors().increment();
        String state = SqlStates.toPostgres(e, lastSql);
        BackendMessages.errorOrNotice(out, 'E', "ERROR", state, e.getMessage() == null ? state : firstLine(e.getMessage()), null, null);
        if (inBlock) failed = true;
    }

    private static String firstLine(String m) {
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private void readyForQuery() {
        lastActivity = System.nanoTime();
        BackendMessages.readyForQuery(out, !inBlock ? 'I' : failed ? 'E' : 'T');
        flush();
    }

    private void flush() {
        if (out.readableBytes() == 0) return;
        ByteBuf b = out;
        out = Unpooled.buffer();
        channel.writeAndFlush(b);
    }

    /**
     * Flushes part of a large result; while the client reads slower than rows come, waits for the chunk to reach
     * the socket, so that what a session holds in memory stays near one chunk however large the result.
     */
    private void flushWithBackPressure() {
        ByteBuf b = out;
        out = Unpooled.buffer();
        var written = channel.writeAndFlush(b);
        if (!channel.isWritable()) written.awaitUninterruptibly();
    }

    /** A FATAL error ends the session: the client reads it, then the connection closes. */
    private void fatal(String state, String message) {
        BackendMessages.error(out, "FATAL", state, message);
        ByteBuf b = out;
        out = Unpooled.buffer();
        channel.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
        closeSession();
    }

    private void closePortal(String name) {
        Portal p = portals.remove(name);
        if (p != null) release(p);
    }

    /** Closes a portal's result, and its statement when the portal owns it. */
    private static void release(Portal p) {
        try {
            if (p.rs != null) p.rs.close();
            if (p.owner != null && (p.statement.ps == null || p.ownsStatement)) p.owner.close();
            if (p.statement.openOn == p) p.statement.openOn = null;
        } catch (SQLException ignored) {
            // closing a result that is gone already
        }
    }

    private static void closeQuietly(Statement s) {
        if (s == null) return;
        try {
            s.close();
        } catch (SQLException ignored) {
            // statement already closed with its connection
        }
    }

    /** The client is gone (or told to go): roll back what it left open, close its connection. */
    private void closeSession() {
        if (phase == Phase.CLOSED) return;
        phase = Phase.CLOSED;
        server.release(this);
        if (conn != null) {
            try {
                if (!conn.getAutoCommit()) conn.rollback();
            } catch (SQLException ignored) {
                // closing rolls back anyway
            }
            try {
                conn.close();
            } catch (SQLException ignored) {
                // nothing left to do for a connection that will not close
            }
        }
    }

    /** What a statement is, as far as the session (not the engine) is concerned. */
    static final class Command {
        enum Kind { EMPTY, BEGIN, COMMIT, ROLLBACK, SET_TRANSACTION, SET, SHOW, NO_OP, ENGINE, CATALOG, DEALLOCATE, RESET, DISCARD }

        private static final Pattern BEGIN = Pattern.compile("(?is)(BEGIN|START\\s+TRANSACTION)(\\s+(WORK|TRANSACTION))?(\\s+.*)?");
        private static final Pattern COMMIT = Pattern.compile("(?is)(COMMIT|END)(\\s+(WORK|TRANSACTION))?");
        private static final Pattern ROLLBACK = Pattern.compile("(?is)(ROLLBACK|ABORT)(\\s+(WORK|TRANSACTION))?");
        private static final Pattern SET_TX = Pattern.compile("(?is)SET\\s+(SESSION\\s+CHARACTERISTICS\\s+AS\\s+)?TRANSACTION(\\s+.*)");
        private static final Pattern SET = Pattern.compile("(?is)SET\\s+(?:SESSION\\s+|LOCAL\\s+)?([A-Za-z_][\\w.]*)\\s*(?:=|\\s+TO\\s+)\\s*(.+?)");
        private static final Pattern SET_TZ = Pattern.compile("(?is)SET\\s+(?:SESSION\\s+|LOCAL\\s+)?TIME\\s+ZONE\\s+(.+?)");
        private static final Pattern SHOW = Pattern.compile("(?is)SHOW\\s+([A-Za-z_][\\w.]*)");
        private static final Pattern RESET = Pattern.compile("(?is)RESET\\s+(ALL|TIME\\s+ZONE|[A-Za-z_][\\w.]*)");
        private static final Pattern DISCARD = Pattern.compile("(?is)DISCARD\\s+(ALL|PLANS|SEQUENCES|TEMP|TEMPORARY)");
        private static final Pattern DEALLOCATE = Pattern.compile("(?is)DEALLOCATE\\s+(?:PREPARE\\s+)?(\"(?:[^\"]|\"\")*\"|[A-Za-z_][\\w$]*)");
        private static final Pattern READ_ONLY = Pattern.compile("(?is).*\\bREAD\\s+ONLY\\b.*");
        private static final Pattern READ_WRITE = Pattern.compile("(?is).*\\bREAD\\s+WRITE\\b.*");
        private static final Pattern ISOLATION = Pattern.compile("(?is).*\\bISOLATION\\s+LEVEL\\s+(SERIALIZABLE|REPEATABLE\\s+READ|READ\\s+COMMITTED|READ\\s+UNCOMMITTED)\\b.*");

        final Kind kind;
        Boolean readOnly;
        int isolation = -1;
        boolean session;
        String name;
        String value;
        String tagWord = "";
        boolean rowsTag;

        private Command(Kind kind) { this.kind = kind; }

        static Command noOp(String tag) {
            Command c = new Command(Kind.NO_OP);
            c.tagWord = tag;
            return c;
        }

        static Command transaction(Boolean readOnly, int isolation, boolean session) {
            Command c = new Command(Kind.SET_TRANSACTION);
            c.readOnly = readOnly;
            c.isolation = isolation;
            c.session = session;
            return c;
        }

        static Command catalog() {
            Command c = new Command(Kind.CATALOG);
            c.tagWord = "SELECT";
            c.rowsTag = true;
            return c;
        }

        boolean endsBlock() { return kind == Kind.COMMIT || kind == Kind.ROLLBACK; }

        boolean returnsRows() { return kind == Kind.SHOW || kind == Kind.ENGINE || kind == Kind.CATALOG; }

        static Command of(String sql) {
            String s = SqlText.stripForClassification(sql);
            if (s.isEmpty()) return new Command(Kind.EMPTY);
            Matcher m;
            if ((m = BEGIN.matcher(s)).matches()) {
                Command c = new Command(Kind.BEGIN);
                modes(c, m.group(4) == null ? "" : m.group(4));
                return c;
            }
            if (COMMIT.matcher(s).matches()) return new Command(Kind.COMMIT);
            if (ROLLBACK.matcher(s).matches()) return new Command(Kind.ROLLBACK);
            if ((m = SET_TX.matcher(s)).matches()) {
                Command c = transaction(null, -1, m.group(1) != null);
                modes(c, m.group(2));
                return c;
            }
            if ((m = SET_TZ.matcher(s)).matches()) return set("timezone", m.group(1));
            if ((m = SET.matcher(s)).matches()) return set(m.group(1), m.group(2));
            if ((m = RESET.matcher(s)).matches()) {
                Command c = new Command(Kind.RESET);
                c.name = m.group(1).equalsIgnoreCase("ALL") ? null : m.group(1).toLowerCase(Locale.ROOT);
                if (c.name != null && c.name.startsWith("time") && !c.name.equals("timezone")) c.name = "timezone";
                return c;
            }
            if ((m = DISCARD.matcher(s)).matches()) {
                Command c = new Command(Kind.DISCARD);
                String w = m.group(1).toUpperCase(Locale.ROOT);
                c.value = w.equals("TEMPORARY") ? "TEMP" : w;
                return c;
            }
            if ((m = DEALLOCATE.matcher(s)).matches()) {
                // SQL's name for the named statements of the extended protocol (psycopg sends DEALLOCATE ALL)
                Command c = new Command(Kind.DEALLOCATE);
                String n = m.group(1);
                c.name = n.startsWith("\"") ? n.substring(1, n.length() - 1).replace("\"\"", "\"") : n.equalsIgnoreCase("ALL") ? null : n.toLowerCase(Locale.ROOT);
                return c;
            }
            if ((m = SHOW.matcher(s)).matches()) {
                Command c = new Command(Kind.SHOW);
                c.name = m.group(1).toLowerCase(Locale.ROOT);
                return c;
            }
            Command c = new Command(Kind.ENGINE);
            String[] w = s.split("\\s+", 6);
            String first = w[0].toUpperCase(Locale.ROOT);
            c.tagWord = first;
            switch (first) {
                case "SELECT": case "VALUES": case "TABLE": case "WITH": case "SHOW": case "EXPLAIN": case "CALL":
                    c.tagWord = "SELECT";
                    c.rowsTag = true;
                    break;
                case "CREATE": case "DROP": case "ALTER": {
                    int i = 1;
                    StringBuilder t = new StringBuilder(first);
                    while (i < w.length && List.of("OR", "REPLACE", "UNIQUE", "GLOBAL", "LOCAL", "TEMPORARY", "TEMP", "CACHED", "MEMORY",
                            "MATERIALIZED", "FORCE").contains(w[i].toUpperCase(Locale.ROOT))) {
                        if (w[i].equalsIgnoreCase("MATERIALIZED")) t.append(" MATERIALIZED");
                        i++;
                    }
                    if (i < w.length) t.append(' ').append(w[i].toUpperCase(Locale.ROOT).replaceAll("[^A-Z]", ""));
                    c.tagWord = t.toString();
                    break;
                }
                case "TRUNCATE": c.tagWord = "TRUNCATE TABLE"; break;
                default:
            }
            return c;
        }

        static Command setting(String name, String value) { return set(name, value); }

        private static Command set(String name, String value) {
            Command c = new Command(Kind.SET);
            c.name = name.toLowerCase(Locale.ROOT);
            String v = value.strip();
            if (v.length() >= 2 && (v.startsWith("'") && v.endsWith("'"))) v = v.substring(1, v.length() - 1).replace("''", "'");
            if (c.name.equals("default_transaction_read_only") || c.name.equals("transaction_read_only")) {
                // validated when run; the value stays as written
                c.value = v;
            }
            c.value = v;
            return c;
        }

        private static void modes(Command c, String rest) {
            if (READ_ONLY.matcher(rest).matches()) c.readOnly = true;
            else if (READ_WRITE.matcher(rest).matches()) c.readOnly = false;
            Matcher m = ISOLATION.matcher(rest);
            if (m.matches()) {
                String l = m.group(1).toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
                c.isolation = l.equals("SERIALIZABLE") ? Connection.TRANSACTION_SERIALIZABLE
                        : l.equals("REPEATABLE READ") ? Connection.TRANSACTION_REPEATABLE_READ
                        : l.equals("READ UNCOMMITTED") ? Connection.TRANSACTION_READ_UNCOMMITTED
                        : Connection.TRANSACTION_READ_COMMITTED;
            }
        }

        /** The CommandComplete tag for {@code n} rows. */
        String tag(long n) {
            switch (tagWord) {
                case "INSERT": return "INSERT 0 " + n;
                case "SELECT": case "UPDATE": case "DELETE": case "MERGE": case "MOVE": case "FETCH": case "COPY": return tagWord + " " + n;
                default: return tagWord;
            }
        }
    }
}
