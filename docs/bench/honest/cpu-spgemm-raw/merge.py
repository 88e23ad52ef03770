# merge.py OUT SESSION_DIR... : per matrix, each tool's best over the sessions
# (spmx's powerlaw times only from the last session: WideAccumulator came after the others)
import json, glob, sys, os
out, sessions = sys.argv[1], sys.argv[2:]
best = {}
for k, d in enumerate(sessions):
    last = k == len(sessions) - 1
    for f in glob.glob(d + '/*.json'):
        for r in json.load(open(f))['rows']:
            m = r['matrix']
            b = best.setdefault(m, dict(r, sessions=0))
            b['sessions'] += 1
            b['graphblas_ms'] = min(b['graphblas_ms'], r['graphblas_ms'])
            if 'powerlaw' in m and not last:
                if b['sessions'] == 1: b['serial_ms'] = b['cpu_ms'] = float('inf')
                continue
            b['serial_ms'] = min(b['serial_ms'], r['serial_ms'])
            b['cpu_ms'] = min(b['cpu_ms'], r['cpu_ms'])
rows = []
for m in sorted(best, key=str.lower):
    r = best[m]
    r['cpu_over_graphblas'] = r['graphblas_ms'] / r['cpu_ms']
    r['cpu_over_serial'] = r['serial_ms'] / r['cpu_ms']
    rows.append(r)
os.makedirs(out, exist_ok=True)
json.dump(dict(graphblas="9.4.5", threads=2, sessions=sessions, rows=rows), open(out + '/merged.json', 'w'), indent=1)
