#!/usr/bin/env python3
"""Markdown table from summary-<ver>-<target>-r<N>.txt files (LockWait.java output) in OUTDIR."""
import glob, os, re, sys
out = sys.argv[1]
def short(site):
    if site.startswith("io.macrodb.replica.ReplicaSet.commit [park ReentrantLock"): return "commitLock"
    if site.startswith("io.macrodb.replica.CommitOrder.take [park ReentrantLock"): return "take"
    if site.startswith("io.macrodb.replica.CommitOrder.finish [park ReentrantLock"): return "finish-lock"
    if site.startswith("io.macrodb.replica.CommitOrder.finish [park AbstractQueuedSynchronizer$ConditionObject"): return "finish-await"
    if site.startswith("io.macrodb."): return "macrodb-other"
    return "engine"
rows = []
for f in glob.glob(os.path.join(out, "summary-*.txt")):
    ver, target, rnd = re.match(r"summary-(\w+)-(\w+)-r(\d+)\.txt", os.path.basename(f)).groups()
    lines = open(f).read().splitlines()
    score = float(re.search(r"score (\d+)", lines[0]).group(1))
    commits = float(re.search(r"commits=(\d+)", lines[2]).group(1))
    d = {}
    grp = {}
    for l in lines:
        m = re.match(r"(.+?)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%\s+([\d.]+)\s+(\d+)\s+([\d.]+)%\s+([\d.]+)$", l)
        if not m: continue
        name = m.group(1).strip()
        us, share, pw = float(m.group(4)), float(m.group(8)), float(m.group(5))
        if name.startswith("GROUP ") or name == "ALL":
            grp[name] = (us, share, pw)
        else:
            k = short(name)
            a = d.get(k, (0.0, 0.0))
            d[k] = (a[0] + us, a[1] + share)
    rows.append((target, ver == "after", int(rnd), ver, score, d, grp))
order = {"h2": 0, "macrodb1": 1, "macrodb2": 2}
rows.sort(key=lambda r: (order.get(r[0], 9), r[1], r[2]))
print("| target | version | round | ops/s (JFR on) | MacroDB lock wait, us/commit | engine (H2) lock wait, us/commit | total us/commit | % of thread time parked | commits that waited at a MacroDB lock | at any lock |")
print("|---|---|---|---:|---|---:|---:|---:|---:|---:|")
for target, _, rnd, ver, score, d, grp in rows:
    parts = [f"{k} {d[k][0]:.1f}" for k in ("commitLock", "take", "finish-lock", "finish-await", "macrodb-other") if k in d]
    mdb = grp.get("GROUP MacroDB", (0, 0, 0))
    eng = grp.get("GROUP engine", (0, 0, 0))
    allg = grp.get("ALL", (0, 0, 0))
    split = f"**{mdb[0]:.1f}**" + (" (" + ", ".join(parts) + ")" if parts else "")
    print(f"| {target} | {ver} | {rnd} | {score:,.0f} | {split} | {eng[0]:.1f} | {allg[0]:.1f} | {allg[2]:.0f}% | {mdb[1]:.2f}% | {allg[1]:.2f}% |")
