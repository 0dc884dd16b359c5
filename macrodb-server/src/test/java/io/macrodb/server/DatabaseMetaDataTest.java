package io.macrodb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * pgjdbc's {@link DatabaseMetaData} through the server, over H2 and HSQLDB, in the extended protocol (pgjdbc's
 * default, parameters bound) and the simple one ({@code preferQueryMode=simple}, parameters inlined as literals):
 * the answers come from the engine's own metadata ({@link PgCatalog}).
 */
@Timeout(60)
class DatabaseMetaDataTest {
    private static int n;

    private static String url(String engine) {
        String db = "pgmeta" + (++n) + "_" + ProcessHandle.current().pid();
        return engine.equals("h2")
                ? "jdbc:macrodb:h2:mem:" + db + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH?replicas=2"
                : "jdbc:macrodb:hsqldb:mem:" + db + ";sql.syntax_pgs=true?replicas=2";
    }

    private static List<String> column(ResultSet rs, String name) throws Exception {
        List<String> l = new ArrayList<>();
        try (rs) {
            while (rs.next()) l.add(rs.getString(name));
        }
        return l;
    }

    @ParameterizedTest
    @CsvSource({"h2,extended", "h2,simple", "hsqldb,extended", "hsqldb,simple"})
    void tablesColumnsKeysAndIndexes(String engine, String mode) throws Exception {
        try (PgServer server = PgServer.start(PgServer.Config.of(url(engine)).withUsers(UserStore.of(ServerFixture.USER, ServerFixture.PASSWORD)));
             Connection c = DriverManager.getConnection(ServerFixture.pgUrl(server, "preferQueryMode=" + mode), ServerFixture.USER, ServerFixture.PASSWORD);
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, email VARCHAR(80) UNIQUE, created DATE DEFAULT CURRENT_DATE)");
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id INT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,"
                    + " total NUMERIC(10,2) DEFAULT 0, ok BOOLEAN)");
            s.execute("CREATE INDEX orders_customer ON orders (customer_id)");
            s.execute("CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100");
            DatabaseMetaData md = c.getMetaData();

            assertEquals(List.of("customers", "orders"), column(md.getTables(null, "public", "%", new String[] {"TABLE"}), "TABLE_NAME"));
            assertEquals(List.of("big_orders"), column(md.getTables(null, "public", "%", new String[] {"VIEW"}), "TABLE_NAME"));
            assertEquals(List.of("TABLE", "TABLE", "VIEW"), column(md.getTables(null, null, "%", null), "TABLE_TYPE"));
            assertEquals(List.of("orders"), column(md.getTables(null, "public", "ord%", null), "TABLE_NAME"));
            assertEquals(List.of(), column(md.getTables(null, "nosuch", "%", null), "TABLE_NAME"));

            try (ResultSet rs = md.getColumns(null, "public", "orders", "%")) {
                assertTrue(rs.next());
                assertEquals("id", rs.getString("COLUMN_NAME"));
                assertEquals(Types.BIGINT, rs.getInt("DATA_TYPE"));
                assertEquals("int8", rs.getString("TYPE_NAME"));
                assertEquals(DatabaseMetaData.columnNoNulls, rs.getInt("NULLABLE"));
                assertEquals(1, rs.getInt("ORDINAL_POSITION"));
                assertTrue(rs.next());
                assertEquals("customer_id", rs.getString("COLUMN_NAME"));
                assertEquals(Types.INTEGER, rs.getInt("DATA_TYPE"));
                assertEquals("NO", rs.getString("IS_NULLABLE"));
                assertTrue(rs.next());
                assertEquals("total", rs.getString("COLUMN_NAME"));
                assertEquals(Types.NUMERIC, rs.getInt("DATA_TYPE"));
                assertEquals(10, rs.getInt("COLUMN_SIZE"));
                assertEquals(2, rs.getInt("DECIMAL_DIGITS"));
                assertEquals(DatabaseMetaData.columnNullable, rs.getInt("NULLABLE"));
                assertTrue(rs.getString("COLUMN_DEF").startsWith("0"), rs.getString("COLUMN_DEF"));
                assertTrue(rs.next());
                assertEquals("ok", rs.getString("COLUMN_NAME"));
                assertEquals(Types.BIT, rs.getInt("DATA_TYPE")); // pgjdbc reports bool as BIT
                assertFalse(rs.next());
            }
            try (ResultSet rs = md.getColumns(null, "public", "customers", "name")) {
                assertTrue(rs.next());
                assertEquals(Types.VARCHAR, rs.getInt("DATA_TYPE"));
                assertEquals(40, rs.getInt("COLUMN_SIZE"));
                assertFalse(rs.next());
            }
            assertEquals(List.of("id", "total"), column(md.getColumns(null, null, "big_orders", null), "COLUMN_NAME"));

            try (ResultSet rs = md.getPrimaryKeys(null, "public", "orders")) {
                assertTrue(rs.next());
                assertEquals("orders", rs.getString("TABLE_NAME"));
                assertEquals("id", rs.getString("COLUMN_NAME"));
                assertEquals(1, rs.getInt("KEY_SEQ"));
                assertTrue(rs.getString("PK_NAME") != null);
                assertFalse(rs.next());
            }
            assertEquals(List.of(), column(md.getPrimaryKeys(null, "public", "big_orders"), "COLUMN_NAME"));

            List<String> unique = column(md.getIndexInfo(null, "public", "customers", true, false), "COLUMN_NAME");
            assertEquals(List.of("email", "id"), unique.stream().sorted().toList());
            boolean found = false;
            try (ResultSet rs = md.getIndexInfo(null, "public", "orders", false, false)) {
                while (rs.next()) {
                    if (!rs.getString("INDEX_NAME").equals("orders_customer")) continue;
                    found = true;
                    assertTrue(rs.getBoolean("NON_UNIQUE"));
                    assertEquals("customer_id", rs.getString("COLUMN_NAME"));
                    assertEquals(1, rs.getInt("ORDINAL_POSITION"));
                }
            }
            assertTrue(found, "orders_customer in getIndexInfo");

            try (ResultSet rs = md.getImportedKeys(null, "public", "orders")) {
                assertTrue(rs.next());
                assertEquals("customers", rs.getString("PKTABLE_NAME"));
                assertEquals("id", rs.getString("PKCOLUMN_NAME"));
                assertEquals("orders", rs.getString("FKTABLE_NAME"));
                assertEquals("customer_id", rs.getString("FKCOLUMN_NAME"));
                assertEquals(DatabaseMetaData.importedKeyCascade, rs.getInt("DELETE_RULE"));
                assertFalse(rs.next());
            }
            assertEquals(List.of("orders"), column(md.getExportedKeys(null, "public", "customers"), "FKTABLE_NAME"));
            assertTrue(column(md.getSchemas(), "TABLE_SCHEM").contains("public"));

            // the catalog answers leave the session usable, in and out of a transaction
            c.setAutoCommit(false);
            assertEquals(List.of("customers", "orders"), column(md.getTables(null, "public", "%", new String[] {"TABLE"}), "TABLE_NAME"));
            s.execute("INSERT INTO customers (id, name) VALUES (1, 'a')");
            c.commit();
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM customers")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
        }
    }
}
