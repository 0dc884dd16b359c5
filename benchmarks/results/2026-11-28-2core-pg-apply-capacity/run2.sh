#!/bin/sh
# The second round, as run for this folder after run.sh, from the worktree root, with the same jar (same build,
# same commit): the same two invocations in the other order (triggers first), into round2/, and a sampler that
# writes the load average and any Maven/surefire JVM of another session every 5 s to round2/load-samples.txt.
R=benchmarks/results/2026-11-28-2core-pg-apply-capacity/round2
mkdir -p $R
( while :; do echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg) | $(pgrep -fa 'plexus-classworlds|surefirebooter' | sed 's/.*-multiModuleProjectDirectory=\([^ ]*\).*Launcher/maven \1/; s/.*surefirebooter.*/surefire/' | cut -c1-120 | tr '\n' ';')"; sleep 5; done ) > $R/load-samples.txt &
SAMPLER=$!
for CAPTURE in triggers decoding; do
  if [ $CAPTURE = decoding ]; then OPTS=""; else OPTS="--options capture=triggers"; fi
  { echo "## before $CAPTURE: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
  java -jar macrodb-cli/target/macrodb.jar bench apply-capacity -e postgresql -t 1,2,4 -c 1,2,4 --warehouses 1 --scale 0.05 \
      -d 5 --repetitions 2 $OPTS -o $R/$CAPTURE > $R/$CAPTURE.stdout.txt 2>&1
  echo "exit $?" >> $R/$CAPTURE.stdout.txt
  { echo "## after $CAPTURE: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
done
kill $SAMPLER
