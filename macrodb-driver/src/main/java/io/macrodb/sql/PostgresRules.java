package io.macrodb.sql;

import static io.macrodb.sql.SqlLexer.word;

import io.macrodb.sql.Classification.Verb;
import io.macrodb.sql.SqlLexer.Lexed;
import io.macrodb.sql.SqlLexer.Token;
import io.macrodb.sql.SqlLexer.Type;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What PostgreSQL's own session statements are to MacroDB, on top of the common rules: a {@code SET} or {@code RESET} of
 * one setting for the session ({@code SET search_path TO app, public}, {@code SET TIME ZONE 'UTC'}, {@code SET ROLE r},
 * {@code RESET work_mem}, {@code SET myapp.tenant = 'a'}) is a session setting, which MacroDB runs on the connection's
 * primary session and again on every other session the connection uses, as it runs H2's. Before 2026-11-29 such a
 * statement was taken for a schema change: it held every other writer back, was logged and run on the secondaries'
 * apply sessions, and never reached the sessions that read there, so a read routed to a secondary after {@code SET
 * search_path TO tenant_42} resolved its names on the path the server gave, another schema's table of that name or none
 * (PostgresSearchPathTest).
 *
 * <p>{@code SET LOCAL} and {@code SET CONSTRAINTS} last until the transaction ends: they run on the primary inside the
 * update transaction, as a write does ({@link Verb#TRANSACTION_SET}). Before 2026-11-29 they too were taken for a schema
 * change, which held every other writer back until the transaction ended and recreated the capture triggers. Left to the
 * common rules: {@code SET TRANSACTION}, {@code SET SESSION CHARACTERISTICS} (a session statement under its own key),
 * and {@code RESET ALL}, which the engine refuses. A {@code SET} inside a transaction that is rolled back is undone on
 * the primary's session, and still carried to the connection's other sessions.
 */
final class PostgresRules {
    /** What follows {@code SET} or {@code SET SESSION} in a statement that does not set one session setting. */
    private static final Set<String> NOT_A_SETTING = Set.of("LOCAL", "TRANSACTION", "CHARACTERISTICS", "CONSTRAINTS", "AUTOCOMMIT");

    private PostgresRules() {}

    /** {@code c} adjusted for PostgreSQL's session statements; {@code c} itself where the common rules stand. */
    static Classification adjust(Classification c, Lexed lx) {
        if (c.kind() == StatementKind.READ && !c.pureRead() && c.verb() == Verb.OTHER && lx.error() == null) {
            String called = settingCalled(lx.tokens());
            return called == null ? c : c.with(false, Verb.SESSION_SET_CALL, called, false, false, null);
        }
        // SESSION_SET too: the common rules take SET SESSION x and SET ROLE for H2's, under keys of their own
        if (c.kind() != StatementKind.SESSION || c.verb() != Verb.OTHER && c.verb() != Verb.SESSION_SET || lx.error() != null) return c;
        if (word(lx.tokens(), 0).equals("SET") && Set.of("LOCAL", "CONSTRAINTS").contains(word(lx.tokens(), 1))) {
            return c.with(false, Verb.TRANSACTION_SET, null, false, false, null);
        }
        String setting = setting(lx.tokens());
        return setting == null ? c : c.with(false, Verb.SESSION_SET, setting, false, false, null);
    }

    /**
     * The setting a session-level {@code SET} or {@code RESET} changes, as the key under which MacroDB keeps the last
     * statement that changed it ({@code SET search_path}, {@code SET TIME ZONE}, {@code SET role}); null for another
     * statement.
     */
    static String setting(List<Token> ts) {
        int end = SqlLexer.end(ts);
        String w0 = word(ts, 0);
        boolean reset = w0.equals("RESET");
        if (!reset && !w0.equals("SET")) return null;
        int k = 1;
        if (word(ts, k).equals("SESSION")) {
            if (word(ts, k + 1).equals("AUTHORIZATION")) return "SET role"; // sets the session user and resets the role
            if (!reset) k++;
        }
        String w = word(ts, k);
        if (w.isEmpty() || NOT_A_SETTING.contains(w) || reset && w.equals("ALL")) return null;
        if (w.equals("TIME") && word(ts, k + 1).equals("ZONE")) return "SET TIME ZONE";
        if (w.equals("ROLE")) return "SET role";
        if (w.equals("SCHEMA")) return "SET search_path";
        StringBuilder name = new StringBuilder();
        int after = SqlLexer.readQualifiedName(ts, k, name);
        if (after == k) return null;
        if (reset ? after != end : after >= end || !(ts.get(after).isSymbol('=') || ts.get(after).isWord("TO"))) return null;
        return key(name.toString());
    }

    /**
     * The key of the setting that {@code SELECT set_config('name', value, false)} sets for the session, the whole
     * statement (an alias and a {@code ;} may follow); null for any other statement, {@code is_local} true among them.
     */
    static String settingCalled(List<Token> ts) {
        int end = SqlLexer.end(ts);
        if (end < 9 || !word(ts, 0).equals("SELECT") || !word(ts, 1).equals("SET_CONFIG") || !ts.get(2).isSymbol('(')) return null;
        int close = ts.get(2).match();
        Token name = ts.get(3);
        if (close < 8 || name.type() != Type.STRING || !ts.get(4).isSymbol(',') || !ts.get(close - 1).isWord("FALSE")
                || !ts.get(close - 2).isSymbol(',') || ts.get(close - 2).depth() != ts.get(4).depth()) {
            return null;
        }
        int k = close + 1;
        if (word(ts, k).equals("AS")) k++;
        if (k < end && ts.get(k).isName()) k++;
        if (k != end) return null;
        String text = name.text();
        if (text.length() < 2 || text.charAt(0) != '\'') return null; // E'' and other prefixed strings: left to the common rules
        return key(text.substring(1, text.length() - 1).replace("''", "'"));
    }

    /** The key MacroDB keeps a setting's last statement under: {@code SET name}, the name lower-cased, aliases alike. */
    private static String key(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return "SET " + (n.equals("timezone") ? "TIME ZONE" : n);
    }

}
