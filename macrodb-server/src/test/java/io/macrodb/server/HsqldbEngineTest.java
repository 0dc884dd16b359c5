package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The same server over HSQLDB (PostgreSQL syntax mode): pgjdbc DDL, prepared DML, a read-only transaction. */
@Timeout(60)
class HsqldbEngineTest {
    @Test
    void pgjdbcOverHsqldb() throws Exception {
        String url = "jdbc:macrodb:hsqldb:mem:pgsrvh" + ProcessHandle.current().pid() + ";sql.syntax_pgs=true?replicas=2";
        try (PgServer server = PgServer.start(PgServer.Config.of(url).withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)));
             Connection c = DriverManager.getConnection(ServerFixture.pgUrl(server, "prepareThreshold=1"), ServerFixture.USER, ServerFixture.PASSWORD);
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE h (id INT PRIMARY KEY, name VARCHAR(20))");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO h VALUES (?, ?)")) {
                for (int i = 0; i < 5; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "n" + i);
                    assertEquals(1, ps.executeUpdate());
                }
            }
            c.setReadOnly(true);
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("SELECT name FROM h WHERE id = ?")) {
                ps.setInt(1, 3);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("n3", rs.getString(1));
                    assertFalse(rs.next());
                }
            }
            c.commit();
            c.setReadOnly(false);
            c.setAutoCommit(true);
            // HSQLDB says 42501 "user lacks privilege or object not found" for tables and columns alike
            assertEquals("42P01", org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
                    () -> s.executeQuery("SELECT * FROM nowhere")).getSQLState());
            assertEquals("42703", org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
                    () -> s.executeQuery("SELECT nope FROM h")).getSQLState());
            assertEquals("42703", org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
                    () -> s.executeQuery("SELECT h.nope FROM h")).getSQLState());
            assertEquals("42P01", org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
                    () -> s.executeUpdate("INSERT INTO public.nowhere VALUES (1)")).getSQLState());
            // result columns named as PostgreSQL names them (HSQLDB labels them in upper case)
            try (ResultSet rs = s.executeQuery("SELECT id, name AS \"Mixed\" FROM h WHERE id = 1")) {
                assertEquals("id", rs.getMetaData().getColumnLabel(1));
                assertEquals("Mixed", rs.getMetaData().getColumnLabel(2));
            }
            // and unaliased aggregates and functions as PostgreSQL names them (HSQLDB labels them C1, C2 ...), also
            // at Describe of a server-side prepared statement (prepareThreshold=1)
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*), max(id), lower(min(name)), max(id) + 1 FROM h WHERE id > ?")) {
                ps.setInt(1, 0);
                try (ResultSet rs = ps.executeQuery()) {
                    assertEquals("count", rs.getMetaData().getColumnLabel(1));
                    assertEquals("max", rs.getMetaData().getColumnLabel(2));
                    assertEquals("lower", rs.getMetaData().getColumnLabel(3));
                    assertEquals("?column?", rs.getMetaData().getColumnLabel(4));
                    assertTrue(rs.next());
                    assertEquals(4, rs.getInt("count"), "read by PostgreSQL's name");
                }
            }
        }
    }
}
