#!/bin/sh
# Runs the old and the new jar in turn, ROUNDS times, each the same bench command.
ROUNDS=${ROUNDS:-3}
for r in $(seq 1 $ROUNDS); do
  for jar in old new; do
    echo "$r $jar $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> order.txt
    java -jar ${JARS:-/tmp/jars}/$jar.jar bench -e h2 -w tpcc -m 8-92 --scale 0.1 --warehouses 2 -C macrodb:1,macrodb:2 -c 1,2 \
      --warmup 3 -d 8 --repetitions 2 --jvm-warmup 8 --no-progress -o $jar-$r > $jar-$r.log 2>&1
  done
done
echo done >> order.txt
