"""Counts a real matrix's product lists as SpgemmPlan lays them out (C = A·A, or
A·Aᵀ where A is not square): entries of C, products, mean list length, the
lane (4 or 8 products) the plan picks, tiles, lists that run on past their
tile, and those that run on through more than two more (replayed first).
The layout is approximate: chunk boundaries are ignored.
Usage, from the repository root: python3 lists.py NAME... (../shared/bench-data/real/NAME.mtx.gz)"""
import sys, gzip, numpy as np, scipy.io, scipy.sparse as sp
for name in sys.argv[1:]:
    A = scipy.io.mmread(gzip.open(f'../shared/bench-data/real/{name}.mtx.gz')).tocsr()
    A.sum_duplicates()
    P = A.copy(); P.data[:] = 1.0
    C = (P @ P).tocsr() if P.shape[0] == P.shape[1] else (P @ P.T).tocsr()
    L = C.data.astype(np.int64)  # products per entry of C
    prods = L.sum(); n = len(L)
    lane = 4 if prods < 3 * n else 8
    tile = 32 * lane; short = tile // 4
    # crude layout: lists end to end, short ones moved to next tile
    at = 0; long_tiles = []; runs_on = 0
    for l in L:
        room = tile - at % tile
        if l <= short and l > room: at += room
        t0 = at // tile; t1 = (at + l - 1) // tile
        if t1 > t0: runs_on += 1
        if t1 - t0 > 2: long_tiles.append((l, t1 - t0))
        at += l
    n_tiles = -(-at // tile)
    lt = sorted(long_tiles, reverse=True)
    print(f"{name}: n={A.shape[0]} nnz={A.nnz} C={n} products={prods} mean={prods/n:.2f} lane={lane} tiles={n_tiles} runs_on={runs_on} long={len(lt)} longest={lt[:5]} sum_long_products={sum(l for l,_ in lt)} ({sum(l for l,_ in lt)/prods:.1%})")
