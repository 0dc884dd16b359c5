#!/bin/sh
# As run for this folder, from the worktree root, after `mvn -B -o -q package -DskipTests -pl macrodb-cli -am` at the
# commit in results.json (environment.driverBuild / benchBuild). One invocation per mix; `uptime` and the busiest
# processes before and after each. While it runs, /tmp/macrodb-bench-quiet tells the other sessions on this machine
# to hold their heavy test loops; it is removed at the end, also on failure or Ctrl-C.
R=benchmarks/results/2026-11-27-2core-postgresql
QUIET=/tmp/macrodb-bench-quiet
echo "pg-bench $(date -u +%FT%TZ)" > $QUIET
trap 'rm -f $QUIET' EXIT INT TERM
{ echo "## nproc"; nproc; echo "## lscpu"; lscpu | grep -E '^(CPU\(s\)|Model name|Thread|Core|Socket)'; echo "## free -h"; free -h
  echo "## java -version"; java -version 2>&1; echo "## postgres --version"; /usr/lib/postgresql/*/bin/postgres --version
  echo "## git"; git rev-parse HEAD; } > $R/machine.txt
for MIX in 80-20 100-0; do
  OUT=$R/tpcc-$MIX
  { echo "## before tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
  java -jar macrodb-cli/target/macrodb.jar bench -e postgresql -w tpcc -m $MIX --scale 0.1 \
      -C standalone,macrodb:1,macrodb:2,macrodb:3,independent:2,independent:3 -c 1,2,4,8 \
      --jvm-warmup 3 --warmup 1 -d 4 --repetitions 3 --no-progress -o $OUT > $R/tpcc-$MIX.stdout.txt 2>&1
  echo "exit $?" >> $R/tpcc-$MIX.stdout.txt
  { echo "## after tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
done
