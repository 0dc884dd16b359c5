package io.macrodb.bench.tpcw;

import io.macrodb.bench.Batch;
import io.macrodb.bench.BenchEngine;
import io.macrodb.bench.Mix;
import io.macrodb.bench.Row;
import io.macrodb.bench.Statements;
import io.macrodb.bench.TxType;
import io.macrodb.bench.Workload;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static io.macrodb.bench.RandomData.astring;
import static io.macrodb.bench.RandomData.uniform;

/**
 * A TPC-W-like online bookstore: the tables of TPC-W (item, author, customer, orders, order_line,
 * cc_xacts, shopping cart) and its web interactions reduced to their database work, in the
 * browsing, shopping and ordering mixes of TPC-W clause 5.2.1.2 (95/80/50% browse interactions;
 * counting the order category's read-only ones too, 96.4/84.1/63.3% read-only transactions).
 *
 * <p>What makes it interesting for MacroDB is BestSellers: an analytical query (the 50 best-selling
 * items of a subject among the last 3,333 orders: a join of order_line, item and author with a
 * GROUP BY) that is much heavier than the rest. Multimed saw it interfere with the light
 * interactions on the same replica.
 *
 * <p>"Like", not TPC-W: no web tier, images or think times; Search Request and Search Result are
 * one interaction, as are Order Inquiry and Order Display; Admin Request counts as Product Detail;
 * Customer Registration inserts the customer (TPC-W does it in Buy Request); Buy Request only
 * reads; new keys come from a counter in the client JVM.
 */
public final class TpcwLike implements Workload {
    private static final String[] SUBJECTS = {"ARTS", "BIOGRAPHIES", "BUSINESS", "CHILDREN", "COMPUTERS", "COOKING", "HEALTH",
            "HISTORY", "HOME", "HUMOR", "LITERATURE", "MYSTERY", "NON-FICTION", "PARENTING", "POLITICS", "REFERENCE", "RELIGION",
            "ROMANCE", "SELF-HELP", "SCIENCE-NATURE", "SCIENCE-FICTION", "SPORTS", "YOUTH", "TRAVEL"};
    private static final int BEST_SELLER_WINDOW = 3333;

    static final TxType HOME = new TxType(0, "Home", true);
    static final TxType NEW_PRODUCTS = new TxType(1, "NewProducts", true);
    static final TxType BEST_SELLERS = new TxType(2, "BestSellers", true);
    static final TxType PRODUCT_DETAIL = new TxType(3, "ProductDetail", true);
    static final TxType SEARCH = new TxType(4, "Search", true);
    static final TxType SHOPPING_CART = new TxType(5, "ShoppingCart", false);
    static final TxType REGISTRATION = new TxType(6, "CustomerRegistration", false);
    static final TxType BUY_REQUEST = new TxType(7, "BuyRequest", true);
    static final TxType BUY_CONFIRM = new TxType(8, "BuyConfirm", false);
    static final TxType ORDER_DISPLAY = new TxType(9, "OrderDisplay", true);
    static final TxType ADMIN_CONFIRM = new TxType(10, "AdminConfirm", false);
    private static final List<TxType> TYPES = List.of(HOME, NEW_PRODUCTS, BEST_SELLERS, PRODUCT_DETAIL, SEARCH, SHOPPING_CART,
            REGISTRATION, BUY_REQUEST, BUY_CONFIRM, ORDER_DISPLAY, ADMIN_CONFIRM);
    // TPC-W clause 5.2.1.2, merged as the class comment says.
    private static final double[] BROWSING = {29, 11, 11, 21.10, 23, 2, 0.82, 0.75, 0.69, 0.55, 0.09};
    private static final double[] SHOPPING = {16, 5, 5, 17.10, 37, 11.6, 3, 2.6, 1.2, 1.41, 0.09};
    private static final double[] ORDERING = {9.12, 0.46, 0.46, 12.47, 27.61, 13.53, 12.86, 12.73, 10.18, 0.47, 0.11};

    private final int items;
    private final int customers;
    private final int authors;
    private final int orders;
    private final AtomicLong nextCustomer;
    private final AtomicLong nextOrder;
    private final AtomicLong nextCart = new AtomicLong(1);

    /** @param scale 1 = 10,000 items and 28,800 customers (TPC-W's 10K-item database with 10 browsers' worth of customers x 100) */
    public TpcwLike(double scale) {
        if (!(scale > 0 && scale <= 10)) throw new IllegalArgumentException("scale must be in (0, 10], got " + scale);
        items = Math.max(500, (int) Math.round(10_000 * scale));
        customers = Math.max(300, (int) Math.round(28_800 * scale));
        authors = Math.max(100, items / 4);
        orders = (int) (customers * 0.9);
        nextCustomer = new AtomicLong(customers + 1L);
        nextOrder = new AtomicLong(orders + 1L);
    }

    @Override public String name() { return "tpcw"; }
    @Override public List<TxType> types() { return TYPES; }
    @Override public List<String> defaultMixes() { return List.of("browsing", "shopping", "ordering"); }

    @Override public Mix mix(String spec) {
        return switch (spec.trim().toLowerCase(Locale.ROOT)) {
            case "browsing" -> new Mix("browsing", TYPES, BROWSING);
            case "shopping", "standard" -> new Mix("shopping", TYPES, SHOPPING);
            case "ordering" -> new Mix("ordering", TYPES, ORDERING);
            default -> {
                Mix m = Mix.parse(spec, TYPES, SHOPPING);
                if (m == null) throw new IllegalArgumentException("tpcw has no mix '" + spec + "'; use browsing, shopping, ordering,"
                        + " R-U shares (e.g. 80-20) or weights like BestSellers=10,Home=90");
                yield m;
            }
        };
    }

    @Override public String toString() { return "tpcw-like(" + items + " items, " + customers + " customers)"; }

    @Override public void load(Connection c, BenchEngine engine, long seed) throws SQLException {
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE author (a_id INT PRIMARY KEY, a_fname VARCHAR(20), a_lname VARCHAR(20), a_bio VARCHAR(500))");
            s.execute("CREATE INDEX author_lname ON author (a_lname)");
            s.execute("CREATE TABLE item (i_id INT PRIMARY KEY, i_title VARCHAR(60), i_a_id INT, i_pub_date DATE, i_subject VARCHAR(60),"
                    + " i_desc VARCHAR(500), i_related1 INT, i_related2 INT, i_related3 INT, i_related4 INT, i_related5 INT,"
                    + " i_srp DECIMAL(15,2), i_cost DECIMAL(15,2), i_stock INT, i_isbn CHAR(13))");
            s.execute("CREATE INDEX item_subject ON item (i_subject, i_pub_date)");
            s.execute("CREATE INDEX item_title ON item (i_title)");
            s.execute("CREATE INDEX item_author ON item (i_a_id)");
            s.execute("CREATE TABLE customer (c_id INT PRIMARY KEY, c_uname VARCHAR(20), c_passwd VARCHAR(20), c_fname VARCHAR(17),"
                    + " c_lname VARCHAR(17), c_email VARCHAR(50), c_since DATE, c_last_login DATE, c_discount DECIMAL(5,2),"
                    + " c_balance DECIMAL(15,2), c_ytd_pmt DECIMAL(15,2))");
            s.execute("CREATE TABLE orders (o_id INT PRIMARY KEY, o_c_id INT, o_date TIMESTAMP, o_sub_total DECIMAL(15,2),"
                    + " o_tax DECIMAL(15,2), o_total DECIMAL(15,2), o_ship_type VARCHAR(10), o_status VARCHAR(16))");
            s.execute("CREATE INDEX orders_customer ON orders (o_c_id, o_id)");
            s.execute("CREATE TABLE order_line (ol_o_id INT, ol_id INT, ol_i_id INT, ol_qty INT, ol_discount DECIMAL(5,2),"
                    + " PRIMARY KEY (ol_o_id, ol_id))");
            s.execute("CREATE TABLE cc_xacts (cx_o_id INT PRIMARY KEY, cx_type VARCHAR(10), cx_num VARCHAR(20), cx_amt DECIMAL(15,2),"
                    + " cx_xact_date TIMESTAMP)");
            s.execute("CREATE TABLE shopping_cart (sc_id BIGINT PRIMARY KEY, sc_time TIMESTAMP)");
            s.execute("CREATE TABLE shopping_cart_line (scl_sc_id BIGINT, scl_i_id INT, scl_qty INT, PRIMARY KEY (scl_sc_id, scl_i_id))");
        }
        c.setAutoCommit(false);
        Random r = new Random(seed);
        long base = Date.valueOf("2000-01-01").getTime();
        try (Batch b = new Batch(c, "INSERT INTO author VALUES (?,?,?,?)")) {
            for (int a = 1; a <= authors; a++) b.add(a, astring(r, 3, 20), astring(r, 1, 20), astring(r, 125, 500));
        }
        try (Batch b = new Batch(c, "INSERT INTO item VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
            for (int i = 1; i <= items; i++) {
                BigDecimal srp = BigDecimal.valueOf(uniform(r, 100, 99_999), 2);
                b.add(i, astring(r, 14, 60), i <= authors ? i : uniform(r, 1, authors),
                        new Date(base + (long) r.nextInt(365 * 20) * 86_400_000L), SUBJECTS[r.nextInt(SUBJECTS.length)],
                        astring(r, 100, 500), uniform(r, 1, items), uniform(r, 1, items), uniform(r, 1, items),
                        uniform(r, 1, items), uniform(r, 1, items), srp,
                        srp.multiply(BigDecimal.valueOf(uniform(r, 50, 100), 2)).setScale(2, java.math.RoundingMode.HALF_UP),
                        uniform(r, 10, 30), astring(r, 13, 13));
            }
        }
        try (Batch b = new Batch(c, "INSERT INTO customer VALUES (?,?,?,?,?,?,?,?,?,?,?)")) {
            for (int i = 1; i <= customers; i++) b.add(customerRow(i, r));
        }
        try (Batch o = new Batch(c, "INSERT INTO orders VALUES (?,?,?,?,?,?,?,?)");
             Batch ol = new Batch(c, "INSERT INTO order_line VALUES (?,?,?,?,?)");
             Batch cx = new Batch(c, "INSERT INTO cc_xacts VALUES (?,?,?,?,?)")) {
            for (int id = 1; id <= orders; id++) {
                BigDecimal sub = BigDecimal.valueOf(uniform(r, 1000, 999_999), 2);
                BigDecimal total = sub.multiply(new BigDecimal("1.0825")).setScale(2, java.math.RoundingMode.HALF_UP);
                Timestamp when = new Timestamp(base + (long) r.nextInt(365 * 20) * 86_400_000L);
                o.add(id, uniform(r, 1, customers), when, sub, total.subtract(sub), total, "AIR", "SHIPPED");
                int lines = uniform(r, 1, 5);
                for (int n = 1; n <= lines; n++) {
                    ol.add(id, n, uniform(r, 1, items), uniform(r, 1, 300), BigDecimal.valueOf(uniform(r, 0, 30), 2));
                }
                cx.add(id, "VISA", astring(r, 15, 16), total, when);
            }
        }
        c.commit();
        c.setAutoCommit(true);
    }

    /** A customer row; dates are relative to a fixed day so that every database gets the same data. */
    private static Object[] customerRow(int id, Random r) {
        long day = Date.valueOf("2013-08-26").getTime();
        return new Object[] {id, "user" + id, "pw" + id, astring(r, 8, 15), astring(r, 8, 15), "user" + id + "@example.com",
                new Date(day - r.nextInt(730) * 86_400_000L), new Date(day), BigDecimal.valueOf(uniform(r, 0, 50), 2),
                BigDecimal.ZERO, BigDecimal.valueOf(uniform(r, 0, 99_999), 2)};
    }

    @Override public Client client(BenchEngine engine, int index, int clients, long seed) {
        return new Browser(engine);
    }

    /** An emulated browser: a customer and, once it put something in it, a cart. */
    private final class Browser implements Client {
        private final BenchEngine engine;
        private final Statements st = new Statements();

        Browser(BenchEngine engine) {
            this.engine = engine;
        }
        private int customer = -1;
        private long cart = -1;

        @Override public Outcome run(TxType t, Connection c, Random r) throws SQLException {
            if (customer < 0) customer = uniform(r, 1, customers);
            switch (t.index()) {
                case 0 -> home(c, r);
                case 1 -> newProducts(c, r);
                case 2 -> bestSellers(c, r);
                case 3 -> productDetail(c, r);
                case 4 -> search(c, r);
                case 5 -> shoppingCart(c, r);
                case 6 -> registration(c, r);
                case 7 -> buyRequest(c);
                case 8 -> buyConfirm(c, r);
                case 9 -> orderDisplay(c);
                case 10 -> adminConfirm(c, r);
                default -> throw new IllegalArgumentException(t.toString());
            }
            return Outcome.COMMIT;
        }

        private void home(Connection c, Random r) throws SQLException {
            PreparedStatement ps = st.get(c, "SELECT c_fname, c_lname FROM customer WHERE c_id = ?");
            ps.setInt(1, customer);
            Row.one(ps, "customer");
            ps = st.get(c, "SELECT i.i_id, i.i_title FROM item i JOIN item p ON i.i_id IN (p.i_related1, p.i_related2, p.i_related3,"
                    + " p.i_related4, p.i_related5) WHERE p.i_id = ?");
            ps.setInt(1, uniform(r, 1, items));
            drain(ps);
        }

        private void newProducts(Connection c, Random r) throws SQLException {
            PreparedStatement ps = st.get(c, "SELECT i_id, i_title, a_fname, a_lname FROM item JOIN author ON i_a_id = a_id"
                    + " WHERE i_subject = ? ORDER BY i_pub_date DESC, i_title" + engine.firstRows(50));
            ps.setString(1, SUBJECTS[r.nextInt(SUBJECTS.length)]);
            drain(ps);
        }

        /** The heavy analytical query. */
        private void bestSellers(Connection c, Random r) throws SQLException {
            PreparedStatement ps = st.get(c, "SELECT MAX(o_id) FROM orders");
            int maxOrder = Row.one(ps, "orders").getInt(1);
            ps = st.get(c, "SELECT i_id, i_title, a_fname, a_lname, SUM(ol_qty) AS sold FROM order_line"
                    + " JOIN item ON ol_i_id = i_id JOIN author ON i_a_id = a_id"
                    + " WHERE ol_o_id > ? AND i_subject = ? GROUP BY i_id, i_title, a_fname, a_lname"
                    + " ORDER BY sold DESC, i_id" + engine.firstRows(50));
            ps.setInt(1, maxOrder - BEST_SELLER_WINDOW);
            ps.setString(2, SUBJECTS[r.nextInt(SUBJECTS.length)]);
            drain(ps);
        }

        private void productDetail(Connection c, Random r) throws SQLException {
            PreparedStatement ps = st.get(c, "SELECT i_title, a_fname, a_lname, i_pub_date, i_desc, i_srp, i_cost, i_stock, i_isbn"
                    + " FROM item JOIN author ON i_a_id = a_id WHERE i_id = ?");
            ps.setInt(1, uniform(r, 1, items));
            Row.one(ps, "item");
        }

        private void search(Connection c, Random r) throws SQLException {
            PreparedStatement ps;
            switch (r.nextInt(3)) {
                case 0 -> {
                    ps = st.get(c, "SELECT i_id, i_title, a_fname, a_lname FROM item JOIN author ON i_a_id = a_id"
                            + " WHERE i_subject = ? ORDER BY i_title" + engine.firstRows(50));
                    ps.setString(1, SUBJECTS[r.nextInt(SUBJECTS.length)]);
                }
                case 1 -> {
                    ps = st.get(c, "SELECT i_id, i_title, a_fname, a_lname FROM item JOIN author ON i_a_id = a_id"
                            + " WHERE i_title LIKE ? ORDER BY i_title" + engine.firstRows(50));
                    ps.setString(1, astring(r, 1, 1) + "%");
                }
                default -> {
                    ps = st.get(c, "SELECT i_id, i_title, a_fname, a_lname FROM author JOIN item ON i_a_id = a_id"
                            + " WHERE a_lname LIKE ? ORDER BY i_title" + engine.firstRows(50));
                    ps.setString(1, astring(r, 1, 1) + "%");
                }
            }
            drain(ps);
        }

        private void shoppingCart(Connection c, Random r) throws SQLException {
            Timestamp now = new Timestamp(System.currentTimeMillis());
            PreparedStatement ps;
            if (cart < 0) {
                cart = nextCart.getAndIncrement();
                ps = st.get(c, "INSERT INTO shopping_cart (sc_id, sc_time) VALUES (?, ?)");
                ps.setLong(1, cart);
                ps.setTimestamp(2, now);
                ps.executeUpdate();
            } else {
                ps = st.get(c, "UPDATE shopping_cart SET sc_time = ? WHERE sc_id = ?");
                ps.setTimestamp(1, now);
                ps.setLong(2, cart);
                ps.executeUpdate();
            }
            int item = uniform(r, 1, items);
            ps = st.get(c, "UPDATE shopping_cart_line SET scl_qty = scl_qty + 1 WHERE scl_sc_id = ? AND scl_i_id = ?");
            ps.setLong(1, cart);
            ps.setInt(2, item);
            if (ps.executeUpdate() == 0) {
                ps = st.get(c, "INSERT INTO shopping_cart_line (scl_sc_id, scl_i_id, scl_qty) VALUES (?, ?, 1)");
                ps.setLong(1, cart);
                ps.setInt(2, item);
                ps.executeUpdate();
            }
        }

        private void registration(Connection c, Random r) throws SQLException {
            int id = (int) nextCustomer.getAndIncrement();
            PreparedStatement ps = st.get(c, "INSERT INTO customer VALUES (?,?,?,?,?,?,?,?,?,?,?)");
            Object[] row = customerRow(id, r);
            for (int i = 0; i < row.length; i++) ps.setObject(i + 1, row[i]);
            ps.executeUpdate();
            customer = id;
        }

        private void buyRequest(Connection c) throws SQLException {
            PreparedStatement ps = st.get(c, "SELECT c_fname, c_lname, c_discount FROM customer WHERE c_id = ?");
            ps.setInt(1, customer);
            Row.one(ps, "customer");
            if (cart >= 0) {
                ps = st.get(c, "SELECT scl_i_id, scl_qty, i_title, i_cost FROM shopping_cart_line JOIN item ON scl_i_id = i_id"
                        + " WHERE scl_sc_id = ?");
                ps.setLong(1, cart);
                drain(ps);
            }
        }

        private void buyConfirm(Connection c, Random r) throws SQLException {
            if (cart < 0) shoppingCart(c, r);
            PreparedStatement ps = st.get(c, "SELECT scl_i_id, scl_qty, i_cost FROM shopping_cart_line JOIN item ON scl_i_id = i_id"
                    + " WHERE scl_sc_id = ? ORDER BY scl_i_id");
            ps.setLong(1, cart);
            List<long[]> lines = new ArrayList<>();
            BigDecimal sub = BigDecimal.ZERO;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    lines.add(new long[] {rs.getInt(1), rs.getInt(2)});
                    sub = sub.add(rs.getBigDecimal(3).multiply(BigDecimal.valueOf(rs.getInt(2))));
                }
            }
            int oid = (int) nextOrder.getAndIncrement();
            BigDecimal total = sub.multiply(new BigDecimal("1.0825")).setScale(2, java.math.RoundingMode.HALF_UP);
            Timestamp now = new Timestamp(System.currentTimeMillis());
            ps = st.get(c, "INSERT INTO orders VALUES (?,?,?,?,?,?,?,?)");
            ps.setInt(1, oid);
            ps.setInt(2, customer);
            ps.setTimestamp(3, now);
            ps.setBigDecimal(4, sub.setScale(2, java.math.RoundingMode.HALF_UP));
            ps.setBigDecimal(5, total.subtract(sub).setScale(2, java.math.RoundingMode.HALF_UP));
            ps.setBigDecimal(6, total);
            ps.setString(7, "AIR");
            ps.setString(8, "PENDING");
            ps.executeUpdate();
            int n = 0;
            for (long[] l : lines) {
                ps = st.get(c, "INSERT INTO order_line VALUES (?,?,?,?,?)");
                ps.setInt(1, oid);
                ps.setInt(2, ++n);
                ps.setInt(3, (int) l[0]);
                ps.setInt(4, (int) l[1]);
                ps.setBigDecimal(5, BigDecimal.ZERO);
                ps.executeUpdate();
                // TPC-W clause 2.7.3: stock below 10 after the sale is replenished by 21
                ps = st.get(c, "UPDATE item SET i_stock = CASE WHEN i_stock - ? < 10 THEN i_stock - ? + 21 ELSE i_stock - ? END WHERE i_id = ?");
                ps.setInt(1, (int) l[1]);
                ps.setInt(2, (int) l[1]);
                ps.setInt(3, (int) l[1]);
                ps.setInt(4, (int) l[0]);
                ps.executeUpdate();
            }
            ps = st.get(c, "INSERT INTO cc_xacts VALUES (?,?,?,?,?)");
            ps.setInt(1, oid);
            ps.setString(2, "VISA");
            ps.setString(3, astring(r, 15, 16));
            ps.setBigDecimal(4, total);
            ps.setTimestamp(5, now);
            ps.executeUpdate();
            ps = st.get(c, "DELETE FROM shopping_cart_line WHERE scl_sc_id = ?");
            ps.setLong(1, cart);
            ps.executeUpdate();
        }

        private void orderDisplay(Connection c) throws SQLException {
            PreparedStatement ps = st.get(c, "SELECT o_id, o_date, o_total, o_status FROM orders WHERE o_c_id = ?"
                    + " ORDER BY o_id DESC" + engine.firstRows(1));
            ps.setInt(1, customer);
            Row last = Row.first(ps);
            if (last == null) return;
            ps = st.get(c, "SELECT ol_i_id, i_title, ol_qty, i_cost FROM order_line JOIN item ON ol_i_id = i_id WHERE ol_o_id = ?");
            ps.setInt(1, last.getInt(1));
            drain(ps);
        }

        private void adminConfirm(Connection c, Random r) throws SQLException {
            PreparedStatement ps = st.get(c, "UPDATE item SET i_cost = ?, i_pub_date = ? WHERE i_id = ?");
            ps.setBigDecimal(1, BigDecimal.valueOf(uniform(r, 100, 99_999), 2));
            ps.setDate(2, new Date(System.currentTimeMillis()));
            ps.setInt(3, uniform(r, 1, items));
            ps.executeUpdate();
        }
    }

    private static void drain(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            int cols = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= cols; i++) rs.getObject(i);
            }
        }
    }
}
