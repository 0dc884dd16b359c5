package io.macrodb;

import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code SCRIPT} dump taken through MacroDB is the application's database, not MacroDB's: it
 * carries no capture trigger, so it restores into the plain engine and takes inserts there, and
 * restores through MacroDB as well (issue 12, item 8).
 */
class DumpTest {
    /** What a dump of one engine recreates that a fresh database of that engine already has. */
    private static final List<String> ALREADY_THERE = List.of("CREATE USER", "ALTER USER", "CREATE SCHEMA PUBLIC",
            "SET DATABASE ", "SET FILES ", "GRANT ", "ALTER SEQUENCE SYSTEM_LOBS", "SET SCHEMA SYSTEM_LOBS", "INSERT INTO BLOCKS", "-- ");

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"h2, result", "h2, file", "hsqldb, result", "hsqldb, file"})
    void aDumpRestoresIntoThePlainEngineAndThroughMacroDb(String engine, String form, @TempDir Path dir) throws Exception {
        List<String> dump;
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))");
            s.execute("CREATE TABLE nokey (a INT, b INT)");
            s.execute("INSERT INTO t VALUES (1, 'one'), (2, 'it''s')");
            s.execute("INSERT INTO nokey VALUES (1, 2)");
            if (form.equals("result")) {
                dump = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SCRIPT")) {
                    while (rs.next()) dump.add(rs.getString(1));
                }
            } else {
                Path file = dir.resolve("dump's.sql");
                String name = file.toString().replace("'", "''");
                s.execute(engine.equals("h2") ? "SCRIPT TO '" + name + "'" : "SCRIPT '" + name + "'");
                dump = statementsOf(Files.readString(file, StandardCharsets.UTF_8), engine);
                assertFalse(Files.exists(dir.resolve("dump's.sql.macrodb-tmp")), "the rewrite left its temporary file");
            }
            TestDb.assertConverged(c);
        }
        assertTrue(dump.stream().anyMatch(l -> l.toUpperCase().contains("CREATE MEMORY TABLE")), () -> "no table in the dump: " + dump);
        assertTrue(dump.stream().noneMatch(l -> l.contains("MACRODB_CAPTURE") || l.contains("io.macrodb")),
                () -> "MacroDB's triggers are in the dump: " + dump);

        // HSQLDB's SCRIPT as a result holds the schema only; to a file, and H2's either way, the rows too
        boolean rows = !(engine.equals("hsqldb") && form.equals("result"));
        String plain = engine.equals("h2") ? "jdbc:h2:mem:dump" + System.nanoTime() : "jdbc:hsqldb:mem:dump" + System.nanoTime();
        try (Connection p = DriverManager.getConnection(plain, "sa", "")) {
            restore(p, dump);
            try (Statement s = p.createStatement()) {
                s.execute("INSERT INTO t VALUES (3, 'three')");
                s.execute("INSERT INTO nokey VALUES (3, 4)");
                assertEquals(rows ? 3 : 1, count(s, "SELECT COUNT(*) FROM t"));
                assertEquals(rows ? 2 : 1, count(s, "SELECT COUNT(*) FROM nokey"));
            }
        }
        try (Connection m = TestDb.open(TestDb.url(engine, "replicas=2"))) {
            restore(m, dump);
            try (Statement s = m.createStatement()) {
                s.execute("INSERT INTO t VALUES (3, 'three')");
                assertEquals(rows ? 3 : 1, count(s, "SELECT COUNT(*) FROM t"));
            }
            TestDb.assertConverged(m);
        }
    }

    /** Runs a dump's statements, skipping what a fresh database of the engine already has. */
    private static void restore(Connection c, List<String> dump) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String stmt : dump) {
                if (stmt.isBlank() || ALREADY_THERE.stream().anyMatch(stmt.strip().toUpperCase()::startsWith)) continue;
                s.execute(stmt);
            }
        }
    }

    /** A dump file's statements: H2 ends each with ';' (some span lines), HSQLDB writes one per line. */
    private static List<String> statementsOf(String text, String engine) {
        List<String> out = new ArrayList<>();
        if (engine.equals("hsqldb")) {
            for (String line : text.split("\r?\n")) if (!line.isBlank()) out.add(line.strip());
            return out;
        }
        StringBuilder cur = new StringBuilder();
        for (String line : text.split("\r?\n")) {
            cur.append(line.stripTrailing()).append('\n');
            if (line.strip().endsWith(";")) {
                String stmt = cur.toString().strip();
                out.add(stmt.substring(0, stmt.length() - 1));
                cur.setLength(0);
            }
        }
        return out;
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
