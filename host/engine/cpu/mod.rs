//! The cpu engine: the serial algorithms spread over all cores with rayon.
//! Rows are split into chunks of equal *work* (nonzeros for SpMV and SpMM,
//! products for SpGEMM), never equal row counts, so a few long rows cannot
//! stall one thread. Each row is computed exactly as the serial engine
//! computes it, so results do not depend on the number of threads.

pub mod ewise;
pub mod spgemm;
pub mod spmm;
pub mod spmv;
pub mod transpose;

pub use spgemm::spgemm;
pub use spmm::spmm;

use super::partition::{balanced_cuts, nonempty_ranges};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

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

#[cfg(test)]
mod tests {
    use super::*;

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
