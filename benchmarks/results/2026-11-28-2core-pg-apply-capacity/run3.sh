#!/bin/sh
# The convergence check, added after run.sh and run2.sh (commit c2b0b47: the replicas' checksums after the last window
# of each applyThreads), run from the worktree root after `mvn -B -o -q install -DskipTests` on a clean tree at that
# commit: a shorter run per capture (4 clients only, one repetition of 3 s) into convergence/. Not part of the
# measurement's tables; it shows that the backlogs applied leave the secondary equal to the primary.
R=benchmarks/results/2026-11-28-2core-pg-apply-capacity/convergence
mkdir -p $R
for CAPTURE in decoding triggers; do
  if [ $CAPTURE = decoding ]; then OPTS=""; else OPTS="--options capture=triggers"; fi
  { echo "## before $CAPTURE: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
  java -jar macrodb-cli/target/macrodb.jar bench apply-capacity -e postgresql -t 1,2,4 -c 4 --warehouses 1 --scale 0.05 \
      --jvm-warmup 5 -d 3 --repetitions 1 $OPTS -o $R/$CAPTURE > $R/$CAPTURE.stdout.txt 2>&1
  echo "exit $?" >> $R/$CAPTURE.stdout.txt
  { echo "## after $CAPTURE: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
done
