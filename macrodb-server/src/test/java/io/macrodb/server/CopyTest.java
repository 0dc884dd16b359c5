package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.util.PSQLException;

/** COPY FROM STDIN and TO STDOUT, text and CSV, through pgjdbc's CopyManager; a failed COPY applies nothing. */
@Timeout(60)
class CopyTest {
    static PgServer server;

    @BeforeAll
    static void start() throws Exception {
        server = ServerFixture.start(2);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    static Connection connect() throws SQLException {
        return DriverManager.getConnection(ServerFixture.pgUrl(server, ""), ServerFixture.USER, ServerFixture.PASSWORD);
    }

    static int count(Statement s, String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    @Test
    void textFormatRoundTrip() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ct (id INT PRIMARY KEY, name VARCHAR(40), d DATE, ok BOOLEAN)");
            CopyManager cm = c.unwrap(PGConnection.class).getCopyAPI();
            String in = "1\tplain\t2024-01-02\tt\n2\ttab\\there\\nnewline\t\\N\tf\n3\t\\N\t2020-02-29\t\\N\n";
            assertEquals(3, cm.copyIn("COPY ct FROM STDIN", new StringReader(in)));
            StringWriter out = new StringWriter();
            assertEquals(3, cm.copyOut("COPY (SELECT id, name, d, ok FROM ct ORDER BY id) TO STDOUT", out));
            assertEquals(in, out.toString());
        }
    }

    @Test
    void csvWithHeaderQuotesAndColumnList() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cc (id INT PRIMARY KEY, note VARCHAR(40), amount NUMERIC(10, 2))");
            CopyManager cm = c.unwrap(PGConnection.class).getCopyAPI();
            String in = "id,note\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n3,\n4,\"\"\n5,\"multi\nline\"\n";
            assertEquals(5, cm.copyIn("COPY cc (id, note) FROM STDIN WITH (FORMAT csv, HEADER true)", new StringReader(in)));
            StringWriter out = new StringWriter();
            cm.copyOut("COPY cc (id, note) TO STDOUT WITH CSV HEADER", out);
            assertEquals("id,note\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n3,\n4,\"\"\n5,\"multi\nline\"\n", out.toString());
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM cc WHERE note IS NULL")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1), "unquoted empty is NULL, quoted empty is the empty string");
            }
        }
    }

    @Test
    void aBadRowAppliesNothing() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE cb (id INT PRIMARY KEY, v INT)");
            CopyManager cm = c.unwrap(PGConnection.class).getCopyAPI();
            StringBuilder in = new StringBuilder();
            for (int i = 0; i < 2500; i++) in.append(i).append('\t').append(i).append('\n');
            in.append("2500\tnot-a-number\n");
            PSQLException e = assertThrows(PSQLException.class, () -> cm.copyIn("COPY cb FROM STDIN", new StringReader(in.toString())));
            assertEquals("22P02", e.getSQLState(), e.getMessage());
            assertEquals(0, count(s, "cb"), "no row of a failed COPY is applied");
            PSQLException extra = assertThrows(PSQLException.class, () -> cm.copyIn("COPY cb FROM STDIN", new StringReader("1\t2\t3\n")));
            assertEquals("22P04", extra.getSQLState());
            assertEquals(2500, cm.copyIn("COPY cb FROM STDIN", new StringReader(in.substring(0, in.lastIndexOf("2500\t")))));
            assertEquals(2500, count(s, "cb"));
        }
    }
}
