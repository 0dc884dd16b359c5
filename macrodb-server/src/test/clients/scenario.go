// The shared client scenario over pgx v4 (ClientScenarioTest): prints one line a step; psycopg and
// node-postgres print the same. Built from Debian's golang-github-jackc-pgx-v4-dev in GOPATH mode
// (GO111MODULE=off GOPATH=/usr/share/gocode), so that nothing is fetched from the network.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
)

var ctx = context.Background()

// sqlState is the SQLSTATE of a server error, or "none".
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	if err == nil {
		return "none"
	}
	return err.Error()
}

func must(err error) {
	if err != nil {
		fmt.Println("unexpected error:", err)
		os.Exit(1)
	}
}

// textRows runs a query with every result column in PostgreSQL's text format and prints each row
// as the other clients do: values joined by '|', NULL for a null.
func textRows(conn *pgx.Conn, sql string) {
	rows, err := conn.Query(ctx, sql, pgx.QueryResultFormats{pgx.TextFormatCode})
	must(err)
	defer rows.Close()
	for rows.Next() {
		var parts []string
		for _, v := range rows.RawValues() {
			if v == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, string(v))
			}
		}
		fmt.Println("row", strings.Join(parts, "|"))
	}
	must(rows.Err())
}

func count(q interface {
	QueryRow(context.Context, string, ...interface{}) pgx.Row
}, sql string) int64 {
	var n int64
	must(q.QueryRow(ctx, sql).Scan(&n))
	return n
}

type execer interface {
	Exec(context.Context, string, ...interface{}) (pgconn.CommandTag, error)
}

// cancelled runs sql through q (the connection or a transaction on it) and cancels it after a second with
// PgConn.CancelRequest from another goroutine: a CancelRequest on a connection of its own, read to its end (it
// fails if the server answers anything but closing that connection, as PostgreSQL does). A cancelled context
// would send a CancelRequest too, but pgx v4 then closes the connection. Returns the SQLSTATE and whether the
// statement ended within 10 s.
func cancelled(conn *pgx.Conn, q execer, sql string) (string, string) {
	start := time.Now()
	sent := make(chan error, 1)
	timer := time.AfterFunc(time.Second, func() { sent <- conn.PgConn().CancelRequest(ctx) })
	_, err := q.Exec(ctx, sql)
	if timer.Stop() {
		sent <- nil // the statement ended before the cancel was due
	}
	must(<-sent)
	inTime := "False"
	if time.Since(start) < 10*time.Second {
		inTime = "True"
	}
	return sqlState(err), inTime
}

func main() {
	host, port, user, password := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	conn, err := pgx.Connect(ctx, fmt.Sprintf("host=%s port=%s user=%s password=%s dbname=shop sslmode=disable", host, port, user, password))
	must(err)
	defer conn.Close(ctx)

	tag, err := conn.Exec(ctx, "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), price NUMERIC(8,2), added DATE, ok BOOLEAN, big BIGINT, ts TIMESTAMP)")
	must(err)
	fmt.Println("create", tag.String())
	rows := [][]interface{}{
		{1, "apple", "1.50", "2024-01-02", true, int64(9000000000), "2024-01-02 03:04:05"},
		{2, "pear", nil, "2024-03-04", false, nil, nil},
		{3, nil, "-0.25", nil, nil, int64(-1), "2023-12-31 23:59:59"},
	}
	for _, r := range rows {
		tag, err = conn.Exec(ctx, "INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7)", r...)
		must(err)
		fmt.Println("insert", tag.RowsAffected())
	}
	textRows(conn, "SELECT id, name, price, added, ok, big, ts FROM items ORDER BY id")
	tag, err = conn.Exec(ctx, "UPDATE items SET price = price + 1 WHERE price IS NOT NULL")
	must(err)
	fmt.Println("update", tag.RowsAffected())

	// a transaction rolled back
	tx, err := conn.Begin(ctx)
	must(err)
	tag, err = tx.Exec(ctx, "DELETE FROM items WHERE id = 1")
	must(err)
	fmt.Println("delete in transaction", tag.RowsAffected())
	must(tx.Rollback(ctx))
	fmt.Println("after rollback", count(conn, "SELECT count(*) AS n FROM items"))

	// an error inside a transaction fails it until ROLLBACK
	tx, err = conn.Begin(ctx)
	must(err)
	_, err = tx.Exec(ctx, "INSERT INTO items (id, name) VALUES (10, 'ten')")
	must(err)
	_, err = tx.Exec(ctx, "INSERT INTO items (id, name) VALUES (1, 'dup')")
	fmt.Println("duplicate", sqlState(err))
	_, err = tx.Exec(ctx, "SELECT 1")
	fmt.Println("after error", sqlState(err))
	must(tx.Rollback(ctx))
	fmt.Println("ten rolled back", count(conn, "SELECT count(*) AS n FROM items WHERE id = 10"))

	// the same statement with different parameters (pgx prepares it once, as a named statement)
	for _, i := range []int{1, 2, 3, 1, 2, 3, 1} {
		var name *string
		must(conn.QueryRow(ctx, "SELECT name FROM items WHERE id = $1", i).Scan(&name))
		shown := "NULL"
		if name != nil {
			shown = *name
		}
		fmt.Println("name", i, shown)
	}

	// COPY in and out
	tag, err = conn.PgConn().CopyFrom(ctx, strings.NewReader("20\ttwenty\n21\t\\N\n"), "COPY items (id, name) FROM STDIN")
	must(err)
	fmt.Println("copy in", tag.RowsAffected())
	var out bytes.Buffer
	_, err = conn.PgConn().CopyTo(ctx, &out, "COPY (SELECT id, name FROM items WHERE id >= 20 ORDER BY id) TO STDOUT")
	must(err)
	fmt.Println("copy out", strings.ReplaceAll(strings.ReplaceAll(out.String(), "\n", "/"), "\t", ","))

	// errors keep their SQLSTATE
	_, err = conn.Exec(ctx, "SELECT * FROM nowhere")
	fmt.Println("unknown table", sqlState(err))

	// a read-only transaction refuses writes
	tx, err = conn.Begin(ctx)
	must(err)
	_, err = tx.Exec(ctx, "SET TRANSACTION READ ONLY")
	must(err)
	fmt.Println("read only count", count(tx, "SELECT count(*) AS n FROM items"))
	_, err = tx.Exec(ctx, "INSERT INTO items (id) VALUES (99)")
	fmt.Println("write in read only", sqlState(err))
	must(tx.Rollback(ctx))

	var last string
	must(conn.QueryRow(ctx, "SHOW macrodb.last_commit").Scan(&last))
	var v int64
	_, err = fmt.Sscan(last, &v)
	reported := "False" // as Python prints a bool, like the other clients
	if err == nil && v > 0 {
		reported = "True"
	}
	fmt.Println("last commit reported", reported)

	// cancel: a statement that runs for long on the engine (a 12-way cross join of items) fails with 57014 and
	// the session serves on; inside a transaction the cancel fails the transaction until ROLLBACK
	var from, sum []string
	for i := 0; i < 12; i++ {
		from = append(from, fmt.Sprintf("items t%d", i))
		sum = append(sum, fmt.Sprintf("t%d.id", i))
	}
	long := "SELECT count(*) AS n FROM " + strings.Join(from, ", ") + " WHERE " + strings.Join(sum, " + ") + " = -1"
	state, inTime := cancelled(conn, conn, long)
	fmt.Println("cancel", state, "in time", inTime)
	fmt.Println("after cancel", count(conn, "SELECT count(*) AS n FROM items"))
	tx, err = conn.Begin(ctx)
	must(err)
	_, err = tx.Exec(ctx, "INSERT INTO items (id, name) VALUES (30, 'thirty')")
	must(err)
	state, inTime = cancelled(conn, tx, long)
	fmt.Println("cancel in transaction", state, "in time", inTime)
	_, err = tx.Exec(ctx, "SELECT 1")
	fmt.Println("after cancel in transaction", sqlState(err))
	must(tx.Rollback(ctx))
	fmt.Println("thirty rolled back", count(conn, "SELECT count(*) AS n FROM items WHERE id = 30"))
	fmt.Println("done")
}
