#!/usr/bin/env bash
# PostgresDecodingBench (macrodb-driver test sources) from this checkout, in three server settings, one JVM
# (two fresh servers, wal_level=replica and wal_level=logical) per setting:
#   on-nofsync:  synchronous_commit=on,  fsync=off  4 rounds (the main comparison)
#   off-nofsync: synchronous_commit=off, fsync=off  3 rounds (PostgresCaptureBench's and `macrodb bench`'s servers)
#   on-fsync:    synchronous_commit=on,  fsync=on   3 rounds (a durable server)
# each round: clients 1 then 4, the six configurations in an order rotated per round, 8 s each.
# Usage: run.sh [OUTDIR]   (default: this script's folder). Run as root or as a user who may start PostgreSQL
# servers (PgCluster: Debian's /usr/lib/postgresql/*/bin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
root=$(git -C "$here" rev-parse --show-toplevel)
cd "$root"
mvn -B -o -q -pl macrodb-driver -am test-compile
# the test classpath, as surefire builds it
mvn -B -o -X -pl macrodb-driver surefire:test@default-test -Dtest=UntilCountsTest 2>/dev/null \
  | grep "test classpath:" | sed 's/.*test classpath: *//' | tr -s ' ' '\n' | grep '\.jar$' | paste -sd: > "$out/.deps.cp"
{
  echo "commit: $(git rev-parse HEAD) $(git status --short | grep -v '^??' | wc -l) modified tracked files"
  echo "date: $(date -u)"
  echo "nproc: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo
  grep MemTotal /proc/meminfo
  java -version 2>&1 | head -1
  ls /usr/lib/postgresql/
  uptime
} > "$out/environment.txt"
run() { # name sync fsync rounds
  echo "== $1 start: $(date -u) $(uptime)" >> "$out/environment.txt"
  java -cp "macrodb-driver/target/test-classes:macrodb-driver/target/classes:$(cat "$out/.deps.cp")" \
    io.macrodb.engine.PostgresDecodingBench 8 "$4" 1,4 "$2" "$3" > "$out/$1.txt" 2>&1
  echo "== $1 end:   $(date -u) $(uptime)" >> "$out/environment.txt"
}
run on-nofsync on off 4
run off-nofsync off off 3
run on-fsync on on 3
rm -f "$out/.deps.cp"
