import json,glob,math,sys
# cpu: best over spmx sessions given; grb: best over all given grb files
spmx_globs=sys.argv[1].split(','); grb_globs=sys.argv[2].split(',')
cpu={}; ser={}; grb={}
for g in spmx_globs:
    for f in glob.glob(g):
        for r in json.load(open(f))['rows']:
            if 'cpu_ms' not in r or r['matrix'].startswith('apsp'): continue
            m=r['matrix']; cpu[m]=min(cpu.get(m,1e18),r['cpu_ms']); ser[m]=min(ser.get(m,1e18),r['serial_ms'])
for g in grb_globs:
    for f in glob.glob(g):
        for r in json.load(open(f))['rows']:
            if 'graphblas_ms' not in r: continue
            m=r['matrix']; grb[m]=min(grb.get(m,1e18),r['graphblas_ms'])
real=[]; val=[]
for m in sorted(cpu):
    ratio=grb[m]/cpu[m]
    (val if m in ('banded-2M-11','banded-1M-33','poisson3d-128','poisson2d-1500','powerlaw-500K-e3.0','powerlaw-1M-e2.0','uniform-1500K-short','rmat16-s5') else real).append((m,ratio))
    print(f"{m:22s} cpu {cpu[m]:9.3f} serial {ser[m]:9.3f} grb {grb[m]:9.3f}  {ratio:.2f}x  cpu/ser {ser[m]/cpu[m]:.2f}")
gm=lambda xs: math.exp(sum(math.log(r) for _,r in xs)/len(xs))
print(f"real {len(real)}: {gm(real):.3f} min {min(r for _,r in real):.2f}; validate {len(val)}: {gm(val):.3f} min {min(r for _,r in val):.2f}; all {len(real)+len(val)}: {gm(real+val):.3f} min {min(r for _,r in real+val):.2f}")
