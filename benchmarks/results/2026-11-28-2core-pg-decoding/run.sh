#!/bin/sh
# As run for this folder, from the worktree root, after `mvn -B -o -q package -DskipTests -pl macrodb-cli -am` at the
# commit in results.json (environment.driverBuild / benchBuild). One invocation per mix; `uptime` and the busiest
# processes before and after each. /tmp/macrodb-bench-quiet asks other sessions on this machine to hold heavy loops.
R=benchmarks/results/2026-11-28-2core-pg-decoding
QUIET=/tmp/macrodb-bench-quiet
echo "pg-decoding $(date -u +%FT%TZ)" > $QUIET
trap 'rm -f $QUIET' EXIT INT TERM
{ echo "## nproc"; nproc; echo "## lscpu"; lscpu | grep -E '^(CPU\(s\)|Model name|Thread|Core|Socket)'; echo "## free -h"; free -h
  echo "## java -version"; java -version 2>&1; echo "## postgres --version"; /usr/lib/postgresql/*/bin/postgres --version
  echo "## git"; git rev-parse HEAD; } > $R/machine.txt
for MIX in 80-20 50-50; do
  OUT=$R/tpcc-$MIX
  { echo "## before tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
  java -jar macrodb-cli/target/macrodb.jar bench -e postgresql -w tpcc -m $MIX --scale 0.1 \
      -C standalone,macrodb:3,macrodb:3:capture=decoding -c 1,2,4 \
      --jvm-warmup 3 --warmup 1 -d 4 --repetitions 3 --no-progress -o $OUT > $R/tpcc-$MIX.stdout.txt 2>&1
  echo "exit $?" >> $R/tpcc-$MIX.stdout.txt
  { echo "## after tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
done
