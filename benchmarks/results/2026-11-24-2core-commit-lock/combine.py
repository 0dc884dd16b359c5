#!/usr/bin/env python3
"""One row per target x version over all JFR runs (raw-set*/summary-*.txt) and no-JFR runs
(raw-set*/nojfr/jmh-*.json): median and [min-max]."""
import glob, json, os, re, statistics, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
def short(site):
    if "ReplicaSet.commit [park ReentrantLock" in site: return "commitLock"
    if "CommitOrder.take [park ReentrantLock" in site: return "take"
    if "CommitOrder.finish [park ReentrantLock" in site: return "finish-lock"
    if "CommitOrder.finish [park AbstractQueuedSynchronizer$ConditionObject" in site: return "finish-await"
    return "macrodb-other" if site.startswith("io.macrodb.") else "engine"
runs = {}
for f in sorted(glob.glob(os.path.join(here, "raw-set*", "summary-*.txt"))):
    ver, target, rnd = re.match(r"summary-(\w+)-(\w+)-r(\d+)\.txt", os.path.basename(f)).groups()
    lines = open(f).read().splitlines()
    r = {"ops": float(re.search(r"score (\d+)", lines[0]).group(1))}
    for l in lines:
        m = re.match(r"(.+?)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%\s+([\d.]+)\s+(\d+)\s+([\d.]+)%\s+([\d.]+)$", l)
        if not m: continue
        name, us, pw, share = m.group(1).strip(), float(m.group(4)), float(m.group(5)), float(m.group(8))
        if name == "ALL": r["all"], r["pw"], r["share_any"] = us, pw, share
        elif name == "GROUP MacroDB": r["mdb"], r["share_mdb"] = us, share
        elif name == "GROUP engine": r["eng"] = us
        else:
            k = short(name); r[k] = r.get(k, 0) + us
    runs.setdefault((target, ver), []).append(r)
nojfr = {}
for f in glob.glob(os.path.join(here, "raw-set*", "nojfr", "jmh-*.json")):
    ver, target = re.match(r"jmh-(\w+)-(\w+)-r\d+\.json", os.path.basename(f)).groups()
    nojfr.setdefault((target, ver), []).append(json.load(open(f))[0]["primaryMetric"]["score"])
def fmt(vals, d=1, pct=False):
    if not vals: return "–"
    s = "%" if pct else ""
    med = statistics.median(vals)
    return f"{med:,.{d}f}{s} [{min(vals):,.{d}f}–{max(vals):,.{d}f}]"
print("| target | version | ops/s, JFR on (4 runs) | ops/s, JFR off (2 runs) | MacroDB lock wait us/commit | of which commitLock / take / finish-lock / finish-await (medians) | H2 lock wait us/commit | thread time parked | commits that waited (MacroDB lock) | commits that waited (any lock) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for target in ("h2", "macrodb1", "macrodb2"):
    for ver in ("before", "after"):
        rs = runs[(target, ver)]
        g = lambda k: [r.get(k, 0.0) for r in rs]
        split = " / ".join(f"{statistics.median(g(k)):.1f}" if any(g(k)) else "–" for k in ("commitLock", "take", "finish-lock", "finish-await"))
        print(f"| {target} | {ver} | {fmt(g('ops'), 0)} | {fmt(nojfr.get((target, ver), []), 0)} | {fmt(g('mdb'))} | {split} | {fmt(g('eng'))} | {fmt(g('pw'), 0, True)} | {fmt(g('share_mdb'), 2, True)} | {fmt(g('share_any'), 2, True)} |")
