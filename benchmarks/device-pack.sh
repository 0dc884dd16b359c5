#!/usr/bin/env bash
# Packs the benchmark and a Java runtime for a many-core machine without Java, within what a call may carry
# (64 MiB, the tracked working tree included: about 13 MiB of it). ../shared/tools/jre-for-device.sh alone made
# 76 MiB on 2026-11-27 (a 45 MiB runtime and a 32 MiB jar), so this trims the jar further and packs both with xz.
#
# Usage, from the project's root, after `mvn -B -o -q -pl macrodb-cli -am package -DskipTests`:
#   benchmarks/device-pack.sh            # writes .devpack/device.tar.xz (ignored by git; about 42 MiB)
# Carry .devpack; there, before benchmarks/many-core.sh (which finds .device/jre and .device/lib by itself):
#   mkdir -p .device && tar -C .device -xJf .devpack/device.tar.xz
#
# The jar loses what no benchmark run loads: the SQLite native libraries of other platforms than Linux x86_64,
# Netty (the server), PostgreSQL's message translations, JMH and the PDF export. Derby stays: removing it breaks
# the JDBC drivers' service list (java.sql.DriverManager then loads none after it). java.desktop stays in the
# runtime: ResultsWriter needs its classes even where the charts fail (no fontconfig there). jdk.jfr is added for
# many-core.sh's JFR=1.
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
jar=${1:-macrodb-cli/target/macrodb.jar}
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -o -q -pl macrodb-cli -am package -DskipTests)" >&2; exit 2; }
# the runtime of jre-for-device.sh plus jdk.jfr, so that many-core.sh's JFR=1 can record where threads wait there
# (the machine has no Java, so no jfr either: the recording comes back and is read here)
if [ ! -x .device/jre/bin/jfr ]; then
  rm -rf .device/jre
  jlink --add-modules java.base,java.sql,java.logging,java.management,java.naming,jdk.unsupported,jdk.management,java.desktop,java.xml,jdk.jfr \
        --strip-debug --no-man-pages --no-header-files --compress=2 --output .device/jre
  rm -f .device/jre/lib/libawt_xawt.so .device/jre/lib/libsplashscreen.so .device/jre/lib/libjsound.so
fi
../shared/tools/jre-for-device.sh "$jar" >/dev/null   # copies the jar into .device/lib (the runtime is there already)
strip --strip-unneeded .device/jre/lib/server/libjvm.so 2>/dev/null || true
lib=.device/lib/$(basename "$jar")
native=org/sqlite/native
zip -q -d "$lib" "$native/Mac/*" "$native/Windows/*" "$native/FreeBSD/*" "$native/Linux-Android/*" "$native/Linux-Musl/*" \
    "$native/Linux/x86/*" "$native/Linux/arm*" "$native/Linux/aarch64/*" "$native/Linux/ppc64/*" "$native/Linux/riscv64/*" \
    "$native/Linux/s390x/*" "$native/Linux/loongarch64/*" 'io/netty/*' 'org/postgresql/translation/*' >/dev/null 2>&1 || true
grep -qx '/.devpack/' .git/info/exclude 2>/dev/null || echo '/.devpack/' >> .git/info/exclude
mkdir -p .devpack
tar -C .device -cJf .devpack/device.tar.xz jre lib
tracked=$(git ls-files -z | du -cm --files0-from=- | tail -1 | cut -f1)
packed=$(du -m .devpack/device.tar.xz | cut -f1)
echo "packed .devpack/device.tar.xz: ${packed} MiB; the tracked tree is about ${tracked} MiB; what travels must stay under 64 MiB"
echo "carry: [\".devpack\"]; there: mkdir -p .device && tar -C .device -xJf .devpack/device.tar.xz && benchmarks/many-core.sh MIX"
