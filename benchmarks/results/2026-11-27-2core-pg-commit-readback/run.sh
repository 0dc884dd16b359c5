#!/usr/bin/env bash
# PostgresCaptureBench (macrodb-driver test sources) with the driver's classes of two commits, alternated
# OLD NEW OLD NEW, each 2 rounds of 5 s per variant. Usage: run.sh OLD_COMMIT NEW_COMMIT > stdout.txt
# Run as root or as a user who may start PostgreSQL servers (PgCluster: Debian's /usr/lib/postgresql/*/bin).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
for v in "$1" "$2"; do
  git -C "$root" worktree add -q "$work/$v" "$v"
  (cd "$work/$v" && mvn -B -o -q -pl macrodb-driver test-compile)
done
# the test classpath, as surefire builds it
(cd "$work/$2" && mvn -B -o -X -pl macrodb-driver surefire:test@default-test -Dtest=UntilCountsTest) \
  | grep "test classpath:" | sed 's/.*test classpath: *//' | tr -s ' ' '\n' | grep '\.jar$' | paste -sd: > "$work/deps.cp"
for v in "$1" "$2" "$1" "$2"; do
  echo "== $v $(uptime | sed 's/.*load/load/')"
  java -cp "$work/$v/macrodb-driver/target/test-classes:$work/$v/macrodb-driver/target/classes:$(cat "$work/deps.cp")" \
    io.macrodb.engine.PostgresCaptureBench 5 2 2>&1 | grep round
done
for v in "$1" "$2"; do git -C "$root" worktree remove --force "$work/$v"; done
