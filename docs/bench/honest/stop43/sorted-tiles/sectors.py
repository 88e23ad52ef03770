import sys, numpy as np, scipy.io, scipy.sparse as sp
def products(A, B):
    A = sp.csr_matrix(A); A.sort_indices(); B = sp.csr_matrix(B); B.sort_indices()
    ip, ix = A.indptr, A.indices; bp, bx = B.indptr, B.indices
    rows = np.repeat(np.arange(A.shape[0]), np.diff(ip))
    blen = np.diff(bp)[ix]                      # length of B row k for each A entry
    apos = np.repeat(np.arange(A.nnz), blen)
    i = np.repeat(rows, blen)
    k = np.repeat(ix, blen)
    # b positions: ip[k] + 0..blen-1
    start = np.repeat(bp[ix], blen)
    off = np.arange(len(apos)) - np.repeat(np.cumsum(blen) - blen, blen)
    bpos = start + off
    j = bx[bpos]
    order = np.lexsort((k, j, i))
    return apos[order], bpos[order]
def distinct(x):   # x: (m, 32) -> distinct per row
    s = np.sort(x, axis=1)
    return 1 + (np.diff(s, axis=1) != 0).sum(axis=1)
def cost(apos, bpos, vb, N):
    T = 32*N; n = len(apos)//T*T
    a = apos[:n].reshape(-1, 32, N); b = bpos[:n].reshape(-1, 32, N)
    res = {}
    for name, sec in (("sector", 32//vb), ("line", 128//vb)):
        cur = sum(distinct(b[:, :, u]//sec).sum() + distinct(a[:, :, u]//sec).sum() for u in range(N))
        o = np.argsort(b.reshape(-1, T), axis=1, kind="stable")
        bs = np.take_along_axis(b.reshape(-1, T), o, 1).reshape(-1, N, 32)
        as_ = np.take_along_axis(a.reshape(-1, T), o, 1).reshape(-1, N, 32)
        new = sum(distinct(bs[:, u, :]//sec).sum() + distinct(as_[:, u, :]//sec).sum() for u in range(N))
        res[name] = (cur/n, new/n)
    return res
for f in sys.argv[1:]:
    A = scipy.io.mmread(f)
    A = sp.csr_matrix(A)
    pass
    apos, bpos = products(A, A if A.shape[0]==A.shape[1] else A.T)
    nnzc = None
    print(f.split('/')[-1], "products", len(apos), {N: cost(apos, bpos, 4, N) for N in (4, 8)}, flush=True)
