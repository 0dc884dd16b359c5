package io.macrodb.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.macrodb.jdbc.MacroAdmin;
import io.macrodb.jdbc.RoutingCounts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.concurrent.Executors;

/**
 * Health and Prometheus metrics over HTTP, beside the PostgreSQL port: {@code GET /health} answers 200 while the
 * database's primary is active (503 otherwise), {@code GET /metrics} the server's and the replica set's counters in
 * the Prometheus text format. The JDK's own HTTP server: two plain-text endpoints do not justify a dependency.
 */
final class HttpEndpoint implements AutoCloseable {
    private final HttpServer http;
    private final PgServer server;

    HttpEndpoint(PgServer server, String host, int port) throws IOException {
        this.server = server;
        this.http = HttpServer.create(new InetSocketAddress(host, port), 16);
        http.createContext("/health", this::health);
        http.createContext("/metrics", this::metrics);
        http.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "macrodb-http");
            t.setDaemon(true);
            return t;
        }));
        http.start();
    }

    int port() { return http.getAddress().getPort(); }

    private void health(HttpExchange x) throws IOException {
        boolean ok;
        try {
            ok = server.keeper().isValid(2);
        } catch (SQLException e) {
            ok = false;
        }
        send(x, ok ? 200 : 503, ok ? "ok\n" : "unavailable\n", "text/plain; charset=utf-8");
    }

    private void metrics(HttpExchange x) throws IOException {
        StringBuilder b = new StringBuilder();
        PgServer.Counters c = server.counters();
        gauge(b, "macrodb_server_sessions", "Client sessions open now.", server.openSessions());
        counter(b, "macrodb_server_connections_total", "Client connections accepted.", c.connections().sum());
        counter(b, "macrodb_server_refused_total", "Sessions refused at the connection limit.", c.refused().sum());
        counter(b, "macrodb_server_auth_failures_total", "Failed authentications.", c.authFailures().sum());
        counter(b, "macrodb_server_statements_total", "Statements run for clients.", c.statements().sum());
        counter(b, "macrodb_server_errors_total", "ErrorResponses sent.", c.errors().sum());
        try {
            MacroAdmin admin = server.keeper().unwrap(MacroAdmin.class);
            RoutingCounts r = admin.routingCounts();
            gauge(b, "macrodb_version", "Version of the last published commit.", admin.version());
            counter(b, "macrodb_transactions_primary_total", "Transactions that ran on the primary.", r.onPrimary());
            counter(b, "macrodb_transactions_secondary_total", "Read-only transactions that ran on a secondary.", r.onSecondaries());
        } catch (SQLException e) {
            b.append("# replica set unavailable: ").append(e.getMessage().replace('\n', ' ')).append('\n');
        }
        send(x, 200, b.toString(), "text/plain; version=0.0.4; charset=utf-8");
    }

    private static void gauge(StringBuilder b, String name, String help, long v) {
        b.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" gauge\n")
                .append(name).append(' ').append(v).append('\n');
    }

    private static void counter(StringBuilder b, String name, String help, long v) {
        b.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
                .append(name).append(' ').append(v).append('\n');
    }

    private static void send(HttpExchange x, int status, String body, String type) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream o = x.getResponseBody()) {
            o.write(bytes);
        }
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
