#!/usr/bin/env bash
# The device call of 2026-11-28 (one call of a machine lent for 15 minutes in all):
#  1. h2-tpcc-80-20-routing at 16 and 32 clients, one repetition (MacroDB-4 as it is, with primaryReads=fallback,
#     readWait=0 and session consistency, beside standalone and MacroDB-1);
#  2. MacroDB-4 alone at 16 clients under JDK Flight Recorder (where its threads wait, where its CPU goes);
#  3. hsqldb-tpcc-80-20 at 1, 8 and 16 clients, one repetition.
# Results go to /tmp/res and come back as one archive (a call brings back at most 8 files).
set -u
[ -x .device/jre/bin/java ] || { mkdir -p .device && tar -C .device -xJf .devpack/device.tar.xz; }
R=${RES:-/tmp/res}; mkdir -p "$R"
pack() { tar -C "$R" --exclude=recording.jfr -czf "${OUT:-/tmp}/results.tgz" . ; cp "$R"/jfr/*/recording.jfr "${OUT:-/tmp}"/ 2>/dev/null; true; }
trap pack EXIT
CLIENTS=${C1:-16,32} REPETITIONS=1 MIX_LIMIT=${L1:-230} benchmarks/many-core.sh h2-tpcc-80-20-routing "$R"
pack
CONFIGS=macrodb:4 CLIENTS=${C2:-16} REPETITIONS=1 JFR=1 MIX_LIMIT=${L2:-90} benchmarks/many-core.sh h2-tpcc-80-20 "$R/jfr"
pack
CLIENTS=${C3:-1,8,16} REPETITIONS=1 MIX_LIMIT=${L3:-180} benchmarks/many-core.sh hsqldb-tpcc-80-20 "$R"
