package io.macrodb.durable;

import io.macrodb.log.Change;
import io.macrodb.log.RowChanges;
import io.macrodb.log.StatementChange;
import io.macrodb.log.TableShape;
import io.macrodb.log.ValueCodec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The on-disk form of a change record's changes: a compact tagged encoding of table shapes, row
 * values ({@link ValueCodec}) and statements.
 */
public final class RecordCodec {
    private static final int FORMAT = 1;

    private RecordCodec() {}

    public static byte[] encode(List<Change> changes) throws SQLException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeInt(changes.size());
            for (Change c : changes) {
                if (c instanceof RowChanges rc) {
                    out.writeByte(rc.replace() ? 'P' : 'R'); // 'P': the replace form (see RowChanges)
                    writeShape(out, rc.shape());
                    writeRows(out, rc.deletes());
                    writeRows(out, rc.updates());
                    writeRows(out, rc.inserts());
                } else if (c instanceof io.macrodb.log.SequencePositions sp) {
                    out.writeByte('Q');
                    out.writeInt(sp.next().size());
                    for (java.util.Map.Entry<String, Long> e : sp.next().entrySet()) {
                        out.writeUTF(e.getKey());
                        out.writeLong(e.getValue());
                    }
                } else if (c instanceof StatementChange sc) {
                    // 'Z': with the session's SET TIME ZONE; 'N': a schema change with the primary's generated names
                    out.writeByte(sc.names() != null ? 'N' : sc.zone() == null ? 'S' : 'Z');
                    out.writeUTF(sc.sql());
                    writeRow(out, sc.params());
                    out.writeBoolean(sc.ddl());
                    writeNullableString(out, sc.schema());
                    if (sc.names() != null) {
                        writeNullableString(out, sc.zone());
                        out.writeInt(sc.names().size());
                        for (java.util.Map.Entry<String, String> e : new java.util.TreeMap<>(sc.names()).entrySet()) {
                            out.writeUTF(e.getKey());
                            out.writeUTF(e.getValue());
                        }
                    } else if (sc.zone() != null) {
                        out.writeUTF(sc.zone());
                    }
                }
            }
        } catch (IOException e) {
            throw new SQLException("MacroDB: cannot encode a change for the durable log: " + e.getMessage(), "XX000", e);
        }
        return bytes.toByteArray();
    }

    public static List<Change> decode(byte[] payload) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload));
        int format = in.readUnsignedByte();
        if (format != FORMAT) throw new IOException("unknown record format " + format);
        int n = in.readInt();
        List<Change> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int kind = in.readUnsignedByte();
            if (kind == 'R' || kind == 'P') {
                TableShape shape = readShape(in);
                out.add(new RowChanges(shape, readRows(in), readRows(in), readRows(in), kind == 'P'));
            } else if (kind == 'Q') {
                int m = in.readInt();
                java.util.Map<String, Long> next = new java.util.HashMap<>();
                for (int k = 0; k < m; k++) next.put(in.readUTF(), in.readLong());
                out.add(new io.macrodb.log.SequencePositions(next));
            } else if (kind == 'S' || kind == 'Z' || kind == 'N') {
                String sql = in.readUTF();
                Object[] params = readRow(in);
                boolean ddl = in.readBoolean();
                String schema = readNullableString(in);
                if (kind == 'N') {
                    String zone = readNullableString(in);
                    int m = in.readInt();
                    java.util.Map<String, String> names = new java.util.HashMap<>();
                    for (int k = 0; k < m; k++) names.put(in.readUTF(), in.readUTF());
                    out.add(new StatementChange(sql, params, ddl, schema, zone, names));
                } else {
                    out.add(new StatementChange(sql, params, ddl, schema, kind == 'Z' ? in.readUTF() : null));
                }
            } else {
                throw new IOException("unknown change kind " + kind);
            }
        }
        return out;
    }

    private static void writeShape(DataOutputStream out, TableShape s) throws IOException {
        out.writeUTF(s.schema());
        out.writeUTF(s.table());
        out.writeInt(s.columns().size());
        for (String c : s.columns()) out.writeUTF(c);
        int[] keys = s.keyIndexes();
        out.writeInt(keys.length);
        for (int k : keys) out.writeInt(k);
        out.writeBoolean(s.alwaysIdentity());
    }

    private static TableShape readShape(DataInputStream in) throws IOException {
        String schema = in.readUTF();
        String table = in.readUTF();
        int n = in.readInt();
        List<String> cols = new ArrayList<>(n);
        for (int i = 0; i < n; i++) cols.add(in.readUTF());
        int[] keys = new int[in.readInt()];
        for (int i = 0; i < keys.length; i++) keys[i] = in.readInt();
        boolean always = in.readBoolean();
        // Only what applying needs: trigger ordinals and defaults matter on the primary, not in the log.
        return new TableShape(schema, table, cols, keys, keys, cols.size(), always, null, List.of(), null, null);
    }

    private static void writeRows(DataOutputStream out, List<Object[]> rows) throws IOException {
        out.writeInt(rows.size());
        for (Object[] r : rows) writeRow(out, r);
    }

    private static List<Object[]> readRows(DataInputStream in) throws IOException {
        int n = in.readInt();
        List<Object[]> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) rows.add(readRow(in));
        return rows;
    }

    private static void writeRow(DataOutputStream out, Object[] row) throws IOException {
        ValueCodec.writeRow(out, row);
    }

    private static Object[] readRow(DataInputStream in) throws IOException {
        return ValueCodec.readRow(in);
    }

    private static void writeNullableString(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) out.writeUTF(s);
    }

    private static String readNullableString(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }
}
