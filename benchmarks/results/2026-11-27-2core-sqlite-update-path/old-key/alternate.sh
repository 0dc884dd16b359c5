#!/bin/bash
# before = 5340729 (the whole old row through the capture function), after = deebee7 (the old key only, for a table with a key); the jars were copied to /tmp as internal.jar and oldkey.jar. SQLite TPC-C 80-20, 1 client
i=0
for j in internal oldkey oldkey internal internal oldkey; do
  i=$((i+1))
  java -jar /tmp/$j.jar bench -e sqlite -w tpcc -m 80-20 --scale 0.1 --warehouses 2 -C standalone,macrodb:1,macrodb:2 -c 1 --warmup 2 -d 5 --repetitions 2 --jvm-warmup 5 --no-progress -o /tmp/ab4/$i-$j > /tmp/ab4/$i-$j.log 2>&1
  echo "== $i $j $(uptime)"
done
