"""Stop 51: would the replay gather B's values in fewer cache lines if a
warp's gather instruction took 32 consecutive products of a tile (lane l
the products l, l+32, ...; then swapped through shared memory for the
fold) instead of each lane's own N (lane l the products N*l .. N*l+N-1,
instruction q the products N*l+q)? For C = A*A of each matrix (a real
one by name, or a path to a .mtx.gz), the products in the serial order
(each entry's by k), cut into tiles of 32*N (no padding), and per gather
instruction the distinct 128-byte lines and 32-byte sectors of B's f32
values it reads, both layouts.
Usage, from the repository's root: python3 docs/bench/honest/stop51/gather-lines/lines.py NAME:N [NAME:N ...]"""
import sys, gzip, numpy as np, scipy.io, scipy.sparse as sp
def analyze(name, A, N):
    A = sp.csr_matrix(A); A.sort_indices(); A.sum_duplicates()
    B = A
    rows = A.shape[0]
    pos_all = []
    for i in range(rows):
        ks = A.indices[A.indptr[i]:A.indptr[i+1]]
        if len(ks)==0: continue
        js=[]; ps=[]
        for k in ks:
            s,e=B.indptr[k],B.indptr[k+1]
            js.append(B.indices[s:e]); ps.append(np.arange(s,e))
        js=np.concatenate(js); ps=np.concatenate(ps)
        kk=np.concatenate([np.full(B.indptr[k+1]-B.indptr[k],k) for k in ks])
        order=np.lexsort((kk,js))  # by j then k (serial order: k ascending within entry)
        pos_all.append(ps[order])
    pos=np.concatenate(pos_all)
    T=32*N
    n=len(pos)//T*T
    pos=pos[:n].reshape(-1,T)
    # consecutive: lane l holds products N*l..N*l+N-1; instruction q: products N*l+q
    cons=pos.reshape(-1,32,N)  # [tile, lane, q]
    acr=pos.reshape(-1,N,32)   # [tile, q, lane]
    def count(x, unit):  # x [tile, 32 lanes, instr] -> distinct units per instruction summed
        u = x//unit
        u = np.sort(u,axis=1)
        return (1+ (np.diff(u,axis=1)!=0).sum(axis=1)).sum()
    c_l=count(cons,32); c_s=count(cons,8)
    acr=np.transpose(acr,(0,2,1))  # [tile, lane, q], as count takes it
    a_l=count(acr,32); a_s=count(acr,8)
    ni=cons.shape[0]*N
    print(f"{name:22s} N={N} products {n:>10d} lines/instr {c_l/ni:5.1f} -> {a_l/ni:5.1f}   sectors/instr {c_s/ni:5.1f} -> {a_s/ni:5.1f}")
for f,N in [(a.split(':')[0], int(a.split(':')[1])) for a in sys.argv[1:]]:
    A=scipy.io.mmread((gzip.open(f) if f.startswith('/') else gzip.open(f'../shared/bench-data/real/{f}.mtx.gz')))
    analyze(f, A, N)
