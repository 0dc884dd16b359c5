package io.macrodb.micrometer;

import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroDataSource;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The meters of {@link MacroDbMetrics} on real H2 and HSQLDB replica sets: reads on secondaries,
 * writes on the primary, lag, applied records and refusals, as a registry sees them. Every read that
 * must run on a secondary runs after {@code awaitCaughtUp}, so nothing depends on timing.
 */
class MacroDbMetricsTest {
    private static final AtomicInteger DBS = new AtomicInteger();

    private static String url(String engine, String options) {
        return "jdbc:macrodb:" + engine + ":mem:metrics" + DBS.incrementAndGet() + "_" + Long.toHexString(System.nanoTime()) + "?" + options;
    }

    private static double counter(SimpleMeterRegistry r, String name, String... tags) {
        return r.get(name).tags(tags).functionCounter().count();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void readsOnSecondariesShowInTheMeters(String engine) throws Exception {
        String url = url(engine, "replicas=3&readWait=30000");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            new MacroDbMetrics(admin, "shop").bindTo(registry);
            assertEquals(0, counter(registry, "macrodb.transactions", "target", "secondary", "reason", "fresh"));

            s.execute("CREATE TABLE item (id INT PRIMARY KEY, price INT)");
            for (int i = 0; i < 20; i++) s.executeUpdate("INSERT INTO item VALUES (" + i + ", " + i + ")");
            assertTrue(admin.awaitCaughtUp(30_000));
            c.setReadOnly(true);
            for (int i = 0; i < 10; i++) {
                try (ResultSet rs = s.executeQuery("SELECT price FROM item WHERE id = " + i)) {
                    assertTrue(rs.next());
                }
            }
            c.setReadOnly(false);

            assertEquals(10, counter(registry, "macrodb.transactions", "target", "secondary", "reason", "fresh"),
                    "every read-only transaction ran on a fresh secondary");
            assertEquals(20, counter(registry, "macrodb.transactions", "target", "primary", "reason", "update"));
            assertEquals(1, counter(registry, "macrodb.transactions", "target", "primary", "reason", "schema_change"));
            double onSecondaries = counter(registry, "macrodb.replica.reads", "replica", "1", "role", "secondary")
                    + counter(registry, "macrodb.replica.reads", "replica", "2", "role", "secondary");
            assertEquals(10, onSecondaries, "the reads are on the secondaries, per replica");
            assertEquals(0, counter(registry, "macrodb.replica.reads", "replica", "0", "role", "primary"));
            for (String i : new String[]{"1", "2"}) {
                assertEquals(0, registry.get("macrodb.replica.lag").tags("replica", i).gauge().value(), "caught up");
                assertTrue(counter(registry, "macrodb.replica.applied", "replica", i) >= 21, "the table and 20 inserts applied");
                assertEquals(1, registry.get("macrodb.replica.active").tags("replica", i).gauge().value());
                assertEquals(0, registry.get("macrodb.replica.primary").tags("replica", i).gauge().value());
            }
            assertEquals(1, registry.get("macrodb.replica.primary").tags("replica", "0").gauge().value());
            assertEquals(admin.version(), registry.get("macrodb.version").tag("db", "shop").gauge().value());
            FunctionTimer waits = registry.get("macrodb.read.waits").functionTimer();
            assertEquals(0, waits.count());

            admin.pauseApplying(1, true);
            s.executeUpdate("UPDATE item SET price = 0 WHERE id = 1");
            assertTrue(registry.get("macrodb.replica.lag").tags("replica", "1").gauge().value() >= 1, "held still: behind");
            admin.pauseApplying(1, false);
            assertTrue(admin.awaitCaughtUp(30_000));

            c.setReadOnly(true);
            SQLException refused = assertThrows(SQLException.class, () -> s.executeUpdate("DELETE FROM item"));
            assertEquals("25006", refused.getSQLState());
            c.setReadOnly(false);
            assertEquals(1, counter(registry, "macrodb.refusals", "sqlstate", "25006"));
            assertEquals(0, counter(registry, "macrodb.refusals", "sqlstate", "0AM01"), "registered from the start");

            assertEquals(0, counter(registry, "macrodb.transactions.throttled"));
            assertEquals(0, registry.get("macrodb.replica.staleness").tags("replica", "2").timeGauge().value(TimeUnit.MILLISECONDS));
            for (FunctionCounter f : registry.get("macrodb.transactions").functionCounters()) {
                assertEquals("shop", f.getId().getTag("db"));
            }
        }
    }

    @Test
    void aDataSourceIsSampledAtMostOncePerMaxAge() throws Exception {
        MacroDataSource ds = new MacroDataSource();
        ds.setUrl(url("h2", "replicas=2"));
        ds.setUser("sa");
        ds.setPassword("");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Connection held = ds.getConnection(); Statement s = held.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            new MacroDbMetrics(ds, "ds", Duration.ofDays(1)).bindTo(registry);
            double before = counter(registry, "macrodb.transactions", "target", "primary", "reason", "update");
            s.executeUpdate("INSERT INTO t VALUES (1)");
            assertEquals(before, counter(registry, "macrodb.transactions", "target", "primary", "reason", "update"),
                    "within maxAge the first sample stands");
            assertEquals(1, counter(registry, "macrodb.transactions", "target", "primary", "reason", "schema_change"));
        }
    }
}
