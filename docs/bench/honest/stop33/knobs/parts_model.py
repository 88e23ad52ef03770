import gzip, sys, numpy as np, scipy.io
def load(path):
    a = scipy.io.mmread(gzip.open(path) if path.endswith(".gz") else path).tocsr()
    b = a.T.tocsr() if a.shape[0] != a.shape[1] else a
    return a, b
for path in sys.argv[1:]:
    a,b=load(path); blen=np.diff(b.indptr)
    res={P:[0,0] for P in (8,4,2)}
    rows=0
    for i in range(a.shape[0]):
        ks=a.indices[a.indptr[i]:a.indptr[i+1]]
        if blen[ks].sum()<=1024: continue
        rows+=1
        words_of=[b.indices[b.indptr[k]:b.indptr[k+1]]//32 for k in ks]
        w0=min(w.min() for w in words_of if len(w)); nw=max(w.max() for w in words_of if len(w))-w0+1
        words_of=[w-w0 for w in words_of]
        rounds=-(-len(ks)//32)
        for P in res:
            per=-(-nw//P); cuts=[min(p*per,nw) for p in range(P+1)]
            it=[]
            for p in range(P):
                lo,hi=cuts[p],cuts[p+1]
                it.append(sum(-(-int(((w>=lo)&(w<hi)).sum())//32) for w in words_of)+rounds*14)
            res[P][0]+=max(it); res[P][1]+=np.mean(it)
    slots={8:5,4:9,2:16}
    print(path.split('/')[-1],rows,' '.join(f"P{P}: slow {s:.0f} mean {m:.0f} time~{s/slots[P]:.0f}" for P,(s,m) in res.items()))
