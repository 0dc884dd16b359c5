#!/usr/bin/env python3
"""For each jmh-<tag>.json in OUTDIR: commits = sum of measured iteration scores x iteration time;
runs LockWait.java on the matching JFR file; writes summary-<tag>.txt and prints ops/s."""
import glob, json, os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
for jf in sorted(glob.glob(os.path.join(out, "jmh-*.json"))):
    tag = os.path.basename(jf)[4:-5]
    res = [b for b in json.load(open(jf)) if b["benchmark"].endswith("update_1t")][0]
    raw = res["primaryMetric"]["rawData"][0]
    itsec = float(res["measurementTime"].split()[0])
    commits = sum(raw) * itsec
    line = f"{tag}: score {res['primaryMetric']['score']:.0f} ops/s, iterations {[round(x) for x in raw]}, commits {commits:.0f}"
    print(line)
    jfrs = glob.glob(os.path.join(out, f"jfr-{tag}", "*", "*.jfr"))
    if jfrs:
        s = subprocess.run(["java", os.path.join(here, "LockWait.java"), jfrs[0], str(commits),
                            str(res["threads"]), str(itsec * len(raw))], capture_output=True, text=True, check=True).stdout
        with open(os.path.join(out, f"summary-{tag}.txt"), "w") as f:
            f.write(line + "\n" + s)
