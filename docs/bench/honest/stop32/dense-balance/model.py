"""How evenly spgemm_dense's 8 warps share a long row, in a model.

Each warp of spgemm_dense walks every entry of A's row and keeps the
products whose columns fall in its part of the row's span. A warp's cost
is modelled as its by-entry iterations: for each entry of A whose row of
B has n > 0 products in the part, ceil(n / 32). The block waits for its
slowest warp, so a row costs the most any warp has.

For every row of over 1024 products (the dense class) it prints, summed
over the rows, the slowest warp's iterations and the mean warp's, for
four ways of cutting the span into 8 parts of whole 32-column words:
  equal    equal widths (what the kernel does);
  exact    equal products, from the exact count of products per word;
  sampled  equal products, from SAMPLES evenly spaced entries of each row
           of B, each counted as n / SAMPLES products;
  chosen   of equal and sampled, the one whose estimated slowest part
           is cheaper, a part [a, b) estimated as the entries whose row
           of B starts before b and ends at or after a, plus its sampled
           products / 32.

Usage: python3 model.py SAMPLES FILE.mtx[.gz]...  (A·A, or A·Aᵀ for a
rectangular A, as the bench multiplies).
"""
import gzip
import sys

import numpy as np
import scipy.io


def load(path):
    a = scipy.io.mmread(gzip.open(path) if path.endswith(".gz") else path).tocsr()
    b = a.T.tocsr() if a.shape[0] != a.shape[1] else a
    return a, b


def cuts_by(cum, nw):
    total = cum[-1]
    return [0] + [int(np.searchsorted(cum, total * p / 8)) for p in range(1, 8)] + [nw]


def main():
    samples = int(sys.argv[1])
    for path in sys.argv[2:]:
        a, b = load(path)
        blen = np.diff(b.indptr)
        sums = {k: [0, 0] for k in ("equal", "exact", "sampled", "chosen")}
        rows = 0
        for i in range(a.shape[0]):
            ks = a.indices[a.indptr[i]:a.indptr[i + 1]]
            if blen[ks].sum() <= 1024:
                continue
            rows += 1
            words_of = [b.indices[b.indptr[k]:b.indptr[k + 1]] // 32 for k in ks]
            w0 = min(w.min() for w in words_of if len(w))
            nw = max(w.max() for w in words_of if len(w)) - w0 + 1
            words_of = [w - w0 for w in words_of]

            def warps(cuts):
                it = []
                for p in range(8):
                    lo, hi = cuts[p], cuts[p + 1]
                    it.append(sum(-(-int(((w >= lo) & (w < hi)).sum()) // 32) for w in words_of))
                return max(it), float(np.mean(it))

            per = -(-nw // 8)
            equal = [min(p * per, nw) for p in range(9)]
            exact = np.cumsum(np.bincount(np.concatenate(words_of), minlength=nw))
            prod = np.zeros(nw)
            starts = np.zeros(nw)
            ends = np.zeros(nw)
            for w in words_of:
                n = len(w)
                if n == 0:
                    continue
                m = min(n, samples)
                for t in range(m):
                    prod[w[(t * n) // m]] += n / m
                starts[w[0]] += 1
                ends[w[-1]] += 1
            pc = np.concatenate([[0], np.cumsum(prod)])
            sc = np.concatenate([[0], np.cumsum(starts)])
            ec = np.concatenate([[0], np.cumsum(ends)])
            sampled = cuts_by(pc[1:], nw)

            def estimate(cuts):
                return max(sc[cuts[p + 1]] - ec[cuts[p]] + (pc[cuts[p + 1]] - pc[cuts[p]]) / 32
                           for p in range(8))

            chosen = sampled if estimate(sampled) < estimate(equal) else equal
            for name, cuts in (("equal", equal), ("exact", cuts_by(exact, nw)),
                               ("sampled", sampled), ("chosen", chosen)):
                slow, mean = warps(cuts)
                sums[name][0] += slow
                sums[name][1] += mean
        print(f"{path}: {rows} long rows, samples {samples}")
        for name, (slow, mean) in sums.items():
            print(f"  {name:8s} slowest warp {slow:10.0f}  mean warp {mean:10.0f}  ratio {slow / mean:.2f}")


main()
