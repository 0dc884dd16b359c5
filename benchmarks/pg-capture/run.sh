#!/usr/bin/env bash
# Capture cost on PostgreSQL, for MacroDB's PostgreSQL engine (issue 13; docs/postgresql-engine.md).
#
#   benchmarks/pg-capture/run.sh [OUTDIR]
#
# Needs only Debian's PostgreSQL packages (initdb, pg_ctl, postgres, psql, pgbench, pg_recvlogical)
# and perl (for a sub-second clock in the decoding consumer). Creates a temporary cluster in a
# mktemp -d directory on a free loopback port, runs pgbench custom scripts for each variant,
# alternating variants in every round, and always stops the server and removes the directory.
#
# Variants (same schema, same data, same server settings):
#   A  plain update transactions
#   B  capture by an AFTER ROW PL/pgSQL trigger into a logged change table; the transaction reads its
#      rows back and deletes them before COMMIT (DELETE ... RETURNING), as MacroDB's commit path would
#   U  as B with an UNLOGGED change table (the rows never outlive their transaction)
#   C  capture by logical decoding: a test_decoding slot drained continuously by pg_recvlogical
# Scripts: tpcb (pgbench's TPC-B-like transaction) and single (one-row UPDATE in a transaction).
#
# Settings (environment): ROUNDS (3) DURATION seconds per run (15) CLIENTS (4) THREADS (2) SCALE (4)
#   FSYNC (on) SYNC_COMMIT (on) VARIANTS ("A B U C") SCRIPTS ("tpcb single")
#   WAL_TXNS (4000): after the timed rounds, each variant runs exactly this many transactions after a
#   CHECKPOINT, so that full-page images weigh alike; WAL per transaction comes from that run (the
#   timed runs' WAL per transaction depends on how many transactions ran since the checkpoint).
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-15}
CLIENTS=${CLIENTS:-4}
THREADS=${THREADS:-2}
SCALE=${SCALE:-4}
FSYNC=${FSYNC:-on}
SYNC_COMMIT=${SYNC_COMMIT:-on}
VARIANTS=${VARIANTS:-"A B U C"}
SCRIPTS=${SCRIPTS:-"tpcb single"}
WAL_TXNS=${WAL_TXNS:-4000}
OUT=${1:-./pg-capture-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/pg_ctl" ]; then
  echo "no /usr/lib/postgresql/*/bin/pg_ctl: apt-get install -y postgresql" >&2
  exit 2
fi
echo "using $PGBIN ($("$PGBIN/postgres" --version))"

# initdb and the server refuse root: run them as postgres (or nobody) when started as root. The
# clients (psql, pgbench, pg_recvlogical) connect over TCP as the cluster's superuser from here.
AS=()
if [ "$(id -u)" = 0 ]; then
  if id postgres >/dev/null 2>&1; then RUNAS=postgres; else RUNAS=nobody; fi
  AS=(runuser -u "$RUNAS" --)
  SUPER=$RUNAS
else
  SUPER=$(id -un)
fi

WORK=$(mktemp -d /tmp/pg-capture.XXXXXX)
chmod 755 "$WORK"
[ ${#AS[@]} -gt 0 ] && chown "$RUNAS" "$WORK"
PGDATA="$WORK/data"
BG_PIDS=()

cleanup() {
  set +e
  for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  if [ -f "$PGDATA/postmaster.pid" ]; then
    "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1 \
      || "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$WORK"
  echo "stopped the server and removed $WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT=""
for p in $(seq 55432 55532); do
  if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then PORT=$p; break; fi
done
[ -n "$PORT" ] || { echo "no free port" >&2; exit 2; }

"${AS[@]}" "$PGBIN/initdb" -D "$PGDATA" -U "$SUPER" --auth=trust -E UTF8 --locale=C.UTF-8 >"$WORK/initdb.log" 2>&1 \
  || "${AS[@]}" "$PGBIN/initdb" -D "$PGDATA" -U "$SUPER" --auth=trust -E UTF8 --locale=C >"$WORK/initdb.log" 2>&1
cat >>"$PGDATA/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$WORK'
wal_level = logical
max_replication_slots = 4
max_wal_senders = 4
fsync = $FSYNC
synchronous_commit = $SYNC_COMMIT
shared_buffers = 256MB
max_wal_size = 2GB
checkpoint_timeout = 30min
EOF
"${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -l "$WORK/server.log" -w start >/dev/null

PSQL=("$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U "$SUPER" -X -q -A -t -v ON_ERROR_STOP=1)
q() { "${PSQL[@]}" -d bench -c "$1"; }
"${PSQL[@]}" -d postgres -c "CREATE DATABASE bench"
"$PGBIN/pgbench" -h 127.0.0.1 -p "$PORT" -U "$SUPER" -i -q -s "$SCALE" bench >"$WORK/init.log" 2>&1
q "ALTER TABLE pgbench_history ADD COLUMN hid bigserial PRIMARY KEY"
q "CREATE TABLE macrodb_probe(id bigserial PRIMARY KEY, t timestamptz NOT NULL)"
q "VACUUM ANALYZE"

CLK_TCK=$(getconf CLK_TCK)
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "postgres: $("$PGBIN/postgres" --version) ($PGBIN)"
  echo "nproc: $(nproc)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "loadavg_at_start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "settings: ROUNDS=$ROUNDS DURATION=$DURATION CLIENTS=$CLIENTS THREADS=$THREADS SCALE=$SCALE FSYNC=$FSYNC SYNC_COMMIT=$SYNC_COMMIT VARIANTS='$VARIANTS' SCRIPTS='$SCRIPTS'"
  q "SELECT name || '=' || setting FROM pg_settings WHERE name IN ('wal_level','max_replication_slots','fsync','synchronous_commit','shared_buffers','wal_writer_delay','full_page_writes') ORDER BY name"
} | tee "$OUT/environment.txt"

# ---- scripts -------------------------------------------------------------------------------------
TPCB_BODY='\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);'
SINGLE_BODY='\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;'
READBACK='DELETE FROM macrodb_changes WHERE xid = txid_current() RETURNING seq, tbl, op, old_row, new_row;'
for s in tpcb single; do
  if [ $s = tpcb ]; then body=$TPCB_BODY; else body=$SINGLE_BODY; fi
  printf '%s\nEND;\n' "$body" >"$WORK/$s-plain.sql"
  printf '%s\n%s\nEND;\n' "$body" "$READBACK" >"$WORK/$s-capture.sql"
done
chmod 644 "$WORK"/*.sql
cp "$WORK"/*.sql "$OUT/"

TABLES="pgbench_accounts pgbench_tellers pgbench_branches pgbench_history"
install_triggers() { # $1: '' or UNLOGGED
  q "CREATE $1 TABLE macrodb_changes(seq bigserial PRIMARY KEY, xid bigint NOT NULL, tbl text NOT NULL,
       op text NOT NULL, old_row jsonb, new_row jsonb)"
  q "CREATE INDEX macrodb_changes_xid ON macrodb_changes(xid)"
  q "CREATE FUNCTION macrodb_capture() RETURNS trigger LANGUAGE plpgsql AS \$\$
     BEGIN
       INSERT INTO macrodb_changes(xid, tbl, op, old_row, new_row)
       VALUES (txid_current(), TG_TABLE_NAME, TG_OP,
               CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END,
               CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END);
       RETURN NULL;
     END \$\$"
  for t in $TABLES; do
    q "CREATE TRIGGER macrodb_capture AFTER INSERT OR UPDATE OR DELETE ON $t FOR EACH ROW EXECUTE FUNCTION macrodb_capture()"
  done
}
remove_triggers() {
  for t in $TABLES; do q "DROP TRIGGER macrodb_capture ON $t"; done
  q "DROP FUNCTION macrodb_capture()"
  q "DROP TABLE macrodb_changes"
}

CONSUMER_PID=""; PERL_PID=""
start_consumer() { # $1: file for probe sightings
  q "SELECT 1 FROM pg_create_logical_replication_slot('macrodb', 'test_decoding')" >/dev/null
  rm -f "$WORK/stream"; mkfifo "$WORK/stream"
  perl -MTime::HiRes=time -ne 'BEGIN { $| = 1 }
    if (/table public\.macrodb_probe: INSERT: id\[bigint\]:(\d+)/) { printf "%d %.6f\n", $1, time }' \
    <"$WORK/stream" >"$1" &
  PERL_PID=$!; BG_PIDS+=("$PERL_PID")
  "$PGBIN/pg_recvlogical" -h 127.0.0.1 -p "$PORT" -U "$SUPER" -d bench -S macrodb --start \
    --status-interval=1 --fsync-interval=1 -f "$WORK/stream" 2>>"$WORK/recvlogical.log" &
  CONSUMER_PID=$!; BG_PIDS+=("$CONSUMER_PID")
  sleep 1
}
proc_cpu() { # utime+stime of one process, in ticks
  [ -r "/proc/$1/stat" ] && sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}' || echo 0
}
stop_consumer() { # prints the consumer's CPU seconds (pg_recvlogical + perl)
  local c1 c2
  # let it catch up: wait until the slot has confirmed everything written so far (at most 60 s)
  local target; target=$(q "SELECT pg_current_wal_lsn()")
  for _ in $(seq 1 120); do
    [ "$(q "SELECT confirmed_flush_lsn >= '$target' FROM pg_replication_slots WHERE slot_name = 'macrodb'")" = t ] && break
    sleep 0.5
  done
  c1=$(proc_cpu "$CONSUMER_PID"); c2=$(proc_cpu "$PERL_PID")
  kill "$CONSUMER_PID" 2>/dev/null; wait "$CONSUMER_PID" 2>/dev/null || true
  wait "$PERL_PID" 2>/dev/null || true
  BG_PIDS=()
  sleep 0.5
  q "SELECT pg_drop_replication_slot('macrodb')" >/dev/null
  awk -v a="$c1" -v b="$c2" -v t="$CLK_TCK" 'BEGIN { printf "%.2f", (a + b) / t }'
}

PM_PID=$(head -1 "$PGDATA/postmaster.pid")
server_cpu() { # ticks: postmaster + reaped children + live children
  local total; total=$(sed 's/.*) //' "/proc/$PM_PID/stat" | awk '{print $12 + $13 + $14 + $15}')
  for c in $(pgrep -P "$PM_PID"); do total=$((total + $(proc_cpu "$c"))); done
  echo "$total"
}
machine_cpu() { awk '/^cpu / { print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6 }' /proc/stat; }

PROBE_PID=""
start_probe() { # every 0.5 s: a probe row stamped clock_timestamp(), and the slot's lag
  (
    while :; do
      "${PSQL[@]}" -d bench -F ' ' -c "INSERT INTO macrodb_probe(t) VALUES (clock_timestamp()) RETURNING id, extract(epoch FROM t)" \
        -c "SELECT 'lag', coalesce((SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn) FROM pg_replication_slots WHERE slot_name = 'macrodb'), -1),
                   coalesce((SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), sent_lsn) FROM pg_stat_replication LIMIT 1), -1)" \
        2>/dev/null || true
      sleep 0.5
    done
  ) >"$1" &
  PROBE_PID=$!; BG_PIDS+=("$PROBE_PID")
}
stop_probe() { kill "$PROBE_PID" 2>/dev/null; wait "$PROBE_PID" 2>/dev/null || true; }

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "NA"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
maxof() { sort -g | tail -1 | awk '{ print ($1 == "" ? "NA" : $1) }'; }

CSV="$OUT/runs.csv"
echo "round,variant,script,tps,lat_avg_ms,lat_stddev_ms,txns,wal_bytes_timed,wal_bytes_per_txn_timed,machine_busy_pct,server_cpu_s,server_cpu_ms_per_txn,consumer_cpu_s,slot_lag_median_bytes,slot_lag_max_bytes,sent_lag_max_bytes,decode_ms_median,decode_ms_max,probes_seen" >"$CSV"

for round in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do
    for s in $SCRIPTS; do
      tag="r$round-$v-$s"
      file="$WORK/$s-plain.sql"
      case $v in
        B) install_triggers ""; file="$WORK/$s-capture.sql" ;;
        U) install_triggers UNLOGGED; file="$WORK/$s-capture.sql" ;;
        C) start_consumer "$OUT/$tag.seen" ;;
      esac
      q "CHECKPOINT"
      sleep 1
      lsn0=$(q "SELECT pg_current_wal_lsn()")
      read -r mt0 mi0 < <(machine_cpu); sc0=$(server_cpu)
      start_probe "$OUT/$tag.probe"
      "$PGBIN/pgbench" -h 127.0.0.1 -p "$PORT" -U "$SUPER" -n -s "$SCALE" -c "$CLIENTS" -j "$THREADS" \
        -T "$DURATION" -P "$DURATION" -f "$file" bench >"$OUT/$tag.pgbench" 2>&1
      stop_probe
      lsn1=$(q "SELECT pg_current_wal_lsn()")
      sleep 0.5
      read -r mt1 mi1 < <(machine_cpu); sc1=$(server_cpu)
      ccpu=0
      case $v in
        B|U) remove_triggers ;;
        C) ccpu=$(stop_consumer) ;;
      esac
      wal=$(q "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')::bigint")
      txns=$(awk -F': ' '/number of transactions actually processed/ { split($2, a, "/"); print a[1] }' "$OUT/$tag.pgbench")
      tps=$(awk '/^tps = / { print $3 }' "$OUT/$tag.pgbench")
      lat=$(awk '/^latency average/ { print $4 }' "$OUT/$tag.pgbench")
      std=$(awk '/^latency stddev/ { print $4 }' "$OUT/$tag.pgbench")
      busy=$(awk -v t0="$mt0" -v i0="$mi0" -v t1="$mt1" -v i1="$mi1" 'BEGIN { printf "%.1f", 100 * (1 - (i1 - i0) / (t1 - t0)) }')
      scpu=$(awk -v a="$sc0" -v b="$sc1" -v t="$CLK_TCK" 'BEGIN { printf "%.2f", (b - a) / t }')
      scpt=$(awk -v c="$scpu" -v n="$txns" 'BEGIN { printf "%.3f", 1000 * c / n }')
      walpt=$(awk -v w="$wal" -v n="$txns" 'BEGIN { printf "%.0f", w / n }')
      lagmed=NA; lagmax=NA; sentmax=NA; dmed=NA; dmax=NA; seen=0
      if [ "$v" = C ]; then
        lagmed=$(awk '$1 == "lag" && $2 >= 0 { print $2 }' "$OUT/$tag.probe" | median)
        lagmax=$(awk '$1 == "lag" && $2 >= 0 { print $2 }' "$OUT/$tag.probe" | maxof)
        sentmax=$(awk '$1 == "lag" && $3 >= 0 { print $3 }' "$OUT/$tag.probe" | maxof)
        awk 'NR == FNR { if ($1 != "lag") sent[$1] = $2; next } ($1 in sent) { printf "%.3f\n", 1000 * ($2 - sent[$1]) }' \
          "$OUT/$tag.probe" "$OUT/$tag.seen" >"$OUT/$tag.decode_ms"
        dmed=$(median <"$OUT/$tag.decode_ms"); dmax=$(maxof <"$OUT/$tag.decode_ms"); seen=$(wc -l <"$OUT/$tag.decode_ms")
      fi
      line="$round,$v,$s,$tps,$lat,$std,$txns,$wal,$walpt,$busy,$scpu,$scpt,$ccpu,$lagmed,$lagmax,$sentmax,$dmed,$dmax,$seen"
      echo "$line" >>"$CSV"
      echo "$line"
    done
  done
done

# ---- WAL volume at a fixed transaction count ------------------------------------------------------
WALCSV="$OUT/wal.csv"
echo "variant,script,txns,wal_bytes,wal_bytes_per_txn" >"$WALCSV"
for v in $VARIANTS; do
  for s in $SCRIPTS; do
    file="$WORK/$s-plain.sql"
    case $v in
      B) install_triggers ""; file="$WORK/$s-capture.sql" ;;
      U) install_triggers UNLOGGED; file="$WORK/$s-capture.sql" ;;
      C) start_consumer "$WORK/wal.seen" ;;
    esac
    q "CHECKPOINT"
    lsn0=$(q "SELECT pg_current_wal_lsn()")
    "$PGBIN/pgbench" -h 127.0.0.1 -p "$PORT" -U "$SUPER" -n -s "$SCALE" -c "$CLIENTS" -j "$THREADS" \
      -t $((WAL_TXNS / CLIENTS)) -f "$file" bench >"$OUT/wal-$v-$s.pgbench" 2>&1
    lsn1=$(q "SELECT pg_current_wal_lsn()")
    case $v in
      B|U) remove_triggers ;;
      C) stop_consumer >/dev/null ;;
    esac
    wal=$(q "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')::bigint")
    txns=$(awk -F': ' '/number of transactions actually processed/ { split($2, a, "/"); print a[1] }' "$OUT/wal-$v-$s.pgbench")
    line="$v,$s,$txns,$wal,$(awk -v w="$wal" -v n="$txns" 'BEGIN { printf "%.0f", w / n }')"
    echo "$line" >>"$WALCSV"; echo "wal: $line"
  done
done

# ---- summary: medians per variant, ratios to A within each round ---------------------------------
{
  echo "# summary (medians over $ROUNDS rounds; ratios are X/A within each round, then their median)"
  for s in $SCRIPTS; do
    echo
    echo "## $s"
    echo "variant tps_median lat_ms_median wal_bytes_per_txn(fixed-count run) server_cpu_ms_per_txn_median tps_ratio_to_A_per_round tps_ratio_to_A_median"
    for v in $VARIANTS; do
      col() { awk -F, -v v="$v" -v s="$s" -v c="$1" '$2 == v && $3 == s { print $c }' "$CSV"; }
      ratios=$(awk -F, -v v="$v" -v s="$s" '$2 == "A" && $3 == s { a[$1] = $4 } $2 == v && $3 == s { x[$1] = $4 }
        END { for (r in x) if (r in a) printf "%d:%.3f\n", r, x[r] / a[r] }' "$CSV" | sort -n | cut -d: -f2)
      echo "$v $(col 4 | median) $(col 5 | median) $(awk -F, -v v="$v" -v s="$s" '$1 == v && $2 == s { print $5 }' "$WALCSV") $(col 12 | median) $(echo $ratios | tr ' ' '/') $(echo "$ratios" | median)"
    done
  done
  if echo " $VARIANTS " | grep -q ' C '; then
    echo
    echo "## logical decoding consumer (variant C, all runs)"
    for s in $SCRIPTS; do
      awk -F, -v s="$s" '$2 == "C" && $3 == s { print "  " s " round " $1 ": slot lag median " $14 " B, max " $15 " B; sent lag max " $16 " B; commit-to-decoded median " $17 " ms, max " $18 " ms over " $19 " probes; consumer CPU " $13 " s" }' "$CSV"
      echo "  $s commit-to-decoded, all probes: median $(cat "$OUT"/r*-C-"$s".decode_ms | median) ms, max $(cat "$OUT"/r*-C-"$s".decode_ms | maxof) ms"
    done
  fi
  echo
  echo "loadavg_at_end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/summary.txt"
