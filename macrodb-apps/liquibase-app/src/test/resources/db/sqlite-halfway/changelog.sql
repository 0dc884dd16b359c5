--liquibase formatted sql

--changeset macrodb:1-stock
CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, qty INTEGER NOT NULL);
INSERT INTO item VALUES (1, 'kettle', 10), (2, 'teapot', 4);

--changeset macrodb:2-shipments
-- rows, a schema change, rows in the new table, then a statement that fails: Liquibase runs the changeset in one
-- transaction, and on SQLite rolls the whole of it back
UPDATE item SET qty = qty - 1 WHERE id = 1;
CREATE TABLE shipment (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL REFERENCES item (id), qty INTEGER NOT NULL);
ALTER TABLE item ADD COLUMN reserved INTEGER NOT NULL DEFAULT 0;
INSERT INTO shipment VALUES (1, 1, 1);
UPDATE item SET reserved = 1 WHERE id = 2;
INSERT INTO no_such_table VALUES (1);
