#!/usr/bin/env bash
# pgbench through `macrodb serve`, a real PostgreSQL 15 and H2's own PgServer, on one machine, alternating.
#
#   benchmarks/pgwire/run.sh MACRODB_JAR PORT_BASE OUTDIR
#   e.g. mvn -B -o -q install -DskipTests && \
#        benchmarks/pgwire/run.sh macrodb-cli/target/macrodb.jar 56400 /tmp/pgwire-out
#
# What it measures: pgbench tps (CLIENTS clients, DURATION s per run) for four workloads
#   select-simple    pgbench -S -M simple      (select-only, simple query protocol)
#   select-extended  pgbench -S -M extended    (select-only, unnamed statements: Parse/Bind/Execute each time)
#   select-prepared  pgbench -S -M prepared    (select-only, named statements parsed once)
#   tpcb-simple      pgbench    -M simple      (pgbench's TPC-B-like transaction)
# against these servers, all on 127.0.0.1 and all running for the whole measurement:
#   macrodb-r2   (PORT_BASE)    java -jar MACRODB_JAR serve --replicas 2 --trust: an in-memory H2 in PostgreSQL
#                               mode (the serve default), primary and one secondary; no durability
#   postgresql   (PORT_BASE+1)  Debian's PostgreSQL 15 from initdb in a temporary directory, trust,
#                               fsync=off, synchronous_commit=off, full_page_writes=off (no durability either)
#   h2-pgserver  (PORT_BASE+2)  org.h2.tools.Server -pg (the H2 version in the project's pom.xml, from ~/.m2),
#                               an in-memory database in PostgreSQL mode; select-only workloads only
#   macrodb-r1   (PORT_BASE+3)  as macrodb-r2 with --replicas 1 (no secondary); REPLICAS1=0 leaves it out
# Each server is loaded with `pgbench -i -s SCALE` through its own protocol where that works; H2's PgServer
# cannot run `pgbench -i` (CREATE TABLE ... WITH (fillfactor=100)), so there the same tables and rows are
# made with SQL through psql. Then a warm-up: every workload once on every server for WARMUP s (the JVMs
# compile their hot paths, PostgreSQL fills its caches), then ROUNDS rounds; in each round every workload runs on every server in turn (A B C D, A B C D, ...), so that
# the servers take turns through the machine's noise. pgbench runs with -n (no VACUUM: only PostgreSQL has it).
#
# Output in OUTDIR: environment.txt (machine, versions, settings, load average before), loadavg.txt (sampled
# every 5 s during the run), raw/*.txt (every pgbench output, loading included), results.csv (one line per
# run), summary.md (median and min-max of the rounds, and macrodb / PostgreSQL ratios), logs/ (servers' logs).
# Every server the script started is stopped on exit (trap), and its temporary directory removed.
#
# Settings (environment): DURATION (10) ROUNDS (3) WARMUP (10) CLIENTS (4) THREADS (1: pgbench -j) SCALE (1)
#   REPLICAS1 (1: also serve replicas=1) JAVA_OPTS (extra JVM options for both Java servers; default none)
#   H2_JAR (default ~/.m2/repository/com/h2database/h2/<h2.version>/h2-<h2.version>.jar)
# Runs as root too: initdb and postgres then run as the postgres user (runuser).
# With the defaults the whole run takes about 11 minutes; DURATION=2 ROUNDS=1 WARMUP=1 checks it end to end.
set -euo pipefail

if [ $# -ne 3 ]; then
  sed -n '2,6p' "$0" >&2
  exit 2
fi
JAR=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
PORT_BASE=$2
OUT=$3
[ -f "$JAR" ] || { echo "no jar $JAR" >&2; exit 2; }

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-10}
CLIENTS=${CLIENTS:-4}
THREADS=${THREADS:-1}
SCALE=${SCALE:-1}
REPLICAS1=${REPLICAS1:-1}
JAVA_OPTS=${JAVA_OPTS:-}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
H2_VERSION=$(sed -n 's:.*<h2.version>\(.*\)</h2.version>.*:\1:p' "$REPO/pom.xml" | head -1)
H2_JAR=${H2_JAR:-$HOME/.m2/repository/com/h2database/h2/$H2_VERSION/h2-$H2_VERSION.jar}
[ -f "$H2_JAR" ] || { echo "no $H2_JAR (mvn -B -q dependency:get -Dartifact=com.h2database:h2:$H2_VERSION)" >&2; exit 2; }

PGBIN=/usr/lib/postgresql/15/bin
[ -x "$PGBIN/pg_ctl" ] || { echo "no $PGBIN/pg_ctl: apt-get install -y postgresql-15" >&2; exit 2; }
command -v pgbench >/dev/null && command -v psql >/dev/null || { echo "pgbench and psql are needed" >&2; exit 2; }

mkdir -p "$OUT/raw" "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
DB=bench

AS=()
if [ "$(id -u)" = 0 ]; then AS=(runuser -u postgres --); PGSUPER=postgres; else PGSUPER=$(id -un); fi

WORK=$(mktemp -d /tmp/pgwire-bench.XXXXXX)
chmod 755 "$WORK"
[ ${#AS[@]} -gt 0 ] && chown postgres "$WORK"
PGDATA="$WORK/pgdata"
JAVA_PIDS=()
SAMPLER=""
T0=$(date +%s)

cleanup() {
  set +e
  [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null
  for p in "${JAVA_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${JAVA_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$p" 2>/dev/null
  done
  if [ -f "$PGDATA/postmaster.pid" ]; then
    "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1 \
      || "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1
  fi
  [ -f "$WORK/pg.log" ] && cp "$WORK/pg.log" "$OUT/logs/postgresql.log"
  rm -rf "$WORK"
  echo "stopped the servers, removed $WORK ($(( $(date +%s) - T0 )) s in all)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for i in 0 1 2 3; do
  if (exec 3<>/dev/tcp/127.0.0.1/$((PORT_BASE + i))) 2>/dev/null; then
    echo "port $((PORT_BASE + i)) is in use: choose another PORT_BASE" >&2; exit 2
  fi
done

wait_port() { # port, pid, name
  for _ in $(seq 300); do
    (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "$3 exited; see $OUT/logs/$3.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "$3 does not listen on $1 after 60 s" >&2; exit 1
}

# ---- servers: name -> port, user, workloads ----------------------------------------------------------
SERVERS=(macrodb-r2 postgresql h2-pgserver)
[ "$REPLICAS1" = 1 ] && SERVERS+=(macrodb-r1)
declare -A PORT USER_OF WORKLOADS
PORT[macrodb-r2]=$PORT_BASE; PORT[postgresql]=$((PORT_BASE + 1))
PORT[h2-pgserver]=$((PORT_BASE + 2)); PORT[macrodb-r1]=$((PORT_BASE + 3))
USER_OF[macrodb-r2]=bench; USER_OF[macrodb-r1]=bench; USER_OF[postgresql]=$PGSUPER; USER_OF[h2-pgserver]=sa
ALL="select-simple select-extended select-prepared tpcb-simple"
WORKLOADS[macrodb-r2]=$ALL; WORKLOADS[macrodb-r1]=$ALL; WORKLOADS[postgresql]=$ALL
WORKLOADS[h2-pgserver]="select-simple select-extended select-prepared"
H2_PGPASSWORD=sa   # H2's PgServer asks for a password; the first connection creates the database with it

start_macrodb() { # name replicas
  # shellcheck disable=SC2086
  java $JAVA_OPTS -jar "$JAR" serve --port "${PORT[$1]}" --replicas "$2" --trust --database "$DB" \
    >"$OUT/logs/$1.log" 2>&1 &
  JAVA_PIDS+=($!)
  wait_port "${PORT[$1]}" $! "$1"
}

start_macrodb macrodb-r2 2
[ "$REPLICAS1" = 1 ] && start_macrodb macrodb-r1 1

"${AS[@]}" "$PGBIN/initdb" -D "$PGDATA" -U "$PGSUPER" --auth=trust -E UTF8 --locale=C >"$WORK/initdb.log" 2>&1
cat >>"$PGDATA/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = ${PORT[postgresql]}
unix_socket_directories = '$WORK'
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
"${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDATA" -l "$WORK/pg.log" -w start >/dev/null
psql -X -q -h 127.0.0.1 -p "${PORT[postgresql]}" -U "$PGSUPER" -d postgres -c "CREATE DATABASE $DB"

# shellcheck disable=SC2086
java $JAVA_OPTS -cp "$H2_JAR" org.h2.tools.Server -pg -pgPort "${PORT[h2-pgserver]}" -baseDir "$WORK/h2" -ifNotExists \
  -key "$DB" "mem:$DB;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1" \
  >"$OUT/logs/h2-pgserver.log" 2>&1 &
JAVA_PIDS+=($!)
wait_port "${PORT[h2-pgserver]}" $! h2-pgserver

pgenv() { if [ "$1" = h2-pgserver ]; then echo "PGPASSWORD=$H2_PGPASSWORD"; else echo "PGDUMMY="; fi; }

# ---- environment -----------------------------------------------------------------------------------
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc: $(nproc)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "kernel: $(uname -r)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "postgres: $("$PGBIN/postgres" --version)"
  echo "pgbench: $(pgbench --version)"
  echo "macrodb jar: $JAR ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?') $(git -C "$REPO" status --porcelain 2>/dev/null | grep -qv '^??' && echo '+local changes'))"
  echo "h2 jar: $H2_JAR"
  echo "settings: DURATION=$DURATION ROUNDS=$ROUNDS WARMUP=$WARMUP CLIENTS=$CLIENTS THREADS=$THREADS SCALE=$SCALE REPLICAS1=$REPLICAS1 JAVA_OPTS='$JAVA_OPTS'"
  echo "servers: ${SERVERS[*]} (ports: $(for s in "${SERVERS[@]}"; do printf '%s=%s ' "$s" "${PORT[$s]}"; done))"
  echo "postgresql settings: $(psql -X -A -t -h 127.0.0.1 -p "${PORT[postgresql]}" -U "$PGSUPER" -d "$DB" \
    -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE name IN
        ('fsync','synchronous_commit','full_page_writes','shared_buffers','wal_level','autovacuum','max_connections')")"
  echo "loadavg_before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "uptime_before: $(uptime)"
} | tee "$OUT/environment.txt"

# ---- load --------------------------------------------------------------------------------------------
h2_load_sql() {
  cat <<EOF
DROP TABLE IF EXISTS pgbench_history, pgbench_tellers, pgbench_accounts, pgbench_branches;
CREATE TABLE pgbench_history(tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
CREATE TABLE pgbench_tellers(tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84));
CREATE TABLE pgbench_accounts(aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84));
CREATE TABLE pgbench_branches(bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88));
INSERT INTO pgbench_branches SELECT "X", 0, NULL FROM system_range(1, $SCALE);
INSERT INTO pgbench_tellers SELECT "X", ("X" - 1) / 10 + 1, 0, NULL FROM system_range(1, 10 * $SCALE);
INSERT INTO pgbench_accounts SELECT "X", ("X" - 1) / 100000 + 1, 0, '' FROM system_range(1, 100000 * $SCALE);
SELECT count(*) AS accounts FROM pgbench_accounts;
EOF
}

for s in "${SERVERS[@]}"; do
  t=$(date +%s)
  rc=0
  env "$(pgenv "$s")" pgbench -h 127.0.0.1 -p "${PORT[$s]}" -U "${USER_OF[$s]}" -i -s "$SCALE" "$DB" \
    >"$OUT/raw/load-$s.txt" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    if [ "$s" != h2-pgserver ]; then echo "pgbench -i failed on $s (rc $rc): see $OUT/raw/load-$s.txt" >&2; exit 1; fi
    echo "pgbench -i fails on $s (rc $rc; expected, see raw/load-$s.txt): tables made with SQL through psql" \
      | tee -a "$OUT/environment.txt"
    h2_load_sql | tee "$OUT/raw/load-$s.sql" | env "$(pgenv "$s")" psql -X -v ON_ERROR_STOP=1 \
      -h 127.0.0.1 -p "${PORT[$s]}" -U "${USER_OF[$s]}" -d "$DB" >"$OUT/raw/load-$s-psql.txt" 2>&1 \
      || { echo "loading $s through psql failed: see $OUT/raw/load-$s-psql.txt" >&2; exit 1; }
  fi
  echo "loaded $s in $(( $(date +%s) - t )) s" | tee -a "$OUT/environment.txt"
done

# H2's PgServer and pgbench's TPC-B-like script: one short try, recorded, not part of the rounds.
H2_TPCB_RC=0
env "$(pgenv h2-pgserver)" pgbench -h 127.0.0.1 -p "${PORT[h2-pgserver]}" -U sa -n -c 1 -t 1 "$DB" \
  >"$OUT/raw/h2-pgserver-tpcb-try.txt" 2>&1 || H2_TPCB_RC=$?
echo "h2-pgserver TPC-B-like try (pgbench -n -c 1 -t 1): rc $H2_TPCB_RC" | tee -a "$OUT/environment.txt"

# ---- runs --------------------------------------------------------------------------------------------
wl_args() {
  case $1 in
    select-simple) echo "-S -M simple" ;;
    select-extended) echo "-S -M extended" ;;
    select-prepared) echo "-S -M prepared" ;;
    tpcb-simple) echo "-M simple" ;;
  esac
}

bench() { # server workload seconds file
  local rc=0
  # shellcheck disable=SC2046
  env "$(pgenv "$1")" pgbench -h 127.0.0.1 -p "${PORT[$1]}" -U "${USER_OF[$1]}" -n $(wl_args "$2") \
    -c "$CLIENTS" -j "$THREADS" -T "$3" "$DB" >"$4" 2>&1 || rc=$?
  echo $rc
}

# load average every 5 s from the warm-up to the end of the rounds
( while :; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 5; done ) >"$OUT/loadavg.txt" &
SAMPLER=$!

for s in "${SERVERS[@]}"; do
  w=$WARMUP
  for wl in ${WORKLOADS[$s]}; do
    rc=$(bench "$s" "$wl" "$w" "$OUT/raw/warmup-$s-$wl.txt")
    echo "warm-up $s $wl ${w}s: rc $rc, $(grep -m1 '^tps' "$OUT/raw/warmup-$s-$wl.txt" || echo 'no tps')"
  done
done

echo "server,workload,round,tps,latency_avg_ms,transactions,failed,rc" >"$OUT/results.csv"
for r in $(seq "$ROUNDS"); do
  for wl in $ALL; do
    for s in "${SERVERS[@]}"; do
      case " ${WORKLOADS[$s]} " in *" $wl "*) ;; *) continue ;; esac
      f="$OUT/raw/r$r-$s-$wl.txt"
      rc=$(bench "$s" "$wl" "$DURATION" "$f")
      tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$f" | head -1)
      lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$f" | head -1)
      tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$f" | head -1)
      failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$f" | head -1)
      echo "$s,$wl,$r,$tps,$lat,$tx,$failed,$rc" >>"$OUT/results.csv"
      echo "$(date -u +%H:%M:%S) round $r $wl $s: tps ${tps:-none} rc $rc (load $(cut -d' ' -f1 /proc/loadavg))"
    done
  done
done
kill "$SAMPLER" 2>/dev/null || true
SAMPLER=""

# ---- summary: median and min-max over the rounds; macrodb / PostgreSQL of the medians ------------------
{
  echo "| workload | $(for s in "${SERVERS[@]}"; do printf '%s median (min-max) | ' "$s"; done)macrodb-r2 / postgresql$([ "$REPLICAS1" = 1 ] && echo ' | macrodb-r1 / postgresql') |"
  echo "|---|$(for s in "${SERVERS[@]}"; do printf -- '---:|'; done)---:|$([ "$REPLICAS1" = 1 ] && printf '%s' '---:|')"
  for wl in $ALL; do
    declare -A MED=()
    row="| $wl |"
    for s in "${SERVERS[@]}"; do
      vals=$(awk -F, -v s="$s" -v w="$wl" '$1 == s && $2 == w && $4 != "" && $7 == 0 {print $4}' "$OUT/results.csv" | sort -g)
      n=$(echo "$vals" | grep -c . || true)
      if [ "$n" = 0 ]; then
        if [ "$s" = h2-pgserver ] && [ "$wl" = tpcb-simple ]; then
          row="$row $([ "$H2_TPCB_RC" = 0 ] && echo 'not run' || echo 'fails (raw/h2-pgserver-tpcb-try.txt)') |"
        else row="$row failed |"; fi
        continue
      fi
      MED[$s]=$(echo "$vals" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
      row="$row $(printf '%.0f' "${MED[$s]}") ($(printf '%.0f' "$(echo "$vals" | head -1)")-$(printf '%.0f' "$(echo "$vals" | tail -1)")) |"
    done
    for m in macrodb-r2 macrodb-r1; do
      [ "$m" = macrodb-r1 ] && [ "$REPLICAS1" != 1 ] && continue
      if [ -n "${MED[$m]:-}" ] && [ -n "${MED[postgresql]:-}" ]; then
        row="$row $(awk -v a="${MED[$m]}" -v b="${MED[postgresql]}" 'BEGIN {printf "%.2f", a / b}') |"
      else row="$row - |"; fi
    done
    echo "$row"
    unset MED
  done
  echo
  echo "tps, $CLIENTS clients, ${DURATION} s per run, median of $ROUNDS rounds (runs with failed transactions left out)."
  echo "load average during warm-up and rounds (1 min; min / median / max of the 5 s samples): $(awk '{print $2}' "$OUT/loadavg.txt" | sort -g \
    | awk '{v[NR] = $1} END {printf "%s / %s / %s", v[1], v[int((NR + 1) / 2)], v[NR]}')"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/summary.md"
