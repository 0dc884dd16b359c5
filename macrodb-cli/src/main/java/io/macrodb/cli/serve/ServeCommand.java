package io.macrodb.cli.serve;

import io.macrodb.server.PgServer;
import io.macrodb.server.UserStore;
import java.io.BufferedReader;
import java.io.Console;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code macrodb serve}: a MacroDB database behind the PostgreSQL wire protocol, so that psql, pgjdbc and other
 * PostgreSQL clients connect by host and port. Also {@code --add-user}, which writes a user's line to the users
 * file (the password is read from the console, or from the first line of standard input): a SCRAM-SHA-256
 * verifier, or with {@code --auth md5} PostgreSQL's MD5 verifier, or with {@code --auth password} a line asking
 * for the password in clear text (see {@link UserStore}).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serves a MacroDB database over the PostgreSQL wire protocol (3.0).",
                "Example: macrodb serve --port 5433 --replicas 4 --users users.conf",
                "Add a user first: macrodb serve --add-user alice --users users.conf",
                "An old client's user, with MD5: macrodb serve --add-user legacy --auth md5 --users users.conf"})
public final class ServeCommand implements Callable<Integer> {
    /** The engines served and their PostgreSQL-compatibility settings. */
    public enum Engine { h2, hsqldb }

    @Spec CommandSpec spec;

    @Option(names = "--port", description = "TCP port (default ${DEFAULT-VALUE}; 0: any free port)", defaultValue = "5433")
    int port;

    @Option(names = "--listen", description = "address to listen on (default ${DEFAULT-VALUE})", defaultValue = "127.0.0.1")
    String listen;

    @Option(names = "--replicas", description = "replicas of the engine (default ${DEFAULT-VALUE})", defaultValue = "4")
    int replicas;

    @Option(names = "--engine", description = "h2 (PostgreSQL mode) or hsqldb (default ${DEFAULT-VALUE})", defaultValue = "h2")
    Engine engine;

    @Option(names = "--database", description = "in-memory database name (default ${DEFAULT-VALUE})", defaultValue = "macrodb")
    String database;

    @Option(names = "--engine-url", description = "the engine URL instead of an in-memory one, without jdbc: (e.g. h2:file:/var/shop;MODE=PostgreSQL)")
    String engineUrl;

    @Option(names = "--option", description = "a MacroDB URL option, name=value, repeatable (e.g. --option consistency=session)")
    List<String> options = new ArrayList<>();

    @Option(names = "--users", description = "users file (name:verifier per line: SCRAM-SHA-256$..., md5..., or password: and either)")
    File users;

    @Option(names = "--trust", description = "let every user in without a password (loopback testing only)")
    boolean trust;

    @Option(names = "--tls", description = "TLS certificate and PKCS#8 private key, PEM: CERT,KEY", split = ",")
    List<File> tls;

    @Option(names = "--max-connections", description = "most client connections (default ${DEFAULT-VALUE})", defaultValue = "100")
    int maxConnections;

    @Option(names = "--idle-timeout", description = "close sessions idle this many seconds (default ${DEFAULT-VALUE}: never)", defaultValue = "0")
    long idleTimeoutSeconds;

    @Option(names = "--http-port", description = "serve /health and /metrics (Prometheus) over HTTP on this port (default: none)", defaultValue = "-1")
    int httpPort;

    @Option(names = "--add-user", description = "add USER to the --users file (password from the console or stdin) and exit")
    String addUser;

    @Option(names = "--auth", paramLabel = "METHOD", defaultValue = "scram-sha-256", converter = AuthMethod.class,
            description = "how the user --add-user adds authenticates: scram-sha-256 (default), md5 (PostgreSQL's MD5"
                    + " verifier, for old clients) or password (clear text: only over --tls or a trusted network)")
    UserStore.Method auth;

    /** --auth's value: a method as pg_hba.conf names it. */
    static final class AuthMethod implements CommandLine.ITypeConverter<UserStore.Method> {
        @Override
        public UserStore.Method convert(String value) {
            try {
                return UserStore.Method.of(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** The MacroDB URL the server opens. */
    public String jdbcUrl() {
        String base = engineUrl != null ? engineUrl : engine == Engine.h2
                ? "h2:mem:" + database + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH"
                : "hsqldb:mem:" + database + ";sql.syntax_pgs=true";
        StringBuilder b = new StringBuilder("jdbc:macrodb:").append(base).append("?replicas=").append(replicas);
        for (String o : options) {
            if (!o.contains("=")) throw new IllegalArgumentException("--option wants name=value, got " + o);
            b.append('&').append(o);
        }
        return b.toString();
    }

    /** Starts the server this command describes (tests call it directly). */
    public PgServer startServer() throws Exception {
        if (users == null && !trust) throw new IllegalArgumentException("give --users FILE (or --trust for loopback testing)");
        PgServer.Config c = PgServer.Config.of(jdbcUrl()).withHost(listen).withPort(port).withMaxConnections(maxConnections)
                .withTrust(trust).withUsers(users == null ? null : UserStore.load(users.toPath()))
                .withIdleTimeoutMillis(idleTimeoutSeconds * 1000).withHttpPort(httpPort);
        if (tls != null) {
            if (tls.size() != 2) throw new IllegalArgumentException("--tls wants CERT,KEY");
            c = c.withTls(tls.get(0), tls.get(1));
        }
        return PgServer.start(c);
    }

    @Override
    public Integer call() throws Exception {
        var out = spec.commandLine().getOut();
        if (addUser != null) {
            if (users == null) throw new CommandLine.ParameterException(spec.commandLine(), "--add-user needs --users FILE");
            String password = readPassword(addUser);
            UserStore.addUser(Path.of(users.getPath()), addUser, password, auth);
            out.println("added " + addUser + " to " + users + " (" + auth.pgName() + ")");
            return 0;
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--auth")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--auth applies to --add-user only (a user's method is in its line of the users file)");
        }
        PgServer server = startServer();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "macrodb-serve-shutdown"));
        out.println("macrodb serve: listening on " + listen + ":" + server.port() + " (" + jdbcUrl() + ")");
        out.flush();
        stopped.await();
        return 0;
    }

    private static String readPassword(String user) throws Exception {
        Console console = System.console();
        if (console != null) {
            char[] p = console.readPassword("password for %s: ", user);
            if (p != null && p.length > 0) return new String(p);
        }
        String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        if (line == null || line.isEmpty()) throw new IllegalArgumentException("no password given");
        return line;
    }
}
