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

/// `len` copies of `zero` for a large output array that the threads which
/// fill it will touch first. With all-zero bits (`0`, `0.0`, `false`) the
/// allocator hands out untouched pages. Asks Linux to back the array with
/// transparent huge pages: a first touch of a 4 KiB page costs about 2.5 µs
/// on the machine in BENCHMARKS.md (1.6 GB/s), of a 2 MiB page about
/// 100 µs (~20 GB/s); page faults were a quarter of a large product's time.
pub fn output_vec<T: Copy>(len: usize, zero: T) -> Vec<T> {
    let v = vec![zero; len];
    advise_huge_pages(&v);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(v: &[T]) {
    const HUGE_PAGE: usize = 2 << 20;
    const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = (v.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
    let end = (v.as_ptr() as usize + size_of_val(v)) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: `start..end` lies inside `v`'s allocation, and
        // MADV_HUGEPAGE is advice: it changes no memory contents. A failure
        // (no THP support) leaves ordinary pages, so the result is ignored.
        unsafe { madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_: &[T]) {}

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
