#!/usr/bin/env python3
"""derived.txt from the bench's output files (*.txt but environment*): per set and client count, medians over
rounds (min-max) of W/B and D/B within a round (throughput, CPU per transaction), and of the CPU per
transaction each step adds: T-A the trigger's inserts, B-T the read-back, L-A wal_level=logical, D-L
decoding (walsender and consumer), W-D the wait for it. Usage: derive.py > derived.txt"""
import glob, re, statistics, os
here = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"round (\d+) clients (\d+) (\w) .*?: (\d+) tps \| cpu/txn ms: jvm ([\d.]+) server ([\d.]+) total ([\d.]+)"
                  r" \| txn ms p50 ([\d.]+) p99 ([\d.]+)"
                  r"(?:.*commit->decoded ms p50 ([-\d.]+) p90 ([-\d.]+) p99 ([-\d.]+) max ([-\d.]+).*consumer cpu/txn ms ([\d.]+))?")

def fmt(v, f="%.2f"):
    if not v: return ""
    s = sorted(v)
    return (f + " (" + f + "-" + f + ")") % (statistics.median(s), s[0], s[-1])

files = sorted(f for f in glob.glob(os.path.join(here, "*.txt")) if not os.path.basename(f).startswith(("environment", "derived")))
groups = {}
for f in files:
    name = os.path.basename(f)[:-4]
    base = name.rsplit("-", 1)[0] if name[-2:] in ("-2", "-3") else name
    for line in open(f):
        m = LINE.match(line)
        if not m: continue
        r, c, cfg, tps, jvm, srv, tot = m.group(1, 2, 3, 4, 5, 6, 7)
        d = {"tps": float(tps), "cpu": float(tot), "srv": float(srv), "p50": float(m.group(8)), "p99": float(m.group(9))}
        if m.group(10): d.update(d50=float(m.group(10)), d99=float(m.group(12)), dmax=float(m.group(13)), ccpu=float(m.group(14)))
        for key in (name, base + " (all runs)") if base != name or any(os.path.basename(g)[:-4].startswith(base + "-") for g in files) else (name,):
            groups.setdefault(key, {}).setdefault(int(c), {}).setdefault((name, int(r)), {})[cfg] = d

for key in sorted(groups):
    print(f"== {key}")
    rows = []
    print("per configuration: medians over rounds (min-max), ratios to A of the same round")
    print("| clients | config | rounds | tps | tps/A | cpu ms/txn (jvm+server) | cpu/A | server cpu/A | txn p50 ms | txn p99 ms | commit->decoded p50 ms | p99 ms | max ms | consumer cpu ms/txn |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in sorted(groups[key]):
        rounds = [v for v in groups[key][c].values() if all(k in v for k in "ATBLDW")]
        for cfg in "ATBLDW":
            col = lambda f: [f(v) for v in rounds]
            dec = cfg in "DW"
            print("| %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                c, cfg, len(rounds), fmt(col(lambda v: v[cfg]["tps"]), "%.0f"), fmt(col(lambda v: v[cfg]["tps"] / v["A"]["tps"])),
                fmt(col(lambda v: v[cfg]["cpu"]), "%.3f"), fmt(col(lambda v: v[cfg]["cpu"] / v["A"]["cpu"])),
                fmt(col(lambda v: v[cfg]["srv"] / v["A"]["srv"])), fmt(col(lambda v: v[cfg]["p50"]), "%.3f"),
                fmt(col(lambda v: v[cfg]["p99"]), "%.2f"),
                fmt(col(lambda v: v[cfg]["d50"]), "%.3f") if dec else "", fmt(col(lambda v: v[cfg]["d99"]), "%.2f") if dec else "",
                fmt(col(lambda v: v[cfg]["dmax"]), "%.1f") if dec else "", fmt(col(lambda v: v[cfg]["ccpu"]), "%.3f") if dec else ""))
    print()
    print("within a round, and the CPU per transaction each step adds (ms)")
    print("| clients | rounds | W tps/B | W cpu/B | D tps/B | A cpu ms | T-A | B-T | L-A | D-L | W-D | B-A | W-A | W commit->decoded p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in sorted(groups[key]):
        rounds = [v for v in groups[key][c].values() if all(k in v for k in "ATBLDW")]
        col = lambda f: [f(v) for v in rounds]
        rows.append("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c, len(rounds),
            fmt(col(lambda v: v["W"]["tps"] / v["B"]["tps"])), fmt(col(lambda v: v["W"]["cpu"] / v["B"]["cpu"])),
            fmt(col(lambda v: v["D"]["tps"] / v["B"]["tps"])), fmt(col(lambda v: v["A"]["cpu"]), "%.3f"),
            fmt(col(lambda v: v["T"]["cpu"] - v["A"]["cpu"]), "%.3f"), fmt(col(lambda v: v["B"]["cpu"] - v["T"]["cpu"]), "%.3f"),
            fmt(col(lambda v: v["L"]["cpu"] - v["A"]["cpu"]), "%.3f"), fmt(col(lambda v: v["D"]["cpu"] - v["L"]["cpu"]), "%.3f"),
            fmt(col(lambda v: v["W"]["cpu"] - v["D"]["cpu"]), "%.3f"), fmt(col(lambda v: v["B"]["cpu"] - v["A"]["cpu"]), "%.3f"),
            fmt(col(lambda v: v["W"]["cpu"] - v["A"]["cpu"]), "%.3f"),
            fmt(col(lambda v: v["W"]["d50"]), "%.3f"), fmt(col(lambda v: v["W"]["d99"]), "%.2f"), fmt(col(lambda v: v["W"]["dmax"]), "%.1f")))
    print("\n".join(rows))
    print()
