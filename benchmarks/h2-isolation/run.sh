#!/usr/bin/env bash
# Runs H2IsolationRace (plain H2, no MacroDB) against several H2 releases from Maven Central.
# usage: benchmarks/h2-isolation/run.sh [THREADS] [SECONDS] [RUNS] [VERSIONS...]
set -euo pipefail
cd "$(dirname "$0")"
threads=${1:-6}; seconds=${2:-45}; runs=${3:-3}; shift 3 2>/dev/null || shift $#
versions=("$@"); [ ${#versions[@]} -gt 0 ] || versions=(2.2.224 2.3.232 2.4.240 2.5.252)
out=$(mktemp -d)
for v in "${versions[@]}"; do
  jar=~/.m2/repository/com/h2database/h2/$v/h2-$v.jar
  [ -f "$jar" ] || mvn -B -q dependency:get -Dartifact=com.h2database:h2:$v >/dev/null
  mkdir -p "$out/$v" && javac -d "$out/$v" -cp "$jar" H2IsolationRace.java
  for i in $(seq "$runs"); do
    java -cp "$jar:$out/$v" H2IsolationRace "$threads" "$seconds" | grep --line-buffered -E '^(H2 |MISMATCH|INTERNAL ERROR|OTHER ERROR|RESULT)' | cut -c1-400
  done
done
rm -rf "$out"
