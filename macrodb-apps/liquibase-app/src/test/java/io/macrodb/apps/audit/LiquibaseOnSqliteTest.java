package io.macrodb.apps.audit;

import io.macrodb.jdbc.MacroAdmin;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Liquibase on SQLite through MacroDB, with a changeset that fails halfway: Liquibase runs each changeset in one
 * transaction, and SQLite's DDL is transactional, so the failed changeset is rolled back whole, its schema changes
 * included, on every replica, and {@code DATABASECHANGELOG} records the first changeset alone. (MacroDB used to commit
 * the open transaction before each schema change, as H2 and HSQLDB do themselves.) No Spring here: Liquibase's own
 * command API, as its command line or a build step runs it.
 */
class LiquibaseOnSqliteTest {
    private static final String URL = "jdbc:macrodb:sqlite:mem:liquibase_halfway?replicas=3";

    @Test
    void aChangesetThatFailsHalfwayLeavesNoTraceOnAnyReplica() throws Exception {
        try (Connection keep = DriverManager.getConnection(URL); Connection migrating = DriverManager.getConnection(URL)) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(migrating));
            assertThatThrownBy(() -> Scope.child(Scope.Attr.resourceAccessor, new liquibase.resource.ClassLoaderResourceAccessor(),
                    () -> new CommandScope(UpdateCommandStep.COMMAND_NAME)
                            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                            .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, "db/sqlite-halfway/changelog.sql")
                            .execute()))
                    .hasStackTraceContaining("no_such_table");

            assertThat(rows(keep, "SELECT * FROM item ORDER BY id")).containsExactly("1|kettle|10", "2|teapot|4");
            assertThat(rows(keep, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'shipment'")).isEmpty();
            assertThat(rows(keep, "SELECT ID FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED")).containsExactly("1-stock");

            MacroAdmin admin = keep.unwrap(MacroAdmin.class);
            assertThat(admin.awaitCaughtUp(10_000)).isTrue();
            List<String> sums = admin.checksums();
            assertThat(sums).hasSize(3).doesNotContainNull().containsOnly(sums.get(0));
        }
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) sb.append(i == 1 ? "" : "|").append(rs.getString(i));
                out.add(sb.toString());
            }
        }
        return out;
    }
}
