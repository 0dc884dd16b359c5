#!/usr/bin/env python3
"""Per run (from loads.txt): the other sessions' Maven/surefire processes seen in the 15 s `ps` samples
taken during it (top.txt: a time line, then `ps -eo pid,pcpu,etimes,args --sort=-pcpu | head -6`)."""
import re, sys
loads, top = sys.argv[1], sys.argv[2]
samples = []  # (time, [(pcpu, what)])
for l in open(top):
    l = l.rstrip()
    if re.match(r"^\d\d:\d\d:\d\d$", l):
        samples.append((l, []))
    elif samples and ("surefire" in l or "plexus-classworlds" in l):
        f = l.split()
        what = "surefire " + re.search(r"/work/[^ ]*?/(macrodb-[a-z]+)/", l).group(1) if "surefire" in l and re.search(r"/work/[^ ]*?/(macrodb-[a-z]+)/", l) else ("surefire" if "surefire" in l else "mvn")
        where = re.search(r"(/work/[a-z-]+)", l)
        samples[-1][1].append((float(f[1]), what + (" in " + where.group(1) if where else "")))
runs = []
for l in open(loads):
    m = re.match(r"==\s+(\S+)\s+(\d\d:\d\d:\d\d)", l)
    if m: runs.append([m.group(1), m.group(2), None])
    m = re.match(r"\s+(\S+)\s+(\d\d:\d\d:\d\d) load-after", l)
    if m: runs[-1][2] = m.group(2)
for tag, a, b in runs:
    inside = [s for s in samples if a <= s[0] <= (b or "99")]
    if not inside:
        print(f"{tag} {a}-{b}: no samples"); continue
    busy = [max([p for p, _ in s[1]], default=0) for s in inside]
    tot = [sum(p for p, _ in s[1]) for s in inside]
    names = sorted({w for s in inside for _, w in s[1]})
    print(f"{tag} {a}-{b}: {len(inside)} samples, foreign Maven/surefire CPU% per sample {[round(t) for t in tot]} ({'; '.join(names) or 'none'})")
