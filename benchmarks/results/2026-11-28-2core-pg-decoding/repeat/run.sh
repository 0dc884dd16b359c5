#!/bin/sh
# The third run: the two captures only, more and longer repetitions (same build as the second run, see ../README.md).
R=benchmarks/results/2026-11-28-2core-pg-decoding/repeat
QUIET=/tmp/macrodb-bench-quiet
echo "pg-decoding-repeat $(date -u +%FT%TZ)" > $QUIET
trap 'rm -f $QUIET' EXIT INT TERM
for MIX in 80-20 50-50; do
  { echo "## before tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
  java -jar macrodb-cli/target/macrodb.jar bench -e postgresql -w tpcc -m $MIX --scale 0.1 \
      -C macrodb:3:capture=triggers,macrodb:3:capture=decoding -c 2,4 \
      --jvm-warmup 3 --warmup 1 -d 6 --repetitions 5 --no-progress -o $R/tpcc-$MIX > $R/tpcc-$MIX.stdout.txt 2>&1
  echo "exit $?" >> $R/tpcc-$MIX.stdout.txt
  { echo "## after tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
done
