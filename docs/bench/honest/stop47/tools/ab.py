"""A/B of `spmx bench spgemm --numeric` JSON files from one call: per case,
each other build's numeric-phase median over the first's (above 1: the
first faster), and the first's ratio to cusparseSpGEMMreuse_compute where
its run raced cuSPARSE (the others may run with --no-cusparse); geomeans
per set. Usage: python3 ab.py NEW.json OLD.json [OLDER.json ...]"""
import json, math, sys


def load(p):
    out = {}
    for m in json.load(open(p))['matrices']:
        r = {x['implementation']: x for x in m['results']}
        s, c = r.get('spgemm-numeric'), r.get('cusparse-spgemm-reuse')
        if s and s.get('ms'):
            out[m['name']] = (m['set'], s['ms']['median'], c['ms']['median'] if c and c.get('ms') else None)
    return out


runs = [load(p) for p in sys.argv[1:]]
new = runs[0]
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
names = [p.rsplit('/', 1)[-1] for p in sys.argv[2:]]
print(f"{'case':24s} {'set':8s} {'new ms':>8s} " + " ".join(f"{n[:14]:>14s}" for n in names) + "  vs cuSP")
for st in ['tune', 'validate']:
    ab = [[] for _ in names]
    vs = []
    for k, (s, n, c) in new.items():
        if s != st:
            continue
        cells = []
        for i, old in enumerate(runs[1:]):
            if k in old:
                ab[i].append(old[k][1] / n)
                cells.append(f"{old[k][1] / n:14.3f}")
            else:
                cells.append(f"{'-':>14s}")
        if c:
            vs.append(c / n)
        print(f"{k:24s} {st:8s} {n:8.3f} " + " ".join(cells) + (f"  {c / n:5.2f}" if c else ""))
    print(f"== {st}: old/new geomean " + ", ".join(f"{names[i]} {gm(a):.3f}" for i, a in enumerate(ab))
          + (f"; new vs cuSPARSE {gm(vs):.3f} (min {min(vs):.2f}) over {len(vs)}" if vs else ""))
