//! Contiguous row ranges of about equal work, never splitting a row: the
//! cpu engine's chunks for its threads (also the cuda engine's for its
//! host-side passes) and the mpi engine's row blocks for its ranks are both
//! cut here, [`for_each_chunk`] runs chunks on the pool's threads, and
//! [`csr_by_rows`] forms a CSR chunk by chunk.

use crate::format::Csr;
use crate::scalar::Scalar;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `parts + 1` row boundaries (`cuts[0] = 0`, `cuts[parts] = n`) cutting
/// rows `0..n` into `parts` contiguous ranges of about equal work, where
/// `work_prefix[i]` is the work of rows `0..i` (so `work_prefix.len() ==
/// n + 1`; a CSR `row_ptr` is one). Range `p` ends at the first row whose
/// prefix reaches `p + 1` parts of the total, so a range may be empty
/// (more parts than rows, or one row heavier than a part).
pub fn balanced_cuts(work_prefix: &[usize], parts: usize) -> Vec<usize> {
    assert!(parts > 0, "balanced_cuts: at least one part");
    let n = work_prefix.len() - 1;
    let total = work_prefix[n];
    let mut cuts = Vec::with_capacity(parts + 1);
    cuts.push(0);
    for p in 1..=parts {
        let start = cuts[p - 1];
        let target = (total as u128 * p as u128 / parts as u128) as usize;
        let end = if p == parts {
            n
        } else {
            start + work_prefix[start..=n].partition_point(|&w| w < target)
        };
        cuts.push(end.clamp(start, n));
    }
    cuts
}

/// The ranges between consecutive `cuts`, empty ones left out.
pub fn nonempty_ranges(cuts: &[usize]) -> Vec<Range<usize>> {
    cuts.windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| w[0]..w[1])
        .collect()
}

/// Chunks per thread: more than one so a chunk that runs long is absorbed.
const CHUNKS_PER_THREAD: usize = 4;

/// Splits rows `0..n` into at most `CHUNKS_PER_THREAD × threads` contiguous
/// ranges of about equal work, where `work_prefix[i]` is the work of rows
/// `0..i` (so `work_prefix.len() == n + 1`; a CSR `row_ptr` is one).
/// Empty ranges are left out.
pub fn balanced_row_chunks(work_prefix: &[usize]) -> Vec<Range<usize>> {
    let n = work_prefix.len() - 1;
    let chunks = (CHUNKS_PER_THREAD * rayon::current_num_threads()).clamp(1, n.max(1));
    nonempty_ranges(&balanced_cuts(work_prefix, chunks))
}

/// Splits `out` (with `width` elements per row) into one mutable slice per
/// chunk of rows; `chunks` must be contiguous and start at row 0 (any
/// contiguous ranges work, e.g. ranges of entries with `width` 1).
pub fn split_rows_mut<'a, T>(
    mut out: &'a mut [T],
    chunks: &[Range<usize>],
    width: usize,
) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(chunks.len());
    for rows in chunks {
        let (head, tail) = out.split_at_mut(rows.len() * width);
        parts.push(head);
        out = tail;
    }
    parts
}

/// Calls `work(acc, c, part)` for every `part` of `parts` (chunk `c`) on
/// the pool's threads, one task per accumulator of `accs`: each task takes
/// the next chunk not yet taken until none is left. A task owns its
/// accumulator for the whole pass, so no workspace is made or cloned per
/// chunk, and a slow chunk only delays its own task.
pub fn for_each_chunk<A: Send, P: Send>(
    accs: &mut [A],
    parts: Vec<P>,
    work: impl Fn(&mut A, usize, P) + Sync,
) {
    let parts: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let next = AtomicUsize::new(0);
    accs.par_iter_mut().for_each(|acc| {
        loop {
            let c = next.fetch_add(1, Ordering::Relaxed);
            let Some(part) = parts.get(c) else { break };
            let part = part
                .lock()
                .unwrap()
                .take()
                .expect("each chunk is taken once");
            work(acc, c, part);
        }
    });
}

/// An `nrows × ncols` CSR formed row by row, `form(w, i, cols, vals)`
/// appending row `i` (sorted) with the workspace `w` made by `init`: on the
/// calling thread when `work` is `None`, else in chunks of about equal
/// work (`work`: its prefix per row, `nrows + 1` long) on the pool's
/// threads, joined in row order — the same arrays either way.
pub fn csr_by_rows<T: Scalar, W: Send>(
    nrows: usize,
    ncols: usize,
    work: Option<&[usize]>,
    init: impl Fn() -> W + Sync + Send,
    form: impl Fn(&mut W, usize, &mut Vec<u32>, &mut Vec<T>) + Sync + Send,
) -> Csr<T> {
    // Each chunk's rows: their lengths, then their entries.
    let chunk = |w: &mut W, rows: Range<usize>| {
        let (mut lens, mut cols, mut vals) = (Vec::with_capacity(rows.len()), vec![], vec![]);
        for i in rows {
            let before = cols.len();
            form(w, i, &mut cols, &mut vals);
            lens.push(cols.len() - before);
        }
        (lens, cols, vals)
    };
    let chunks: Vec<(Vec<usize>, Vec<u32>, Vec<T>)> = match work {
        None => vec![chunk(&mut init(), 0..nrows)],
        Some(work) => {
            // One workspace a thread (a workspace may be large: a dense
            // row of the result), each taking chunks until none is left.
            let ranges = balanced_row_chunks(work);
            let threads = rayon::current_num_threads().min(ranges.len());
            let mut workspaces: Vec<W> = (0..threads).map(|_| init()).collect();
            let done: Vec<Mutex<Option<_>>> = ranges.iter().map(|_| Mutex::new(None)).collect();
            for_each_chunk(&mut workspaces, ranges, |w, c, rows| {
                *done[c].lock().unwrap() = Some(chunk(w, rows));
            });
            done.into_iter()
                .map(|d| d.into_inner().unwrap().expect("every chunk is formed"))
                .collect()
        }
    };
    let nnz = chunks.iter().map(|c| c.1.len()).sum();
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(0);
    let (mut col_idx, mut values) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    for (lens, cols, vals) in chunks {
        for len in lens {
            row_ptr.push(row_ptr.last().unwrap() + len);
        }
        col_idx.extend_from_slice(&cols);
        values.extend_from_slice(&vals);
    }
    Csr::from_parts_unchecked(nrows, ncols, row_ptr, col_idx, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_cover_every_row_once_and_balance_work() {
        // Row work 1, 1, 10, 1, 1: the heavy row is never split; the first
        // range ends after the row that takes it past half the work.
        let prefix = [0, 1, 2, 12, 13, 14];
        let cuts = balanced_cuts(&prefix, 2);
        assert_eq!(cuts, vec![0, 3, 5]);
        assert_eq!(balanced_cuts(&prefix, 1), vec![0, 5]);
        // More parts than rows: some parts are empty, none overlap.
        let cuts = balanced_cuts(&[0, 1, 2], 4);
        assert_eq!(cuts.len(), 5);
        assert!(cuts.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!((cuts[0], cuts[4]), (0, 2));
        assert_eq!(nonempty_ranges(&cuts).len(), 2);
        // No rows at all.
        assert_eq!(balanced_cuts(&[0], 3), vec![0, 0, 0, 0]);
    }

    #[test]
    fn chunks_cover_rows_in_order_and_balance_work() {
        // One heavy row among light ones.
        let mut prefix = vec![0usize];
        for i in 0..1000 {
            let w = if i == 500 { 10_000 } else { 1 };
            prefix.push(prefix[i] + w);
        }
        let chunks = balanced_row_chunks(&prefix);
        assert_eq!(chunks.first().unwrap().start, 0);
        assert_eq!(chunks.last().unwrap().end, 1000);
        for w in chunks.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        assert!(chunks.iter().any(|r| r.contains(&500)));
        assert!(balanced_row_chunks(&[0]).is_empty());
    }
}
