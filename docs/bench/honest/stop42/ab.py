"""A/B of two `spmx bench spgemm --numeric` JSON files: per case, the new
build's numeric-phase median against the old one's (above 1: new faster),
and each against its cusparseSpGEMMreuse_compute in its own run; geomeans
per set. Usage: python3 ab.py NEW.json OLD.json"""
import json, sys, math


def load(p):
    out = {}
    for m in json.load(open(p))['matrices']:
        r = {x['implementation']: x for x in m['results']}
        s, c = r.get('spgemm-numeric'), r.get('cusparse-spgemm-reuse')
        if s and c:
            out[m['name']] = (m['set'], s['ms']['median'], c['ms']['median'])
    return out


new, old = load(sys.argv[1]), load(sys.argv[2])
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for st in ['tune', 'validate']:
    ab, vn, vo = [], [], []
    for k, (s, n, c) in new.items():
        if s != st or k not in old:
            continue
        o = old[k]
        ab.append(o[1] / n); vn.append(c / n); vo.append(o[2] / o[1])
        print(f"{k:24s} {st:8s} new {n:8.3f} old {o[1]:8.3f}  old/new {o[1]/n:5.2f}  vs cuSPARSE new {c/n:5.2f} old {o[2]/o[1]:5.2f}")
    if ab:
        print(f"== {st}: old/new geomean {gm(ab):.3f}; vs cuSPARSE new {gm(vn):.3f} (min {min(vn):.2f}) old {gm(vo):.3f} (min {min(vo):.2f})")
