package io.macrodb.engine;

import io.macrodb.log.TableShape;
import io.macrodb.sql.SqlState;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The copy of a PostgreSQL database that builds a secondary ({@link PostgresEngine#exportScript}): SQL
 * statements made from the catalog ({@code pg_get_functiondef}, {@code pg_get_constraintdef},
 * {@code pg_get_indexdef}, {@code pg_get_viewdef}) and each table's rows in COPY's binary format, which
 * PostgreSQL reads back exactly (every value in its type's own binary form). No client binary
 * ({@code pg_dump}, {@code psql}) is needed on the application's machine.
 *
 * <p>File format: a sequence of entries, {@code 'S'} + length + UTF-8 statement, {@code 'C'} + length +
 * UTF-8 {@code COPY ... FROM STDIN} + length + data, and {@code 'E'} at the end. Each table's rows are
 * held in memory once while they are written (a catch-up by {@code COPY} streaming straight from the
 * source to the target is noted as next work).
 */
final class PostgresCopy {
    private PostgresCopy() {}

    private static final String USER = PostgresCatalog.USER_SCHEMA;

    static void export(Connection c, Path file) throws SQLException, IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            write(c, out, true);
        }
    }

    /**
     * What a copy of the database of {@code c} would carry, with each table's rows as a count and two sums of 60-bit
     * slices of each row's md5 (of its text form; the caller fixes the settings the text depends on) instead of the
     * rows, computed by the server: two databases with equal fingerprints hold what two copies of either would, but for
     * a collision of those sums. Read in one snapshot by the caller's transaction.
     */
    static byte[] fingerprint(Connection c) throws SQLException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(c, out, false);
        } catch (IOException e) {
            throw new IllegalStateException(e); // in memory
        }
        return bytes.toByteArray();
    }

    /**
     * The copy's entries; {@code rows} false: each table's rows as {@link #fingerprint} counts them instead. Read with
     * {@code search_path} set to {@code pg_catalog} for the caller's transaction, so that every name the server writes
     * into a definition ({@code pg_get_constraintdef}, {@code pg_get_viewdef}, {@code format_type}, a {@code regclass}) is
     * qualified with its schema: the secondary's session resolves names on a path of its own. Before 2026-11-29 a primary
     * whose search_path reached past {@code public} ({@code ALTER DATABASE ... SET search_path = app, public}, a role's
     * setting, pgjdbc's {@code currentSchema}) had its definitions written with bare names, and the copy put a primary
     * key on another schema's table of that name, or failed, and the database could not be opened.
     */
    private static void write(Connection c, DataOutputStream out, boolean rows) throws SQLException, IOException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL search_path = pg_catalog");
        }
        refuseWhatIsNotCopied(c);
        statement(out, alikeHere(c));
        for (String schema : strings(c, "SELECT n.nspname FROM pg_namespace n WHERE " + USER + " AND n.nspname <> 'public'"
                + " ORDER BY n.oid")) {
            statement(out, "CREATE SCHEMA IF NOT EXISTS " + TableShape.quote(schema));
        }
        // extensions (their types, functions and operators come with them; one that owns tables is refused above): the
        // secondary's server must have them installed, as the primary's has
        for (String[] x : rows(c, "SELECT e.extname, n.nspname, e.extversion FROM pg_extension e JOIN pg_namespace n ON"
                + " n.oid = e.extnamespace WHERE e.extname <> 'plpgsql' ORDER BY e.oid", 3)) {
            statement(out, "CREATE EXTENSION IF NOT EXISTS " + TableShape.quote(x[0]) + " WITH SCHEMA " + TableShape.quote(x[1])
                    + " VERSION " + quote(x[2]));
        }
        // enum types, their labels in their sort order (a label added BEFORE another sorts there)
        for (String[] e : rows(c, "SELECT n.nspname, t.typname, coalesce(string_agg(quote_literal(e.enumlabel), ', ' ORDER BY"
                + " e.enumsortorder), '') FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace LEFT JOIN pg_enum e ON"
                + " e.enumtypid = t.oid WHERE " + USER + " AND t.typtype = 'e' GROUP BY n.nspname, t.typname, t.oid ORDER BY t.oid", 3)) {
            statement(out, "CREATE TYPE " + PostgresCatalog.quoted(e[0], e[1]) + " AS ENUM (" + e[2] + ")");
        }
        // domains, in creation order (a domain over an enum or another domain comes after it), with their defaults,
        // NOT NULL and named constraints
        for (String[] d : rows(c, "SELECT n.nspname, t.typname, format_type(t.typbasetype, t.typtypmod), t.typdefault, t.typnotnull,"
                + " CASE WHEN t.typcollation <> b.typcollation THEN (SELECT quote_ident(co.collname) FROM pg_collation co WHERE"
                + " co.oid = t.typcollation) END, t.oid FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_type b"
                + " ON b.oid = t.typbasetype WHERE " + USER + " AND t.typtype = 'd' ORDER BY t.oid", 7)) {
            StringBuilder ddl = new StringBuilder("CREATE DOMAIN " + PostgresCatalog.quoted(d[0], d[1]) + " AS " + d[2]);
            if (d[5] != null) ddl.append(" COLLATE ").append(d[5]);
            if (d[3] != null) ddl.append(" DEFAULT ").append(d[3]);
            if ("t".equals(d[4])) ddl.append(" NOT NULL");
            for (String[] k : rows(c, "SELECT quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint WHERE contypid = "
                    + d[6] + " AND contype = 'c' ORDER BY oid", 2)) {
                ddl.append(" CONSTRAINT ").append(k[0]).append(' ').append(k[1]);
            }
            statement(out, ddl.toString());
        }
        // composite types (not tables' row types), their attributes as declared (after the domains they may use)
        for (String[] t : rows(c, "SELECT n.nspname, t.typname, string_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid,"
                + " a.atttypmod) || CASE WHEN a.attcollation <> ty.typcollation THEN ' COLLATE ' || (SELECT quote_ident(co.collname)"
                + " FROM pg_collation co WHERE co.oid = a.attcollation) ELSE '' END, ', ' ORDER BY a.attnum) FROM pg_type t"
                + " JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_class k ON k.oid = t.typrelid AND k.relkind = 'c'"
                + " JOIN pg_attribute a ON a.attrelid = k.oid AND a.attnum > 0 AND NOT a.attisdropped JOIN pg_type ty ON ty.oid ="
                + " a.atttypid WHERE " + USER + " AND t.typtype = 'c' GROUP BY n.nspname, t.typname, t.oid ORDER BY t.oid", 3)) {
            statement(out, "CREATE TYPE " + PostgresCatalog.quoted(t[0], t[1]) + " AS (" + t[2] + ")");
        }
        // sequences of their own and serial columns' (identity columns make theirs with the table)
        List<String[]> sequences = rows(c, "SELECT n.nspname, c.relname, format_type(s.seqtypid, NULL), s.seqincrement, s.seqmin,"
                + " s.seqmax, s.seqstart, s.seqcache, s.seqcycle FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE " + USER + " AND NOT EXISTS (SELECT 1 FROM pg_depend d"
                + " WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'i') ORDER BY c.oid", 9);
        for (String[] q : sequences) {
            statement(out, "CREATE SEQUENCE " + PostgresCatalog.quoted(q[0], q[1]) + " AS " + q[2] + " INCREMENT BY " + q[3]
                    + " MINVALUE " + q[4] + " MAXVALUE " + q[5] + " START WITH " + q[6] + " CACHE " + q[7]
                    + ("t".equals(q[8]) ? " CYCLE" : " NO CYCLE"));
        }
        for (String def : strings(c, "SELECT pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE " + USER + " AND p.prokind IN ('f', 'p') AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE"
                + " d.objid = p.oid AND d.deptype = 'e') ORDER BY p.oid")) {
            statement(out, def);
        }
        // tables, partitioned ones ('p', which hold no rows) and their partitions among them: each made with its own
        // columns (a partition's defaults may differ from its parent's), then attached to its parent with its bounds
        List<String[]> tables = rows(c, "SELECT n.nspname, c.relname, c.oid, c.relkind, pg_get_partkeydef(c.oid), CASE WHEN"
                + " c.relispartition THEN (SELECT format('%I.%I', pn.nspname, p.relname) FROM pg_inherits i JOIN pg_class p ON"
                + " p.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace WHERE i.inhrelid = c.oid) END,"
                + " pg_get_expr(c.relpartbound, c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE"
                + " c.relkind IN ('r', 'p') AND " + USER + " ORDER BY c.oid", 7);
        List<String> copyColumns = new ArrayList<>();
        List<String> attachments = new ArrayList<>();
        for (String[] t : tables) {
            StringBuilder ddl = new StringBuilder("CREATE TABLE " + PostgresCatalog.quoted(t[0], t[1]) + " (");
            StringBuilder cols = new StringBuilder();
            List<String[]> columns = rows(c, "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity,"
                    + " a.attgenerated, pg_get_expr(d.adbin, d.adrelid), CASE WHEN a.attcollation <> ty.typcollation THEN"
                    + " (SELECT quote_ident(co.collname) FROM pg_collation co WHERE co.oid = a.attcollation) END, (SELECT"
                    + " ' (INCREMENT BY ' || s.seqincrement || ' MINVALUE ' || s.seqmin || ' MAXVALUE ' || s.seqmax || ' START WITH '"
                    + " || s.seqstart || ' CACHE ' || s.seqcache || CASE WHEN s.seqcycle THEN ' CYCLE)' ELSE ' NO CYCLE)' END"
                    + " FROM pg_depend q JOIN pg_sequence s ON s.seqrelid = q.objid WHERE q.classid = 'pg_class'::regclass AND"
                    + " q.refobjid = a.attrelid AND q.refobjsubid = a.attnum AND q.deptype = 'i')"
                    + " FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid LEFT JOIN pg_attrdef d ON d.adrelid ="
                    + " a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = " + t[2] + " AND a.attnum > 0 AND NOT"
                    + " a.attisdropped ORDER BY a.attnum", 8);
            boolean first = true;
            for (String[] col : columns) {
                ddl.append(first ? "" : ", ").append(TableShape.quote(col[0])).append(' ').append(col[1]);
                if (col[6] != null) ddl.append(" COLLATE ").append(col[6]);
                boolean generated = col[4] != null && !col[4].isEmpty();
                if (generated) ddl.append(" GENERATED ALWAYS AS (").append(col[5]).append(") STORED");
                // with its sequence's options: a copy that left them out counted by 1 from 1 after a promotion
                else if ("a".equals(col[3])) ddl.append(" GENERATED ALWAYS AS IDENTITY").append(col[7] == null ? "" : col[7]);
                else if ("d".equals(col[3])) ddl.append(" GENERATED BY DEFAULT AS IDENTITY").append(col[7] == null ? "" : col[7]);
                else if (col[5] != null) ddl.append(" DEFAULT ").append(col[5]);
                if ("t".equals(col[2])) ddl.append(" NOT NULL");
                if (!generated) cols.append(cols.length() == 0 ? "" : ", ").append(TableShape.quote(col[0]));
                first = false;
            }
            // valid check constraints with the table: a partition must have its parent's when it is attached
            for (String[] k : rows(c, "SELECT quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = "
                    + t[2] + " AND contype = 'c' AND convalidated ORDER BY oid", 2)) {
                ddl.append(first ? "" : ", ").append("CONSTRAINT ").append(k[0]).append(' ').append(k[1]);
                first = false;
            }
            ddl.append(')');
            if ("p".equals(t[3])) ddl.append(" PARTITION BY ").append(t[4]);
            statement(out, ddl.toString());
            copyColumns.add("p".equals(t[3]) ? "" : cols.toString());
            if (t[5] != null) {
                attachments.add("ALTER TABLE " + t[5] + " ATTACH PARTITION " + PostgresCatalog.quoted(t[0], t[1]) + " " + t[6]);
            }
        }
        for (String attach : attachments) statement(out, attach);
        for (int i = 0; i < tables.size(); i++) {
            String[] t = tables.get(i);
            if (copyColumns.get(i).isEmpty()) continue;
            String target = PostgresCatalog.quoted(t[0], t[1]) + " (" + copyColumns.get(i) + ")";
            if (!rows) {
                String[] sums = rows(c, "SELECT count(*), coalesce(sum(('x' || substr(h, 1, 15))::bit(60)::bigint), 0),"
                        + " coalesce(sum(('x' || substr(h, 16, 15))::bit(60)::bigint), 0) FROM (SELECT md5(ROW(" + copyColumns.get(i)
                        + ")::text) h FROM " + PostgresCatalog.quoted(t[0], t[1]) + ") q", 3).get(0);
                statement(out, "-- rows of " + target + ": " + String.join(" ", sums));
                continue;
            }
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            c.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyOut("COPY " + target + " TO STDOUT (FORMAT binary)", data);
            byte[] sql = ("COPY " + target + " FROM STDIN (FORMAT binary)").getBytes(StandardCharsets.UTF_8);
            out.writeByte('C');
            out.writeInt(sql.length);
            out.write(sql);
            out.writeInt(data.size());
            data.writeTo(out);
        }
        // sequence positions, identity columns' included; not in a fingerprint: a secondary's sequences stay where the
        // copy set them (MacroDB keeps the positions for a promotion), so a kept secondary is given the primary's
        for (Position p : sequencePositions(c)) statement(out, rows ? p.setval() : "-- a position of " + p.target());
        // serial columns' sequences belong to their columns
        for (String[] q : rows(c, "SELECT n.nspname, c.relname, d.refobjid::regclass::text, a.attname FROM pg_depend d"
                + " JOIN pg_class c ON c.oid = d.objid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON"
                + " a.attrelid = d.refobjid AND a.attnum = d.refobjsubid WHERE d.classid = 'pg_class'::regclass AND c.relkind = 'S'"
                + " AND d.deptype = 'a' AND d.refobjsubid > 0 AND " + USER, 4)) {
            statement(out, "ALTER SEQUENCE " + PostgresCatalog.quoted(q[0], q[1]) + " OWNED BY " + q[2] + "." + TableShape.quote(q[3]));
        }
        // constraints: keys, unique, exclusion and check constraints not validated; then the indexes; then foreign keys.
        // As pg_dump makes them, a partitioned table's key or index is made on it alone (ONLY), each partition's is made
        // with the partition's own name, and then attached to its parent's. A check constraint not validated, or a
        // foreign key, is made on the partitioned table and reaches its partitions from there (theirs are left out).
        for (String[] q : rows(c, "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid), c.contype IN ('p', 'u',"
                + " 'x') FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace"
                + " WHERE " + USER + " AND r.relkind IN ('r', 'p') AND (c.contype IN ('p', 'u', 'x') OR c.contype = 'c' AND"
                + " NOT c.convalidated AND c.coninhcount = 0) ORDER BY c.oid", 4)) {
            statement(out, "ALTER TABLE " + ("t".equals(q[3]) ? "ONLY " : "") + q[0] + " ADD CONSTRAINT " + TableShape.quote(q[1])
                    + " " + q[2]);
        }
        for (String def : strings(c, "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class r ON r.oid = i.indrelid"
                + " JOIN pg_namespace n ON n.oid = r.relnamespace WHERE " + USER + " AND r.relkind IN ('r', 'p') AND NOT EXISTS"
                + " (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))"
                + " ORDER BY i.indexrelid")) {
            statement(out, def);
        }
        for (String attach : strings(c, "SELECT format('ALTER INDEX %I.%I ATTACH PARTITION %I.%I', pn.nspname, p.relname,"
                + " n.nspname, x.relname) FROM pg_inherits i JOIN pg_class x ON x.oid = i.inhrelid JOIN pg_namespace n ON"
                + " n.oid = x.relnamespace JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace"
                + " WHERE x.relkind IN ('i', 'I') AND " + USER + " ORDER BY i.inhrelid")) {
            statement(out, attach);
        }
        for (String[] q : rows(c, "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c"
                + " JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace WHERE " + USER
                + " AND r.relkind IN ('r', 'p') AND c.contype = 'f' AND c.conparentid = 0 ORDER BY c.oid", 3)) {
            statement(out, "ALTER TABLE " + q[0] + " ADD CONSTRAINT " + TableShape.quote(q[1]) + " " + q[2]);
        }
        // views with their options (check_option, security_barrier, security_invoker: what a write through the view is
        // checked against, and whose privileges and row security a read through it uses)
        for (String[] q : rows(c, "SELECT n.nspname, c.relname, pg_get_viewdef(c.oid), array_to_string(c.reloptions, ', ')"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'v' AND " + USER
                + " ORDER BY c.oid", 4)) {
            statement(out, "CREATE VIEW " + PostgresCatalog.quoted(q[0], q[1]) + (q[3] == null || q[3].isEmpty() ? "" : " WITH (" + q[3] + ")")
                    + " AS " + q[2]);
        }
        rowSecurity(c, out);
        rules(c, out);
        comments(c, out);
        grants(c, out);
        routinePrivileges(c, out);
        owners(c, out);
        defaultPrivileges(c, out);
        eventTriggers(c, out);
        out.writeByte('E');
    }

    /**
     * Row security: tables that have it enabled (and forced), and their policies. Without them a secondary showed a
     * role every row that the primary's policies hid from it. A policy names roles, and a role is per server: the roles
     * a secondary's server lacks are left out of it there, and a policy none of whose roles that server has is left out
     * (no session there can be any of them, so it would hide nothing from anyone), with a notice.
     */
    private static void rowSecurity(Connection c, DataOutputStream out) throws SQLException, IOException {
        for (String[] t : rows(c, "SELECT format('%I.%I', n.nspname, c.relname), c.relforcerowsecurity FROM pg_class c JOIN"
                + " pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND c.relrowsecurity AND " + USER
                + " ORDER BY c.oid", 2)) {
            statement(out, "ALTER TABLE " + t[0] + " ENABLE ROW LEVEL SECURITY");
            if ("t".equals(t[1])) statement(out, "ALTER TABLE " + t[0] + " FORCE ROW LEVEL SECURITY");
        }
        for (String[] p : rows(c, "SELECT format('CREATE POLICY %I ON %I.%I AS %s FOR %s TO ', p.polname, n.nspname, c.relname,"
                + " CASE WHEN p.polpermissive THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END, CASE p.polcmd WHEN 'r' THEN 'SELECT'"
                + " WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE' WHEN 'd' THEN 'DELETE' ELSE 'ALL' END),"
                + " coalesce(' USING (' || pg_get_expr(p.polqual, p.polrelid) || ')', '')"
                + " || coalesce(' WITH CHECK (' || pg_get_expr(p.polwithcheck, p.polrelid) || ')', ''),"
                + " 0 = ANY (p.polroles), (SELECT string_agg(quote_literal(r.rolname), ', ' ORDER BY r.rolname) FROM pg_roles r"
                + " WHERE r.oid = ANY (p.polroles)) FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE " + USER + " ORDER BY p.oid", 4)) {
            if ("t".equals(p[2]) || p[3] == null) {
                statement(out, p[0] + "PUBLIC" + p[1]);
                continue;
            }
            statement(out, "DO $macrodb$ DECLARE present text; BEGIN SELECT string_agg(quote_ident(x), ', ') INTO present FROM"
                    + " unnest(ARRAY[" + p[3] + "]) x WHERE EXISTS (SELECT 1 FROM pg_roles WHERE rolname = x); IF present IS NULL"
                    + " THEN RAISE NOTICE 'MacroDB: none of the roles of this policy is on this server; not copied: %', "
                    + quote(p[0] + p[1]) + "; ELSE EXECUTE " + quote(p[0]) + " || present || " + quote(p[1]) + "; END IF; END $macrodb$");
        }
    }

    /**
     * The rules on tables and views other than a view's own ({@code _RETURN}), and a rule's state if it is disabled. A
     * rule enabled for replicas or always is refused ({@link #refuseWhatIsNotCopied}): it would fire where MacroDB applies
     * rows. A secondary applies as a replica, so an ordinary rule fires there only once the secondary is promoted.
     */
    private static void rules(Connection c, DataOutputStream out) throws SQLException, IOException {
        for (String[] r : rows(c, "SELECT pg_get_ruledef(r.oid), format('ALTER TABLE %I.%I DISABLE RULE %I', n.nspname, c.relname,"
                + " r.rulename), r.ev_enabled FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON"
                + " n.oid = c.relnamespace WHERE r.rulename <> '_RETURN' AND " + USER + " ORDER BY r.oid", 3)) {
            statement(out, r[0]);
            if ("D".equals(r[2])) statement(out, r[1]);
        }
    }

    /**
     * The comments on schemas, tables, views, sequences, indexes, their columns, constraints, functions and types (not on
     * the members of an extension, which come with it).
     */
    private static void comments(Connection c, DataOutputStream out) throws SQLException, IOException {
        for (String[] d : rows(c, "SELECT target, description FROM ("
                + "SELECT CASE WHEN d.objsubid > 0 THEN format('COLUMN %I.%I.%I', n.nspname, k.relname, a.attname)"
                + " ELSE format('%s %I.%I', CASE k.relkind WHEN 'v' THEN 'VIEW' WHEN 'S' THEN 'SEQUENCE' WHEN 'i' THEN 'INDEX'"
                + " WHEN 'I' THEN 'INDEX' ELSE 'TABLE' END, n.nspname, k.relname) END AS target, d.description, d.classoid, d.objoid, d.objsubid"
                + " FROM pg_description d JOIN pg_class k ON k.oid = d.objoid JOIN pg_namespace n ON n.oid = k.relnamespace"
                + " LEFT JOIN pg_attribute a ON a.attrelid = k.oid AND a.attnum = d.objsubid WHERE d.classoid ="
                + " 'pg_class'::regclass AND k.relkind IN ('r', 'p', 'v', 'S', 'i', 'I') AND " + USER
                + " UNION ALL SELECT format('SCHEMA %I', n.nspname), d.description, d.classoid, d.objoid, 0 FROM pg_description d"
                + " JOIN pg_namespace n ON n.oid = d.objoid WHERE d.classoid = 'pg_namespace'::regclass AND " + USER
                + " UNION ALL SELECT format('CONSTRAINT %I ON %s', k.conname, k.conrelid::regclass), d.description, d.classoid,"
                + " d.objoid, 0 FROM pg_description d JOIN pg_constraint k ON k.oid = d.objoid JOIN pg_namespace n ON"
                + " n.oid = k.connamespace WHERE d.classoid = 'pg_constraint'::regclass AND k.conrelid <> 0 AND " + USER
                + " UNION ALL SELECT 'ROUTINE ' || p.oid::regprocedure, d.description, d.classoid, d.objoid, 0 FROM pg_description d"
                + " JOIN pg_proc p ON p.oid = d.objoid JOIN pg_namespace n ON n.oid = p.pronamespace WHERE d.classoid ="
                + " 'pg_proc'::regclass AND " + USER
                + " UNION ALL SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN ' ELSE 'TYPE ' END || format('%I.%I', n.nspname,"
                + " t.typname), d.description, d.classoid, d.objoid, 0 FROM pg_description d JOIN pg_type t ON t.oid = d.objoid"
                + " JOIN pg_namespace n ON n.oid = t.typnamespace WHERE d.classoid = 'pg_type'::regclass AND " + USER
                + ") q WHERE NOT EXISTS (SELECT 1 FROM pg_depend x WHERE x.classid = q.classoid AND x.objid = q.objoid AND"
                + " x.deptype = 'e') ORDER BY q.classoid, q.objoid, q.objsubid", 2)) {
            statement(out, "COMMENT ON " + d[0] + " IS " + quote(d[1]));
        }
    }

    /** A sequence, as {@code setval} names it, and the statement that sets it where it is. */
    record Position(String target, String setval) {}

    /** Every sequence of the database of {@code c} and where it is now, identity columns' included. */
    static List<Position> sequencePositions(Connection c) throws SQLException {
        List<Position> out = new ArrayList<>();
        for (String[] q : rows(c, "SELECT n.nspname, c.relname, COALESCE(d.refobjid::regclass::text, ''), COALESCE((SELECT"
                + " a.attname FROM pg_attribute a WHERE a.attrelid = d.refobjid AND a.attnum = d.refobjsubid), '') FROM pg_class c"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass"
                + " AND d.objid = c.oid AND d.deptype = 'i' WHERE c.relkind = 'S' AND " + USER + " ORDER BY c.oid", 4)) {
            String seq = PostgresCatalog.quoted(q[0], q[1]);
            String[] pos = rows(c, "SELECT last_value, is_called FROM " + seq, 2).get(0);
            String target = q[2].isEmpty() ? "'" + seq.replace("'", "''") + "'"
                    : "pg_get_serial_sequence('" + q[2].replace("'", "''") + "', '" + q[3].replace("'", "''") + "')";
            out.add(new Position(target, "SELECT setval(" + target + ", " + pos[0] + ", " + ("t".equals(pos[1])) + ")"));
        }
        return out;
    }

    /**
     * Objects this copy does not make, and tables whose rows it could not all read ({@link #hiddenByRowSecurity}):
     * refused with the objects named, nothing changed.
     */
    static void refuseWhatIsNotCopied(Connection c) throws SQLException {
        List<String> found = notCopied(c);
        if (!found.isEmpty()) {
            throw new SQLFeatureNotSupportedException("MacroDB: the primary holds objects that MacroDB cannot copy to a PostgreSQL"
                    + " secondary yet: " + String.join(", ", found) + ". " + COPIED + "; remove the others or replicate another database",
                    SqlState.FEATURE_NOT_OFFERED.getState());
        }
        refuseRowSecurity(c, "the primary holds");
    }

    /**
     * Refuses, with {@code 0AM00}, a database with tables whose row security applies to MacroDB's user ({@link
     * #hiddenByRowSecurity}); {@code what} begins the message ("the primary holds", "after this schema change the
     * database would hold").
     */
    static void refuseRowSecurity(Connection c, String what) throws SQLException {
        List<String> found = hiddenByRowSecurity(c);
        if (found.isEmpty()) return;
        throw new SQLFeatureNotSupportedException("MacroDB: " + what + " tables whose row security applies to the user MacroDB"
                + " connects as: " + String.join(", ", found) + ". MacroDB reads and writes every row of a table as that user (the"
                + " copy to a secondary, the commit's read-back of changed rows, the secondaries' apply), and the policies would"
                + " hide rows from it: a copy would leave them out, and the secondaries would diverge from the primary. Connect as"
                + " the tables' owner with row security not forced on them (ALTER TABLE ... NO FORCE ROW LEVEL SECURITY), or as a"
                + " role with BYPASSRLS; the application's statements then pass the policies too. Nothing was changed",
                SqlState.FEATURE_NOT_OFFERED.getState());
    }

    /**
     * Up to 20 tables of the database of {@code c}, as {@code schema.table (why)}, whose row security applies to the session
     * user or the current user of {@code c}: enabled on the table, the user neither a superuser nor {@code BYPASSRLS}, and
     * either not of the table's owner's privileges or row security forced on the table ({@code FORCE ROW LEVEL SECURITY}).
     * PostgreSQL applies the policies to every query of such a user, MacroDB's own among them: before 2026-11-29 a copy
     * made as such a user (a {@code COPY} applies the policies) left out every row they hid, and the secondaries held
     * none of them (PostgresRowSecurityTest). The test is PostgreSQL's own ({@code check_enable_rls}), written out rather
     * than asked through {@code row_security_active}, which answers no where the session set {@code row_security} off.
     */
    static List<String> hiddenByRowSecurity(Connection c) throws SQLException {
        return strings(c, "SELECT DISTINCT format('%I.%I (%s; user %I)', n.nspname, c.relname, CASE WHEN"
                + " c.relforcerowsecurity THEN 'forced on its owner too' ELSE 'enabled, and the user is not its owner' END, u.rolname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " JOIN pg_roles u ON u.rolname IN (session_user, current_user) WHERE c.relkind IN ('r', 'p') AND c.relrowsecurity"
                + " AND NOT u.rolsuper AND NOT u.rolbypassrls AND (c.relforcerowsecurity OR NOT pg_has_role(u.oid, c.relowner,"
                + " 'USAGE')) AND " + USER + " ORDER BY 1 LIMIT 20");
    }

    /** The database of the session, as a {@code pg_database} row in JSON (columns differ between PostgreSQL's versions). */
    private static final String DATABASE = "(SELECT to_jsonb(d) FROM pg_database d WHERE d.datname = current_database())";

    /**
     * What a query's result depends on besides the rows and the schema, by name, with the SQL that reads it in a session:
     * the database's encoding and locale, which no session can change (the order of {@code ORDER BY name}, what {@code
     * name < 'b'} and {@code upper} and {@code ~*} answer), and the settings a session starts with ({@code reset_val}: from
     * the server's configuration, the database's and the role's {@code SET}s and pgjdbc's startup parameters, whatever the
     * session set since) that decide which table a name is, how a value is written, or what a comparison answers.
     */
    private static final List<String[]> ALIKE = alike();

    private static List<String[]> alike() {
        List<String[]> out = new ArrayList<>();
        out.add(new String[] {"ENCODING", "pg_encoding_to_char((" + DATABASE + " ->> 'encoding')::int)::text"});
        out.add(new String[] {"LOCALE_PROVIDER", DATABASE + " ->> 'datlocprovider'"});
        out.add(new String[] {"LC_COLLATE", DATABASE + " ->> 'datcollate'"});
        out.add(new String[] {"LC_CTYPE", DATABASE + " ->> 'datctype'"});
        out.add(new String[] {"ICU_LOCALE", "coalesce(" + DATABASE + " ->> 'datlocale', " + DATABASE + " ->> 'daticulocale')"});
        out.add(new String[] {"ICU_RULES", DATABASE + " ->> 'daticurules'"});
        for (String setting : List.of("search_path", "TimeZone", "DateStyle", "IntervalStyle", "lc_monetary", "lc_numeric", "lc_time",
                "default_text_search_config", "standard_conforming_strings", "bytea_output", "extra_float_digits", "array_nulls",
                "transform_null_equals", "xmloption", "xmlbinary", "timezone_abbreviations", "row_security")) {
            out.add(new String[] {setting, "(SELECT reset_val FROM pg_settings WHERE name = " + quote(setting) + ")"});
        }
        return out;
    }

    /**
     * A statement that the copy's import runs first, on the secondary: it fails with {@code 55000}, naming each
     * difference, where the secondary's database differs from the primary's in {@link #ALIKE}, as read here. In a
     * fingerprint each side writes its own values, so a kept secondary that differs is copied again, and refused then.
     * Before 2026-11-29 nothing compared them: a secondary database made with another collation sorted {@code ORDER BY}
     * otherwise, and the same read through MacroDB came back in either order as it was routed; one without the
     * primary's {@code ALTER DATABASE ... SET search_path} resolved names in other schemas (PostgresSearchPathTest).
     */
    static String alikeHere(Connection c) throws SQLException {
        StringBuilder read = new StringBuilder("SELECT ");
        for (int i = 0; i < ALIKE.size(); i++) read.append(i == 0 ? "" : ", ").append(ALIKE.get(i)[1]);
        String[] here = rows(c, read.toString(), ALIKE.size()).get(0);
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < ALIKE.size(); i++) {
            values.append(i == 0 ? "" : ", ").append('(').append(i).append(", ").append(quote(ALIKE.get(i)[0])).append(", ")
                    .append(ALIKE.get(i)[1]).append(", ").append(here[i] == null ? "NULL" : quote(here[i])).append("::text)");
        }
        return "DO $macrodb$ DECLARE differ text; BEGIN SELECT string_agg(format('%s is %s here and %s on the primary', p.name,"
                + " coalesce(quote_literal(p.here), 'not set'), coalesce(quote_literal(p.there), 'not set')), '; ' ORDER BY p.n)"
                + " INTO differ FROM (VALUES " + values + ") AS p (n, name, here, there) WHERE p.here IS DISTINCT FROM p.there;"
                + " IF differ IS NOT NULL THEN RAISE EXCEPTION USING ERRCODE = '55000', MESSAGE = format('MacroDB: secondary"
                + " database %I (server port %s) differs from the primary in what a query''s result depends on: %s. A read that"
                + " MacroDB sent there would return what the primary would not (rows in another order, other rows, other text)."
                + " Make that database with the primary''s encoding and locale (CREATE DATABASE ... TEMPLATE template0 ENCODING ..."
                + " LOCALE_PROVIDER ... LC_COLLATE ... LC_CTYPE ...), give it the primary''s settings (ALTER DATABASE ... SET, or"
                + " the server''s postgresql.conf), and connect again. Nothing was changed there', current_database(),"
                + " inet_server_port(), differ); END IF; END $macrodb$";
    }

    /** What a copy carries, as the refusals say it. */
    static final String COPIED = "It copies schemas, extensions, enum and composite types, domains, tables (partitioned ones and their"
            + " partitions among them), sequences, functions,"
            + " constraints, indexes, views, row security and its policies, rules, event triggers, comments and grants";

    /**
     * Up to 20 objects of the database of {@code c} that a copy would leave out or could not make, described ("materialized
     * view public.mv"); none if it can be copied. Besides what the copy has no statement for:
     * <ul>
     * <li>a table that inherits from another ({@code INHERITS}, not a partition): a copy made it a table of its own, and a
     * read of the parent on that secondary left the child's rows out;
     * <li>aggregates, operators, casts and collations of the application's own (not an extension's), which the copy does
     * not make: a secondary would fail the reads that use them, or resolve a cast differently;
     * <li>a rule enabled for replicas or always ({@code ALTER TABLE ... ENABLE ALWAYS RULE}): it would fire on a
     * secondary as MacroDB applies the rows, which already carry its effects; so is an event trigger enabled so, which
     * would fire as MacroDB applies a schema change there.
     * </ul>
     */
    static List<String> notCopied(Connection c) throws SQLException {
        String notOfAnExtension = " AND NOT EXISTS (SELECT 1 FROM pg_depend x WHERE x.objid = %s AND x.deptype = 'e')";
        return strings(c, "SELECT format('%s %I.%I', CASE c.relkind WHEN 'm' THEN 'materialized view' WHEN 'f' THEN"
                + " 'foreign table' END, n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE c.relkind IN ('m', 'f') AND " + USER
                + " UNION ALL SELECT format('type %I.%I', n.nspname, t.typname) FROM pg_type t JOIN pg_namespace n ON n.oid ="
                + " t.typnamespace WHERE " + USER + " AND t.typtype IN ('r', 'm', 'b') AND NOT EXISTS (SELECT 1 FROM pg_depend d"
                + " WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e') AND (t.typtype <> 'c' OR"
                + " (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c') AND t.typelem = 0"
                + " UNION ALL SELECT format('extension %I (it owns tables)', e.extname) FROM pg_extension e WHERE EXISTS (SELECT 1 FROM"
                + " pg_depend d WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid AND d.classid = 'pg_class'::regclass"
                + " AND d.deptype = 'e')"
                + " UNION ALL SELECT format('unlogged table %I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE c.relpersistence = 'u' AND c.relkind IN ('r', 'p') AND " + USER
                + " UNION ALL SELECT format('inherited table %I.%I (INHERITS %s)', n.nspname, c.relname, i.inhparent::regclass)"
                + " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE NOT c.relispartition AND " + USER
                + " UNION ALL SELECT format('%s %s', CASE p.prokind WHEN 'a' THEN 'aggregate' ELSE 'window function' END,"
                + " p.oid::regprocedure) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.prokind IN ('a', 'w')"
                + " AND " + USER + String.format(notOfAnExtension, "p.oid")
                + " UNION ALL SELECT format('operator %s', o.oid::regoperator) FROM pg_operator o JOIN pg_namespace n ON"
                + " n.oid = o.oprnamespace WHERE " + USER + String.format(notOfAnExtension, "o.oid")
                + " UNION ALL SELECT format('cast (%s AS %s)', format_type(k.castsource, NULL), format_type(k.casttarget, NULL))"
                + " FROM pg_cast k WHERE k.oid >= 16384" + String.format(notOfAnExtension, "k.oid")
                + " UNION ALL SELECT format('collation %I.%I', n.nspname, k.collname) FROM pg_collation k JOIN pg_namespace n ON"
                + " n.oid = k.collnamespace WHERE " + USER + String.format(notOfAnExtension, "k.oid")
                + " UNION ALL SELECT format('rule %I on %I.%I (enabled %s)', r.rulename, n.nspname, c.relname, CASE r.ev_enabled"
                + " WHEN 'A' THEN 'always' ELSE 'for replicas' END) FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN"
                + " pg_namespace n ON n.oid = c.relnamespace WHERE r.ev_enabled IN ('A', 'R') AND " + USER
                + " UNION ALL SELECT format('event trigger %I (enabled %s)', e.evtname, CASE e.evtenabled WHEN 'A' THEN 'always'"
                + " ELSE 'for replicas' END) FROM pg_event_trigger e WHERE e.evtenabled IN ('A', 'R')"
                + String.format(notOfAnExtension, "e.oid") + " LIMIT 20");
    }

    /**
     * Reads a copy into the (emptied) database of {@code c}, in the caller's transaction. The copy's statements come in
     * the order of their kinds (types, functions, tables, ..., views), each kind in the order its objects were first
     * made; an object can need one made after it (a view replaced to read a later view, a function returning a later
     * table's rows, a composite type given an attribute of a later type). Such a statement is set aside when what it
     * needs is missing ({@link #MISSING}), and run again after each statement that made something, until it runs; one
     * that never does fails the import with its own error.
     */
    static void importInto(Connection c, Path file) throws SQLException, IOException {
        wipe(c);
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL check_function_bodies = off");
        }
        List<String> waiting = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            while (true) {
                int kind = in.readByte();
                if (kind == 'E') break;
                String sql = new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8);
                if (kind == 'S') {
                    if (runOrSetAside(c, sql, waiting)) runWaiting(c, waiting);
                } else if (kind == 'C') {
                    byte[] data = in.readNBytes(in.readInt());
                    c.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyIn(sql, new ByteArrayInputStream(data));
                } else {
                    throw new IOException("not a MacroDB copy of a PostgreSQL database (entry " + kind + ")");
                }
            }
        }
        for (String sql : waiting) {
            try (Statement s = c.createStatement()) {
                s.execute(sql); // what it needs was never made: its own error
            }
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS macrodb");
            s.execute("CREATE TABLE macrodb.replica (since timestamptz NOT NULL DEFAULT now())");
            s.execute("INSERT INTO macrodb.replica DEFAULT VALUES");
        }
    }

    /**
     * What a statement of a copy fails with when an object it needs is not made yet: undefined table, object (a type),
     * function, or schema.
     */
    private static final java.util.Set<String> MISSING = java.util.Set.of("42P01", "42704", "42883", "3F000");

    /**
     * Runs {@code sql} in a savepoint; where it fails because an object it needs is missing ({@link #MISSING}), rolls it
     * back and returns false, after adding it to {@code waiting} unless that is null. Any other failure is thrown.
     */
    private static boolean runOrSetAside(Connection c, String sql, List<String> waiting) throws SQLException {
        java.sql.Savepoint before = c.setSavepoint();
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            if (!MISSING.contains(e.getSQLState())) throw e;
            c.rollback(before);
            if (waiting != null) waiting.add(sql);
            return false;
        }
        c.releaseSavepoint(before);
        return true;
    }

    /** Runs the statements set aside that can run now, in their order, until a round runs none. */
    private static void runWaiting(Connection c, List<String> waiting) throws SQLException {
        for (boolean ran = true; ran && !waiting.isEmpty(); ) {
            ran = false;
            for (int i = 0; i < waiting.size(); ) {
                if (runOrSetAside(c, waiting.get(i), null)) {
                    waiting.remove(i);
                    ran = true;
                } else {
                    i++;
                }
            }
        }
    }

    /** Removes every user object of the database (a secondary about to receive a copy) and MacroDB's schema. */
    private static void wipe(Connection c) throws SQLException {
        List<String> drops = new ArrayList<>();
        for (String e : strings(c, "SELECT quote_ident(e.evtname) FROM pg_event_trigger e WHERE NOT EXISTS (SELECT 1 FROM pg_depend d"
                + " WHERE d.classid = 'pg_event_trigger'::regclass AND d.objid = e.oid AND d.deptype = 'e')")) {
            drops.add("DROP EVENT TRIGGER IF EXISTS " + e);
        }
        drops.add("DROP SCHEMA IF EXISTS macrodb CASCADE");
        for (String x : strings(c, "SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'")) {
            drops.add("DROP EXTENSION IF EXISTS " + TableShape.quote(x) + " CASCADE");
        }
        for (String schema : strings(c, "SELECT n.nspname FROM pg_namespace n WHERE " + USER + " AND n.nspname <> 'public'")) {
            drops.add("DROP SCHEMA " + TableShape.quote(schema) + " CASCADE");
        }
        for (String[] q : rows(c, "SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN"
                + " 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, c.relname FROM pg_class c JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')"
                + " AND NOT c.relispartition ORDER BY c.relkind = 'S'", 2)) {
            drops.add("DROP " + q[0] + " IF EXISTS public." + TableShape.quote(q[1]) + " CASCADE");
        }
        for (String sig : strings(c, "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')")) {
            drops.add("DROP ROUTINE IF EXISTS " + sig + " CASCADE");
        }
        for (String type : strings(c, "SELECT format('%I.%I', n.nspname, t.typname) FROM pg_type t JOIN pg_namespace n ON"
                + " n.oid = t.typnamespace WHERE n.nspname = 'public' AND (t.typtype IN ('e', 'd', 'r', 'm') OR t.typtype = 'c' AND"
                + " (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')")) {
            drops.add("DROP TYPE IF EXISTS " + type + " CASCADE");
        }
        try (Statement s = c.createStatement()) {
            for (String d : drops) s.execute(d);
        }
    }

    /**
     * The privileges granted on the user schemas, tables, views and sequences to roles other than the owner: the copy's
     * objects belong to the user that makes it, and without them another role (a reporting user, say) could not read
     * a secondary, nor the primary once a secondary is promoted. A role is per server: a grant to a role the secondary's
     * server does not have is left out there (with a notice), not failed. Functions keep PostgreSQL's default (EXECUTE
     * for PUBLIC).
     */
    private static void grants(Connection c, DataOutputStream out) throws SQLException, IOException {
        String grantee = "CASE WHEN a.grantee = 0 THEN NULL ELSE r.rolname END";
        String to = "CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END || CASE WHEN a.is_grantable THEN"
                + " ' WITH GRANT OPTION' ELSE '' END";
        List<String[]> all = new ArrayList<>(rows(c, "SELECT 'GRANT ' || a.privilege_type || ' ON SCHEMA ' || quote_ident(n.nspname) || ' TO ' || "
                + to + ", " + grantee + " FROM pg_namespace n, aclexplode(n.nspacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee"
                + " WHERE " + USER + " AND n.nspacl IS NOT NULL AND a.grantee <> n.nspowner ORDER BY n.oid", 2));
        all.addAll(rows(c, "SELECT 'GRANT ' || a.privilege_type || ' ON ' || CASE k.relkind WHEN 'S' THEN 'SEQUENCE ' ELSE 'TABLE ' END"
                + " || format('%I.%I', n.nspname, k.relname) || ' TO ' || " + to + ", " + grantee + " FROM pg_class k JOIN pg_namespace n"
                + " ON n.oid = k.relnamespace, aclexplode(k.relacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee WHERE " + USER
                + " AND k.relkind IN ('r', 'p', 'v', 'S') AND k.relacl IS NOT NULL AND a.grantee <> k.relowner ORDER BY k.oid", 2));
        for (String[] g : all) {
            if (g[1] == null) {
                statement(out, g[0]);
            } else {
                String role = quote(g[1]);
                statement(out, "DO $macrodb$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = " + role + ") THEN EXECUTE "
                        + quote(g[0]) + "; ELSE RAISE NOTICE 'MacroDB: role % is not on this server; not copied: %', " + role + ", "
                        + quote(g[0]) + "; END IF; END $macrodb$");
            }
        }
    }

    /**
     * Who may run each function and procedure: one whose privileges were changed has them in full (PostgreSQL's default,
     * {@code EXECUTE} for PUBLIC, replaced), so the copy revokes PUBLIC's and grants each. A copy kept the default, and
     * any role could run on a secondary (and on the primary once it was promoted) what the primary let only some run.
     */
    private static void routinePrivileges(Connection c, DataOutputStream out) throws SQLException, IOException {
        String routine = "CASE p.prokind WHEN 'p' THEN 'PROCEDURE ' ELSE 'FUNCTION ' END || format('%I.%I(%s)', n.nspname, p.proname,"
                + " pg_get_function_identity_arguments(p.oid))";
        String routines = " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE " + USER + " AND p.prokind IN"
                + " ('f', 'p') AND p.proacl IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND"
                + " d.deptype = 'e')";
        for (String revoke : strings(c, "SELECT 'REVOKE ALL ON ' || " + routine + " || ' FROM PUBLIC'" + routines + " ORDER BY p.oid")) {
            statement(out, revoke);
        }
        for (String[] g : rows(c, "SELECT 'GRANT ' || a.privilege_type || ' ON ' || " + routine + " || ' TO ' || CASE WHEN"
                + " a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END || CASE WHEN a.is_grantable THEN ' WITH GRANT"
                + " OPTION' ELSE '' END, CASE WHEN a.grantee = 0 THEN NULL ELSE r.rolname END FROM pg_proc p JOIN pg_namespace n"
                + " ON n.oid = p.pronamespace, aclexplode(p.proacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee WHERE " + USER
                + " AND p.prokind IN ('f', 'p') AND p.proacl IS NOT NULL AND a.grantee <> p.proowner AND NOT EXISTS (SELECT 1"
                + " FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') ORDER BY p.oid", 2)) {
            statement(out, g[1] == null ? g[0] : guarded(g[0], g[1]));
        }
    }

    /**
     * Who owns each schema, table, view, sequence of its own, function, procedure and type, where that is not the user
     * the copy reads as: a copy's objects belong to the user that makes them, and the owner alone may alter or drop
     * what it owns (on a promoted secondary too). A role the secondary's server lacks, or one the copier may not give
     * objects to, is left out with a notice.
     */
    private static void owners(Connection c, DataOutputStream out) throws SQLException, IOException {
        String notMine = " <> (SELECT oid FROM pg_roles WHERE rolname = current_user)";
        List<String[]> all = new ArrayList<>(rows(c, "SELECT 'ALTER SCHEMA ' || quote_ident(n.nspname) || ' OWNER TO ' ||"
                + " quote_ident(o.rolname), o.rolname FROM pg_namespace n JOIN pg_roles o ON o.oid = n.nspowner WHERE " + USER
                + " AND n.nspname <> 'public' AND n.nspowner" + notMine + " ORDER BY n.oid", 2));
        all.addAll(rows(c, "SELECT 'ALTER ' || CASE k.relkind WHEN 'v' THEN 'VIEW ' WHEN 'S' THEN 'SEQUENCE ' ELSE 'TABLE ' END ||"
                + " format('%I.%I', n.nspname, k.relname) || ' OWNER TO ' || quote_ident(o.rolname), o.rolname FROM pg_class k JOIN"
                + " pg_namespace n ON n.oid = k.relnamespace JOIN pg_roles o ON o.oid = k.relowner WHERE " + USER + " AND k.relkind"
                + " IN ('r', 'p', 'v', 'S') AND k.relowner" + notMine + " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid ="
                + " 'pg_class'::regclass AND d.objid = k.oid AND d.deptype IN ('a', 'i')) ORDER BY k.oid", 2));
        all.addAll(rows(c, "SELECT 'ALTER ' || CASE p.prokind WHEN 'p' THEN 'PROCEDURE ' ELSE 'FUNCTION ' END || format('%I.%I(%s)',"
                + " n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)) || ' OWNER TO ' || quote_ident(o.rolname),"
                + " o.rolname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_roles o ON o.oid = p.proowner"
                + " WHERE " + USER + " AND p.prokind IN ('f', 'p') AND p.proowner" + notMine + " AND NOT EXISTS (SELECT 1 FROM"
                + " pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') ORDER BY p.oid", 2));
        all.addAll(rows(c, "SELECT 'ALTER ' || CASE t.typtype WHEN 'd' THEN 'DOMAIN ' ELSE 'TYPE ' END || format('%I.%I', n.nspname,"
                + " t.typname) || ' OWNER TO ' || quote_ident(o.rolname), o.rolname FROM pg_type t JOIN pg_namespace n ON n.oid ="
                + " t.typnamespace JOIN pg_roles o ON o.oid = t.typowner WHERE " + USER + " AND (t.typtype IN ('e', 'd') OR"
                + " t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c') AND t.typowner" + notMine
                + " ORDER BY t.oid", 2));
        for (String[] o : all) statement(out, guarded(o[0], o[1]));
    }

    /**
     * Default privileges ({@code ALTER DEFAULT PRIVILEGES}): what a role's new tables, sequences, functions, types and
     * schemas grant. A copy without them gave a promoted secondary's new tables none of the grants the primary's would
     * have had (a reporting role could not read them). An entry for all schemas holds the whole list, the owner's own
     * privileges and PUBLIC's included, and replaces PostgreSQL's default: it is made by revoking that default first. An
     * entry for one schema only adds to it. A role the secondary's server lacks (the entry's or a grantee) is left out
     * there with a notice, as a copier that may not act for the entry's role is.
     */
    private static void defaultPrivileges(Connection c, DataOutputStream out) throws SQLException, IOException {
        String kind = "CASE d.defaclobjtype WHEN 'r' THEN 'TABLES' WHEN 'S' THEN 'SEQUENCES' WHEN 'f' THEN 'FUNCTIONS' WHEN 'T'"
                + " THEN 'TYPES' WHEN 'n' THEN 'SCHEMAS' END";
        String forRole = "'ALTER DEFAULT PRIVILEGES FOR ROLE ' || quote_ident(o.rolname)";
        for (String[] r : rows(c, "SELECT " + forRole + " || ' REVOKE ALL ON ' || " + kind + " || ' FROM PUBLIC, ' ||"
                + " quote_ident(o.rolname), o.rolname FROM pg_default_acl d JOIN pg_roles o ON o.oid = d.defaclrole"
                + " WHERE d.defaclnamespace = 0 ORDER BY d.oid", 2)) {
            statement(out, guarded(r[0], r[1]));
        }
        for (String[] r : rows(c, "SELECT " + forRole + " || CASE WHEN d.defaclnamespace = 0 THEN '' ELSE ' IN SCHEMA ' ||"
                + " quote_ident(n.nspname) END || ' GRANT ' || a.privilege_type || ' ON ' || " + kind + " || ' TO ' || CASE WHEN"
                + " a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(g.rolname) END || CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION'"
                + " ELSE '' END, o.rolname, CASE WHEN a.grantee = 0 THEN NULL ELSE g.rolname END FROM pg_default_acl d JOIN pg_roles"
                + " o ON o.oid = d.defaclrole LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace, aclexplode(d.defaclacl) a"
                + " LEFT JOIN pg_roles g ON g.oid = a.grantee WHERE d.defaclnamespace = 0 OR (" + USER + ")"
                + " ORDER BY d.oid", 3)) {
            statement(out, r[2] == null ? guarded(r[0], r[1]) : guarded(r[0], r[1], r[2]));
        }
    }

    /**
     * The application's event triggers (not an extension's), with their tags, and disabled where they are. A secondary
     * applies a schema change as a replica, where an event trigger enabled as usual does not fire; a promoted one fires
     * it, as the primary did. One enabled for replicas or always is refused ({@link #notCopied}): it would fire where
     * MacroDB applies schema changes. Only a superuser makes event triggers: a copier that is not one leaves them out,
     * with a notice.
     */
    private static void eventTriggers(Connection c, DataOutputStream out) throws SQLException, IOException {
        for (String[] e : rows(c, "SELECT format('CREATE EVENT TRIGGER %I ON %I', e.evtname, e.evtevent) || CASE WHEN e.evttags IS"
                + " NULL THEN '' ELSE ' WHEN TAG IN (' || (SELECT string_agg(quote_literal(t), ', ') FROM unnest(e.evttags) t)"
                + " || ')' END || format(' EXECUTE FUNCTION %I.%I()', n.nspname, p.proname), CASE WHEN e.evtenabled = 'D' THEN"
                + " format('ALTER EVENT TRIGGER %I DISABLE', e.evtname) END, CASE WHEN o.rolname <> current_user THEN"
                + " format('ALTER EVENT TRIGGER %I OWNER TO %I', e.evtname, o.rolname) END, o.rolname FROM pg_event_trigger e"
                + " JOIN pg_proc p ON p.oid = e.evtfoid JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_roles o ON"
                + " o.oid = e.evtowner WHERE n.nspname <> 'macrodb' AND NOT EXISTS (SELECT 1"
                + " FROM pg_depend d WHERE d.classid = 'pg_event_trigger'::regclass AND d.objid = e.oid AND d.deptype = 'e')"
                + " ORDER BY e.oid", 4)) {
            List<String> statements = new ArrayList<>(List.of(e[0]));
            if (e[1] != null) statements.add(e[1]);
            if (e[2] != null) statements.add(e[2]);
            statement(out, guarded(statements, e[3]));
        }
    }

    /**
     * {@code sql} run where the secondary's server has every one of {@code roles}, and left out with a notice where it
     * lacks one or where the copier may not act for them.
     */
    private static String guarded(String sql, String... roles) {
        return guarded(List.of(sql), roles);
    }

    /** {@link #guarded(String, String...)} for several statements, run all or none. */
    private static String guarded(List<String> statements, String... roles) {
        StringBuilder present = new StringBuilder();
        for (String role : roles) {
            present.append(present.length() == 0 ? "" : " AND ").append("EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ")
                    .append(quote(role)).append(')');
        }
        StringBuilder run = new StringBuilder();
        for (String sql : statements) run.append("EXECUTE ").append(quote(sql)).append("; ");
        String said = quote(String.join("; ", statements));
        return "DO $macrodb$ BEGIN IF " + present + " THEN " + run + "ELSE RAISE NOTICE 'MacroDB: a role is not on this server;"
                + " not copied: %', " + said + "; END IF; EXCEPTION WHEN insufficient_privilege THEN RAISE NOTICE 'MacroDB: not"
                + " copied, as this copy''s user may not: % (%)', " + said + ", SQLERRM; END $macrodb$";
    }

    /** {@code s} as an SQL string literal. */
    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static void statement(DataOutputStream out, String sql) throws IOException {
        byte[] b = sql.getBytes(StandardCharsets.UTF_8);
        out.writeByte('S');
        out.writeInt(b.length);
        out.write(b);
    }

    private static List<String> strings(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        for (String[] r : rows(c, sql, 1)) out.add(r[0]);
        return out;
    }

    private static List<String[]> rows(Connection c, String sql, int n) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                String[] r = new String[n];
                for (int i = 0; i < n; i++) r[i] = rs.getString(i + 1);
                out.add(r);
            }
        }
        return out;
    }
}
