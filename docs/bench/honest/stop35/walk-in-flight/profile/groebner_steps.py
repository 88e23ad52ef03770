import numpy as np, scipy.io, scipy.sparse as sp, gzip, sys
A = scipy.io.mmread(gzip.open('/work/shared/bench-data/real/Groebner_id2003_aug.mtx.gz')).tocsr()
B = A.T.tocsr()
A.sort_indices(); B.sort_indices()
n=A.shape[0]
prods = np.array([sum(B.indptr[k+1]-B.indptr[k] for k in A.indices[A.indptr[i]:A.indptr[i+1]]) for i in range(n)])
order = np.argsort(-prods)
print("top rows", [(int(i), int(prods[i]), int(A.indptr[i+1]-A.indptr[i])) for i in order[:10]])
# dense rows: > 1024 products (class 6 ~ 1302 rows)
dense = [i for i in range(n) if prods[i] > 1024]
print("dense rows", len(dense))
def warp_steps(i, warps=8):
    ks = A.indices[A.indptr[i]:A.indptr[i+1]]
    lo = min(B.indices[B.indptr[k]] for k in ks if B.indptr[k+1]>B.indptr[k]); hi = max(B.indices[B.indptr[k+1]-1] for k in ks if B.indptr[k+1]>B.indptr[k])
    w0=lo//32; nw=hi//32-w0+1; per=-(-nw//warps)
    res=[]
    for w in range(warps):
        c0=(w0+min(w*per,nw))*32; c1=(w0+min((w+1)*per,nw))*32
        steps=0; batches=0
        for j0 in range(0,len(ks),32):
            cnt=[]
            for k in ks[j0:j0+32]:
                cols=B.indices[B.indptr[k]:B.indptr[k+1]]
                cnt.append(int(np.searchsorted(cols,c1)-np.searchsorted(cols,c0)))
            tot=sum(cnt); ready=sum(1 for c in cnt if c>0)
            batches+=1
            if tot>=8*ready: steps+=sum(-(-c//32) for c in cnt)
            else: steps+=-(-tot//32)
        res.append((steps,batches))
    return res
ws={}
for i in dense:
    ws[i]=max(s for s,b in warp_steps(i))
vals=np.array([ws[i] for i in dense])
print("slowest-warp steps: max", vals.max(), "sum", vals.sum(), "mean", vals.mean())
top=sorted(dense,key=lambda i:-ws[i])[:10]
print("top by steps", [(i, ws[i]) for i in top])
print("position of top rows among dense rows in row order:", [dense.index(i) for i in top])
import heapq
def sched(seq, slots=528, batchcost=20):
    h=[0.0]*slots; heapq.heapify(h); end=0
    for i in seq:
        t=heapq.heappop(h); t+=ws[i]+batchcost*(-(-(A.indptr[i+1]-A.indptr[i])//32)); end=max(end,t); heapq.heappush(h,t)
    return end
print("makespan row order", sched(dense), "descending", sched(sorted(dense,key=lambda i:-ws[i])), "longest alone", max(ws[i]+20*(-(-(A.indptr[i+1]-A.indptr[i])//32)) for i in dense))
np.save('/tmp/ws.npy', np.array([[i,ws[i]] for i in dense]))
