CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), price NUMERIC(8,2), added DATE, ok BOOLEAN);
INSERT INTO items VALUES (1, 'apple', 1.50, '2024-01-02', true), (2, 'pear', NULL, '2024-03-04', false);
SELECT id, name, price, added, ok FROM items ORDER BY id;
UPDATE items SET price = 2.25 WHERE id = 2;
BEGIN;
DELETE FROM items WHERE id = 1;
ROLLBACK;
SELECT count(*) FROM items;
BEGIN READ ONLY;
SHOW transaction_read_only;
SELECT name FROM items WHERE price > 2;
COMMIT;
SELECT 1 AS one; SELECT 'two;three' AS two;
SHOW server_version;
\echo done
