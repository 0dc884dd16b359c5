package io.macrodb.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The users a server accepts, each with a SCRAM-SHA-256 verifier. The file has one user a line,
 * {@code name:SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>} (the verifier in PostgreSQL's own
 * spelling, so one copied from {@code pg_authid} works); blank lines and lines starting with {@code #} are
 * ignored. {@code macrodb serve --add-user NAME --users FILE} writes a line (see {@link #addUser}).
 */
public final class UserStore {
    private final Map<String, Scram.Verifier> users;

    public UserStore(Map<String, Scram.Verifier> users) {
        this.users = Map.copyOf(users);
    }

    /** Reads a users file; a malformed line fails with its line number. */
    public static UserStore load(Path file) throws IOException {
        Map<String, Scram.Verifier> m = new TreeMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int colon = line.indexOf(':');
            try {
                if (colon <= 0) throw new IllegalArgumentException("expected name:verifier");
                m.put(line.substring(0, colon), Scram.Verifier.parse(line.substring(colon + 1)));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage());
            }
        }
        return new UserStore(m);
    }

    /** A store holding one user, for tests and embedding. */
    public static UserStore of(String user, String password) {
        return new UserStore(Map.of(user, Scram.verifier(password, 4096)));
    }

    /** Adds (or replaces) a user's line in a users file, creating the file if needed. */
    public static void addUser(Path file, String user, String password) throws IOException {
        if (user.isEmpty() || user.contains(":") || user.contains("\n")) throw new IllegalArgumentException("invalid user name: " + user);
        List<String> out = new ArrayList<>();
        if (Files.exists(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!l.startsWith(user + ":")) out.add(l);
            }
        }
        out.add(user + ":" + Scram.verifier(password, 4096).encode());
        Files.write(file, out, StandardCharsets.UTF_8);
    }

    /** The users' names, sorted. */
    public List<String> names() { return new ArrayList<>(new java.util.TreeSet<>(users.keySet())); }

    /** The user's verifier, or null if there is no such user. */
    public Scram.Verifier verifier(String user) { return users.get(user); }
}
