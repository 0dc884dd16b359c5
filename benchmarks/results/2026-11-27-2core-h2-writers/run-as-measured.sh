#!/bin/bash
# H2, TPC-C 8-92 and 80-20, MacroDB with 2 replicas, 4 clients: concurrent writers (A) vs one writer at a time (B),
# and one writer without the image check (C); rounds alternate A B C.
cd /work/main
for round in 1 2 3; do
  for mode in A B C; do
    case $mode in
      A) props="-Dmacrodb.h2.oneWriter=false" ;;
      B) props="-Dmacrodb.h2.oneWriter=true" ;;
      C) props="-Dmacrodb.h2.oneWriter=true -Dmacrodb.checkCaptureImages=false" ;;
    esac
    java $props -jar macrodb-cli/target/macrodb.jar bench -e h2 -w tpcc -m 8-92,80-20 -C macrodb:2 -c 4 -d 15 --warmup 5 --jvm-warmup 5 --no-progress -o /tmp/ow/$mode-$round > /tmp/ow/$mode-$round.log 2>&1
    echo "$(date -u +%T) round $round mode $mode rc=$?" >> /tmp/ow/progress.log
  done
done
