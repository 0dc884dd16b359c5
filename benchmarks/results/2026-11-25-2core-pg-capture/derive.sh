#!/usr/bin/env bash
# Derived figures from runs.csv (run in this directory): per round, the server's CPU per transaction
# of each variant over A's in the same round, and the decoding consumer's CPU per transaction.
set -euo pipefail
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for s in tpcb single; do
  for v in B U C; do
    r=$(awk -F, -v s="$s" -v v="$v" 'NR > 1 && $3 == s { if ($2 == "A") a[$1] = $12; if ($2 == v) x[$1] = $12 }
      END { for (i = 1; i in x; i++) printf "%.3f\n", x[i] / a[i] }' runs.csv)
    echo "$s server_cpu_per_txn $v/A per round: $(echo $r | tr ' ' '/') median $(echo "$r" | median)"
  done
  r=$(awk -F, -v s="$s" 'NR > 1 && $2 == "C" && $3 == s { printf "%.3f\n", 1000 * $13 / $7 }' runs.csv)
  echo "$s consumer (pg_recvlogical + perl) cpu ms/txn per round: $(echo $r | tr ' ' '/') median $(echo "$r" | median)"
done
