package io.macrodb.bench.tpcc;

import io.macrodb.bench.Batch;
import io.macrodb.bench.BenchEngine;
import io.macrodb.bench.Mix;
import io.macrodb.bench.Row;
import io.macrodb.bench.Statements;
import io.macrodb.bench.TxType;
import io.macrodb.bench.Workload;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import static io.macrodb.bench.RandomData.astring;
import static io.macrodb.bench.RandomData.dataWithOriginal;
import static io.macrodb.bench.RandomData.lastName;
import static io.macrodb.bench.RandomData.nstring;
import static io.macrodb.bench.RandomData.nurand;
import static io.macrodb.bench.RandomData.uniform;
import static io.macrodb.bench.RandomData.zip;

/**
 * TPC-C (revision 5.11): the nine tables, the data generator of clause 4.3, and the five
 * transactions of clause 2 with their input generation. No terminals, keying or think times: each
 * client runs transactions back to back, as the MacroDB paper measured.
 *
 * <p>Departures from the specification, all stated in benchmarks/README.md:
 * <ul>
 *   <li>{@code scale} &lt; 1 shrinks ITEM (100,000), customers per district (3,000) and orders per
 *       district (3,000, of which the last 900 undelivered) by that factor, for smoke runs; NURand's
 *       A and the last-name range shrink with them so that every lookup still finds a row.</li>
 *   <li>HISTORY gets a generated key {@code h_id} (row propagation needs a primary key).</li>
 *   <li>ORDER is called {@code oorder} (ORDER is a keyword).</li>
 *   <li>A NewOrder locks its stock rows in item order (no deadlocks between NewOrders), and reads the
 *       district by incrementing {@code d_next_o_id} first (the same lock, one statement fewer).</li>
 * </ul>
 */
public final class Tpcc implements Workload {
    public static final int DISTRICTS = 10;
    // NURand constants: C for C_LAST at run time differs from the load's by 66 (clause 2.1.6.1).
    private static final int C_LAST_LOAD = 157, C_LAST_RUN = 223, C_ID = 259, C_OL_I_ID = 7911;

    static final TxType NEW_ORDER = new TxType(0, "NewOrder", false);
    static final TxType PAYMENT = new TxType(1, "Payment", false);
    static final TxType ORDER_STATUS = new TxType(2, "OrderStatus", true);
    static final TxType DELIVERY = new TxType(3, "Delivery", false);
    static final TxType STOCK_LEVEL = new TxType(4, "StockLevel", true);
    private static final List<TxType> TYPES = List.of(NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL);
    /** The standard mix (clause 5.2.3 minimums, as everyone runs it): 45/43/4/4/4, 8% read-only. */
    private static final double[] STANDARD = {45, 43, 4, 4, 4};

    private final int warehouses;
    private final int items;
    private final int customersPerDistrict;
    private final int ordersPerDistrict;
    private final int newOrdersPerDistrict;
    private final double scale;

    public Tpcc(int warehouses, double scale) {
        if (warehouses < 1) throw new IllegalArgumentException("warehouses must be >= 1");
        if (!(scale > 0 && scale <= 1)) throw new IllegalArgumentException("scale must be in (0, 1], got " + scale);
        this.warehouses = warehouses;
        this.scale = scale;
        this.items = Math.max(100, (int) Math.round(100_000 * scale));
        this.customersPerDistrict = Math.max(30, (int) Math.round(3_000 * scale));
        this.ordersPerDistrict = customersPerDistrict;
        this.newOrdersPerDistrict = Math.max(1, (int) Math.round(ordersPerDistrict * 0.3));
    }

    @Override public String name() { return "tpcc"; }
    @Override public List<TxType> types() { return TYPES; }
    @Override public List<String> defaultMixes() { return List.of("8-92", "50-50", "80-20", "100-0"); }

    public int warehouses() { return warehouses; }
    public double scale() { return scale; }

    @Override public Mix mix(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        if (s.equals("standard")) return new Mix("8-92", TYPES, STANDARD);
        Mix m = Mix.parse(spec, TYPES, STANDARD);
        if (m == null) throw new IllegalArgumentException("tpcc has no mix '" + spec + "'; use standard, R-U (8-92, 50-50,"
                + " 80-20, 100-0, any read-only:update shares) or weights like NewOrder=45,Payment=43,OrderStatus=4,Delivery=4,StockLevel=4");
        return m;
    }

    @Override public String toString() {
        return "tpcc(" + warehouses + " warehouse" + (warehouses > 1 ? "s" : "") + (scale < 1 ? ", scale " + scale : "") + ")";
    }

    // ================================================================= schema and data (clause 1, 4.3)

    @Override public void load(Connection c, BenchEngine engine, long seed) throws SQLException {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE warehouse (w_id INT PRIMARY KEY, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20),"
                    + " w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2))");
            s.execute("CREATE TABLE district (d_w_id INT, d_id INT, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20),"
                    + " d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT,"
                    + " PRIMARY KEY (d_w_id, d_id))");
            s.execute("CREATE TABLE customer (c_w_id INT, c_d_id INT, c_id INT, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16),"
                    + " c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9),"
                    + " c_phone CHAR(16), c_since TIMESTAMP, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4),"
                    + " c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, c_delivery_cnt INT,"
                    + " c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id))");
            s.execute("CREATE INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first)");
            s.execute("CREATE TABLE history (h_id " + engine.identity() + ", h_c_id INT, h_c_d_id INT, h_c_w_id INT, h_d_id INT,"
                    + " h_w_id INT, h_date TIMESTAMP, h_amount DECIMAL(6,2), h_data VARCHAR(24))");
            s.execute("CREATE TABLE oorder (o_w_id INT, o_d_id INT, o_id INT, o_c_id INT, o_entry_d TIMESTAMP, o_carrier_id INT,"
                    + " o_ol_cnt INT, o_all_local INT, PRIMARY KEY (o_w_id, o_d_id, o_id))");
            s.execute("CREATE INDEX oorder_customer ON oorder (o_w_id, o_d_id, o_c_id, o_id)");
            s.execute("CREATE TABLE new_order (no_w_id INT, no_d_id INT, no_o_id INT, PRIMARY KEY (no_w_id, no_d_id, no_o_id))");
            s.execute("CREATE TABLE order_line (ol_w_id INT, ol_d_id INT, ol_o_id INT, ol_number INT, ol_i_id INT, ol_supply_w_id INT,"
                    + " ol_delivery_d TIMESTAMP, ol_quantity INT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24),"
                    + " PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))");
            s.execute("CREATE TABLE item (i_id INT PRIMARY KEY, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50))");
            StringBuilder dist = new StringBuilder();
            for (int d = 1; d <= DISTRICTS; d++) dist.append(String.format(" s_dist_%02d CHAR(24),", d));
            s.execute("CREATE TABLE stock (s_w_id INT, s_i_id INT, s_quantity INT," + dist + " s_ytd INT, s_order_cnt INT,"
                    + " s_remote_cnt INT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))");
        }
        c.setAutoCommit(false);
        Random r = new Random(seed);
        Timestamp now = new Timestamp(System.currentTimeMillis());
        try (Batch b = new Batch(c, "INSERT INTO item VALUES (?,?,?,?,?)")) {
            for (int i = 1; i <= items; i++) {
                b.add(i, uniform(r, 1, 10_000), astring(r, 14, 24), cents(uniform(r, 100, 10_000)), dataWithOriginal(r));
            }
        }
        for (int w = 1; w <= warehouses; w++) {
            try (Batch b = new Batch(c, "INSERT INTO warehouse VALUES (?,?,?,?,?,?,?,?,?)")) {
                b.add(w, astring(r, 6, 10), astring(r, 10, 20), astring(r, 10, 20), astring(r, 10, 20), astring(r, 2, 2), zip(r),
                        BigDecimal.valueOf(uniform(r, 0, 2000), 4), cents(30_000_000));
            }
            try (Batch b = new Batch(c, "INSERT INTO stock VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
                for (int i = 1; i <= items; i++) {
                    Object[] row = new Object[17];
                    row[0] = w;
                    row[1] = i;
                    row[2] = uniform(r, 10, 100);
                    for (int d = 0; d < DISTRICTS; d++) row[3 + d] = astring(r, 24, 24);
                    row[13] = 0;
                    row[14] = 0;
                    row[15] = 0;
                    row[16] = dataWithOriginal(r);
                    b.add(row);
                }
            }
            for (int d = 1; d <= DISTRICTS; d++) {
                try (Batch b = new Batch(c, "INSERT INTO district VALUES (?,?,?,?,?,?,?,?,?,?,?)")) {
                    b.add(w, d, astring(r, 6, 10), astring(r, 10, 20), astring(r, 10, 20), astring(r, 10, 20), astring(r, 2, 2), zip(r),
                            BigDecimal.valueOf(uniform(r, 0, 2000), 4), cents(3_000_000), ordersPerDistrict + 1);
                }
                loadCustomers(c, r, w, d, now);
                loadOrders(c, r, w, d, now);
            }
        }
        c.commit();
        c.setAutoCommit(true);
    }

    private void loadCustomers(Connection c, Random r, int w, int d, Timestamp now) throws SQLException {
        try (Batch cust = new Batch(c, "INSERT INTO customer VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
             Batch hist = new Batch(c, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)"
                     + " VALUES (?,?,?,?,?,?,?,?)")) {
            for (int id = 1; id <= customersPerDistrict; id++) {
                String last = lastName(id <= lastNames() ? id - 1 : nurand(r, 255, C_LAST_LOAD, 0, lastNames() - 1));
                cust.add(w, d, id, astring(r, 8, 16), "OE", last, astring(r, 10, 20), astring(r, 10, 20), astring(r, 10, 20),
                        astring(r, 2, 2), zip(r), nstring(r, 16, 16), now, r.nextInt(10) == 0 ? "BC" : "GC", cents(5_000_000),
                        BigDecimal.valueOf(uniform(r, 0, 5000), 4), cents(-1000), cents(1000), 1, 0, astring(r, 300, 500));
                hist.add(id, d, w, d, w, now, cents(1000), astring(r, 12, 24));
            }
        }
    }

    private void loadOrders(Connection c, Random r, int w, int d, Timestamp now) throws SQLException {
        int[] perm = new int[ordersPerDistrict];
        for (int i = 0; i < perm.length; i++) perm[i] = i + 1;
        for (int i = perm.length - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        int firstNew = ordersPerDistrict - newOrdersPerDistrict + 1;
        try (Batch o = new Batch(c, "INSERT INTO oorder VALUES (?,?,?,?,?,?,?,?)");
             Batch no = new Batch(c, "INSERT INTO new_order VALUES (?,?,?)");
             Batch ol = new Batch(c, "INSERT INTO order_line VALUES (?,?,?,?,?,?,?,?,?,?)")) {
            for (int id = 1; id <= ordersPerDistrict; id++) {
                int cnt = uniform(r, 5, 15);
                boolean delivered = id < firstNew;
                o.add(w, d, id, perm[id - 1], now, delivered ? uniform(r, 1, 10) : null, cnt, 1);
                if (!delivered) no.add(w, d, id);
                for (int n = 1; n <= cnt; n++) {
                    ol.add(w, d, id, n, uniform(r, 1, items), w, delivered ? now : null, 5,
                            delivered ? cents(0) : cents(uniform(r, 1, 999_999)), astring(r, 24, 24));
                }
            }
        }
    }

    /** How many distinct last-name numbers exist (1000 at full scale). */
    private int lastNames() { return Math.min(1000, customersPerDistrict); }

    private static BigDecimal cents(long c) { return BigDecimal.valueOf(c, 2); }

    // ================================================================= transactions (clause 2)

    @Override public Client client(BenchEngine engine, int index, int clients, long seed) {
        return new TpccClient(engine, 1 + index % warehouses);
    }

    private final class TpccClient implements Client {
        private final BenchEngine engine;
        private final int home;
        private final Statements st = new Statements();

        TpccClient(BenchEngine engine, int home) {
            this.engine = engine;
            this.home = home;
        }

        @Override public Outcome run(TxType t, Connection c, Random r) throws SQLException {
            return switch (t.index()) {
                case 0 -> newOrder(c, r);
                case 1 -> payment(c, r);
                case 2 -> orderStatus(c, r);
                case 3 -> delivery(c, r);
                case 4 -> stockLevel(c, r);
                default -> throw new IllegalArgumentException(t.toString());
            };
        }

        private int otherWarehouse(Random r) {
            if (warehouses == 1) return home;
            int w = uniform(r, 1, warehouses - 1);
            return w >= home ? w + 1 : w;
        }

        private int customerId(Random r) { return nurand(r, 1023, C_ID, 1, customersPerDistrict); }

        /** Clause 2.4. */
        private Outcome newOrder(Connection c, Random r) throws SQLException {
            int d = uniform(r, 1, DISTRICTS);
            int cid = customerId(r);
            int n = uniform(r, 5, 15);
            boolean rollback = uniform(r, 1, 100) == 1;
            long[] lines = new long[n]; // supply warehouse << 32 | item, sorted so that stock rows are locked in one order
            boolean allLocal = true;
            int[] qty = new int[n];
            for (int i = 0; i < n; i++) {
                int item = rollback && i == n - 1 ? items + 1 : nurand(r, 8191, C_OL_I_ID, 1, items);
                int supply = uniform(r, 1, 100) == 1 ? otherWarehouse(r) : home;
                allLocal &= supply == home;
                lines[i] = ((long) supply << 32) | item;
                qty[i] = uniform(r, 1, 10);
            }
            Arrays.sort(lines);
            PreparedStatement ps = st.get(c, "SELECT w_tax FROM warehouse WHERE w_id = ?");
            ps.setInt(1, home);
            BigDecimal wTax = Row.one(ps, "warehouse").getBigDecimal(1);
            ps = st.get(c, "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?");
            ps.setInt(1, home);
            ps.setInt(2, d);
            ps.executeUpdate();
            ps = st.get(c, "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?");
            ps.setInt(1, home);
            ps.setInt(2, d);
            Row district = Row.one(ps, "district");
            BigDecimal dTax = district.getBigDecimal(1);
            int oid = district.getInt(2) - 1;
            ps = st.get(c, "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
            ps.setInt(1, home);
            ps.setInt(2, d);
            ps.setInt(3, cid);
            BigDecimal discount = Row.one(ps, "customer").getBigDecimal(1);
            Timestamp now = new Timestamp(System.currentTimeMillis());
            ps = st.get(c, "INSERT INTO oorder (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)"
                    + " VALUES (?,?,?,?,?,NULL,?,?)");
            ps.setInt(1, home);
            ps.setInt(2, d);
            ps.setInt(3, oid);
            ps.setInt(4, cid);
            ps.setTimestamp(5, now);
            ps.setInt(6, n);
            ps.setInt(7, allLocal ? 1 : 0);
            ps.executeUpdate();
            ps = st.get(c, "INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (?,?,?)");
            ps.setInt(1, home);
            ps.setInt(2, d);
            ps.setInt(3, oid);
            ps.executeUpdate();
            String distCol = String.format("s_dist_%02d", d);
            BigDecimal total = BigDecimal.ZERO;
            for (int i = 0; i < n; i++) {
                int supply = (int) (lines[i] >>> 32);
                int item = (int) lines[i];
                ps = st.get(c, "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?");
                ps.setInt(1, item);
                Row itemRow = Row.first(ps);
                if (itemRow == null) return Outcome.ROLLBACK; // clause 2.4.2.3: an unused item number rolls the order back
                BigDecimal price = itemRow.getBigDecimal(1);
                ps = st.get(c, "SELECT s_quantity, s_data, " + distCol + " FROM stock WHERE s_w_id = ? AND s_i_id = ?" + engine.forUpdate());
                ps.setInt(1, supply);
                ps.setInt(2, item);
                Row stock = Row.one(ps, "stock");
                int sQty = stock.getInt(1);
                String distInfo = stock.getString(3);
                int q = qty[i];
                int newQty = sQty - q >= 10 ? sQty - q : sQty - q + 91;
                ps = st.get(c, "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1,"
                        + " s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?");
                ps.setInt(1, newQty);
                ps.setInt(2, q);
                ps.setInt(3, supply == home ? 0 : 1);
                ps.setInt(4, supply);
                ps.setInt(5, item);
                ps.executeUpdate();
                BigDecimal amount = price.multiply(BigDecimal.valueOf(q));
                total = total.add(amount);
                ps = st.get(c, "INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,"
                        + " ol_quantity, ol_amount, ol_dist_info) VALUES (?,?,?,?,?,?,NULL,?,?,?)");
                ps.setInt(1, home);
                ps.setInt(2, d);
                ps.setInt(3, oid);
                ps.setInt(4, i + 1);
                ps.setInt(5, item);
                ps.setInt(6, supply);
                ps.setInt(7, q);
                ps.setBigDecimal(8, amount);
                ps.setString(9, distInfo);
                ps.executeUpdate();
            }
            // The total the terminal would show: computed as the spec says, then dropped.
            total.multiply(BigDecimal.ONE.subtract(discount)).multiply(BigDecimal.ONE.add(wTax).add(dTax));
            return Outcome.COMMIT;
        }

        /** Clause 2.5. */
        private Outcome payment(Connection c, Random r) throws SQLException {
            int d = uniform(r, 1, DISTRICTS);
            int cw = home, cd = d;
            if (warehouses > 1 && uniform(r, 1, 100) > 85) {
                cw = otherWarehouse(r);
                cd = uniform(r, 1, DISTRICTS);
            }
            BigDecimal amount = cents(uniform(r, 100, 500_000));
            PreparedStatement ps = st.get(c, "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?");
            ps.setBigDecimal(1, amount);
            ps.setInt(2, home);
            ps.executeUpdate();
            ps = st.get(c, "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?");
            ps.setInt(1, home);
            String wName = Row.one(ps, "warehouse").getString(1);
            ps = st.get(c, "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?");
            ps.setBigDecimal(1, amount);
            ps.setInt(2, home);
            ps.setInt(3, d);
            ps.executeUpdate();
            ps = st.get(c, "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?");
            ps.setInt(1, home);
            ps.setInt(2, d);
            String dName = Row.one(ps, "district").getString(1);
            int cid = uniform(r, 1, 100) <= 60 ? customerByLastName(c, r, cw, cd) : customerId(r);
            ps = st.get(c, "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit,"
                    + " c_credit_lim, c_discount, c_balance, c_since, c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?" + engine.forUpdate());
            ps.setInt(1, cw);
            ps.setInt(2, cd);
            ps.setInt(3, cid);
            Row cust = Row.one(ps, "customer");
            String credit = cust.getString(10);
            String data = cust.getString(15);
            if ("BC".equals(credit)) {
                String newData = (cid + " " + cd + " " + cw + " " + d + " " + home + " " + amount + " | " + data);
                if (newData.length() > 500) newData = newData.substring(0, 500);
                ps = st.get(c, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?,"
                        + " c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
                ps.setBigDecimal(1, amount);
                ps.setBigDecimal(2, amount);
                ps.setString(3, newData);
                ps.setInt(4, cw);
                ps.setInt(5, cd);
                ps.setInt(6, cid);
            } else {
                ps = st.get(c, "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?,"
                        + " c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
                ps.setBigDecimal(1, amount);
                ps.setBigDecimal(2, amount);
                ps.setInt(3, cw);
                ps.setInt(4, cd);
                ps.setInt(5, cid);
            }
            ps.executeUpdate();
            String hData = wName + "    " + dName;
            ps = st.get(c, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?,?,?,?,?,?,?,?)");
            ps.setInt(1, cid);
            ps.setInt(2, cd);
            ps.setInt(3, cw);
            ps.setInt(4, d);
            ps.setInt(5, home);
            ps.setTimestamp(6, new Timestamp(System.currentTimeMillis()));
            ps.setBigDecimal(7, amount);
            ps.setString(8, hData.length() > 24 ? hData.substring(0, 24) : hData);
            ps.executeUpdate();
            return Outcome.COMMIT;
        }

        /** Clause 2.5.2.2 / 2.6.2.2: the customer at position ceil(n/2) among those with a last name, by first name. */
        private int customerByLastName(Connection c, Random r, int w, int d) throws SQLException {
            String last = lastName(nurand(r, 255, C_LAST_RUN, 0, lastNames() - 1));
            PreparedStatement ps = st.get(c, "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first");
            ps.setInt(1, w);
            ps.setInt(2, d);
            ps.setString(3, last);
            List<Integer> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) ids.add(rs.getInt(1));
            }
            expect(!ids.isEmpty(), "customer named " + last);
            return ids.get((ids.size() + 1) / 2 - 1);
        }

        /** Clause 2.6 (read-only). */
        private Outcome orderStatus(Connection c, Random r) throws SQLException {
            int d = uniform(r, 1, DISTRICTS);
            int cid = uniform(r, 1, 100) <= 60 ? customerByLastName(c, r, home, d) : customerId(r);
            PreparedStatement ps = st.get(c, "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
            ps.setInt(1, home);
            ps.setInt(2, d);
            ps.setInt(3, cid);
            Row.one(ps, "customer");
            ps = st.get(c, "SELECT o_id, o_carrier_id, o_entry_d FROM oorder WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?"
                    + " ORDER BY o_id DESC" + engine.firstRows(1));
            ps.setInt(1, home);
            ps.setInt(2, d);
            ps.setInt(3, cid);
            Row last = Row.first(ps);
            int oid = last == null ? -1 : last.getInt(1);
            if (oid >= 0) {
                ps = st.get(c, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line"
                        + " WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
                ps.setInt(1, home);
                ps.setInt(2, d);
                ps.setInt(3, oid);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) rs.getInt(1);
                }
            }
            return Outcome.COMMIT;
        }

        /** Clause 2.7 (run in the foreground, as a single transaction over the ten districts). */
        private Outcome delivery(Connection c, Random r) throws SQLException {
            int carrier = uniform(r, 1, 10);
            Timestamp now = new Timestamp(System.currentTimeMillis());
            for (int d = 1; d <= DISTRICTS; d++) {
                PreparedStatement ps = st.get(c, "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ?"
                        + " ORDER BY no_o_id" + engine.firstRows(1));
                ps.setInt(1, home);
                ps.setInt(2, d);
                Row oldest = Row.first(ps);
                if (oldest == null) continue; // clause 2.7.4.2: no undelivered order in this district
                int oid = oldest.getInt(1);
                ps = st.get(c, "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?");
                ps.setInt(1, home);
                ps.setInt(2, d);
                ps.setInt(3, oid);
                if (ps.executeUpdate() == 0) continue; // a concurrent Delivery took it
                ps = st.get(c, "SELECT o_c_id FROM oorder WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
                ps.setInt(1, home);
                ps.setInt(2, d);
                ps.setInt(3, oid);
                int cid = Row.one(ps, "order").getInt(1);
                ps = st.get(c, "UPDATE oorder SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
                ps.setInt(1, carrier);
                ps.setInt(2, home);
                ps.setInt(3, d);
                ps.setInt(4, oid);
                ps.executeUpdate();
                ps = st.get(c, "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
                ps.setTimestamp(1, now);
                ps.setInt(2, home);
                ps.setInt(3, d);
                ps.setInt(4, oid);
                ps.executeUpdate();
                ps = st.get(c, "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
                ps.setInt(1, home);
                ps.setInt(2, d);
                ps.setInt(3, oid);
                BigDecimal sum = Row.one(ps, "order lines").getBigDecimal(1);
                ps = st.get(c, "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1"
                        + " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
                ps.setBigDecimal(1, sum == null ? BigDecimal.ZERO : sum);
                ps.setInt(2, home);
                ps.setInt(3, d);
                ps.setInt(4, cid);
                ps.executeUpdate();
            }
            return Outcome.COMMIT;
        }

        /** Clause 2.8 (read-only). */
        private Outcome stockLevel(Connection c, Random r) throws SQLException {
            int d = uniform(r, 1, DISTRICTS);
            int threshold = uniform(r, 10, 20);
            PreparedStatement ps = st.get(c, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?");
            ps.setInt(1, home);
            ps.setInt(2, d);
            int next = Row.one(ps, "district").getInt(1);
            ps = st.get(c, "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ?"
                    + " AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?");
            ps.setInt(1, home);
            ps.setInt(2, d);
            ps.setInt(3, next);
            ps.setInt(4, next - 20);
            ps.setInt(5, home);
            ps.setInt(6, threshold);
            Row.one(ps, "stock count").getInt(1);
            return Outcome.COMMIT;
        }
    }

    private static void expect(boolean ok, String what) {
        if (!ok) throw new IllegalStateException("TPC-C: missing " + what + " (the data or a transaction is wrong)");
    }
}
