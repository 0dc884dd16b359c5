package io.macrodb;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.jdbc.Route;
import io.macrodb.jdbc.RoutingCounts;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Observability beyond Java calls (issue 12, item 7): the routing counters of {@link MacroAdmin#routingCounts()}
 * (each route produced on purpose and counted once), the replica set's MXBean ({@code jmx=true}:
 * registered, readable and operable through the platform MBeanServer, gone with the last connection)
 * and the per-statement routing log ({@code routingLog=true}, through System.Logger, which writes to
 * java.util.logging here). Nothing here depends on timing: every read that is asserted to run on a
 * secondary runs after {@code awaitCaughtUp}, and the paused secondary's reads go to the primary at once.
 */
class ObservabilityTest {

    private static void setup(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v BIGINT NOT NULL)");
            for (int i = 0; i < 5; i++) s.execute("INSERT INTO t VALUES (" + i + ", 0)");
        }
    }

    private static void read(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t WHERE id = 1")) {
            assertTrue(rs.next());
        }
    }

    private static Map<Route, Long> expect(Object... routeAndCount) {
        Map<Route, Long> m = new EnumMap<>(Route.class);
        for (Route r : Route.values()) m.put(r, 0L);
        for (int i = 0; i < routeAndCount.length; i += 2) m.put((Route) routeAndCount[i], ((Number) routeAndCount[i + 1]).longValue());
        return m;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void routingCountsSayWhereEachTransactionBeganAndWhy(String engine) throws Exception {
        // readWait is long: a read that waited for the paused secondary would take 30 s (it does not)
        String url = TestDb.url(engine, "replicas=2&readWait=30000");
        try (Connection writer = TestDb.open(url); Connection reader = TestDb.open(url);
             Connection pessimist = TestDb.open(url + "&optimisticReads=false")) {
            MacroAdmin admin = writer.unwrap(MacroAdmin.class);
            RoutingCounts start = admin.routingCounts();
            setup(writer); // 1 schema change, 5 autocommit update transactions
            assertTrue(admin.awaitCaughtUp(30_000));

            reader.setReadOnly(true);
            read(reader); // autocommit read-only: a fresh secondary
            reader.setReadOnly(false);
            reader.setAutoCommit(false);
            read(reader); // undeclared: starts on the secondary ...
            try (Statement s = reader.createStatement()) {
                s.executeUpdate("UPDATE t SET v = 1 WHERE id = 2"); // ... and moves to the primary at its first write
            }
            reader.commit();
            reader.setAutoCommit(true);
            pessimist.setAutoCommit(false);
            read(pessimist); // undeclared, but optimisticReads=false: the primary
            pessimist.commit();
            pessimist.setAutoCommit(true);

            admin.pauseApplying(1, true);
            try {
                try (Statement s = writer.createStatement()) {
                    s.executeUpdate("UPDATE t SET v = 2 WHERE id = 1");
                }
                reader.setReadOnly(true);
                read(reader); // strict, the secondary is held still: the primary, without waiting
            } finally {
                admin.pauseApplying(1, false);
            }
            RoutingCounts d = admin.routingCounts().minus(start);
            assertEquals(expect(Route.PRIMARY_SCHEMA_CHANGE, 1, Route.PRIMARY_UPDATE, 6, Route.SECONDARY_FRESH, 2,
                    Route.MOVED_TO_PRIMARY, 1, Route.PRIMARY_OPTIMISTIC_OFF, 1, Route.PRIMARY_NO_WAIT, 1), d.transactions(), d::toString);
            assertEquals(2, d.onSecondaries());
            assertEquals(9, d.onPrimary());
            assertEquals(Map.of(0, 1L, 1, 2L), d.readsByReplica(), "reads by replica index: 2 on secondary 1, 1 on the primary");

            // refusals: MacroDB's own, by SQLState; the engine's own errors are not counted
            SQLException ro = assertThrows(SQLException.class, () -> reader.createStatement().executeUpdate("DELETE FROM t"));
            assertEquals("25006", ro.getSQLState());
            reader.setReadOnly(false);
            SQLException temp = assertThrows(SQLException.class,
                    () -> writer.createStatement().execute("CREATE LOCAL TEMPORARY TABLE tt (id INT PRIMARY KEY)"));
            assertEquals("0AM01", temp.getSQLState());
            assertThrows(SQLException.class, () -> writer.createStatement().execute("INSERT INTO t VALUES (1, 1)")); // duplicate key
            assertEquals(Map.of("0AM01", 1L, "25006", 1L), admin.routingCounts().minus(start).refusalsBySqlState());
            TestDb.assertConverged(writer);
        }
    }

    @Test
    void aReplicaSetWithOneReplicaRunsReadsOnThePrimaryForWantOfASecondary() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=1"))) {
            setup(c);
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            RoutingCounts before = admin.routingCounts();
            c.setReadOnly(true);
            read(c);
            c.setReadOnly(false);
            c.setAutoCommit(false);
            read(c); // undeclared with no secondary to start on
            c.commit();
            RoutingCounts d = admin.routingCounts().minus(before);
            assertEquals(expect(Route.PRIMARY_NO_SECONDARY, 2), d.transactions(), d::toString);
            assertEquals(Map.of(0, 1L), d.readsByReplica(), "the read-only one counts as a read on the primary");
        }
    }

    // ================================================================= JMX

    private static ObjectName nameOf(String url) throws Exception {
        String set = url.substring(0, url.indexOf('?') < 0 ? url.length() : url.indexOf('?'));
        return new ObjectName("io.macrodb:type=ReplicaSet,name=" + ObjectName.quote(set));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void theReplicaSetsMXBeanIsThereWhileItIsOpenAndAnswers(String engine) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String url = TestDb.url(engine, "replicas=3&jmx=true");
        ObjectName name = nameOf(url);
        try (Connection c = TestDb.open(url)) {
            assertTrue(server.isRegistered(name), () -> name + " is not registered");
            try (Connection plain = TestDb.open(url.replace("&jmx=true", ""))) {
                setup(plain);
                assertTrue((Boolean) server.invoke(name, "awaitCaughtUp", new Object[]{30_000L}, new String[]{"long"}));
                plain.setReadOnly(true);
                read(plain);
            }
            assertTrue(server.isRegistered(name), "a connection without jmx=true closing leaves it");
            assertEquals(3, server.getAttribute(name, "Replicas"));
            assertEquals(c.unwrap(MacroAdmin.class).version(), server.getAttribute(name, "Version"));
            assertEquals(0, server.getAttribute(name, "PrimaryIndex"));
            assertEquals(3, ((String[]) server.getAttribute(name, "ReplicaStatus")).length);
            Map<Object, Object> lag = tabular(server.getAttribute(name, "Lag"));
            assertEquals(Map.of(0, 0L, 1, 0L, 2, 0L), lag, "caught up");
            assertEquals("primary", tabular(server.getAttribute(name, "Roles")).get(0));
            Map<Object, Object> routes = tabular(server.getAttribute(name, "TransactionsByRoute"));
            assertEquals(5L, routes.get("primary_update"), routes::toString);
            assertEquals(1L, routes.get("primary_schema_change"), routes::toString);
            assertEquals(1L, server.getAttribute(name, "TransactionsOnSecondaries"));
            long applied = tabular(server.getAttribute(name, "AppliedRecords")).values().stream().mapToLong(v -> (Long) v).sum();
            assertTrue(applied >= 2 * 6, "each secondary applied the 6 commits: " + applied);
            assertEquals("none", server.getAttribute(name, "DurabilityStatus"));
            assertEquals("triggers", server.getAttribute(name, "CaptureStatus"));

            server.invoke(name, "pauseApplying", new Object[]{1, true}, new String[]{"int", "boolean"});
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE t SET v = 7 WHERE id = 1");
            }
            assertTrue((Long) tabular(server.getAttribute(name, "Lag")).get(1) >= 1, "secondary 1 is held still");
            server.invoke(name, "pauseApplying", new Object[]{1, false}, new String[]{"int", "boolean"});
            assertTrue((Boolean) server.invoke(name, "awaitCaughtUp", new Object[]{30_000L}, new String[]{"long"}));

            RuntimeMBeanException noLog = assertThrows(RuntimeMBeanException.class,
                    () -> server.invoke(name, "snapshot", new Object[0], new String[0]));
            assertTrue(noLog.getCause().getMessage().startsWith("0AM00"), noLog.getCause().getMessage());
            RuntimeMBeanException active = assertThrows(RuntimeMBeanException.class,
                    () -> server.invoke(name, "rebuild", new Object[]{1}, new String[]{"int"}));
            assertTrue(active.getCause().getMessage().startsWith("55000"), active.getCause().getMessage());
            assertTrue(active.getCause().getMessage().contains("only a failed one is rebuilt"), active.getCause().getMessage());
            TestDb.assertConverged(c);
        }
        assertFalse(server.isRegistered(name), "the last connection closed, the replica set shut down: unregistered");
    }

    @Test
    void withoutJmxTrueNothingIsRegistered() throws Exception {
        String url = TestDb.url("h2", "replicas=2");
        try (Connection c = TestDb.open(url)) {
            assertTrue(c.isValid(1));
            assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(nameOf(url)));
        }
    }

    @Test
    void theDataSourceTurnsJmxOnWithASetter() throws Exception {
        String db = "ds_jmx_" + Long.toHexString(System.nanoTime());
        io.macrodb.jdbc.MacroDataSource ds = io.macrodb.jdbc.MacroDataSource.builder().engineUrl("h2:mem:" + db)
                .user("sa").password("").replicas(2).jmx(true).routingLog(false).build();
        ObjectName name = nameOf("jdbc:macrodb:h2:mem:" + db);
        try (Connection c = ds.getConnection()) {
            assertTrue(ManagementFactory.getPlatformMBeanServer().isRegistered(name), name::toString);
            assertEquals(c.unwrap(MacroAdmin.class).version(), ManagementFactory.getPlatformMBeanServer().getAttribute(name, "Version"));
        }
        assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(name));
    }

    @Test
    void jmxAndRoutingLogTakeTrueOrFalseOnly() {
        SQLException e = assertThrows(SQLException.class, () -> TestDb.open(TestDb.url("h2", "jmx=yes")));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("jmx"), e.getMessage());
        assertEquals("08001", assertThrows(SQLException.class, () -> TestDb.open(TestDb.url("h2", "routingLog=1"))).getSQLState());
    }

    private static Map<Object, Object> tabular(Object attribute) {
        Map<Object, Object> out = new java.util.HashMap<>();
        for (Object row : ((TabularData) attribute).values()) {
            CompositeData d = (CompositeData) row;
            out.put(d.get("key"), d.get("value"));
        }
        return out;
    }

    // ================================================================= the routing log

    /** Collects the lines of {@code io.macrodb.routing} (System.Logger's default backend is java.util.logging). */
    private static final class Lines extends Handler {
        final List<String> lines = new ArrayList<>();
        @Override public synchronized void publish(LogRecord r) { lines.add(r.getLevel() + " " + r.getMessage()); }
        @Override public void flush() { }
        @Override public void close() { }
        synchronized List<String> get() { return new ArrayList<>(lines); }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void theRoutingLogSaysWhereEachStatementRanAndWhy(String engine) throws Exception {
        Logger jul = Logger.getLogger("io.macrodb.routing");
        Level was = jul.getLevel();
        Lines lines = new Lines();
        jul.setLevel(Level.FINE);
        jul.addHandler(lines);
        String url = TestDb.url(engine, "replicas=2&readWait=30000");
        try (Connection quiet = TestDb.open(url); Connection c = TestDb.open(url + "&routingLog=true")) {
            setup(quiet);
            assertTrue(quiet.unwrap(MacroAdmin.class).awaitCaughtUp(30_000));
            assertEquals(List.of(), lines.get(), "a connection without routingLog logs nothing");

            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE u (id INT PRIMARY KEY)");
                s.executeUpdate("UPDATE t SET v = 1 WHERE id = 1");
                assertTrue(c.unwrap(MacroAdmin.class).awaitCaughtUp(30_000));
                c.setReadOnly(true);
                read(c);
                c.setReadOnly(false);
                c.setAutoCommit(false);
                s.executeUpdate("UPDATE t SET v = 2 WHERE id = 1");
                s.executeUpdate("UPDATE t SET v = 3 WHERE id = 2");
                c.commit();
            }
            long version = c.unwrap(MacroConnection.class).lastCommitVersion();
            List<String> got = lines.get();
            assertEquals(5, got.size(), () -> String.join("\n", got));
            assertTrue(got.get(0).matches("FINE conn \\d+: primary \\(replica 0\\), schema change \\(schema_change\\): CREATE TABLE u \\(id INT PRIMARY KEY\\)"), got.get(0));
            assertTrue(got.get(1).matches("FINE conn \\d+: primary \\(replica 0\\), began an update transaction \\(update\\): UPDATE t SET v = 1 WHERE id = 1"), got.get(1));
            assertTrue(got.get(2).matches("FINE conn \\d+: secondary 1, began a read-only transaction \\(fresh; required v\\d+, waited 0 us\\): SELECT v FROM t WHERE id = 1"), got.get(2));
            assertTrue(got.get(2).contains("required v" + (version - 1) + ","), () -> got.get(2) + " after v" + (version - 1));
            assertTrue(got.get(3).endsWith("began an update transaction (update): UPDATE t SET v = 2 WHERE id = 1"), got.get(3));
            assertTrue(got.get(4).matches("FINE conn \\d+: primary \\(replica 0\\), in its update transaction: UPDATE t SET v = 3 WHERE id = 2"), got.get(4));
            String conn = got.get(0).split(":")[0];
            assertTrue(got.stream().allMatch(l -> l.startsWith(conn + ":")), "one connection's lines carry its number");
        } finally {
            jul.removeHandler(lines);
            jul.setLevel(was);
        }
    }

    @Test
    void theRoutingLogIsSilentBelowDebug() throws Exception {
        Logger jul = Logger.getLogger("io.macrodb.routing");
        Level was = jul.getLevel();
        Lines lines = new Lines();
        jul.setLevel(Level.INFO);
        jul.addHandler(lines);
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2&routingLog=true"))) {
            setup(c);
            read(c);
            assertEquals(List.of(), lines.get());
        } finally {
            jul.removeHandler(lines);
            jul.setLevel(was);
        }
    }
}
