package io.macrodb.engine;

import io.macrodb.log.TableShape;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A content checksum of every user table: what the convergence checks compare across replicas. Two
 * replicas with the same rows in the same tables have the same checksum, whatever order the rows
 * were written in: each row is digested on its own and the row digests are sorted before they are
 * combined (engines cannot ORDER BY LOB columns, and this needs no key).
 *
 * <p>It covers every stored column: generated and (H2) invisible ones too, which row propagation
 * does not ship but which must come out the same everywhere, and SQLite's rowid where it is not the
 * key. Values are read in a representation the engines keep exactly: dates and times as java.time
 * values (not java.sql.Date/Timestamp, which go through the JVM's calendar and time zone and can
 * make two different values look alike).
 */
public final class Checksums {
    private Checksums() {}

    /** SHA-256 (first 16 bytes, hex) over table names, column names and sorted row values. */
    public static String of(Connection c) throws SQLException {
        MessageDigest md = newDigest();
        List<TableShape> tables = Catalog.readTables(c);
        try (Statement st = c.createStatement()) {
            for (TableShape t : tables) {
                update(md, "T:" + t);
                List<Catalog.Column> stored = new java.util.ArrayList<>(Catalog.columns(c, t.schema(), t.table()).values());
                // SQLite's rowid where it is not the key: replicated, so compared (SqliteCatalog.replicatedRowid)
                if (t.rowidColumn() != null) stored.add(new Catalog.Column(t.rowidColumn(), java.sql.Types.OTHER, false, false, null));
                StringBuilder cols = new StringBuilder();
                for (Catalog.Column col : stored) cols.append(cols.length() == 0 ? "" : ",").append(TableShape.quote(col.name()));
                update(md, "C:" + cols);
                java.util.List<String> rows = new java.util.ArrayList<>();
                try (ResultSet rs = st.executeQuery("SELECT " + cols + " FROM " + t.qualifiedName())) {
                    int n = stored.size();
                    boolean hsqldb = io.macrodb.engine.Values.isHsqldb(c);
                    MessageDigest row = newDigest();
                    while (rs.next()) {
                        for (int i = 1; i <= n; i++) update(row, render(io.macrodb.engine.Values.read(rs, i, stored.get(i - 1).type(), hsqldb)));
                        rows.add(HexFormat.of().formatHex(row.digest()));
                    }
                }
                java.util.Collections.sort(rows);
                for (String r : rows) update(md, r);
            }
        }
        return HexFormat.of().formatHex(md.digest(), 0, 16);
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    private static void update(MessageDigest md, String s) {
        md.update(s.getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
    }

    private static String render(Object v) throws SQLException {
        if (v == null) return "\u2400";
        if (v instanceof byte[] b) return HexFormat.of().formatHex(b);
        if (v instanceof Blob b) return HexFormat.of().formatHex(b.getBytes(1, (int) b.length()));
        if (v instanceof Clob c) return c.getSubString(1, (int) c.length());
        if (v instanceof java.sql.Array a) return Arrays.deepToString((Object[]) a.getArray());
        if (v instanceof Object[] a) return Arrays.deepToString(a);
        return v.getClass().getSimpleName() + ":" + v;
    }
}
