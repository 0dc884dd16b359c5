#!/bin/sh
# Runs the base and the idle jar in turn, ROUNDS times, each the same bench command.
ROUNDS=${ROUNDS:-2}
for r in $(seq 1 $ROUNDS); do
  for jar in base idle; do
    echo "$r $jar $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> order.txt
    java -jar ${JARS:-/tmp/jars}/$jar.jar bench -e h2,hsqldb -w tpcc -m 80-20 --scale 0.1 --warehouses 2 -C macrodb:1,macrodb:2 -c 1,2,4 \
      --warmup 2 -d 6 --repetitions 2 --jvm-warmup 6 --no-progress -o $jar-$r > $jar-$r.log 2>&1
  done
done
echo done >> order.txt
