\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
DELETE FROM macrodb_changes WHERE xid = txid_current() RETURNING seq, tbl, op, old_row, new_row;
END;
