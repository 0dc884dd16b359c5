package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The SCRAM-SHA-256 server side against the example exchange of RFC 7677, section 3, and its failure cases. */
class ScramTest {
    static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    static final String CLIENT_FINAL_NO_PROOF = "c=biws,r=rOprNGfwEbeRWgbNEkqO" + SERVER_NONCE;
    static final String PROOF = "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";

    static Scram.Verifier rfcVerifier() {
        return Scram.verifier("pencil", Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
    }

    @Test
    void rfc7677Example() throws Exception {
        Scram.ServerExchange x = new Scram.ServerExchange(rfcVerifier(), SERVER_NONCE);
        assertEquals("r=rOprNGfwEbeRWgbNEkqO" + SERVER_NONCE + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", x.first(CLIENT_FIRST));
        assertEquals("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", x.last(CLIENT_FINAL_NO_PROOF + ",p=" + PROOF));
    }

    @Test
    void wrongProofUnknownUserAndMalformedMessagesFail() throws Exception {
        Scram.ServerExchange wrong = new Scram.ServerExchange(Scram.verifier("other", Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096), SERVER_NONCE);
        wrong.first(CLIENT_FIRST);
        Scram.AuthFailed e = assertThrows(Scram.AuthFailed.class, () -> wrong.last(CLIENT_FINAL_NO_PROOF + ",p=" + PROOF));
        assertFalse(e.malformed());
        Scram.ServerExchange unknown = new Scram.ServerExchange(null, SERVER_NONCE);
        unknown.first(CLIENT_FIRST);
        assertFalse(assertThrows(Scram.AuthFailed.class, () -> unknown.last(CLIENT_FINAL_NO_PROOF + ",p=" + PROOF)).malformed());
        Scram.ServerExchange other = new Scram.ServerExchange(rfcVerifier(), SERVER_NONCE);
        other.first(CLIENT_FIRST);
        assertTrue(assertThrows(Scram.AuthFailed.class, () -> other.last("c=biws,r=someoneelse,p=" + PROOF)).malformed(), "nonce mismatch");
        assertTrue(assertThrows(Scram.AuthFailed.class, () -> new Scram.ServerExchange(null).first("p=tls-server-end-point,,n=u,r=x")).malformed());
    }

    @Test
    void verifierSpellingRoundTrips() {
        Scram.Verifier v = Scram.verifier("pw", 4096);
        Scram.Verifier back = Scram.Verifier.parse(v.encode());
        assertEquals(v.encode(), back.encode());
        assertTrue(v.encode().startsWith("SCRAM-SHA-256$4096:"));
        assertThrows(IllegalArgumentException.class, () -> Scram.Verifier.parse("md5abc"));
    }
}
