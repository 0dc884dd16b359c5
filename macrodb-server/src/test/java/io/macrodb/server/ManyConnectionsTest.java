package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.util.PSQLException;

/** Hundreds of pgjdbc connections on loopback at once, in bounded time, and the connection limit. */
class ManyConnectionsTest {
    @Test
    @Timeout(45)
    void threeHundredConnectionsAreServedAtOnce() throws Exception {
        int n = 300;
        try (PgServer server = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(2))
                .withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)).withMaxConnections(n))) {
            try (Connection c = DriverManager.getConnection(ServerFixture.pgUrl(server, ""), ServerFixture.USER, ServerFixture.PASSWORD);
                 Statement s = c.createStatement()) {
                s.execute("CREATE TABLE hits (id INT PRIMARY KEY)");
            }
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Connection> open = new ArrayList<>();
            try {
                List<Future<Connection>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int id = i;
                    fs.add(pool.submit(() -> {
                        Connection c = DriverManager.getConnection(ServerFixture.pgUrl(server, ""), ServerFixture.USER, ServerFixture.PASSWORD);
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("INSERT INTO hits VALUES (" + id + ")");
                        }
                        return c;
                    }));
                }
                for (Future<Connection> f : fs) open.add(f.get());
                assertEquals(n, server.openSessions());
                try (Statement s = open.get(n - 1).createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM hits")) {
                    assertTrue(rs.next());
                    assertEquals(n, rs.getInt(1));
                }
                PSQLException refused = assertThrows(PSQLException.class, () ->
                        DriverManager.getConnection(ServerFixture.pgUrl(server, ""), ServerFixture.USER, ServerFixture.PASSWORD));
                assertEquals("53300", refused.getSQLState(), "beyond the connection limit");
            } finally {
                for (Connection c : open) c.close();
                pool.shutdownNow();
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (server.openSessions() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
            assertEquals(0, server.openSessions(), "every session released after its client left");
        }
    }
}
