package io.macrodb.engine;

import io.macrodb.jdbc.MacroConnection;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.PgCluster;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL with {@code capture=decoding}: each update transaction's rows come from the primary's logical decoding
 * stream after its commit ({@link PostgresDecoder}). The primary and two secondaries are servers of {@link PgCluster#shared}.
 * Each test reads every replica with plain pgjdbc connections, so a row the stream lost or changed shows as a difference.
 */
class PostgresDecodingTest {

    private static String url(String options) {
        return url("decoding", options);
    }

    private static String url(String capture, String options) {
        return TestDb.url("postgresql", "capture=" + capture + (options.isEmpty() ? "" : "&" + options));
    }


    /** The secondaries hold what the primary holds (whatever that is). */
    static void assertSecondariesAsPrimary(Connection c, String sql) throws SQLException {
        List<List<String>> all = TestDb.everyReplica(c, sql);
        assertEquals(3, all.size(), "primary and two secondaries");
        assertTrue(!all.get(0).isEmpty(), "rows on the primary: " + sql);
        for (int i = 1; i < all.size(); i++) assertEquals(all.get(0), all.get(i), "replica " + i + " as the primary: " + sql);
    }

    private static String primaryUrl(Connection c) throws SQLException {
        return TestDb.macro(c).replicaStatus().get(0).url();
    }

    @Test
    void rowsReachEverySecondaryFromTheStream() throws Exception {
        // no capture option: decoding is the default (issue 13's URL names none)
        try (Connection c = TestDb.open(PgCluster.shared().macroUrl(3, "")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2))");
            s.execute("INSERT INTO item VALUES (1, 'a', 1.50), (2, 'b', 2.25), (3, 'c', null)");
            s.execute("UPDATE item SET price = price * 2 WHERE id <= 2");
            s.execute("DELETE FROM item WHERE id = 3");
            c.setAutoCommit(false);
            s.execute("INSERT INTO item VALUES (10, 'x', 0)");
            s.execute("UPDATE item SET id = id + 100"); // every key moves within one statement
            s.execute("INSERT INTO item VALUES (1, 'again', 1)"); // a key vacated earlier in the transaction
            s.execute("DELETE FROM item WHERE id = 1");
            s.execute("INSERT INTO item VALUES (1, 'third', 3)");
            c.commit();
            TestDb.assertOnEveryReplica(c, 3, "SELECT * FROM item ORDER BY id", List.of("1|third|3.00", "101|a|3.00", "102|b|4.50", "110|x|0.00"));
            TestDb.assertConverged(c);
            String status = TestDb.macro(c).admin().captureStatus();
            assertTrue(status.startsWith("decoding " + primaryUrl(c) + " (slot macrodb_") && status.contains(": running, 4 transaction(s)"
                    + " decoded, the last committed at 20"), status);

            // what runs is the stream: a slot of MacroDB's on the primary, statement-level guards, full replica identity
            try (Connection p = DriverManager.getConnection(primaryUrl(c), "sa", "")) {
                assertEquals(List.of("pgoutput|f|t"), TestDb.rows(p, "SELECT plugin, temporary, active FROM pg_replication_slots"
                        + " WHERE slot_name LIKE 'macrodb%' AND database = current_database()", "|"));
                assertEquals(List.of("f|f"), TestDb.rows(p, "SELECT tgtype & 1 = 1, to_regclass('pg_temp.macrodb_changes') IS NOT NULL"
                        + " FROM pg_trigger WHERE tgname = 'macrodb_capture' AND tgrelid = 'item'::regclass", "|"));
                assertEquals(List.of("f"), TestDb.rows(p, "SELECT relreplident FROM pg_class WHERE oid = 'item'::regclass", "|"));
            }
        }
    }

    /**
     * The values the stream gives are the values a read gives: every type lands on the secondaries as on the primary.
     * With either capture: an enum's label and a money amount read with pgjdbc's {@code getObject} (a {@code String}, a
     * {@code Double}) did not bind back as their types, and the trigger capture's secondaries failed on them.
     */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"decoding", "triggers"})
    void everyTypeArrivesAsThePrimaryHoldsIt(String capture) throws Exception {
        try (Connection c = TestDb.open(url(capture, "")); Statement s = c.createStatement()) {
            s.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
            s.execute("CREATE TABLE v (k bigint PRIMARY KEY, i2 smallint, i4 int, r real, d double precision, n numeric, b boolean,"
                    + " t text, vc varchar(20), ch char(5), ba bytea, dt date, tm time, ttz timetz, ts timestamp, tstz timestamptz,"
                    + " iv interval, u uuid, j json, jb jsonb, ai int[], at text[], m mood, ip inet, mo money, bits bit varying(8),"
                    + " pt point)");
            s.execute("INSERT INTO v VALUES (1, -32768, 2147483647, 'NaN', '-Infinity', 'NaN', true, E'tab\\there ''q'' \\\\ ünï',"
                    + " 'x', 'ab', '\\x00ff10', 'infinity', '24:00', '13:14:15.123456+05:30', '-infinity', '2024-02-29 23:59:59.999999+00',"
                    + " '1 year 2 mons -3 days 04:05:06.7', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2.50]}',"
                    + " '{\"b\": null, \"a\": 1}', '{1,NULL,3}', '{\"x y\",\"\",NULL}', 'happy', '10.1.2.3/16', 12.34, B'1011',"
                    + " '(1.5,-2)')");
            s.execute("INSERT INTO v (k, dt, ts, tstz, n, r, d) VALUES (2, '0044-03-15 BC', '1582-10-04 12:00', '1900-01-01 00:00+00:19:32',"
                    + " 123456789012345678901234567890.000000000001, 3.4028235e38, 4.9e-324)");
            s.execute("INSERT INTO v (k) VALUES (3)");
            s.execute("UPDATE v SET t = 'changed', ai = ai || 4 WHERE k = 1");
            assertSecondariesAsPrimary(c, "SELECT * FROM v ORDER BY k");
            TestDb.assertConverged(c);
        }
    }

    /** An update that leaves a TOASTed value unchanged: the stream leaves it out of the new row, and the old row carries it. */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"decoding", "triggers"})
    void anUnchangedToastedValueIsKept(String capture) throws Exception {
        try (Connection c = TestDb.open(url(capture, "")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE doc (id int PRIMARY KEY, body text, note text, data bytea)");
            StringBuilder big = new StringBuilder();
            Random random = new Random(7);
            while (big.length() < 200_000) big.append(Long.toString(random.nextLong(), 36)); // incompressible: stored out of line
            byte[] bytes = new byte[100_000];
            random.nextBytes(bytes);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO doc VALUES (?, ?, 'first', ?)")) {
                ps.setInt(1, 1);
                ps.setString(2, big.toString());
                ps.setBytes(3, bytes);
                ps.executeUpdate();
            }
            s.execute("UPDATE doc SET note = 'second' WHERE id = 1");
            s.execute("UPDATE doc SET id = 2 WHERE id = 1"); // the key moves, the large values stay
            TestDb.assertOnEveryReplica(c, 3, "SELECT id, note, md5(body), length(body), md5(data) FROM doc",
                    List.of("2|second|" + md5(big.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "|" + big.length() + "|" + md5(bytes)));
            TestDb.assertConverged(c);
        }
    }

    private static String md5(byte[] b) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (byte x : java.security.MessageDigest.getInstance("MD5").digest(b)) sb.append(String.format("%02x", x));
        return sb.toString();
    }

    /** Generated columns are not in the stream (nor replicated: each replica computes its own), identity values are. */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"decoding", "triggers"})
    void generatedAndIdentityColumns(String capture) throws Exception {
        try (Connection c = TestDb.open(url(capture, "")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE g (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, a int, doubled int GENERATED ALWAYS AS (a * 2) STORED,"
                    + " tag text DEFAULT 'd', ser serial)");
            s.execute("INSERT INTO g (a) VALUES (1), (2)");
            s.execute("UPDATE g SET a = a + 10");
            s.execute("INSERT INTO g (a, tag) VALUES (5, 'x')");
            TestDb.assertOnEveryReplica(c, 3, "SELECT * FROM g ORDER BY id", List.of("1|11|22|d|1", "2|12|24|d|2", "3|5|10|x|3"));
            TestDb.assertConverged(c);
        }
    }

    /** The application's triggers run on the primary; the rows they write come out of the stream with the rest. */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"decoding", "triggers"})
    void rowsOfTheApplicationsTriggersAndCascades(String capture) throws Exception {
        try (Connection c = TestDb.open(url(capture, "")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE parent (id int PRIMARY KEY)");
            s.execute("CREATE TABLE child (id int PRIMARY KEY, parent int REFERENCES parent ON DELETE CASCADE)");
            s.execute("CREATE TABLE audit (id bigserial PRIMARY KEY, what text)");
            s.execute("CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit(what) VALUES (TG_OP || ' '"
                    + " || TG_TABLE_NAME); RETURN NULL; END $$");
            s.execute("CREATE TRIGGER noted AFTER INSERT OR DELETE ON child FOR EACH ROW EXECUTE FUNCTION note()");
            s.execute("INSERT INTO parent VALUES (1), (2)");
            s.execute("INSERT INTO child VALUES (10, 1), (11, 1), (20, 2)");
            s.execute("DELETE FROM parent WHERE id = 1");
            TestDb.assertOnEveryReplica(c, 3, "SELECT id, parent FROM child ORDER BY id", List.of("20|2"));
            TestDb.assertOnEveryReplica(c, 3, "SELECT id, what FROM audit ORDER BY id",
                    List.of("1|INSERT child", "2|INSERT child", "3|INSERT child", "4|DELETE child", "5|DELETE child"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * Schema changes inside a transaction split its rows in the stream (MacroDB's marks around each): the rows before a
     * change are shipped in the shapes they were made in, the change's own rows ({@code CREATE TABLE AS}, {@code
     * TRUNCATE}) with the statement, and the rows after it in the new shapes.
     */
    @Test
    void schemaChangesInsideATransaction() throws Exception {
        try (Connection c = TestDb.open(url("")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE a (k int PRIMARY KEY, v text)");
            s.execute("CREATE TABLE gone (k int PRIMARY KEY)");
            s.execute("INSERT INTO gone VALUES (1), (2)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO a VALUES (1, 'before')");
            s.execute("ALTER TABLE a ADD COLUMN w int DEFAULT 7");
            s.execute("INSERT INTO a VALUES (2, 'after', 8)");
            s.execute("UPDATE a SET w = 9 WHERE k = 1");
            s.execute("CREATE TABLE copy AS SELECT k, v, random() AS r FROM a");
            s.execute("ALTER TABLE copy ADD PRIMARY KEY (k)");
            s.execute("INSERT INTO copy VALUES (3, 'new', 0.5)");
            s.execute("TRUNCATE gone");
            s.execute("INSERT INTO gone VALUES (3)");
            assertThrows(SQLException.class, () -> s.execute("ALTER TABLE a ADD COLUMN w int")); // fails: the transaction goes on
            s.execute("INSERT INTO a VALUES (4, 'last', 4)");
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertOnEveryReplica(c, 3, "SELECT * FROM a ORDER BY k", List.of("1|before|9", "2|after|8", "4|last|4"));
            assertSecondariesAsPrimary(c, "SELECT * FROM copy ORDER BY k");
            TestDb.assertOnEveryReplica(c, 3, "SELECT * FROM gone ORDER BY k", List.of("3"));

            // a savepoint set before a schema change of the transaction cannot be rolled back to (its rows are shipped)
            c.setAutoCommit(false);
            s.execute("INSERT INTO a VALUES (5, 'x', 5)");
            Savepoint sp = c.setSavepoint();
            s.execute("CREATE TABLE b (k int PRIMARY KEY)");
            SQLException refused = assertThrows(SQLException.class, () -> c.rollback(sp));
            assertEquals("0AM00", refused.getSQLState(), refused.getMessage());
            c.rollback();
            c.setAutoCommit(true);
            TestDb.assertOnEveryReplica(c, 3, "SELECT count(*) FROM a WHERE k = 5", List.of("0"));
            TestDb.assertOnEveryReplica(c, 3, "SELECT to_regclass('b') IS NULL", List.of("t"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * A deferrable primary key lets two rows hold one key until the statement (or the transaction) ends: keys swapped,
     * shifted onto each other, and a key taken over from a row the transaction inserted. The stream names the row an
     * update or a delete leaves by its whole old row (replica identity FULL); by key alone the swaps lose rows.
     */
    @Test
    void deferrablePrimaryKeysSwapAndShift() throws Exception {
        try (Connection c = TestDb.open(url("")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE d (k int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, v text)");
            s.execute("CREATE TABLE e (k int PRIMARY KEY DEFERRABLE INITIALLY IMMEDIATE, v text)");
            s.execute("INSERT INTO d VALUES (1, 'one'), (2, 'two'), (3, 'three')");
            s.execute("INSERT INTO e SELECT g, 'e' || g FROM generate_series(1, 5) g");
            s.execute("UPDATE d SET k = CASE k WHEN 1 THEN 2 WHEN 2 THEN 1 ELSE k END"); // a swap in one statement
            s.execute("UPDATE e SET k = k + 1"); // each row onto the next one's key, whatever order the rows come in
            c.setAutoCommit(false);
            s.execute("INSERT INTO d VALUES (10, 'ten')");
            s.execute("UPDATE d SET k = 11 WHERE k = 3");
            s.execute("UPDATE d SET k = 3 WHERE k = 10"); // 3 again, now the inserted row
            s.execute("UPDATE d SET k = 10 WHERE k = 11");
            s.execute("UPDATE d SET k = 20 WHERE k = 1");
            s.execute("UPDATE d SET k = 1 WHERE k = 2"); // with the constraint deferred to the commit
            s.execute("UPDATE d SET k = 2 WHERE k = 20");
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertOnEveryReplica(c, 3, "SELECT k, v FROM d ORDER BY k", List.of("1|one", "2|two", "3|ten", "10|three"));
            TestDb.assertOnEveryReplica(c, 3, "SELECT k, v FROM e ORDER BY k", List.of("2|e1", "3|e2", "4|e3", "5|e4", "6|e5"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * Rows the application writes through the engine connection it unwrapped (pgjdbc's {@code CopyManager}), in a
     * transaction whose only statement of MacroDB's took locks: no statement entered the update gate, and the commit
     * still ships them (the engine says the transaction wrote). With the triggers they were captured all along.
     */
    @ParameterizedTest(name = "capture={0}")
    @ValueSource(strings = {"decoding", "triggers"})
    void rowsWrittenThroughTheUnwrappedEngineConnection(String capture) throws Exception {
        try (Connection c = TestDb.open(url(capture, "")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY, v text)");
            s.execute("INSERT INTO t VALUES (0, 'first')");
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("SELECT k FROM t FOR UPDATE")) { // on the primary, takes locks, writes nothing
                assertTrue(rs.next());
            }
            org.postgresql.PGConnection pg = c.unwrap(org.postgresql.PGConnection.class);
            pg.getCopyAPI().copyIn("COPY t FROM STDIN", new java.io.StringReader("1\tcopied\n2\ttoo\n"));
            c.commit();
            c.setAutoCommit(true);
            TestDb.assertOnEveryReplica(c, 3, "SELECT k, v FROM t ORDER BY k", List.of("0|first", "1|copied", "2|too"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * A table without a primary key: the stream's old rows are whole (replica identity FULL), so a row is known by all its
     * values, as on H2 and HSQLDB. Duplicate rows stay duplicates, one of several equal rows can be updated or deleted,
     * changes that cancel out within a transaction ship nothing, and a large value left unchanged is kept. The trigger
     * capture, which reads rows back by key, still refuses such a table and says to use decoding.
     */
    @Test
    void tablesWithoutAKeyReplicateByTheirWholeRows() throws Exception {
        String u = url("");
        try (Connection c = TestDb.open(u); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE h (a int, b text, n numeric(8,2), d date, ts timestamptz, u uuid, bl bytea, f boolean, big text)");
            s.execute("INSERT INTO h (a, b, n, d, ts, u, bl, f) VALUES (1, 'x', 1.50, '1000-01-01', '2024-01-01 10:00+02',"
                    + " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', true), (1, 'x', 1.50, '1000-01-01', '2024-01-01 10:00+02',"
                    + " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', true), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
                    + " (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
            s.execute("UPDATE h SET b = 'y' WHERE ctid = (SELECT ctid FROM h WHERE a = 1 LIMIT 1)"); // one of two equal rows
            s.execute("DELETE FROM h WHERE ctid = (SELECT ctid FROM h WHERE a = 2 LIMIT 1)"); // one of three
            c.setAutoCommit(false);
            s.execute("INSERT INTO h (a, b) VALUES (3, 'z')");
            s.execute("DELETE FROM h WHERE a = 3"); // cancels out
            s.execute("INSERT INTO h (a, b) VALUES (4, 'w')");
            s.execute("UPDATE h SET a = 5 WHERE a = 4");
            c.commit();
            c.setAutoCommit(true);
            StringBuilder big = new StringBuilder();
            Random random = new Random(11);
            while (big.length() < 100_000) big.append(Long.toString(random.nextLong(), 36)); // stored out of line
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO h (a, big) VALUES (6, ?)")) {
                ps.setString(1, big.toString());
                ps.executeUpdate();
            }
            s.execute("UPDATE h SET b = 'kept' WHERE a = 6"); // the new row comes without the large value
            String all = "SELECT a, b, n, d, ts, u, bl, f, md5(big) FROM h ORDER BY a, b NULLS FIRST";
            TestDb.assertOnEveryReplica(c, 3, all, List.of(
                    "1|x|1.50|1000-01-01|2024-01-01 08:00:00+00|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|\\x00ff|t|null",
                    "1|y|1.50|1000-01-01|2024-01-01 08:00:00+00|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|\\x00ff|t|null",
                    "2|null|null|null|null|null|null|null|null", "2|null|null|null|null|null|null|null|null", "5|w|null|null|null|null|null|null|null",
                    "6|kept|null|null|null|null|null|null|" + md5(big.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            s.execute("DELETE FROM h WHERE a = 2");
            // values pgjdbc reads as something other than a plain date (infinities), found again by a secondary's delete
            s.execute("CREATE TABLE edge (a int, d date, t timestamp, tm time, n numeric)");
            s.execute("INSERT INTO edge VALUES (7, 'infinity', '-infinity', '24:00', 1), (7, '-infinity', 'infinity', '00:00', 2)");
            s.execute("DELETE FROM edge WHERE d = 'infinity'");
            s.execute("UPDATE edge SET n = 3 WHERE t = 'infinity'");
            TestDb.assertOnEveryReplica(c, 3, "SELECT a, d, t, tm, n FROM edge", List.of("7|-infinity|infinity|00:00:00|3"));
            // a numeric NaN or infinity comes out of the stream as a double, which a secondary could not find again
            // exactly: refused before the commit (it was refused after, and took the primary out of service)
            for (String w : List.of("INSERT INTO edge (a, n) VALUES (8, 'NaN')", "UPDATE edge SET n = 'Infinity'")) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(w), w);
                assertEquals("0AM00", e.getSQLState(), e.getMessage());
            }
            s.execute("DELETE FROM edge");
            TestDb.assertOnEveryReplica(c, 3, "SELECT count(*) FROM edge", List.of("0"));
            TestDb.assertOnEveryReplica(c, 3, "SELECT count(*) FROM h", List.of("4"));
            assertEquals("primary", TestDb.macro(c).replicaStatus().get(0).stateReason()); // no value failed a commit
            TestDb.assertConverged(c);
        }
        try (Connection c = TestDb.open(u); Statement s = c.createStatement()) {
            // opened again, the secondaries are copies of the primary (its slot was temporary): such rows are copied too
            s.execute("DELETE FROM h WHERE ctid = (SELECT ctid FROM h WHERE a = 1 LIMIT 1)");
            TestDb.assertOnEveryReplica(c, 3, "SELECT a, b FROM h ORDER BY a, b", List.of("1|y", "5|w", "6|kept"));
            TestDb.assertConverged(c);
        }
        try (Connection c = TestDb.open(url("triggers", "")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE h (a int)");
            SQLException e = assertThrows(SQLException.class, () -> s.execute("INSERT INTO h VALUES (1)"));
            assertEquals("0AM00", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("capture=decoding"), e.getMessage());
        }
    }

    /** What the stream cannot carry is refused before anything is written, with the SQLState and what to change. */
    @Test
    void whatTheStreamCannotCarryIsRefused() throws Exception {
        try (Connection c = TestDb.open(url("")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE keyless (v int, d double precision)");
            s.execute("CREATE TABLE keyless_json (v int, j jsonb)");
            // an unlogged table, whose rows the stream would not carry, is refused before it exists (a copy cannot carry
            // it either: PostgresCopyTest)
            SQLException unlogged = assertThrows(SQLException.class, () -> s.execute("CREATE UNLOGGED TABLE fast (k int PRIMARY KEY)"));
            assertEquals("0AM00", unlogged.getSQLState(), unlogged.getMessage());
            assertTrue(unlogged.getMessage().contains("unlogged table public.fast"), unlogged.getMessage());
            for (String[] w : new String[][] {{"INSERT INTO keyless VALUES (1, 2)", "no primary key, so its rows are known by their"
                    + " values, and column \"d\" is of type double precision"}, {"INSERT INTO keyless_json VALUES (1, '{}')", "jsonb"}}) {
                SQLException e = assertThrows(SQLException.class, () -> s.execute(w[0]), w[0]);
                assertEquals("0AM00", e.getSQLState(), e.getMessage());
                assertTrue(e.getMessage().contains(w[1]), e.getMessage());
            }
            // a write from a session outside MacroDB is refused as with capture=triggers
            try (Connection p = DriverManager.getConnection(primaryUrl(c), "sa", ""); Statement ps = p.createStatement()) {
                s.execute("CREATE TABLE t (k int PRIMARY KEY)");
                SQLException e = assertThrows(SQLException.class, () -> ps.execute("INSERT INTO t VALUES (1)"));
                assertEquals("55000", e.getSQLState(), e.getMessage());
            }
            s.execute("INSERT INTO t VALUES (2)");
            TestDb.assertOnEveryReplica(c, 3, "SELECT k FROM t", List.of("2"));
            TestDb.assertConverged(c);
        }
    }

    /** MacroDB's replication slots on the database of {@code p}: name and whether a stream reads it. */
    private static List<String> slots(Connection p) throws SQLException {
        return TestDb.rows(p, "SELECT slot_name, active FROM pg_replication_slots WHERE slot_name LIKE 'macrodb\\_%'"
                + " AND database = current_database() ORDER BY 1", "|");
    }

    /**
     * The stream fails (its WAL sender is terminated, three times) while a writer commits. The decoder resumes it from
     * its slot, which the server kept with every transaction committed after the last one the decoder confirmed: no
     * commit fails, the primary stays, and every replica holds every acknowledged row. Before, the slot was temporary
     * and went with the connection, so each such failure took the primary out of service (a secondary took over, and
     * the old primary's database was copied afresh).
     */
    @Test
    void aTerminatedStreamIsResumedFromItsSlotAndThePrimaryStays() throws Exception {
        String url = url("lockTimeout=5000&rebuild=manual");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY, v text)");
            String primary = primaryUrl(c);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger acknowledged = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.CompletableFuture<Void> writer = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try (Connection w = TestDb.open(url); Statement ws = w.createStatement()) {
                    for (int k = 1; !stop.get(); k++) {
                        ws.execute("INSERT INTO t VALUES (" + k + ", 'w')"); // every one must commit: none may fail
                        acknowledged.set(k);
                    }
                } catch (SQLException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            try (Connection p = DriverManager.getConnection(primary, "sa", "")) {
                for (int i = 0; i < 3; i++) {
                    int before = acknowledged.get();
                    while (acknowledged.get() < before + 20 && !writer.isDone()) Thread.sleep(10);
                    long deadline = System.currentTimeMillis() + 10_000;
                    while (!List.of("t").equals(TestDb.rows(p, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
                            + " WHERE slot_name LIKE 'macrodb\\_%' AND database = current_database() AND active", "|"))) {
                        assertTrue(System.currentTimeMillis() < deadline, "the stream was not resumed: " + slots(p));
                        Thread.sleep(20);
                    }
                }
                int before = acknowledged.get();
                while (acknowledged.get() < before + 20 && !writer.isDone()) Thread.sleep(10);
                stop.set(true);
                writer.get(60, java.util.concurrent.TimeUnit.SECONDS);
                MacroConnection mc = TestDb.macro(c);
                assertEquals(primary, primaryUrl(c), () -> "the primary stayed: " + mc.replicaStatus());
                String status = mc.admin().captureStatus();
                assertTrue(status.contains(": running") && status.contains("resumed 3 time(s) from the slot"), status);
                assertTrue(mc.admin().awaitCaughtUp(30_000), () -> "not caught up: " + mc.replicaStatus());
                List<String> expected = new ArrayList<>();
                for (int k = 1; k <= acknowledged.get(); k++) expected.add(k + "|w");
                TestDb.assertOnEveryReplica(c, 3, "SELECT k, v FROM t ORDER BY k", expected);
                assertTrue(mc.replicaStatus().stream().allMatch(r -> r.state().name().equals("ACTIVE")), mc.replicaStatus().toString());
                List<String> slots = slots(p);
                assertEquals(1, slots.size(), () -> "one slot: " + slots);
            }
        }
    }

    /**
     * The stream fails and cannot be resumed (its slot was dropped behind it) while the application writes. Every
     * commit on the primary from then on would be in no record, so the primary leaves service at once and a secondary
     * takes over with a stream of its own; a commit that got to the primary's engine first fails with 40001 (nothing
     * committed, in MacroDB's terms). Either way every replica then holds exactly the commits the application was told
     * succeeded.
     */
    @Test
    void aStreamThatCannotBeResumedTakesThePrimaryOutAndASecondaryOver() throws Exception {
        try (Connection c = TestDb.open(url("lockTimeout=5000&rebuild=manual")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY, v text)");
            s.execute("INSERT INTO t VALUES (1, 'acknowledged')");
            String oldPrimary = primaryUrl(c);
            try (Connection p = DriverManager.getConnection(oldPrimary, "sa", "")) {
                // the decoder resumes within 50 ms: end its WAL sender and drop the slot in between, as often as it takes
                long deadline = System.currentTimeMillis() + 20_000;
                while (true) {
                    TestDb.rows(p, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name LIKE"
                            + " 'macrodb\\_%' AND database = current_database() AND active", "|");
                    try {
                        if (!TestDb.rows(p, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name"
                                + " LIKE 'macrodb\\_%' AND database = current_database() AND NOT active", "|").isEmpty()) break;
                    } catch (SQLException activeAgain) {
                        // the decoder took the slot up again between the two statements
                    }
                    assertTrue(System.currentTimeMillis() < deadline, "could not drop the slot: " + slots(p));
                    Thread.sleep(5);
                }
            }
            List<String> acknowledged = new ArrayList<>(List.of("1|acknowledged"));
            for (int k = 2; k <= 20; k++) { // writes race the failover: each one either commits or fails with 40001
                try {
                    s.execute("INSERT INTO t VALUES (" + k + ", 'w')");
                    acknowledged.add(k + "|w");
                } catch (SQLException e) {
                    assertEquals("40001", e.getSQLState(), e.getMessage());
                    Thread.sleep(50);
                }
            }
            long deadline = System.currentTimeMillis() + 30_000;
            while (primaryUrl(c).equals(oldPrimary) && System.currentTimeMillis() < deadline) Thread.sleep(50);
            assertTrue(!primaryUrl(c).equals(oldPrimary), "a secondary was promoted");
            for (int i = 0; ; i++) { // update transactions wait for the promotion, then go to the new primary
                try {
                    s.execute("UPDATE t SET v = 'again' WHERE k = 1");
                    break;
                } catch (SQLException e) {
                    if (!"40001".equals(e.getSQLState()) || i > 50) throw e;
                    Thread.sleep(100);
                }
            }
            acknowledged.set(0, "1|again");
            acknowledged.sort(java.util.Comparator.comparingInt(r -> Integer.parseInt(r.substring(0, r.indexOf('|')))));
            MacroConnection mc = TestDb.macro(c);
            assertTrue(mc.admin().awaitCaughtUp(30_000), () -> "not caught up: " + mc.replicaStatus());
            List<String> active = new ArrayList<>();
            for (ReplicaStatus r : mc.replicaStatus()) {
                if (!r.state().name().equals("ACTIVE")) continue;
                try (Connection d = DriverManager.getConnection(r.url(), "sa", "")) {
                    active.add(r.url());
                    assertEquals(acknowledged, TestDb.rows(d, "SELECT k, v FROM t ORDER BY k", "|"), r.url());
                }
            }
            // the promoted primary, the other secondary, and the replacement MacroDB built in the old primary's database
            // (its server is up: only the stream failed), emptied and copied afresh, so without the lost rows
            assertEquals(3, active.size(), "every replica in service: " + active);
            String status = mc.admin().captureStatus();
            assertTrue(status.startsWith("decoding " + primaryUrl(c)) && status.contains(": running"), status);
        }
    }

    /**
     * Not a superuser: a user with {@code REPLICATION} that owns its databases, the publication made beforehand by a
     * superuser (README: what {@code capture=decoding} needs), {@code session_replication_role} granted on the
     * secondaries. Without the publication the connection is refused, naming the superuser's command.
     */
    @Test
    void anOrdinaryUserWithReplicationRights() throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=decoding");
        String db = PgCluster.primaryDatabase(url);
        for (PgCluster.Server server : pg.servers()) {
            try (Connection c = server.connect("postgres"); Statement s = c.createStatement()) {
                s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'app') THEN CREATE ROLE app LOGIN"
                        + " REPLICATION; END IF; END $$");
                s.execute("GRANT SET ON PARAMETER session_replication_role TO app");
                try (ResultSet rs = s.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE '" + db + "%'")) {
                    List<String> names = new ArrayList<>();
                    while (rs.next()) names.add(rs.getString(1));
                    for (String n : names) try (Statement t = c.createStatement()) { t.execute("ALTER DATABASE " + n + " OWNER TO app"); }
                }
            }
        }
        java.util.Properties app = new java.util.Properties();
        app.setProperty("user", "app");
        app.setProperty("password", "");
        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(url, app).close());
        assertTrue(refused.getMessage().contains("CREATE PUBLICATION macrodb FOR ALL TABLES"), refused.getMessage());
        try (Connection c = pg.server(0).connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE PUBLICATION macrodb FOR ALL TABLES");
        }
        try (Connection c = DriverManager.getConnection(url, app); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY, v text)");
            s.execute("INSERT INTO t VALUES (1, 'by app'), (2, 'too')");
            s.execute("UPDATE t SET v = 'changed' WHERE k = 2");
            TestDb.assertOnEveryReplica(c, 3, "SELECT k, v FROM t ORDER BY k", List.of("1|by app", "2|changed"));
            TestDb.assertConverged(c);
        }
    }

    /**
     * Closing the set leaves the primary as the application had it: no trigger, no schema macrodb, and the replica
     * identities MacroDB made FULL back to DEFAULT, while one the application had made FULL itself stays.
     */
    @Test
    void closingPutsTheReplicaIdentitiesBack() throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=decoding&closeDelay=0");
        String db = PgCluster.primaryDatabase(url);
        pg.onPrimary(url,
                "CREATE TABLE mine (k int PRIMARY KEY)",
                "ALTER TABLE mine REPLICA IDENTITY FULL",
                "CREATE TABLE theirs (k int PRIMARY KEY)");
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE later (k int PRIMARY KEY)");
            s.execute("INSERT INTO later VALUES (1)");
            s.execute("INSERT INTO theirs VALUES (1)");
            try (Connection p = pg.server(0).connect(db)) {
                assertEquals(List.of("later|f", "mine|f", "theirs|f"), TestDb.rows(p, "SELECT relname, relreplident FROM pg_class"
                        + " WHERE relname IN ('mine', 'theirs', 'later') ORDER BY 1", "|"));
            }
            TestDb.assertOnEveryReplica(c, 3, "SELECT k FROM theirs", List.of("1"));
        }
        try (Connection p = pg.server(0).connect(db)) {
            assertEquals(List.of("later|d", "mine|f", "theirs|d"), TestDb.rows(p, "SELECT relname, relreplident FROM pg_class"
                    + " WHERE relname IN ('mine', 'theirs', 'later') ORDER BY 1", "|"));
            assertEquals(List.of("0|0"), TestDb.rows(p, "SELECT (SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal),"
                    + " (SELECT count(*) FROM pg_namespace WHERE nspname = 'macrodb')", "|"));
            assertEquals(List.of(), slots(p), "the stream's slot is dropped at close");
        }
    }

    /**
     * A slot that a replica set left (its process ended without closing it, or its server was down at the close) pins
     * the server's WAL for good. The next replica set on the database drops it, on the primary when its stream starts
     * and on a secondary MacroDB drove before when it is built; a slot that is not MacroDB's stays.
     */
    @Test
    void slotsThatAnEarlierReplicaSetLeftAreDroppedAtOpen() throws Exception {
        PgCluster pg = PgCluster.shared();
        String url = pg.macroUrl(3, "capture=decoding&closeDelay=0");
        List<String> replicas = new ArrayList<>();
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY)");
            s.execute("INSERT INTO t VALUES (1)");
            for (ReplicaStatus r : TestDb.macro(c).replicaStatus()) replicas.add(r.url());
        }
        for (String replica : replicas) {
            try (Connection p = DriverManager.getConnection(replica, "sa", "")) {
                TestDb.rows(p, "SELECT pg_create_logical_replication_slot('macrodb_0123456789ab_0', 'pgoutput')", "|");
                TestDb.rows(p, "SELECT pg_create_logical_replication_slot('theirs_" + Long.toHexString(System.nanoTime()) + "',"
                        + " 'pgoutput')", "|");
            }
        }
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("INSERT INTO t VALUES (2)");
            TestDb.assertOnEveryReplica(c, 3, "SELECT k FROM t ORDER BY k", List.of("1", "2"));
            for (int i = 0; i < replicas.size(); i++) {
                try (Connection p = DriverManager.getConnection(replicas.get(i), "sa", "")) {
                    List<String> mine = slots(p);
                    if (i == 0) {
                        assertEquals(1, mine.size(), () -> "the primary: its stream's slot only: " + mine);
                        assertTrue(!mine.get(0).startsWith("macrodb_0123456789ab_0") && mine.get(0).endsWith("|t"), mine::toString);
                    } else {
                        assertEquals(List.of(), mine, "secondary " + i);
                    }
                    assertEquals(List.of("1"), TestDb.rows(p, "SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots"
                            + " WHERE slot_name LIKE 'theirs\\_%' AND database = current_database()", "|"), "a slot not MacroDB's stays");
                }
            }
        }
    }

    /**
     * The stream gives only flushed WAL: a commit made with {@code synchronous_commit = off} (the application's SET, replayed
     * on MacroDB's sessions) waited for the WAL writer before its decoding could come, about 200 ms each (3.9 s for 20 by
     * hand). MacroDB's commit raises it to {@code local} for that transaction. Here the WAL writer sleeps 10 s, so a commit
     * that waited for it would take that long; each takes well under a second.
     */
    @Test
    void aSessionWithSynchronousCommitOffStillCommitsAtOnce() throws Exception {
        PgCluster.assumeAvailable();
        try (PgCluster pg = PgCluster.start(2, List.of("wal_writer_delay = 10000ms"));
             Connection c = TestDb.open(pg.macroUrl(2, "capture=decoding")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k int PRIMARY KEY)");
            s.execute("SET synchronous_commit = off");
            for (int i = 0; i < 3; i++) {
                long started = System.nanoTime();
                s.execute("INSERT INTO t VALUES (" + i + ")");
                long millis = (System.nanoTime() - started) / 1_000_000;
                assertTrue(millis < 5_000, "commit " + i + " took " + millis + " ms: it waited for the WAL writer");
            }
            TestDb.assertConverged(c);
        }
    }

    /** A server without logical decoding is refused at connect time, naming the setting; capture=triggers works there. */
    @Test
    void aServerWithoutLogicalDecodingIsRefused() throws Exception {
        PgCluster.assumeAvailable();
        try (PgCluster pg = PgCluster.start(2, List.of("wal_level = replica"))) {
            SQLException e = assertThrows(SQLException.class, () -> TestDb.open(pg.macroUrl(2, "capture=decoding")));
            assertEquals("55000", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("wal_level = logical"), e.getMessage());
            try (Connection c = TestDb.open(pg.macroUrl(2, "capture=triggers")); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (k int PRIMARY KEY)");
                s.execute("INSERT INTO t VALUES (1)");
                TestDb.assertConverged(c);
            }
        }
    }
}
