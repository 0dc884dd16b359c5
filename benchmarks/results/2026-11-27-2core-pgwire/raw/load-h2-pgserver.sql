DROP TABLE IF EXISTS pgbench_history, pgbench_tellers, pgbench_accounts, pgbench_branches;
CREATE TABLE pgbench_history(tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
CREATE TABLE pgbench_tellers(tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84));
CREATE TABLE pgbench_accounts(aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84));
CREATE TABLE pgbench_branches(bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88));
INSERT INTO pgbench_branches SELECT "X", 0, NULL FROM system_range(1, 1);
INSERT INTO pgbench_tellers SELECT "X", ("X" - 1) / 10 + 1, 0, NULL FROM system_range(1, 10 * 1);
INSERT INTO pgbench_accounts SELECT "X", ("X" - 1) / 100000 + 1, 0, '' FROM system_range(1, 100000 * 1);
SELECT count(*) AS accounts FROM pgbench_accounts;
