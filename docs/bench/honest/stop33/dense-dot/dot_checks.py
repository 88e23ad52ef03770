import scipy.io as io, numpy as np, gzip, sys
for path in sys.argv[1:]:
    A=io.mmread(gzip.open(path)).tocsr()
    B=A.T.tocsr() if A.shape[0]!=A.shape[1] else A
    BT=B.T.tocsr(); btl=np.diff(BT.indptr); bl=np.diff(B.indptr)
    C=(abs(A)@abs(B)).tocsr()
    al=np.diff(A.indptr)
    prod=np.array([bl[A.indices[A.indptr[i]:A.indptr[i+1]]].sum() for i in range(A.shape[0])])
    cl=np.diff(C.indptr)
    dense=np.where(prod>1024)[0]
    dot=np.array([btl[C.indices[C.indptr[i]:C.indptr[i+1]]].sum() for i in dense])
    # per-row: products vs dot checks
    r=prod[dense]/np.maximum(dot,1)
    top=np.argsort(-prod[dense])[:5]
    print(path.split('/')[-1], 'dense rows',len(dense),'products',prod[dense].sum(),'dot checks',dot.sum(),'hit',round(prod[dense].sum()/dot.sum(),3))
    for t in top: print('   row',dense[t],'len_a',al[dense[t]],'prod',prod[dense[t]],'C',cl[dense[t]],'dot',dot[t])
