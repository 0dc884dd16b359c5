#!/bin/sh
# As run for this folder, from the worktree root, after `mvn -B -o -q install -DskipTests` on a clean tree at the
# commit in results.json (environment.driverBuild / benchBuild). Two invocations, one per capture: the driver's
# default (capture=decoding), then capture=triggers; `uptime` and the busiest processes before and after each.
R=benchmarks/results/2026-11-28-2core-pg-apply-capacity
{ echo "## nproc"; nproc; echo "## lscpu"; lscpu | grep -E '^(CPU\(s\)|Model name|Thread|Core|Socket)'; echo "## free -h"; free -h
  echo "## java -version"; java -version 2>&1; echo "## postgres --version"; /usr/lib/postgresql/15/bin/postgres --version
  echo "## git"; git rev-parse HEAD; git status --short; } > $R/machine.txt
for CAPTURE in decoding triggers; do
  if [ $CAPTURE = decoding ]; then OPTS=""; else OPTS="--options capture=triggers"; fi
  { echo "## before $CAPTURE: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
  java -jar macrodb-cli/target/macrodb.jar bench apply-capacity -e postgresql -t 1,2,4 -c 1,2,4 --warehouses 1 --scale 0.05 \
      -d 5 --repetitions 2 $OPTS -o $R/$CAPTURE > $R/$CAPTURE.stdout.txt 2>&1
  echo "exit $?" >> $R/$CAPTURE.stdout.txt
  { echo "## after $CAPTURE: $(date -u +%FT%TZ)"; uptime; ps -eo pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160; } >> $R/load.txt
done
