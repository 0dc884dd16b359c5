package io.macrodb.replica;

import io.macrodb.engine.CaptureContext;
import io.macrodb.engine.Catalog;
import io.macrodb.engine.SqliteEngine;
import io.macrodb.log.RowChanges;
import io.macrodb.log.TableShape;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A rough measurement, not a test (run by hand, numbers in the commit that added it): what replicating
 * the rowid of a SQLite table whose key is not the rowid ({@code SqliteCatalog.replicatedRowid}) costs
 * per row, in the engine alone. "before": the table's shape without its rowid column (the capture
 * triggers pass no rowid, the secondary writes none); "rowid": the shape MacroDB uses now. Capture: a
 * plain SQLite connection with MacroDB's capture triggers (rows ignored, as a secondary's applier's
 * are) runs single-row INSERTs, then UPDATEs of a column in no index, in one transaction. Apply: a
 * secondary's {@link RowWriter} writes the same rows as inserts, then as updates, {@code batch} rows
 * per change, in one transaction. This thread's CPU time (SQLite runs in it, and a loaded machine
 * stretches the wall clock), best of the rounds after the first; the two shapes alternate within
 * each round, so that a loaded machine slows both alike. Arguments: rows, rounds, batch.
 * {@code java -cp target/classes:target/test-classes:<sqlite-jdbc> io.macrodb.replica.SqliteRowidBench 20000 15 10}.
 */
public final class SqliteRowidBench {
    private SqliteRowidBench() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        Map<String, Double> best = new TreeMap<>();
        CaptureContext prev = CaptureContext.enter(CaptureContext.APPLYING);
        try {
            for (int round = 0; round < rounds; round++) {
                for (boolean rowid : new boolean[] {false, true}) {
                    String what = rowid ? "rowid " : "before";
                    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:"); Statement s = c.createStatement()) {
                        SqliteEngine engine = new SqliteEngine();
                        engine.configureSession(c, 1000, true);
                        s.execute("CREATE TABLE t (k INT PRIMARY KEY, v TEXT, n INT)");
                        s.execute("CREATE INDEX t_v ON t (v)");
                        TableShape shape = Catalog.readTable(c, "main", "t");
                        if (shape.rowidColumn() == null) throw new IllegalStateException("the shape carries no rowid: " + shape.columns());
                        if (!rowid) shape = withoutRowid(shape);
                        engine.installCapture(c, shape);
                        c.setAutoCommit(false);
                        long t0 = cpu();
                        try (PreparedStatement ps = c.prepareStatement("INSERT INTO t (k, v, n) VALUES (?, ?, ?)")) {
                            for (int i = 0; i < n; i++) {
                                ps.setInt(1, n - i); // keys in the reverse of the rowids' order
                                ps.setString(2, "v" + i);
                                ps.setInt(3, i);
                                ps.executeUpdate();
                            }
                        }
                        long t1 = cpu();
                        try (PreparedStatement ps = c.prepareStatement("UPDATE t SET n = n + 1 WHERE k = ?")) {
                            for (int i = 0; i < n; i++) {
                                ps.setInt(1, i + 1);
                                ps.executeUpdate();
                            }
                        }
                        long t2 = cpu();
                        c.commit();
                        // the secondary: the same rows arrive as images
                        s.execute("DELETE FROM t");
                        c.commit();
                        List<Object[]> images = new ArrayList<>(n);
                        for (int i = 0; i < n; i++) {
                            Object[] row = rowid ? new Object[] {n - i, "v" + i, i, i + 1} : new Object[] {n - i, "v" + i, i};
                            images.add(row);
                        }
                        long t3;
                        long t4;
                        try (RowWriter w = new RowWriter(c, engine)) {
                            t3 = cpu();
                            for (int from = 0; from < n; from += batch) {
                                w.apply(new RowChanges(shape, List.of(), List.of(), images.subList(from, Math.min(n, from + batch))), false);
                            }
                            t4 = cpu();
                            for (Object[] row : images) row[2] = (Integer) row[2] + 1;
                            for (int from = 0; from < n; from += batch) {
                                w.apply(new RowChanges(shape, List.of(), images.subList(from, Math.min(n, from + batch)), List.of()), false);
                            }
                        }
                        long t5 = cpu();
                        c.commit();
                        long t6 = t5;
                        if (rowid) {
                            // the same updates by a statement that sets the rowid with the other columns (as a shape read
                            // from the log, which does not know its last column is the rowid, would)
                            TableShape asLogged = new TableShape(shape.schema(), shape.table(), shape.columns(), shape.keyIndexes(),
                                    new int[] {0}, shape.ordinalCount(), false, null, List.of(), null, null);
                            for (Object[] row : images) row[2] = (Integer) row[2] + 1;
                            try (RowWriter w = new RowWriter(c, engine)) {
                                t5 = cpu();
                                for (int from = 0; from < n; from += batch) {
                                    w.apply(new RowChanges(asLogged, List.of(), images.subList(from, Math.min(n, from + batch)), List.of()), false);
                                }
                                t6 = cpu();
                            }
                            c.commit();
                        }
                        if (round == 0) continue; // warm-up
                        if (rowid) best.merge("apply   update rowid, SET rowid", (t6 - t5) / 1e3 / n, Math::min);
                        best.merge("capture insert " + what, (t1 - t0) / 1e3 / n, Math::min);
                        best.merge("capture update " + what, (t2 - t1) / 1e3 / n, Math::min);
                        best.merge("apply   insert " + what, (t4 - t3) / 1e3 / n, Math::min);
                        best.merge("apply   update " + what, (t5 - t4) / 1e3 / n, Math::min);
                    }
                }
            }
        } finally {
            CaptureContext.restore(prev);
        }
        best.forEach((k, v) -> System.out.printf("%-32s %.2f us/row%n", k, v));
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** This thread's CPU time (SQLite runs in it): steadier than the wall clock on a loaded machine. */
    private static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** {@code shape} without its last column, the rowid: what MacroDB replicated before. */
    private static TableShape withoutRowid(TableShape shape) {
        int m = shape.columns().size() - 1;
        int[] keyOrdinals = new int[shape.keyCount()];
        for (int i = 0; i < keyOrdinals.length; i++) keyOrdinals[i] = shape.keyOrdinal(i);
        int[] ordinals = new int[m];
        int[] types = new int[m];
        for (int i = 0; i < m; i++) {
            ordinals[i] = shape.columnOrdinal(i);
            types[i] = shape.columnType(i);
        }
        return new TableShape(shape.schema(), shape.table(), shape.columns().subList(0, m), shape.keyIndexes(), keyOrdinals,
                shape.ordinalCount() - 1, false, null, shape.volatileDefaults(), ordinals, types);
    }
}
