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

use std::ops::Range;

/// Chunks per thread: more than one so a chunk that runs long is absorbed.
const CHUNKS_PER_THREAD: usize = 4;

/// Splits rows `0..n` into at most `CHUNKS_PER_THREAD × threads` contiguous
/// ranges of about equal work, where `work_prefix[i]` is the work of rows
/// `0..i` (so `work_prefix.len() == n + 1`; a CSR `row_ptr` is one).
pub fn balanced_row_chunks(work_prefix: &[usize]) -> Vec<Range<usize>> {
    let n = work_prefix.len() - 1;
    let total = work_prefix[n];
    let chunks = (CHUNKS_PER_THREAD * rayon::current_num_threads()).clamp(1, n.max(1));
    let mut ranges = Vec::with_capacity(chunks);
    let mut start = 0;
    for c in 1..=chunks {
        // First row whose prefix reaches c/chunks of the total work.
        let target = (total as u128 * c as u128 / chunks as u128) as usize;
        let end = if c == chunks {
            n
        } else {
            start + work_prefix[start..=n].partition_point(|&w| w < target)
        }
        .clamp(start, n);
        if end > start {
            ranges.push(start..end);
        }
        start = end;
    }
    ranges
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
