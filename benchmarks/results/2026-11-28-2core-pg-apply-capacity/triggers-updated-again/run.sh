#!/bin/sh
# A B A B on the same VM, nothing else running: the driver before (3f594ae) and after (aa94e56) "an update that keeps its
# key is no move", each built with `mvn -B -o -q package -DskipTests -pl macrodb-cli -am` in a clean worktree of its commit.
R=benchmarks/results/2026-11-28-2core-pg-apply-capacity/triggers-updated-again
for RUN in before1 after1 before2 after2; do
  case $RUN in before*) JAR=/tmp/ab-old/macrodb-cli/target/macrodb.jar;; *) JAR=/tmp/ab-new/macrodb-cli/target/macrodb.jar;; esac
  { echo "## $RUN $(date -u +%FT%TZ)"; uptime; } >> $R/load.txt
  java -jar $JAR bench apply-capacity -e postgresql -t 1 -c 2 --warehouses 1 --scale 0.05 -d 5 --repetitions 3 \
      --options capture=triggers -o $R/$RUN > $R/$RUN.stdout.txt 2>&1
  echo "exit $?" >> $R/$RUN.stdout.txt
done
