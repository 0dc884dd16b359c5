#!/bin/bash
# A B A B: the driver before (c4babf7, old.jar) and after the one-trigger-per-event key capture (new.jar), Derby TPC-C 80-20
# on the 2-core VM; each invocation loads its own databases.
cd "$(dirname "$0")"
for i in 1 2; do for j in old new; do
  echo "== $j pair $i $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -Xmx3g -jar ${JARS:-/tmp}/$j.jar bench -e derby -w tpcc -m 80-20 --scale 0.1 --warehouses 1 -C standalone,macrodb:1,macrodb:2 \
      -c 1,2 --warmup 2 -d 8 --repetitions 1 --jvm-warmup 3 --no-progress -o $j-$i > $j-$i.stdout.txt 2>&1
  grep -E "^  derby +tpcc +80-20 +(standalone|macrodb-[12]) +[12] " $j-$i.stdout.txt
done; done
