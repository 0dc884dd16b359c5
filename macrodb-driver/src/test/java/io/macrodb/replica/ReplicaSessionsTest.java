package io.macrodb.replica;

import io.macrodb.engine.Engine;
import io.macrodb.engine.Engines;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica's sessions after its engine was shut down: the engine is gone, never a new, empty
 * database of the same name that a reader would query or a writer write to; for the primary (an
 * application URL, which may name IFEXISTS itself) and for a secondary under any index (0 too:
 * after a promotion the new secondary takes the failed primary's).
 */
class ReplicaSessionsTest {

    /** Derby: a dropped in-memory database. */
    @ParameterizedTest(name = "derby index {0} primary {1}")
    @CsvSource({"0, false", "2, false", "0, true"})
    void aDroppedDerbyReplicaIsGoneNotRecreated(int index, boolean primary) throws Exception {
        Engine engine = Engines.forName("derby");
        String name = "memory:sessions_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        Replica r = new Replica(index, primary, "jdbc:derby:" + name + ";create=true", new Properties(), engine, 1_000, 0);
        try (Connection c = r.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        }
        try (Connection c = java.sql.DriverManager.getConnection("jdbc:derby:" + name + ";drop=true")) {
            throw new AssertionError("Derby answers a drop with an exception");
        } catch (SQLException dropped) {
            // 08006: the database was dropped
        }
        SQLException e = assertThrows(SQLException.class, () -> {
            try (Connection c = r.open(); Statement s = c.createStatement()) {
                s.execute("SELECT COUNT(*) FROM t");
            }
        });
        assertTrue(engine.isEngineGone(e), () -> "not taken for a gone engine: " + e);
    }

    /** SQLite has no SHUTDOWN: its database is gone when its file is (removed, or lost with its directory). */
    @ParameterizedTest(name = "sqlite index {0} primary {1} {2}")
    @CsvSource({"0, false, ''", "2, false, ''", "0, true, ''", "0, true, &open_mode=6"})
    void aSqliteReplicaWhoseFileIsGoneIsGoneNotRecreated(int index, boolean primary, String settings) throws Exception {
        Engine engine = Engines.forName("sqlite");
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("macrodb-sessions");
        java.nio.file.Path file = dir.resolve("db.sqlite");
        Replica r = new Replica(index, primary, "jdbc:sqlite:" + file + "?synchronous=OFF" + settings, new Properties(), engine, 1_000, 0);
        try (Connection c = r.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
        }
        try (Connection c = r.open(); Statement s = c.createStatement()) {
            s.execute("SELECT COUNT(*) FROM t"); // a later session finds the database
        }
        try (var files = java.nio.file.Files.list(dir)) {
            for (java.nio.file.Path f : files.toList()) java.nio.file.Files.delete(f);
        }
        SQLException e = assertThrows(SQLException.class, () -> {
            try (Connection c = r.open(); Statement s = c.createStatement()) {
                s.execute("SELECT COUNT(*) FROM t");
            }
        });
        assertTrue(engine.isEngineGone(e), () -> "not taken for a gone engine: " + e);
        assertTrue(java.nio.file.Files.notExists(file), "no empty database was made in its place");
        java.nio.file.Files.delete(dir);
    }

    @ParameterizedTest(name = "{0} index {1} primary {2} {3}")
    @CsvSource({"h2, 0, false, ''", "h2, 2, false, ''", "h2, 0, true, ''", "h2, 0, true, ;ifexists=false",
            "hsqldb, 0, false, ''", "hsqldb, 2, false, ''", "hsqldb, 0, true, ''", "hsqldb, 0, true, ;IFEXISTS=FALSE"})
    void aReplicaWhoseEngineWasShutDownIsGoneNotRecreated(String engineName, int index, boolean primary, String settings) throws Exception {
        Engine engine = Engines.forName(engineName);
        String name = "sessions_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        String url = (engineName.equals("h2") ? "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1" : "jdbc:hsqldb:mem:" + name) + settings;
        Properties p = new Properties();
        p.setProperty("user", "sa");
        p.setProperty("password", "");
        Replica r = new Replica(index, primary, url, p, engine, 1_000, 0);
        assertEquals(primary, r.isPrimary(), "the role is the one given, under any index");
        try (Connection c = r.open(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        }
        try (Connection c = r.open(); Statement s = c.createStatement()) {
            s.execute("SELECT COUNT(*) FROM t"); // a later session finds the database
            s.execute("SHUTDOWN");
        } catch (SQLException closedByItsOwnShutdown) {
            // HSQLDB may close the session that shut it down
        }
        SQLException e = assertThrows(SQLException.class, () -> {
            try (Connection c = r.open(); Statement s = c.createStatement()) {
                s.execute("SELECT COUNT(*) FROM t");
            }
        });
        assertTrue(engine.isEngineGone(e), () -> "not taken for a gone engine: " + e);
    }
}
