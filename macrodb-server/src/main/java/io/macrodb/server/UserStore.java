package io.macrodb.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The users a server accepts and how each authenticates. The file has one user a line, {@code name:verifier}, the
 * verifier in PostgreSQL's own spelling (so one copied from {@code pg_authid.rolpassword} works); blank lines and
 * lines starting with {@code #} are ignored:
 * <ul>
 *   <li>{@code name:SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}: SCRAM-SHA-256, the default
 *   ({@code macrodb serve --add-user NAME}, or {@code --auth scram-sha-256});</li>
 *   <li>{@code name:md5<32 hex digits>} (md5 of password then user name, as PostgreSQL stores it): the MD5
 *   challenge, for old clients; only for users whose line has such a verifier ({@code --add-user NAME --auth md5});</li>
 *   <li>{@code name:password:<either verifier>}: the password in clear text (PostgreSQL's {@code password}
 *   method; only over TLS or a trusted network), only for users whose line says so ({@code --auth password}
 *   writes it over a SCRAM verifier).</li>
 * </ul>
 * The server picks the method from the user's line; a client cannot ask for a weaker one.
 */
public final class UserStore {
    /** How a user authenticates. */
    public enum Method {
        SCRAM_SHA_256("scram-sha-256"), MD5("md5"), PASSWORD("password");

        private final String pgName;

        Method(String pgName) { this.pgName = pgName; }

        /** The method's name as PostgreSQL's pg_hba.conf spells it. */
        public String pgName() { return pgName; }

        /** The method pg_hba.conf calls {@code name} (any case); an unknown name fails with the names known. */
        public static Method of(String name) {
            for (Method m : values()) if (m.pgName.equalsIgnoreCase(name.strip())) return m;
            throw new IllegalArgumentException("unknown authentication method '" + name + "': expected scram-sha-256, md5 or password");
        }
    }

    /** A user's line: the method, and a SCRAM verifier or an MD5 one. */
    public record Entry(Method method, Scram.Verifier scram, String md5) { }

    private static final Pattern MD5 = Pattern.compile("md5[0-9a-f]{32}");
    private final Map<String, Entry> users;

    private UserStore(Map<String, Entry> users, boolean entries) {
        this.users = Map.copyOf(users);
    }

    /** Users authenticating with SCRAM-SHA-256. */
    public UserStore(Map<String, Scram.Verifier> users) {
        this(scramEntries(users), true);
    }

    private static Map<String, Entry> scramEntries(Map<String, Scram.Verifier> users) {
        Map<String, Entry> m = new TreeMap<>();
        users.forEach((u, v) -> m.put(u, new Entry(Method.SCRAM_SHA_256, v, null)));
        return m;
    }

    /** Reads a users file; a malformed line fails with its line number. */
    public static UserStore load(Path file) throws IOException {
        Map<String, Entry> m = new TreeMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int colon = line.indexOf(':');
            try {
                if (colon <= 0) throw new IllegalArgumentException("expected name:verifier");
                m.put(line.substring(0, colon), parseEntry(line.substring(colon + 1)));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage());
            }
        }
        return new UserStore(m, true);
    }

    /** A line's verifier part: {@code SCRAM-SHA-256$...}, {@code md5...} or {@code password:} and either. */
    static Entry parseEntry(String s) {
        boolean clear = s.startsWith("password:");
        String v = clear ? s.substring("password:".length()) : s;
        if (MD5.matcher(v).matches()) return new Entry(clear ? Method.PASSWORD : Method.MD5, null, v);
        if (!v.startsWith(Scram.MECHANISM + "$")) {
            throw new IllegalArgumentException("expected a verifier SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>,"
                    + " md5<32 hex digits>, or password: followed by either");
        }
        return new Entry(clear ? Method.PASSWORD : Method.SCRAM_SHA_256, Scram.Verifier.parse(v), null);
    }

    /** A store holding one user (SCRAM-SHA-256), for tests and embedding. */
    public static UserStore of(String user, String password) {
        return new UserStore(Map.of(user, Scram.verifier(password, 4096)));
    }

    /** A store holding one user who authenticates with {@code method}, for tests and embedding. */
    public static UserStore of(String user, String password, Method method) {
        String line = line(user, password, method);
        return new UserStore(Map.of(user, parseEntry(line.substring(user.length() + 1))), true);
    }

    private static String line(String user, String password, Method method) {
        switch (method) {
            case MD5: return user + ":" + md5Verifier(user, password);
            case PASSWORD: return user + ":password:" + Scram.verifier(password, 4096).encode();
            default: return user + ":" + Scram.verifier(password, 4096).encode();
        }
    }

    /** Adds (or replaces) a user's line in a users file (SCRAM-SHA-256), creating the file if needed. */
    public static void addUser(Path file, String user, String password) throws IOException {
        addUser(file, user, password, Method.SCRAM_SHA_256);
    }

    /** Adds (or replaces) a user's line in a users file, authenticating with {@code method}. */
    public static void addUser(Path file, String user, String password, Method method) throws IOException {
        if (user.isEmpty() || user.contains(":") || user.contains("\n")) throw new IllegalArgumentException("invalid user name: " + user);
        List<String> out = new ArrayList<>();
        if (Files.exists(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!l.startsWith(user + ":")) out.add(l);
            }
        }
        out.add(line(user, password, method));
        Files.write(file, out, StandardCharsets.UTF_8);
    }

    /** The users' names, sorted. */
    public List<String> names() { return new ArrayList<>(new java.util.TreeSet<>(users.keySet())); }

    /** The user's line, or null if there is no such user. */
    public Entry entry(String user) { return users.get(user); }

    /** The user's SCRAM verifier, or null if there is no such user or the user has none. */
    public Scram.Verifier verifier(String user) {
        Entry e = users.get(user);
        return e == null ? null : e.scram();
    }

    /** PostgreSQL's MD5 verifier: {@code md5} and the hex md5 of the password followed by the user name. */
    public static String md5Verifier(String user, String password) {
        return "md5" + md5Hex((password + user).getBytes(StandardCharsets.UTF_8));
    }

    static String md5Hex(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the answer to the MD5 challenge {@code salt} is right for this entry's MD5 verifier. */
    static boolean checkMd5(Entry e, byte[] salt, String answer) {
        if (e.md5() == null) return false;
        byte[] inner = e.md5().substring(3).getBytes(StandardCharsets.US_ASCII);
        byte[] buf = new byte[inner.length + salt.length];
        System.arraycopy(inner, 0, buf, 0, inner.length);
        System.arraycopy(salt, 0, buf, inner.length, salt.length);
        String expected = "md5" + md5Hex(buf);
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), answer.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether a password sent in clear text matches this entry's verifier. */
    static boolean checkPassword(Entry e, String user, String password) {
        if (e.md5() != null) {
            return MessageDigest.isEqual(e.md5().getBytes(StandardCharsets.US_ASCII), md5Verifier(user, password).getBytes(StandardCharsets.US_ASCII));
        }
        Scram.Verifier v = e.scram();
        return MessageDigest.isEqual(v.storedKey(), Scram.verifier(password, v.salt(), v.iterations()).storedKey());
    }
}
