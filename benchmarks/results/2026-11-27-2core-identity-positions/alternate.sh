#!/bin/bash
# old = 6293f91, internal = 5340729 (identity positions from the engine objects); the jars were copied to /tmp as old.jar and internal.jar. H2 TPC-C 80-20, MacroDB-1 and -2, 1 and 2 clients, order old internal internal old old internal
i=0
for j in old internal internal old old internal; do
  i=$((i+1))
  java -jar /tmp/$j.jar bench -e h2 -w tpcc -m 80-20 --scale 0.1 --warehouses 2 -C macrodb:1,macrodb:2 -c 1,2 --warmup 2 -d 5 --repetitions 2 --jvm-warmup 5 --no-progress -o /tmp/ab3/$i-$j > /tmp/ab3/$i-$j.log 2>&1
  echo "== $i $j $(uptime)"
done
