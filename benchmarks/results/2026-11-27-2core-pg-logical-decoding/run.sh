#!/usr/bin/env bash
# PostgresDecodingBench (macrodb-driver test sources) from this checkout, in three server settings, one JVM
# (two fresh servers, wal_level=replica and wal_level=logical) per setting:
#   on-nofsync:  synchronous_commit=on,  fsync=off  4 rounds (the main comparison)
#   off-nofsync: synchronous_commit=off, fsync=off  3 rounds (PostgresCaptureBench's and `macrodb bench`'s servers)
#   on-fsync:    synchronous_commit=on,  fsync=on   3 rounds (a durable server)
# each round: clients 1 then 4, the six configurations in an order rotated per round, 8 s each.
# Usage: [SETS="on-nofsync ..."] [SUFFIX=-2] run.sh [OUTDIR]   (default: all three sets, no suffix, this
# script's folder; SUFFIX names a repeat's files, e.g. on-nofsync-2.txt and environment-2.txt). Run as root or as a user who may start PostgreSQL
# servers (PgCluster: Debian's /usr/lib/postgresql/*/bin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
sets=${SETS:-on-nofsync off-nofsync on-fsync}
sfx=${SUFFIX:-}
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
} > "$out/environment$sfx.txt"
run() { # name sync fsync rounds
  echo "== $1 start: $(date -u) $(uptime)" >> "$out/environment$sfx.txt"
  java -cp "macrodb-driver/target/test-classes:macrodb-driver/target/classes:$(cat "$out/.deps.cp")" \
    io.macrodb.engine.PostgresDecodingBench 8 "$4" 1,4 "$2" "$3" > "$out/$1$sfx.txt" 2>&1
  echo "== $1 end:   $(date -u) $(uptime)" >> "$out/environment$sfx.txt"
}
for s in $sets; do
  case $s in
    on-nofsync) run on-nofsync on off 4 ;;
    off-nofsync) run off-nofsync off off 3 ;;
    on-fsync) run on-fsync on on 3 ;;
    *) echo "unknown set $s" >&2; exit 2 ;;
  esac
done
rm -f "$out/.deps.cp"
