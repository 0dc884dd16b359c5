#!/usr/bin/env bash
# The many-core run of issue 10: the six mixes of ../shared/results-16core-2026-11-22/README.md,
# with the same configurations, client counts and windows, one results folder per mix; and SQLite's
# TPC-C 80-20 and 100-0 (issue 13), the same way.
# Documented in benchmarks/README.md ("Many-core run (issue 10)"). Not run by CI or by the build.
#
# Usage, from the project's root:
#   benchmarks/many-core.sh MIX|all [OUT]
# MIX: h2-tpcc-100-0 h2-tpcc-80-20 h2-tpcc-8-92 h2-tpcw-browsing hsqldb-tpcc-80-20 hsqldb-tpcc-8-92
#      sqlite-tpcc-80-20 sqlite-tpcc-100-0, and (not in 'all') h2-tpcc-80-20-routing, hsqldb-tpcc-80-20-routing and
#      derby-tpcc-80-20 (Derby loads slowly: run it with fewer configurations, CONFIGS=standalone,macrodb:4,independent:8)
# OUT: where the folders go (default: $OUT/results if $OUT is set, else bench-results/many-core).
# JAVA: the java to use (default: .device/jre/bin/java if present, else java on the PATH).
# JAR:  the benchmark (default: .device/lib/macrodb.jar if present, else macrodb-cli/target/macrodb.jar).
# HEAP: JVM heap flags (default: -Xms16g -Xmx48g, as on 2026-11-22; for a 128 GiB machine).
# CLIENTS, REPETITIONS: the client counts and repetitions (default 1,4,8,16,32 and 2, as on
#   2026-11-22); fewer of either fit more mixes into one call of a time-limited machine.
# CONFIGS: the configurations (default standalone,macrodb:1,macrodb:4,macrodb:8,independent:8).
# JFR: 1 records the run with JDK Flight Recorder (benchmarks/waits.jfc: CPU samples, and waits over 1 ms with
#   their stacks) into <folder>/recording.jfr, at most 14 MB; read it here with benchmarks/jfr-waits.py. Meant for
#   one configuration at one client count (CONFIGS=macrodb:4 CLIENTS=16 REPETITIONS=1 JFR=1 ...).
# MIX_LIMIT: seconds after which a mix is stopped (default: none). Its stdout.txt keeps every point
#   measured until then; results.json and the CSV files are written only by a mix that finished.
#
# Each mix takes about 6 minutes on 16 cores (5 configurations x 5 client counts x 2 repetitions x
# 6 s, plus loading, the JVM warm-up and the catch-up waits): run one mix per call where a call may
# last at most 10 minutes. Exit status: the last failing mix's (1 a check failed, 2 bad usage), else 0.
set -uo pipefail

MIXES="h2-tpcc-100-0 h2-tpcc-80-20 h2-tpcc-8-92 h2-tpcw-browsing hsqldb-tpcc-80-20 hsqldb-tpcc-8-92 sqlite-tpcc-80-20 sqlite-tpcc-100-0"
[ $# -ge 1 ] || { echo "usage: $0 MIX|all [OUT]; MIX is one of: $MIXES" >&2; exit 2; }
want=$1
out=${2:-${OUT:+$OUT/results}}
out=${out:-bench-results/many-core}
if [ -z "${JAVA:-}" ]; then
  if [ -x .device/jre/bin/java ]; then JAVA=.device/jre/bin/java; else JAVA=java; fi
fi
if [ -z "${JAR:-}" ]; then
  if [ -f .device/lib/macrodb.jar ]; then JAR=.device/lib/macrodb.jar; else JAR=macrodb-cli/target/macrodb.jar; fi
fi
HEAP=${HEAP:--Xms16g -Xmx48g}
COMMON=(-c "${CLIENTS:-1,4,8,16,32}"
        --warmup 2 -d 4 --repetitions "${REPETITIONS:-2}" --jvm-warmup 6 --warehouses 8 --no-progress)
LIMIT=()
[ -n "${MIX_LIMIT:-}" ] && LIMIT=(timeout --signal=TERM --kill-after=10 "$MIX_LIMIT")

args_of() {
  case $1 in
    h2-tpcc-100-0)     echo "-e h2 -w tpcc -m 100-0 --scale 0.1" ;;
    h2-tpcc-80-20)     echo "-e h2 -w tpcc -m 80-20 --scale 0.1" ;;
    h2-tpcc-8-92)      echo "-e h2 -w tpcc -m 8-92 --scale 0.1" ;;
    h2-tpcw-browsing)  echo "-e h2 -w tpcw -m browsing --scale 0.5" ;;
    hsqldb-tpcc-80-20) echo "-e hsqldb -w tpcc -m 80-20 --scale 0.1" ;;
    hsqldb-tpcc-8-92)  echo "-e hsqldb -w tpcc -m 8-92 --scale 0.1" ;;
    sqlite-tpcc-80-20) echo "-e sqlite -w tpcc -m 80-20 --scale 0.1" ;;
    sqlite-tpcc-100-0) echo "-e sqlite -w tpcc -m 100-0 --scale 0.1" ;;
    derby-tpcc-80-20)  echo "-e derby -w tpcc -m 80-20 --scale 0.1" ;;
    h2-tpcc-80-20-routing) echo "-e h2 -w tpcc -m 80-20 --scale 0.1" ;;
    hsqldb-tpcc-80-20-routing) echo "-e hsqldb -w tpcc -m 80-20 --scale 0.1" ;;
    *) return 1 ;;
  esac
}

# The configurations of a mix (CONFIGS overrides them). h2-tpcc-80-20-routing (not in 'all') asks whether H2's
# ceiling with secondaries is reads waiting for them: MacroDB-4 as is (primaryReads=idle: a read that finds no fresh
# secondary runs on a primary with a processor to spare), with the routing before that (primaryReads=fallback), with
# readWait=0 (such a read runs on the primary at once, busy or not) and with session consistency (a read waits only
# for its own session's commits).
configs_of() {
  case $1 in
    h2-tpcc-80-20-routing) echo "standalone,macrodb:1,macrodb:4,macrodb:4:primaryReads=fallback,macrodb:4:readWait=0,macrodb:4:leastActive:session" ;;
    # HSQLDB's primary admits one transaction at a time: a read that primaryReads=idle runs there takes that turn from
    # the updates, which are HSQLDB's ceiling under MacroDB (2026-11-28: MacroDB-8 8,128 tx/s at 8 clients with idle,
    # 8,982 on 2026-11-27 before idle existed; one repetition each, on two machines)
    hsqldb-tpcc-80-20-routing) echo "standalone,macrodb:4,macrodb:4:primaryReads=fallback,macrodb:8,macrodb:8:primaryReads=fallback" ;;
    *) echo "standalone,macrodb:1,macrodb:4,macrodb:8,independent:8" ;;
  esac
}

if [ "$want" = all ]; then list=$MIXES; else
  args_of "$want" >/dev/null || { echo "unknown mix '$want'; one of: $MIXES, h2-tpcc-80-20-routing, hsqldb-tpcc-80-20-routing, derby-tpcc-80-20, all" >&2; exit 2; }
  list=$want
fi

rc=0
for m in $list; do
  dir=$out/$m
  mkdir -p "$dir"
  { echo "## before"; date -u; nproc; free -h; "$JAVA" -version 2>&1; uptime; grep -m1 'model name' /proc/cpuinfo; } > "$dir/machine.txt" 2>&1
  # shellcheck disable=SC2046
  set -x
  REC=()
  [ "${JFR:-0}" = 1 ] && REC=("-XX:StartFlightRecording=filename=$dir/recording.jfr,settings=benchmarks/waits.jfc,maxsize=14m")
  "${LIMIT[@]}" "$JAVA" -Djava.awt.headless=true $HEAP -XX:+UseG1GC "${REC[@]}" -jar "$JAR" bench $(args_of "$m") -C "${CONFIGS:-$(configs_of "$m")}" "${COMMON[@]}" -o "$dir" > "$dir/stdout.txt" 2>&1
  r=$?
  { set +x; } 2>/dev/null
  { echo "## after (exit $r)"; date -u; uptime; } >> "$dir/machine.txt"
  [ $r -eq 0 ] || rc=$r
  tail -n 3 "$dir/stdout.txt"
done
exit $rc
