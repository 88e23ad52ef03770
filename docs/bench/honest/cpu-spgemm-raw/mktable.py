import json, glob, math, sys
def rows(d):
    out=[]
    for f in sorted(glob.glob(d+'/*.json')):
        out += json.load(open(f))['rows']
    return out
def table(rs, sprs={}):
    missing=[r['matrix'] for r in rs if r['cpu_ms']==float('inf')]
    rs=[r for r in rs if r['cpu_ms']!=float('inf')]
    print("| matrix | products | nnz(C) | serial ms | cpu ms | GraphBLAS ms | sprs ms | cpu/GraphBLAS | cpu/serial | cpu/sprs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rs:
        s = sprs.get(r['matrix'])
        print(f"| {r['matrix']} | {r['products']:,} | {r['nnz_c']:,} | {r['serial_ms']:.3f} | {r['cpu_ms']:.3f} | {r['graphblas_ms']:.3f} | "
              + (f"{s:.3f}" if s else "–") + f" | {r['cpu_over_graphblas']:.2f}× | {r['cpu_over_serial']:.2f}× | " + (f"{s/r['cpu_ms']:.2f}×" if s else "–") + " |")
    if missing: print(f"\nnot timed in a quiet window after the last change: {', '.join(missing)}")
    g=[r['cpu_over_graphblas'] for r in rs]
    if g: print(f"\ngeomean cpu/GraphBLAS **{math.exp(sum(map(math.log,g))/len(g)):.2f}×**, min {min(g):.2f}× ({min(rs,key=lambda r:r['cpu_over_graphblas'])['matrix']}), {len(g)} matrices")
    return g
sprs = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
print("### real set\n"); a=table(rows(sys.argv[1]), sprs)
print("\n### validate\n"); b=table(rows(sys.argv[2]), sprs)
g=a+b
print(f"\nall: geomean {math.exp(sum(map(math.log,g))/len(g)):.2f}×, min {min(g):.2f}×, {len(g)} matrices")
