"""Medians per jar, engine, configuration and client count over every run of every round; then idle/base per round."""
import json, glob, sys, statistics, collections
base = sys.argv[1]
rows = collections.defaultdict(list)
per_round = collections.defaultdict(dict)
for f in sorted(glob.glob(base + '/*-[0-9]*/results.json')):
    jar, rnd = f.split('/')[-2].rsplit('-', 1)
    for r in json.load(open(f))['runs']:
        rows[(jar, r['engine'], r['config'], r['clients'])].append(r)
        per_round[(r['engine'], r['config'], r['clients'], rnd)].setdefault(jar, []).append(r)
med = lambda rs, f: statistics.median(f(r) for r in rs)
print('| jar | engine | config | clients | runs | tx/s | CPU µs/tx | p50 ms | RO on secondary | RO waited | RO wait ms (mean over all RO) |')
print('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for k in sorted(rows, key=lambda k: (k[1], k[2], k[3], k[0])):
    rs = rows[k]
    ro = lambda r: max(1, r['readOnly'])
    print('| %s | %s | %s | %d | %d | %s | %.0f | %.3f | %.0f%% | %.0f%% | %.3f |' % (k[0], k[1], k[2], k[3], len(rs),
          f"{med(rs, lambda r: r['tps']):,.0f}", med(rs, lambda r: r['cpuUsPerTx']), med(rs, lambda r: r['p50Ms']),
          100 * med(rs, lambda r: r['readOnlyOnSecondary'] / ro(r)), 100 * med(rs, lambda r: r['readOnlyWaited'] / ro(r)),
          med(rs, lambda r: r['roWaitMeanMs'] or 0)))
print()
print('| engine | config | clients | round | idle/base tx/s | idle/base CPU µs/tx |')
print('|---|---|---:|---:|---:|---:|')
for k in sorted(per_round):
    d = per_round[k]
    if 'base' in d and 'idle' in d:
        print('| %s | %s | %d | %s | %.2f | %.2f |' % (k[0], k[1], k[2], k[3], med(d['idle'], lambda r: r['tps']) / med(d['base'], lambda r: r['tps']),
              med(d['idle'], lambda r: r['cpuUsPerTx']) / med(d['base'], lambda r: r['cpuUsPerTx'])))
