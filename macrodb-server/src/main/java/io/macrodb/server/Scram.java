package io.macrodb.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.text.Normalizer;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL uses it: the server side of one exchange, and the verifier a
 * users file stores instead of a password ({@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>},
 * the format of PostgreSQL's {@code pg_authid.rolpassword}). Channel binding is not offered (only
 * {@code SCRAM-SHA-256}, not {@code -PLUS}); a client's gs2 header {@code n,,} or {@code y,,} is accepted.
 * The password is normalised with NFKC, a simplification of SASLprep.
 */
public final class Scram {
    public static final String MECHANISM = "SCRAM-SHA-256";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A stored verifier: what the server needs to check a proof and prove itself, never the password. */
    public record Verifier(int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {
        /** The PostgreSQL spelling of this verifier. */
        public String encode() {
            Base64.Encoder e = Base64.getEncoder();
            return MECHANISM + "$" + iterations + ":" + e.encodeToString(salt) + "$" + e.encodeToString(storedKey) + ":" + e.encodeToString(serverKey);
        }

        /** Parses {@link #encode()}'s format. */
        public static Verifier parse(String s) {
            if (!s.startsWith(MECHANISM + "$")) throw new IllegalArgumentException("not a SCRAM-SHA-256 verifier");
            String[] parts = s.substring(MECHANISM.length() + 1).split("\\$");
            if (parts.length != 2) throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier");
            String[] a = parts[0].split(":");
            String[] k = parts[1].split(":");
            if (a.length != 2 || k.length != 2) throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier");
            Base64.Decoder d = Base64.getDecoder();
            return new Verifier(Integer.parseInt(a[0]), d.decode(a[1]), d.decode(k[0]), d.decode(k[1]));
        }
    }

    private Scram() { }

    /** A new verifier for a password, with a random 16-byte salt. */
    public static Verifier verifier(String password, int iterations) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return verifier(password, salt, iterations);
    }

    /** A verifier with a given salt (tests check it against RFC 7677's example). */
    static Verifier verifier(String password, byte[] salt, int iterations) {
        byte[] salted = hi(normalize(password), salt, iterations);
        byte[] clientKey = hmac(salted, "Client Key");
        return new Verifier(iterations, salt, sha256(clientKey), hmac(salted, "Server Key"));
    }

    static String normalize(String password) { return Normalizer.normalize(password, Normalizer.Form.NFKC); }

    static byte[] hi(String password, byte[] salt, int iterations) {
        try {
            SecretKeyFactory f = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256");
            return f.generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256)).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] hmac(byte[] key, String msg) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(msg.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Thrown when the client's messages are malformed or its proof is wrong. */
    public static final class AuthFailed extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean malformed;

        AuthFailed(String message, boolean malformed) {
            super(message);
            this.malformed = malformed;
        }

        /** Malformed messages are a protocol violation (08P01); a wrong proof is 28P01. */
        public boolean malformed() { return malformed; }
    }

    /**
     * The server side of one exchange. With a null verifier (an unknown user) the exchange runs to the end with a
     * made-up salt and fails there, so that a client cannot tell unknown users from wrong passwords.
     */
    public static final class ServerExchange {
        private final Verifier verifier;
        private String clientFirstBare;
        private String serverFirst;
        private String nonce;

        private final String fixedServerNonce;

        public ServerExchange(Verifier verifier) {
            this(verifier, null);
        }

        /** With a given server nonce part instead of a random one: for checking against RFC 7677's example only. */
        ServerExchange(Verifier verifier, String fixedServerNonce) {
            this.verifier = verifier;
            this.fixedServerNonce = fixedServerNonce;
        }

        /** Takes the client-first-message, returns the server-first-message. */
        public String first(String clientFirst) throws AuthFailed {
            if (!(clientFirst.startsWith("n,") || clientFirst.startsWith("y,"))) {
                throw new AuthFailed("channel binding is not supported by this server", true);
            }
            int second = clientFirst.indexOf(',', 2);
            if (second < 0) throw new AuthFailed("malformed SCRAM message", true);
            clientFirstBare = clientFirst.substring(second + 1);
            String clientNonce = null;
            for (String attr : clientFirstBare.split(",")) {
                if (attr.startsWith("r=")) clientNonce = attr.substring(2);
            }
            if (clientNonce == null || clientNonce.isEmpty()) throw new AuthFailed("malformed SCRAM message: no nonce", true);
            byte[] rnd = new byte[18];
            RANDOM.nextBytes(rnd);
            nonce = clientNonce + (fixedServerNonce != null ? fixedServerNonce : Base64.getEncoder().encodeToString(rnd));
            byte[] salt = verifier != null ? verifier.salt() : sha256(clientNonce.getBytes(StandardCharsets.UTF_8));
            int iterations = verifier != null ? verifier.iterations() : 4096;
            serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(salt) + ",i=" + iterations;
            return serverFirst;
        }

        /** Takes the client-final-message, checks the proof, returns the server-final-message. */
        public String last(String clientFinal) throws AuthFailed {
            int p = clientFinal.lastIndexOf(",p=");
            if (serverFirst == null || p < 0) throw new AuthFailed("malformed SCRAM message", true);
            String withoutProof = clientFinal.substring(0, p);
            String r = null;
            for (String attr : withoutProof.split(",")) {
                if (attr.startsWith("r=")) r = attr.substring(2);
            }
            if (!nonce.equals(r)) throw new AuthFailed("SCRAM nonce does not match", true);
            byte[] proof;
            try {
                proof = Base64.getDecoder().decode(clientFinal.substring(p + 3));
            } catch (IllegalArgumentException e) {
                throw new AuthFailed("malformed SCRAM proof", true);
            }
            String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
            if (verifier == null || proof.length != 32) throw new AuthFailed("wrong proof", false);
            byte[] clientSignature = hmac(verifier.storedKey(), authMessage);
            byte[] clientKey = new byte[32];
            for (int i = 0; i < 32; i++) clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
            if (!MessageDigest.isEqual(sha256(clientKey), verifier.storedKey())) throw new AuthFailed("wrong proof", false);
            return "v=" + Base64.getEncoder().encodeToString(hmac(verifier.serverKey(), authMessage));
        }
    }
}
