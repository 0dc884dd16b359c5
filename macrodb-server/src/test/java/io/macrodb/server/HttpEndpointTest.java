package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** /health and /metrics: the counters move with what clients do, routing counts come from the replica set. */
@Timeout(30)
class HttpEndpointTest {
    static long metric(String body, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + " (\\d+)$").matcher(body);
        assertTrue(m.find(), name + " in\n" + body);
        return Long.parseLong(m.group(1));
    }

    @Test
    void healthAndMetrics() throws Exception {
        try (PgServer server = PgServer.start(PgServer.Config.of(ServerFixture.h2Url(2))
                .withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)).withHttpPort(0))) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.httpPort();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            try (Connection c = DriverManager.getConnection(ServerFixture.pgUrl(server, ""), ServerFixture.USER, ServerFixture.PASSWORD);
                 Statement s = c.createStatement()) {
                s.execute("CREATE TABLE m (id INT PRIMARY KEY)");
                s.executeUpdate("INSERT INTO m VALUES (1)");
                try {
                    s.executeUpdate("INSERT INTO m VALUES (1)");
                } catch (java.sql.SQLException expected) {
                    // counted as an error
                }
                String body = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
                assertEquals(1, metric(body, "macrodb_server_sessions"));
                assertTrue(metric(body, "macrodb_server_statements_total") >= 3);
                assertEquals(1, metric(body, "macrodb_server_errors_total"));
                assertTrue(metric(body, "macrodb_version") >= 2);
                assertTrue(metric(body, "macrodb_transactions_primary_total") >= 2);
            }
            try {
                DriverManager.getConnection(ServerFixture.pgUrl(server, ""), ServerFixture.USER, "wrong").close();
            } catch (java.sql.SQLException expected) {
                // counted as an authentication failure
            }
            String body = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertEquals(1, metric(body, "macrodb_server_auth_failures_total"));
        }
    }
}
