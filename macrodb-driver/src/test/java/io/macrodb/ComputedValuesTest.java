package io.macrodb;

import io.macrodb.testing.AuditTrigger;
import io.macrodb.testing.TestDb;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Schema changes that compute values with a random or time function (issue 12, items 1 and 2) run
 * once, on the primary, and every replica holds the primary's values: Flyway's history table, made
 * with {@code CREATE TABLE ... AS SELECT ..., CURRENT_TIMESTAMP}, and Liquibase's
 * {@code addColumn defaultValueComputed} on a table with rows. Each case reads every replica's rows
 * directly: a replica that computed its own values would differ (RAND() always does).
 */
class ComputedValuesTest {

    /** Flyway 11's statement for H2, as it sends it. */
    private static final String FLYWAY_H2 = "CREATE TABLE IF NOT EXISTS \"PUBLIC\".\"flyway_schema_history\" (\n"
            + "    \"installed_rank\" INT NOT NULL,\n    \"version\" VARCHAR(50),\n    \"description\" VARCHAR(200) NOT NULL,\n"
            + "    \"type\" VARCHAR(20) NOT NULL,\n    \"script\" VARCHAR(1000) NOT NULL,\n    \"checksum\" INT,\n"
            + "    \"installed_by\" VARCHAR(100) NOT NULL,\n    \"installed_on\" TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,\n"
            + "    \"execution_time\" INT NOT NULL,\n    \"success\" BOOLEAN NOT NULL\n"
            + ") AS SELECT -1, NULL, '<< Flyway Schema History table created >>', 'TABLE', '', NULL, 'sa', CURRENT_TIMESTAMP, 0, TRUE";

    /**
     * Flyway's first steps, as it sends them (row propagation, the default: statement propagation
     * refuses Flyway's later inserts, which leave {@code installed_on} to its time default).
     */
    @org.junit.jupiter.api.Test
    void flywaysHistoryTableIsCreatedWithThePrimarysTimestamp() throws Exception {
        try (Connection c = TestDb.open(TestDb.url("h2", "replicas=3")); Statement s = c.createStatement()) {
            s.execute(FLYWAY_H2);
            s.execute("ALTER TABLE \"PUBLIC\".\"flyway_schema_history\" ADD CONSTRAINT \"flyway_schema_history_pk\""
                    + " PRIMARY KEY (\"installed_rank\")");
            s.execute(FLYWAY_H2); // IF NOT EXISTS: nothing changes, nothing is shipped
            s.execute("INSERT INTO \"PUBLIC\".\"flyway_schema_history\" (\"installed_rank\", \"version\", \"description\", \"type\","
                    + " \"script\", \"checksum\", \"installed_by\", \"execution_time\", \"success\") VALUES"
                    + " (1, '1', 'init', 'SQL', 'V1__init.sql', 42, 'sa', 3, TRUE)");
            List<List<String>> all = RowFidelityTest.everyReplica(c, "\"PUBLIC\".\"flyway_schema_history\"", "\"installed_rank\"");
            assertEquals(2, all.get(0).size(), all::toString);
            assertEveryReplicaHolds(all);
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2:row", "hsqldb:row", "h2:statement", "hsqldb:statement"})
    void aTableCreatedFromAQueryHoldsThePrimarysRandomAndTimeValues(String config) throws Exception {
        String engine = config.split(":")[0];
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=3&propagation=" + config.split(":")[1]));
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE src (id INT PRIMARY KEY, v VARCHAR(10))");
            s.execute("INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
            s.execute(engine.equals("h2")
                    ? "CREATE TABLE picked AS SELECT id, v, RAND() AS r, CURRENT_TIMESTAMP AS taken FROM src WHERE RAND() < 2"
                    : "CREATE TABLE picked AS (SELECT id, v, RAND() AS r, CURRENT_TIMESTAMP AS taken FROM src WHERE RAND() < 2) WITH DATA");
            List<List<String>> all = RowFidelityTest.everyReplica(c, "picked", "id");
            assertEquals(4, all.get(0).size(), all::toString);
            assertEveryReplicaHolds(all);
            // the new table takes writes like any other
            s.execute("UPDATE picked SET v = 'z' WHERE id = 2");
            s.execute("DELETE FROM picked WHERE id = 3");
            assertEveryReplicaHolds(RowFidelityTest.everyReplica(c, "picked", "id"));
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2:row", "hsqldb:row", "h2:statement", "hsqldb:statement"})
    void aColumnAddedWithARandomOrTimeDefaultFillsExistingRowsWithThePrimarysValues(String config) throws Exception {
        String engine = config.split(":")[0];
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=3&propagation=" + config.split(":")[1]));
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE person (id INT PRIMARY KEY, name VARCHAR(20))");
            s.execute("INSERT INTO person VALUES (1, 'ada'), (2, 'bob'), (3, 'cy')");
            // what Liquibase's addColumn with defaultValueComputed sends
            s.execute("ALTER TABLE person ADD created TIMESTAMP DEFAULT CURRENT_TIMESTAMP");
            s.execute("ALTER TABLE person ADD COLUMN r DOUBLE DEFAULT RAND()");
            List<List<String>> all = RowFidelityTest.everyReplica(c, "person", "id");
            assertEquals(3, all.get(0).size(), all::toString);
            assertEveryReplicaHolds(all);
            assertEquals(3, count(c, "SELECT COUNT(*) FROM person WHERE created IS NOT NULL AND r IS NOT NULL"));
            if (engine.equals("h2")) { // IF EXISTS of a missing table changes nothing anywhere (HSQLDB has no IF EXISTS here)
                s.execute("ALTER TABLE IF EXISTS no_such_t ADD COLUMN created TIMESTAMP DEFAULT CURRENT_TIMESTAMP");
            }
            // an empty table ships nothing and takes the column too
            s.execute("CREATE TABLE empty_t (id INT PRIMARY KEY)");
            s.execute("ALTER TABLE empty_t ADD COLUMN created TIMESTAMP DEFAULT CURRENT_TIMESTAMP");
            TestDb.assertConverged(c);
        }
    }

    /**
     * A migration tool's form of it: the statement after a comment line, in a transaction that has
     * already written (Flyway's V3 of the shop app, {@code macrodb-apps/jpa-flyway-app}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aTimeDefaultAfterACommentInATransactionFillsRowsWithThePrimarysValues(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=3")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE product (id BIGINT PRIMARY KEY, name VARCHAR(100))");
            c.setAutoCommit(false);
            s.execute("INSERT INTO product VALUES (1, 'kettle')");
            s.execute("INSERT INTO product VALUES (2, 'teapot')");
            s.execute("-- an audit column on a table that has rows: every replica gets the primary's timestamps\n"
                    + "ALTER TABLE product ADD COLUMN created_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP");
            c.commit();
            c.setAutoCommit(true);
            List<List<String>> all = RowFidelityTest.everyReplica(c, "product", "id");
            assertEquals(2, all.get(0).size(), all::toString);
            assertEveryReplicaHolds(all);
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void aTableWithRowsAndNoKeyIsRefusedBeforeAnythingChanges(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE log_t (msg VARCHAR(20))");
            s.execute("INSERT INTO log_t VALUES ('a'), ('a')");
            SQLException e = assertThrows(SQLException.class,
                    () -> s.execute("ALTER TABLE log_t ADD COLUMN at TIMESTAMP DEFAULT CURRENT_TIMESTAMP"));
            assertEquals("0AM01", e.getSQLState());
            assertTrue(e.getMessage().contains("no primary key"), e.getMessage());
            try (ResultSet rs = s.executeQuery("SELECT * FROM log_t")) {
                assertEquals(1, rs.getMetaData().getColumnCount(), "the refused ALTER changed the table");
            }
            // a column every replica computes for itself stays refused, rows or not
            SQLException generated = assertThrows(SQLException.class,
                    () -> s.execute("CREATE TABLE g (id INT PRIMARY KEY, r DOUBLE GENERATED ALWAYS AS (RAND()))"));
            assertEquals("0AM01", generated.getSQLState());
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void withStatementPropagationAndTriggersOfTheApplicationTheRowsAreNotShipped(String engine) throws Exception {
        try (Connection c = TestDb.open(TestDb.url(engine, "replicas=2&propagation=statement")); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
            s.execute("CREATE TABLE audit (item_id INT, what VARCHAR(10), PRIMARY KEY (item_id, what))");
            s.execute(engine.equals("h2")
                    ? "CREATE TRIGGER t_upd AFTER UPDATE ON t FOR EACH ROW CALL \"" + AuditTrigger.class.getName() + "\""
                    : "CREATE TRIGGER t_upd AFTER UPDATE ON t REFERENCING NEW ROW AS r FOR EACH ROW INSERT INTO audit VALUES (r.id, 'U')");
            s.execute("INSERT INTO t VALUES (1, 1)");
            SQLException e = assertThrows(SQLException.class,
                    () -> s.execute("ALTER TABLE t ADD COLUMN at TIMESTAMP DEFAULT CURRENT_TIMESTAMP"));
            assertEquals("0AM01", e.getSQLState());
            assertTrue(e.getMessage().contains("triggers"), e.getMessage());
            TestDb.assertConverged(c);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "hsqldb"})
    void theRecoveredPrimaryHoldsTheComputedValues(String engine, @TempDir Path dir) throws Exception {
        String url = "jdbc:macrodb:" + engine + ":mem:computed_" + Math.abs(dir.hashCode()) + "?replicas=2&durability=log:" + dir;
        List<String> before;
        List<String> created;
        try (Connection c = TestDb.open(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE person (id INT PRIMARY KEY, name VARCHAR(20))");
            s.execute("INSERT INTO person VALUES (1, 'ada'), (2, 'bob')");
            s.execute("ALTER TABLE person ADD COLUMN r DOUBLE DEFAULT RAND()");
            s.execute(engine.equals("h2") ? "CREATE TABLE copy AS SELECT id, RAND() AS r FROM person"
                    : "CREATE TABLE copy AS (SELECT id, RAND() AS r FROM person) WITH DATA");
            before = RowFidelityTest.everyReplica(c, "person", "id").get(0);
            created = RowFidelityTest.everyReplica(c, "copy", "id").get(0);
        }
        try (Connection c = TestDb.open(url)) { // replayed from the log, DDL, then the shipped rows
            List<List<String>> person = RowFidelityTest.everyReplica(c, "person", "id");
            List<List<String>> copy = RowFidelityTest.everyReplica(c, "copy", "id");
            for (List<String> r : person) assertEquals(before, r, person::toString);
            for (List<String> r : copy) assertEquals(created, r, copy::toString);
            TestDb.assertConverged(c);
        }
    }

    private static void assertEveryReplicaHolds(List<List<String>> all) {
        for (int i = 1; i < all.size(); i++) {
            int idx = i;
            assertEquals(all.get(0), all.get(i), () -> "replica " + idx + " holds values of its own: " + all);
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
