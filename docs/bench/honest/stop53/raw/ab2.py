import sys,collections,statistics,math
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    p=line.split()
    r,b,e,m=p[:4]; runs=[float(x) for x in p[4:]]
    if runs: rows[m][b].append(min(runs))
bins=sys.argv[2].split()
ratios=[]
for m in sorted(rows):
    d=rows[m]
    if not all(b in d for b in bins): continue
    mins=[min(d[b]) for b in bins]; meds=[statistics.median(d[b]) for b in bins]
    ratios.append(mins[0]/mins[1])
    print(f"{m:22s} "+"  ".join(f"{b} min {mn:8.3f} med {md:8.3f}" for b,mn,md in zip(bins,mins,meds))+f"  {bins[0]}/{bins[1]} min {mins[0]/mins[1]:.3f} med {meds[0]/meds[1]:.3f}")
print("geomean ratio of mins", math.exp(sum(map(math.log,ratios))/len(ratios)))
