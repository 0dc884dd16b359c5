package io.macrodb.server;

import java.util.concurrent.atomic.AtomicInteger;

/** Starts a server on an ephemeral loopback port over a fresh in-memory H2 database in PostgreSQL mode. */
final class ServerFixture {
    static final String USER = "alice";
    static final String PASSWORD = "s3cret-pw";
    private static final AtomicInteger N = new AtomicInteger();

    private ServerFixture() { }

    static String h2Url(int replicas) {
        return "jdbc:macrodb:h2:mem:pgsrv" + N.incrementAndGet() + "_" + ProcessHandle.current().pid()
                + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH?replicas=" + replicas;
    }

    static PgServer start(int replicas) throws Exception {
        return PgServer.start(PgServer.Config.of(h2Url(replicas)).withUsers(UserStore.of(USER, PASSWORD)));
    }

    static String pgUrl(PgServer s, String extra) {
        return "jdbc:postgresql://127.0.0.1:" + s.port() + "/shop?sslmode=disable" + (extra.isEmpty() ? "" : "&" + extra);
    }
}
