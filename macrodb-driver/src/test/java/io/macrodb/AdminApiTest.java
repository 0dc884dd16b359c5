package io.macrodb;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.MacroConnection;
import io.macrodb.jdbc.MacroDataSource;
import io.macrodb.jdbc.MacroDriver;
import io.macrodb.replica.ReplicaStatus;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator face, {@link MacroAdmin}, used from outside the driver's packages as an application
 * would: reached by {@code unwrap} (also through a pool), each operation doing what it says, bad
 * arguments and a closed connection refused with a precise SQLState, and the public face handing
 * out no internal type.
 */
class AdminApiTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb"})
    void theAdminFaceIsReachedByUnwrapAndDoesWhatItSays(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=3")); Statement s = c.createStatement()) {
            assertTrue(c.isWrapperFor(MacroAdmin.class));
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            assertSame(c.unwrap(MacroConnection.class).admin(), admin);

            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            long before = admin.version();
            s.execute("INSERT INTO t VALUES (1, 1)");
            assertEquals(before + 1, admin.version(), "one autocommit insert is one version");

            List<ReplicaStatus> status = admin.replicaStatus();
            assertEquals(3, status.size());
            assertEquals("primary", status.get(0).role());
            assertEquals(List.of(1, 2), status.subList(1, 3).stream().map(ReplicaStatus::index).toList());

            admin.pauseApplying(1, true);
            s.execute("INSERT INTO t VALUES (2, 2)");
            assertFalse(admin.awaitCaughtUp(200), "secondary 1 is held still, so it cannot catch up");
            assertTrue(admin.replicaStatus().get(1).lag() >= 1, () -> "no lag while paused: " + status);
            admin.pauseApplying(1, false);
            assertTrue(admin.awaitCaughtUp(30_000));
            List<String> sums = admin.checksums();
            assertEquals(3, sums.size());
            assertEquals(1, sums.stream().distinct().count(), () -> "replicas differ: " + sums);

            assertEquals("none", admin.durabilityStatus());
            assertEquals("triggers", admin.captureStatus());
            assertEquals(0, admin.throttledTransactions());
            assertTrue(admin.readWaits().reads() >= 0);
            assertTrue(admin.routingStats() != null);
            io.macrodb.jdbc.RoutingCounts routed = admin.routingCounts();
            assertTrue(routed.onPrimary() >= 3, () -> "the table and two inserts: " + routed);
        }
    }

    /**
     * H2 in PostgreSQL mode with lower-case names (as macrodb-server opens it) lists information_schema and
     * pg_catalog in lower case: they are still system schemas, out of the shapes and the checksums (their tables,
     * sessions and locks among them, differ per replica).
     */
    @Test
    void checksumsAndShapesLeaveOutH2sLowerCaseSystemSchemas() throws Exception {
        String url = "jdbc:macrodb:h2:mem:lower" + System.nanoTime() + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE?replicas=3";
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            assertTrue(admin.awaitCaughtUp(30_000));
            List<String> sums = admin.checksums();
            assertEquals(1, sums.stream().distinct().count(), () -> "replicas differ: " + sums);
            try (Connection primary = java.sql.DriverManager.getConnection(admin.replicaStatus().get(0).url(), "sa", "")) {
                assertEquals(List.of("public.t"), io.macrodb.engine.Catalog.readTables(primary).stream()
                        .map(t -> t.schema() + "." + t.table()).toList());
            }
            assertTrue(io.macrodb.engine.Catalog.isSystemSchema("information_schema"));
            assertTrue(io.macrodb.engine.Catalog.isSystemSchema("pg_catalog"));
            assertFalse(io.macrodb.engine.Catalog.isSystemSchema("public"));
        }
    }

    @Test
    void badArgumentsAreRefusedWithAPreciseState() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            SQLException noSuch = assertThrows(SQLException.class, () -> admin.pauseApplying(5, true));
            assertEquals("HY024", noSuch.getSQLState());
            assertTrue(noSuch.getMessage().contains("secondaries are 1..1"), noSuch.getMessage());
            assertEquals("HY024", assertThrows(SQLException.class, () -> admin.pauseApplying(0, true)).getSQLState(),
                    "0 is the primary, which applies nothing");
            assertEquals("HY024", assertThrows(SQLException.class, () -> admin.rebuild(7)).getSQLState());
            SQLException active = assertThrows(SQLException.class, () -> admin.rebuild(1));
            assertEquals("55000", active.getSQLState());
            assertTrue(active.getMessage().contains("only a failed one is rebuilt"), active.getMessage());
            assertEquals("HY024", assertThrows(SQLException.class, () -> admin.awaitCaughtUp(-1)).getSQLState());
            SQLException noLog = assertThrows(SQLException.class, admin::snapshot);
            assertEquals("0AM00", noLog.getSQLState());
            assertTrue(noLog.getMessage().contains("durability=log:"), noLog.getMessage());
            TestDb.assertConverged(c);
        }
    }

    @Test
    void aClosedConnectionsAdminIsRefusedWith08003() throws Exception {
        MacroAdmin admin;
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=2"))) {
            admin = c.unwrap(MacroAdmin.class);
        }
        SQLException e = assertThrows(SQLException.class, admin::replicaStatus);
        assertEquals("08003", e.getSQLState());
        assertEquals("08003", assertThrows(SQLException.class, () -> admin.awaitCaughtUp(10)).getSQLState());
    }

    @Test
    void thePoolsProxyUnwrapsToTheAdminFace() throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(TestDb.url("hsqldb", "replicas=2"));
        cfg.setUsername("sa");
        cfg.setPassword("");
        cfg.setMaximumPoolSize(1);
        try (HikariDataSource ds = new HikariDataSource(cfg); Connection c = ds.getConnection()) {
            MacroAdmin admin = c.unwrap(MacroAdmin.class);
            assertEquals(2, admin.replicaStatus().size());
            assertTrue(admin.awaitCaughtUp(30_000));
        }
    }

    /**
     * The public face names no internal type: every public method of the driver's public classes
     * takes and returns only JDK types, the face's own types, and the records it reports with. A
     * method that hands out the replica set, a replica or a session fails this test.
     */
    @Test
    void thePublicFaceHandsOutNoInternalType() {
        Set<String> allowed = Set.of(
                "io.macrodb.jdbc.MacroAdmin", "io.macrodb.jdbc.MacroConnection", "io.macrodb.jdbc.MacroDataSource",
                "io.macrodb.jdbc.MacroDriver", "io.macrodb.jdbc.MacroDataSource$Builder", "io.macrodb.jdbc.MacroConfig", "io.macrodb.jdbc.ReplicaRef",
                "io.macrodb.replica.ReplicaStatus", "io.macrodb.replica.ReplicaState",
                "io.macrodb.route.ReadWaits$Stats", "io.macrodb.route.ShapeLearning$ShapeStats",
                "io.macrodb.jdbc.Route", "io.macrodb.jdbc.RoutingCounts");
        Set<String> leaks = new TreeSet<>();
        for (Class<?> face : List.of(MacroAdmin.class, MacroConnection.class, MacroDataSource.class, MacroDriver.class,
                io.macrodb.jdbc.MacroConfig.class)) {
            for (Method m : face.getMethods()) {
                if (m.getDeclaringClass() == Object.class) continue;
                List<Type> types = new ArrayList<>(List.of(m.getGenericParameterTypes()));
                types.add(m.getGenericReturnType());
                for (Type t : types) {
                    for (Class<?> k : classesIn(t)) {
                        if (k.getName().startsWith("io.macrodb.") && !allowed.contains(k.getName())) {
                            leaks.add(face.getSimpleName() + "." + m.getName() + " -> " + k.getName());
                        }
                    }
                }
            }
        }
        assertEquals(Set.of(), leaks, "internal types on the public face");
        for (Method m : MacroConnection.class.getDeclaredMethods()) {
            if (m.getName().equals("replicaSet")) assertFalse(Modifier.isPublic(m.getModifiers()), "replicaSet() is public again");
        }
    }

    private static List<Class<?>> classesIn(Type t) {
        List<Class<?>> out = new ArrayList<>();
        if (t instanceof Class<?> k) {
            out.add(k.isArray() ? k.getComponentType() : k);
        } else if (t instanceof ParameterizedType p) {
            out.addAll(classesIn(p.getRawType()));
            for (Type a : p.getActualTypeArguments()) out.addAll(classesIn(a));
        }
        return out;
    }
}
