import sys, numpy as np, scipy.io, scipy.sparse as sp
A = scipy.io.mmread(sys.argv[1]).tocsr()
A.data[:] = 1
A.sum_duplicates()
A.data[:] = 1
C = (A @ A).tocsr()
L = C.data.astype(np.int64)   # products per entry of C, in entry order
n = len(L); P = L.sum()
share = P / (132*64*32)   # products per thread if one wave? placeholder
print(f"entries {n}, products {P}, mean {P/n:.2f}, max {L.max()}")
for long_list in [64]:
    s = L[L <= long_list]
    # warps as launched: consecutive entries, skipped long ones still occupy lanes
    m = np.where(L <= long_list, L, 0)
    pad = (-n) % 32
    W = np.concatenate([m, np.zeros(pad, np.int64)]).reshape(-1, 32)
    eff = W.sum() / (32 * W.max(axis=1)).sum()
    print(f"long_list {long_list}: long entries {np.sum(L>long_list)} with {L[L>long_list].sum()} products; thread-path lane efficiency {eff:.3f}")
    Ws = np.sort(m)[::-1]
    Ws = np.concatenate([Ws, np.zeros(pad, np.int64)]).reshape(-1, 32)
    print(f"  sorted by length: {Ws.sum() / (32 * Ws.max(axis=1)).sum():.3f}")
print("length percentiles", np.percentile(L, [50, 90, 99, 99.9]))
