"""The shared client scenario over psycopg 3 (ClientScenarioTest): prints one line a step; node-postgres prints the same."""
import datetime
import decimal
import sys
import threading
import time

import psycopg

host, port, user, password = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]


def text(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, datetime.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, (datetime.date, decimal.Decimal, int, str)):
        return str(v)
    return repr(v)


def row(r):
    return "|".join(text(v) for v in r)


conn = psycopg.connect(host=host, port=port, user=user, password=password, dbname="shop", sslmode="disable", autocommit=True)
cur = conn.cursor()
cur.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), price NUMERIC(8,2), added DATE, ok BOOLEAN, big BIGINT, ts TIMESTAMP)")
print("create", cur.statusmessage)
rows = [
    (1, "apple", decimal.Decimal("1.50"), datetime.date(2024, 1, 2), True, 9000000000, datetime.datetime(2024, 1, 2, 3, 4, 5)),
    (2, "pear", None, datetime.date(2024, 3, 4), False, None, None),
    (3, None, decimal.Decimal("-0.25"), None, None, -1, datetime.datetime(2023, 12, 31, 23, 59, 59)),
]
for r in rows:
    cur.execute("INSERT INTO items VALUES (%s, %s, %s, %s, %s, %s, %s)", r)
    print("insert", cur.rowcount)
cur.execute("SELECT id, name, price, added, ok, big, ts FROM items ORDER BY id")
for r in cur.fetchall():
    print("row", row(r))
cur.execute("UPDATE items SET price = price + 1 WHERE price IS NOT NULL")
print("update", cur.rowcount)

# a transaction rolled back
conn.autocommit = False
cur.execute("DELETE FROM items WHERE id = 1")
print("delete in transaction", cur.rowcount)
conn.rollback()
cur.execute("SELECT count(*) AS n FROM items")
print("after rollback", cur.fetchone()[0])
conn.rollback()

# an error inside a transaction fails it until ROLLBACK
cur.execute("INSERT INTO items (id, name) VALUES (10, 'ten')")
try:
    cur.execute("INSERT INTO items (id, name) VALUES (1, 'dup')")
except psycopg.Error as e:
    print("duplicate", e.sqlstate)
try:
    cur.execute("SELECT 1")
except psycopg.Error as e:
    print("after error", e.sqlstate)
conn.rollback()
conn.autocommit = True
cur.execute("SELECT count(*) AS n FROM items WHERE id = 10")
print("ten rolled back", cur.fetchone()[0])

# the same statement with different parameters (psycopg prepares it on the server after a few runs)
for i in (1, 2, 3, 1, 2, 3, 1):
    cur.execute("SELECT name FROM items WHERE id = %s", (i,))
    print("name", i, text(cur.fetchone()[0]))

# COPY in and out
with cur.copy("COPY items (id, name) FROM STDIN") as copy:
    copy.write("20\ttwenty\n21\t\\N\n")
print("copy in", cur.rowcount)
out = []
with cur.copy("COPY (SELECT id, name FROM items WHERE id >= 20 ORDER BY id) TO STDOUT") as copy:
    for data in copy:
        out.append(bytes(data).decode())
print("copy out", "".join(out).replace("\n", "/").replace("\t", ","))

# errors keep their SQLSTATE
try:
    cur.execute("SELECT * FROM nowhere")
except psycopg.Error as e:
    print("unknown table", e.sqlstate)

# a read-only transaction refuses writes
conn.autocommit = False
cur.execute("SET TRANSACTION READ ONLY")
cur.execute("SELECT count(*) AS n FROM items")
print("read only count", cur.fetchone()[0])
try:
    cur.execute("INSERT INTO items (id) VALUES (99)")
except psycopg.Error as e:
    print("write in read only", e.sqlstate)
conn.rollback()
conn.autocommit = True
cur.execute("SHOW macrodb.last_commit")
print("last commit reported", int(cur.fetchone()[0]) > 0)

# cancel: a statement that runs for long on the engine (a 12-way cross join of items), cancelled by psycopg's
# conn.cancel() (a CancelRequest) from another thread after a second, fails with 57014 within a few seconds and
# the session serves on; inside a transaction the cancel fails the transaction until ROLLBACK
LONG = ("SELECT count(*) AS n FROM " + ", ".join("items t%d" % i for i in range(12))
        + " WHERE " + " + ".join("t%d.id" % i for i in range(12)) + " = -1")


def cancelled(sql):
    """Runs sql, cancelled after a second: its SQLSTATE and whether it ended within 10 s."""
    timer = threading.Timer(1.0, conn.cancel)
    start = time.monotonic()
    timer.start()
    try:
        cur.execute(sql)
        state = "none"
    except psycopg.Error as e:
        state = e.sqlstate
    timer.join()
    return state, time.monotonic() - start < 10


state, in_time = cancelled(LONG)
print("cancel", state, "in time", in_time)
cur.execute("SELECT count(*) AS n FROM items")
print("after cancel", cur.fetchone()[0])
conn.autocommit = False
cur.execute("INSERT INTO items (id, name) VALUES (30, 'thirty')")
state, in_time = cancelled(LONG)
print("cancel in transaction", state, "in time", in_time)
try:
    cur.execute("SELECT 1")
except psycopg.Error as e:
    print("after cancel in transaction", e.sqlstate)
conn.rollback()
conn.autocommit = True
cur.execute("SELECT count(*) AS n FROM items WHERE id = 30")
print("thirty rolled back", cur.fetchone()[0])
conn.close()
print("done")
