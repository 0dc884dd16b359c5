package io.macrodb.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.File;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A PostgreSQL-protocol server in front of one MacroDB database. Netty accepts connections and cuts frames on its
 * event loops ({@link PgFrameDecoder}); each connection's {@link PgSession} runs on a worker thread of its own
 * while it has messages, because JDBC calls block. The server keeps one MacroDB connection open for its lifetime
 * so that an in-memory database (and its replica set) lives while clients come and go.
 *
 * <pre>{@code
 * try (PgServer s = PgServer.start(PgServer.Config.of("jdbc:macrodb:h2:mem:shop;MODE=PostgreSQL?replicas=4")
 *         .withPort(5433).withUsers(UserStore.load(Path.of("users.conf"))))) { ... }
 * }</pre>
 */
public final class PgServer implements AutoCloseable {
    /**
     * What a server serves and how.
     *
     * @param users          null only with {@code trust}: every user is let in without a password
     * @param maxMessageSize largest frontend message accepted, in bytes (length word included)
     * @param authTimeoutMillis how long a client may take to finish startup and authentication
     * @param idleTimeoutMillis how long a session may sit idle before it is closed (0: never)
     * @param httpPort          port of the health and metrics endpoint ({@link HttpEndpoint}); -1: none
     */
    public record Config(String host, int port, String jdbcUrl, String engineUser, String enginePassword,
                         UserStore users, boolean trust, int maxConnections, int maxMessageSize,
                         File tlsCert, File tlsKey, long authTimeoutMillis, long idleTimeoutMillis, int httpPort) {
        /** Loopback, an ephemeral port, no users (set some with {@link #withUsers}), 100 connections, 64 MiB messages. */
        public static Config of(String jdbcUrl) {
            return new Config("127.0.0.1", 0, jdbcUrl, "sa", "", null, false, 100, 64 << 20, null, null, 60_000, 0, -1);
        }

        public Config withHost(String h) { return new Config(h, port, jdbcUrl, engineUser, enginePassword, users, trust, maxConnections, maxMessageSize, tlsCert, tlsKey, authTimeoutMillis, idleTimeoutMillis, httpPort); }

        public Config withPort(int p) { return new Config(host, p, jdbcUrl, engineUser, enginePassword, users, trust, maxConnections, maxMessageSize, tlsCert, tlsKey, authTimeoutMillis, idleTimeoutMillis, httpPort); }

        public Config withUsers(UserStore u) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, u, trust, maxConnections, maxMessageSize, tlsCert, tlsKey, authTimeoutMillis, idleTimeoutMillis, httpPort); }

        public Config withTrust(boolean t) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, users, t, maxConnections, maxMessageSize, tlsCert, tlsKey, authTimeoutMillis, idleTimeoutMillis, httpPort); }

        public Config withMaxConnections(int n) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, users, trust, n, maxMessageSize, tlsCert, tlsKey, authTimeoutMillis, idleTimeoutMillis, httpPort); }

        public Config withMaxMessageSize(int n) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, users, trust, maxConnections, n, tlsCert, tlsKey, authTimeoutMillis, idleTimeoutMillis, httpPort); }

        public Config withTls(File cert, File key) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, users, trust, maxConnections, maxMessageSize, cert, key, authTimeoutMillis, idleTimeoutMillis, httpPort); }

        /** How long a client may take from connecting to finishing authentication (60 s by default). */
        public Config withAuthTimeoutMillis(long ms) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, users, trust, maxConnections, maxMessageSize, tlsCert, tlsKey, ms, idleTimeoutMillis, httpPort); }

        /** Closes a session idle (no message, nothing running) this long; 0, the default: never. */
        public Config withIdleTimeoutMillis(long ms) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, users, trust, maxConnections, maxMessageSize, tlsCert, tlsKey, authTimeoutMillis, ms, httpPort); }

        /** Serves /health and /metrics over HTTP on this port (0: any free one; -1, the default: no HTTP). */
        public Config withHttpPort(int p) { return new Config(host, port, jdbcUrl, engineUser, enginePassword, users, trust, maxConnections, maxMessageSize, tlsCert, tlsKey, authTimeoutMillis, idleTimeoutMillis, p); }
    }

    /** What the server has done, for {@code /metrics}. */
    record Counters(LongAdder connections, LongAdder refused, LongAdder authFailures, LongAdder statements, LongAdder errors) { }

    private final Config config;
    private final PgCatalog.Oids catalogOids = new PgCatalog.Oids();
    private final Counters counters = new Counters(new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder());
    private HttpEndpoint http;
    private final EventLoopGroup boss = new NioEventLoopGroup(1);
    private final EventLoopGroup workers = new NioEventLoopGroup(2);
    private final ExecutorService sessionThreads;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Map<Integer, PgSession> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger admitted = new AtomicInteger();
    private final AtomicInteger nextPid = new AtomicInteger(1000);
    private final SecureRandom random = new SecureRandom();
    private final Connection keeper;
    private Channel serverChannel;

    private PgServer(Config config, Connection keeper) {
        this.config = config;
        this.keeper = keeper;
        AtomicInteger n = new AtomicInteger();
        this.sessionThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "macrodb-session-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Opens the database (one kept connection) and starts listening. */
    public static PgServer start(Config config) throws SQLException, InterruptedException {
        if (config.users() == null && !config.trust()) {
            throw new IllegalArgumentException("no users: give a users file, or trust explicitly");
        }
        SslContext ssl = null;
        if (config.tlsCert() != null) {
            try {
                ssl = SslContextBuilder.forServer(config.tlsCert(), config.tlsKey()).build();
            } catch (Exception e) {
                throw new IllegalArgumentException("cannot load TLS certificate/key: " + e.getMessage(), e);
            }
        }
        PgServer s = new PgServer(config, DriverManager.getConnection(config.jdbcUrl(), config.engineUser(), config.enginePassword()));
        try {
            s.bind(ssl);
            if (config.httpPort() >= 0) s.http = new HttpEndpoint(s, config.host(), config.httpPort());
        } catch (java.io.IOException e) {
            s.close();
            throw new IllegalStateException("cannot serve HTTP: " + e.getMessage(), e);
        } catch (RuntimeException | InterruptedException e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void bind(SslContext ssl) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        counters.connections().increment();
                        PgSession session = new PgSession(PgServer.this, ch, sessionThreads);
                        // as PostgreSQL's authentication_timeout: a client that does not finish startup in time is dropped
                        ch.eventLoop().schedule(() -> {
                            if (!session.authenticated()) ch.close();
                        }, config.authTimeoutMillis(), TimeUnit.MILLISECONDS);
                        if (config.idleTimeoutMillis() > 0) {
                            ch.pipeline().addLast("idle", new IdleStateHandler(0, 0, config.idleTimeoutMillis(), TimeUnit.MILLISECONDS));
                        }
                        ch.pipeline().addLast("frames", new PgFrameDecoder(config.maxMessageSize(), ssl, PgServer.this));
                        ch.pipeline().addLast("session", new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) { session.receive(msg); }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) { session.receive(PgSession.DISCONNECTED); }

                            @Override
                            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                                if (evt instanceof IdleStateEvent) session.receive(PgSession.IDLE);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) { ctx.close(); }
                        });
                    }
                });
        serverChannel = b.bind(new InetSocketAddress(config.host(), config.port())).sync().channel();
    }

    /** The port listened on (the ephemeral one if the configuration said 0). */
    public int port() { return ((InetSocketAddress) serverChannel.localAddress()).getPort(); }

    /** Counters for the metrics endpoint. */
    Counters counters() { return counters; }

    /** The OIDs the catalog gives the engine's relations, stable while the server runs. */
    PgCatalog.Oids catalogOids() { return catalogOids; }

    /** The port of the health and metrics endpoint, or -1 without one. */
    public int httpPort() { return http == null ? -1 : http.port(); }

    /** The configuration. */
    public Config config() { return config; }

    /** The connection the server keeps open: for the admin face ({@code unwrap(MacroAdmin.class)}), not for queries. */
    public Connection keeper() { return keeper; }

    /** Sessions currently open (past startup). */
    public int openSessions() { return sessions.size(); }

    Connection openConnection() throws SQLException {
        return DriverManager.getConnection(config.jdbcUrl(), config.engineUser(), config.enginePassword());
    }

    /** Admits a session past startup, or refuses (false) beyond the connection limit. */
    boolean admit(PgSession s) {
        if (admitted.incrementAndGet() > config.maxConnections()) {
            admitted.decrementAndGet();
            counters.refused().increment();
            return false;
        }
        while (true) {
            int pid = nextPid.incrementAndGet();
            int secret = random.nextInt();
            if (sessions.putIfAbsent(pid, s) == null) {
                s.setKey(pid, secret);
                return true;
            }
        }
    }

    void release(PgSession s) {
        if (sessions.remove(s.pid(), s)) admitted.decrementAndGet();
    }

    /** A CancelRequest: cancels what the session with that key is running; a wrong key does nothing (as in PostgreSQL). */
    void cancel(int pid, int secret) {
        PgSession s = sessions.get(pid);
        if (s != null && s.secret() == secret) s.cancel();
    }

    /** Stops listening, closes every client connection (open transactions roll back), then the database. */
    @Override
    public void close() {
        if (http != null) http.close();
        if (serverChannel != null) serverChannel.close().awaitUninterruptibly();
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        for (PgSession s : sessions.values()) s.cancel();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        sessionThreads.shutdown();
        try {
            sessionThreads.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            keeper.close();
        } catch (SQLException ignored) {
            // the database goes with it; nothing else to do
        }
    }
}
