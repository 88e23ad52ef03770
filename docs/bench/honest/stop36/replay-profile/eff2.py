import sys, numpy as np, scipy.io
A = scipy.io.mmread(sys.argv[1]).tocsr(); A.data[:] = 1; A.sum_duplicates(); A.data[:] = 1
C = (A @ A).tocsr(); L = C.data.astype(np.int64); n=len(L); P=L.sum()
threads = min(-(-n//256), 132*32)*256
ll = max(64, 4*P//threads)
m = np.where(L <= ll, L, 0); pad = (-n) % 32
W = np.concatenate([m, np.zeros(pad, np.int64)]).reshape(-1, 32)
it_old = ((W.max(axis=1)+2)//4).sum()  # ~ loop iterations of the slowest lane (4 a step)
print(f"long_list {ll}; long {np.sum(L>ll)} entries {L[L>ll].sum()} products; lane eff {W.sum()/(32*W.max(axis=1)).sum():.3f}; tiles of 128: {np.ceil(W.sum(axis=1)/128).sum():.0f} vs old steps {it_old}")
