package io.macrodb.bench.micro;

import io.macrodb.bench.Batch;
import io.macrodb.bench.BenchEngine;
import io.macrodb.bench.Mix;
import io.macrodb.bench.RandomData;
import io.macrodb.bench.Row;
import io.macrodb.bench.Statements;
import io.macrodb.bench.TxType;
import io.macrodb.bench.Workload;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A small key-value table for quick comparisons: point reads, range scans of 100 rows (read-only)
 * and point updates. A mix {@code R-U} gives the read share; within reads, 9 of 10 are point reads.
 * Keys are uniform, so update conflicts are rare and what is measured is routing and replication.
 */
public final class Micro implements Workload {
    static final TxType POINT_READ = new TxType(0, "PointRead", true);
    static final TxType RANGE_SCAN = new TxType(1, "RangeScan", true);
    static final TxType POINT_UPDATE = new TxType(2, "PointUpdate", false);
    private static final List<TxType> TYPES = List.of(POINT_READ, RANGE_SCAN, POINT_UPDATE);
    private static final double[] BASE = {9, 1, 10};
    public static final int SCAN = 100;

    private final int rows;

    /** @param rows rows in the table (at least 2 x the scan length) */
    public Micro(int rows) {
        if (rows < 2 * SCAN) throw new IllegalArgumentException("micro needs at least " + 2 * SCAN + " rows");
        this.rows = rows;
    }

    @Override public String name() { return "micro"; }
    @Override public List<TxType> types() { return TYPES; }
    @Override public List<String> defaultMixes() { return List.of("50-50", "90-10", "100-0"); }

    @Override public Mix mix(String spec) {
        Mix m = Mix.parse(spec.trim().toLowerCase(Locale.ROOT).equals("standard") ? "90-10" : spec, TYPES, BASE);
        if (m == null) throw new IllegalArgumentException("micro has no mix '" + spec + "'; use R-U (read share : update share,"
                + " e.g. 90-10) or weights like PointRead=9,RangeScan=1,PointUpdate=10");
        return m;
    }

    @Override public String toString() { return "micro(" + rows + " rows)"; }

    @Override public void load(Connection c, BenchEngine engine, long seed) throws SQLException {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kv (id INT PRIMARY KEY, val BIGINT NOT NULL, filler VARCHAR(100) NOT NULL)");
        }
        c.setAutoCommit(false);
        Random r = new Random(seed);
        try (Batch b = new Batch(c, "INSERT INTO kv VALUES (?,?,?)")) {
            for (int i = 0; i < rows; i++) b.add(i, (long) r.nextInt(1_000_000), RandomData.astring(r, 50, 100));
        }
        c.commit();
        c.setAutoCommit(true);
    }

    @Override public Client client(BenchEngine engine, int index, int clients, long seed) {
        Statements st = new Statements();
        return (t, c, r) -> {
            switch (t.index()) {
                case 0 -> {
                    PreparedStatement ps = st.get(c, "SELECT val, filler FROM kv WHERE id = ?");
                    ps.setInt(1, r.nextInt(rows));
                    Row.one(ps, "kv row");
                }
                case 1 -> {
                    PreparedStatement ps = st.get(c, "SELECT id, val FROM kv WHERE id >= ? AND id < ? ORDER BY id");
                    int from = r.nextInt(rows - SCAN);
                    ps.setInt(1, from);
                    ps.setInt(2, from + SCAN);
                    long sum = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) sum += rs.getLong(2);
                    }
                    if (sum < 0) throw new IllegalStateException("negative values in kv");
                }
                case 2 -> {
                    PreparedStatement ps = st.get(c, "UPDATE kv SET val = val + 1 WHERE id = ?");
                    ps.setInt(1, r.nextInt(rows));
                    if (ps.executeUpdate() != 1) throw new IllegalStateException("kv row missing");
                }
                default -> throw new IllegalArgumentException(t.toString());
            }
            return Outcome.COMMIT;
        };
    }
}
