import json,glob,sys,statistics,collections
base=sys.argv[1]
rows=collections.defaultdict(list)
for f in sorted(glob.glob(base+'/*/results.json')):
    tag=f.split('/')[-2]; jar=tag.split('-',1)[1]
    d=json.load(open(f))
    for r in d['runs']:
        rows[(jar,r['config'],r['clients'])].append(r)
print('| jar | config | clients | runs | tx/s (median) | CPU µs/tx (median) | Payment p50 ms | NewOrder p50 ms | Delivery p50 ms | StockLevel p50 ms |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for k in sorted(rows, key=lambda k:(k[1],k[2],k[0])):
    rs=rows[k]; m=lambda f: statistics.median(f(r) for r in rs)
    print('| %s | %s | %d | %d | %s | %.0f | %.3f | %.3f | %.3f | %.3f |'%(k[0],k[1],k[2],len(rs),f"{m(lambda r:r['tps']):,.0f}",m(lambda r:r['cpuUsPerTx']),
        m(lambda r:r['p50MsByType']['Payment']),m(lambda r:r['p50MsByType']['NewOrder']),m(lambda r:r['p50MsByType']['Delivery']),m(lambda r:r['p50MsByType']['StockLevel'])))
