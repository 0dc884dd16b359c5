"""Medians per jar, configuration and client count over every run of every round; then new/old per round."""
import json, glob, sys, statistics, collections
base = sys.argv[1]
rows = collections.defaultdict(list)
per_round = collections.defaultdict(dict)
for f in sorted(glob.glob(base + '/*-[0-9]*/results.json')):
    tag = f.split('/')[-2]
    jar, rnd = tag.rsplit('-', 1)
    for r in json.load(open(f))['runs']:
        rows[(jar, r['config'], r['clients'])].append(r)
        per_round[(r['config'], r['clients'], rnd)].setdefault(jar, []).append(r)
print('| jar | config | clients | runs | tx/s (median) | CPU µs/tx (median) | NewOrder p50 ms | Payment p50 ms | Delivery p50 ms | StockLevel p50 ms |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for k in sorted(rows, key=lambda k: (k[1], k[2], k[0])):
    rs = rows[k]
    m = lambda f: statistics.median(f(r) for r in rs)
    t = lambda name: m(lambda r: r['p50MsByType'][name])
    print('| %s | %s | %d | %d | %s | %.0f | %.3f | %.3f | %.3f | %.3f |' % (k[0], k[1], k[2], len(rs), f"{m(lambda r: r['tps']):,.0f}",
          m(lambda r: r['cpuUsPerTx']), t('NewOrder'), t('Payment'), t('Delivery'), t('StockLevel')))
print()
print('| config | clients | round | new/old tx/s | new/old CPU µs/tx |')
print('|---|---:|---:|---:|---:|')
for k in sorted(per_round):
    d = per_round[k]
    if 'old' in d and 'new' in d:
        med = lambda jar, f: statistics.median(f(r) for r in d[jar])
        print('| %s | %d | %s | %.2f | %.2f |' % (k[0], k[1], k[2], med('new', lambda r: r['tps']) / med('old', lambda r: r['tps']),
              med('new', lambda r: r['cpuUsPerTx']) / med('old', lambda r: r['cpuUsPerTx'])))
