package io.macrodb.engine;

import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * A rough measurement, not a test (run by hand, numbers in README's SQLite section): what the BEFORE
 * INSERT/UPDATE triggers that report REPLACE's removals ({@link SqliteReplaceProbes}) add per row, in
 * the engine alone. A plain SQLite connection gets MacroDB's capture triggers ({@link
 * SqliteEngine#installCapture}, the function registered, its rows ignored as a secondary's applier's
 * are) with and without the two probe triggers, and runs single-row INSERTs, then UPDATEs of a column
 * in no unique index, in one transaction; best of the rounds after the first. Arguments: rows, rounds.
 * {@code java -cp target/classes:target/test-classes:<sqlite-jdbc> io.macrodb.engine.SqliteReplaceProbesBench 100000 9}.
 */
public final class SqliteReplaceProbesBench {
    private SqliteReplaceProbesBench() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        Map<String, Double> best = new TreeMap<>();
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        try {
            for (int round = 0; round < rounds; round++) {
                for (boolean probes : new boolean[] {false, true}) {
                    for (String schema : new String[] {"k INTEGER PRIMARY KEY, v TEXT, n INT", "k INTEGER PRIMARY KEY, v TEXT UNIQUE, n INT"}) {
                        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:"); Statement s = c.createStatement()) {
                            SqliteCapture.register(c);
                            s.execute("CREATE TABLE t (" + schema + ")");
                            SqliteEngine engine = new SqliteEngine();
                            TableShape shape = Catalog.readTable(c, "main", "t");
                            engine.installCapture(c, shape);
                            if (!probes) {
                                for (String e : new String[] {"RI", "RU"}) {
                                    s.execute("DROP TRIGGER IF EXISTS main." + TableShape.quote(SqliteEngine.triggerName(e, "t")));
                                }
                            }
                            c.setAutoCommit(false);
                            long t0 = System.nanoTime();
                            try (PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)")) {
                                for (int i = 0; i < n; i++) {
                                    ps.setInt(1, i);
                                    ps.setString(2, "v" + i);
                                    ps.setInt(3, i);
                                    ps.executeUpdate();
                                }
                            }
                            long t1 = System.nanoTime();
                            try (PreparedStatement ps = c.prepareStatement("UPDATE t SET n = n + 1 WHERE k = ?")) {
                                for (int i = 0; i < n; i++) {
                                    ps.setInt(1, i);
                                    ps.executeUpdate();
                                }
                            }
                            long t2 = System.nanoTime();
                            c.commit();
                            if (round == 0) continue; // warm-up
                            String what = (schema.contains("UNIQUE") ? "unique v, " : "key only, ") + (probes ? "probes" : "before");
                            best.merge("insert " + what, (t1 - t0) / 1e3 / n, Math::min);
                            best.merge("update " + what, (t2 - t1) / 1e3 / n, Math::min);
                        }
                    }
                }
            }
        } finally {
            CaptureContext.restore(prev);
        }
        best.forEach((k, v) -> System.out.printf("%-32s %.2f us/row%n", k, v));
    }
}
