-- Rows, a schema change, rows in the new table, then a statement that fails: on SQLite the whole migration is one
-- transaction, and Flyway rolls it back.
UPDATE item SET qty = qty - 1 WHERE id = 1;
CREATE TABLE shipment (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL REFERENCES item (id), qty INTEGER NOT NULL);
ALTER TABLE item ADD COLUMN reserved INTEGER NOT NULL DEFAULT 0;
INSERT INTO shipment VALUES (1, 1, 1);
UPDATE item SET reserved = 1 WHERE id = 2;
INSERT INTO no_such_table VALUES (1);
