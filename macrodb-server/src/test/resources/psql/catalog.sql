CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, email VARCHAR(80) UNIQUE, created DATE DEFAULT CURRENT_DATE);
CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id INT NOT NULL REFERENCES customers(id) ON DELETE CASCADE, total NUMERIC(10,2) DEFAULT 0, note VARCHAR(200), ok BOOLEAN);
CREATE INDEX orders_customer ON orders (customer_id);
CREATE UNIQUE INDEX orders_note ON orders (note, id DESC);
CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100;
\d orders
\d customers
\d big_orders
\d orders_customer
\dt
\di
\dv
\dn
\l
\du
\d nosuch
