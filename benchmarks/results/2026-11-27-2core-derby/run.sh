#!/bin/sh
# As run for this folder, from the worktree root, after `mvn -B -o -q install -DskipTests` at the commit in results.json.
# One invocation per mix; `uptime` and the busiest processes before and after each.
R=benchmarks/results/2026-11-27-2core-derby
for MIX in 80-20 100-0; do
  OUT=$R/tpcc-$MIX
  { echo "## before tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
  java -jar macrodb-cli/target/macrodb.jar bench -e sqlite,derby -w tpcc -m $MIX --scale 0.1 \
      -C standalone,macrodb:2,macrodb:4,independent:2,independent:4 -c 1,4 \
      --jvm-warmup 3 --warmup 1 -d 3 --repetitions 2 --no-progress -o $OUT > $R/tpcc-$MIX.stdout.txt 2>&1
  echo "exit $?" >> $R/tpcc-$MIX.stdout.txt
  { echo "## after tpcc $MIX: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
done
# Then (run after the loop above had finished, as a third invocation) the small transactions of micro 90-10 and TPC-W shopping, same configurations and windows:
OUT=$R/micro-tpcw
{ echo "## before micro/tpcw: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
java -jar macrodb-cli/target/macrodb.jar bench -e sqlite,derby -w micro,tpcw -m micro/90-10,tpcw/shopping --scale 0.1 \
    -C standalone,macrodb:2,macrodb:4,independent:2,independent:4 -c 1,4 \
    --jvm-warmup 3 --warmup 1 -d 3 --repetitions 2 --no-progress -o $OUT > $R/micro-tpcw.stdout.txt 2>&1
echo "exit $?" >> $R/micro-tpcw.stdout.txt
{ echo "## after micro/tpcw: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
