#!/bin/bash
# Runs CommitPathBench.update_1t with 8 threads, before (5fdfa79) and after (2e20516), one JMH
# invocation (one JFR file) per version x target x round; then summarises each recording.
# Usage: run.sh OUTDIR ROUNDS [nojfr]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1; ROUNDS=$2; MODE=${3:-jfr}
mkdir -p "$OUT"
JMHOPTS=${JMHOPTS:-"-t 8 -f 1 -wi 2 -w 2s -i 3 -r 3s"}
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then ORDER="before after"; else ORDER="after before"; fi
  for target in h2 macrodb1 macrodb2; do
    for ver in $ORDER; do
      tag=$ver-$target-r$r
      echo "== $tag $(date -u +%T) load-before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/loads.txt"
      if [ "$MODE" = jfr ]; then
        PROF=(-prof "jfr:dir=$OUT/jfr-$tag;configName=$HERE/lockwait.jfc;stackDepth=256")
      else
        PROF=()
      fi
      java -jar /tmp/jmh-$ver.jar 'CommitPathBench.update_1t' $JMHOPTS -p target=$target "${PROF[@]}" \
           -rf json -rff "$OUT/jmh-$tag.json" > "$OUT/jmh-$tag.log" 2>&1
      echo "   $tag $(date -u +%T) load-after:  $(cut -d' ' -f1-3 /proc/loadavg)  rc=$?" | tee -a "$OUT/loads.txt"
    done
  done
done
