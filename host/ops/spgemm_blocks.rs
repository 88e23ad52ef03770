//! C = A ⊗ B sized before it is made, so that a product larger than memory
//! is never an abort: [`check_c_fits`] refuses a C that does not fit the
//! memory available (with the bytes needed and available), and
//! [`RowBlocks`] cuts such a product into blocks of rows of C that each fit
//! a budget, to be computed one after another and handed on (written to a
//! file, counted) as they finish, on any engine.
//!
//! C's size is known for certain only after a symbolic pass, which costs a
//! third of a product. So the check goes by steps, each paid only when the
//! one before could not settle it: the product count (C has at most one
//! entry a product), then every row's products capped by B's width, then
//! the symbolic pass over all rows on all threads.

use crate::engine::shared::accumulator::{Accumulator, AccumulatorUser, with_accumulator};
use crate::engine::shared::partition::{
    balanced_cuts, balanced_row_chunks, for_each_chunk, nonempty_ranges, split_rows_mut,
};
use crate::engine::shared::spgemm::{
    mostly_runs, prefix_sum, row_flops, shapes_agree, symbolic_rows,
};
use crate::engine::shared::workspace::{keep, take_kept};
use crate::engine::{Engine, Op};
use crate::error::{Error, Result};
use crate::format::{Csr, try_with_capacity};
use crate::scalar::Scalar;
use std::ops::Range;

/// C's arrays below this many bytes are not checked against the memory
/// available (reading `/proc` costs more than such a product saves by it).
const CHECK_FROM_BYTES: usize = 64 << 20;

/// The share of the memory available that C may take: the rest is for the
/// accumulators, the one-pass row buffers and what the caller holds beside.
const C_SHARE_OF_AVAILABLE: f64 = 0.75;

/// Words a row of A takes in a product beside C's entries: C's row
/// pointer, and the engines' per-row products and their prefix sum.
const WORDS_PER_ROW: usize = 3;

/// Bytes a product's C takes with the engines' per-row arrays: `nnz`
/// entries and [`WORDS_PER_ROW`] words for each of `nrows + 1` rows.
fn c_bytes<T>(nrows: usize, nnz: usize) -> usize {
    (nrows + 1)
        .saturating_mul(WORDS_PER_ROW * size_of::<usize>())
        .saturating_add(nnz.saturating_mul(size_of::<u32>() + size_of::<T>()))
}

/// The memory C may take here (a share of what is available), or `None`
/// where the system does not say.
pub fn c_budget() -> Option<usize> {
    let available = crate::memory::available_bytes()?;
    Some((available as f64 * C_SHARE_OF_AVAILABLE) as usize)
}

/// Ok when C = A·B fits the memory available, else [`Error::TooLarge`]
/// with C's entries, the bytes its arrays need and the bytes available.
pub fn check_c_fits<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> Result<()> {
    shapes_agree(a, b)?;
    let Some(budget) = fits_without_counting(a, b, CHECK_FROM_BYTES)
        .is_none()
        .then(c_budget)
        .flatten()
    else {
        return Ok(());
    };
    match RowBlocks::plan(a, b, budget)? {
        None => Ok(()),
        Some(blocks) => Err(Error::TooLarge(format!(
            "C = A·B has {} entries: its arrays need {} bytes ({:.1} GB), more than the {} \
             bytes ({:.1} GB) of memory it may take here; compute it in row blocks \
             (ops::RowBlocks; `spmx spgemm` does so by itself)",
            blocks.nnz(),
            blocks.c_bytes,
            blocks.c_bytes as f64 / 1e9,
            budget,
            budget as f64 / 1e9
        ))),
    }
}

/// `Some(())` when C surely fits `budget` bytes by its product count alone
/// (each product makes at most one entry), counting no further than that.
fn fits_without_counting<T: Scalar>(a: &Csr<T>, b: &Csr<T>, budget: usize) -> Option<()> {
    let entry = size_of::<u32>() + size_of::<T>();
    let limit = budget.checked_sub(c_bytes::<T>(a.nrows(), 0))? / entry;
    let mut products = 0;
    for &k in a.col_idx() {
        products += b.row_len(k as usize);
        if products > limit {
            return None;
        }
    }
    Some(())
}

/// A product C = A·B cut into blocks of consecutive rows, each of whose C
/// fits a memory budget: planned from the exact length of every row of C
/// (a symbolic pass), then multiplied block by block on any engine.
pub struct RowBlocks {
    /// C's row pointers: every row's exact length, summed.
    c_row_ptr: Vec<usize>,
    blocks: Vec<Range<usize>>,
    c_bytes: usize,
}

impl RowBlocks {
    /// `None` when C fits `budget` bytes whole (surely, by its products or
    /// each row's products capped by B's width, or after counting every
    /// row); else the blocks, each taking at most half of `budget` for its
    /// rows of C and of A (the other half for the engine's workspaces and
    /// what the caller does with a block). A single row of C too large for
    /// that is [`Error::TooLarge`].
    pub fn plan<T: Scalar>(a: &Csr<T>, b: &Csr<T>, budget: usize) -> Result<Option<Self>> {
        shapes_agree(a, b)?;
        if fits_without_counting(a, b, budget).is_some() {
            return Ok(None);
        }
        let prefix = products_prefix(a, b)?;
        let capped: usize = prefix
            .windows(2)
            .map(|w| (w[1] - w[0]).min(b.ncols()))
            .sum();
        if c_bytes::<T>(a.nrows(), capped) <= budget {
            return Ok(None);
        }
        let c_row_ptr = c_row_ptr(a, b, &prefix)?;
        let c_bytes = c_bytes::<T>(a.nrows(), c_row_ptr[a.nrows()]);
        if c_bytes <= budget {
            return Ok(None);
        }
        let blocks = blocks_within(a.row_ptr(), &c_row_ptr, budget / 2, size_of::<T>())?;
        Ok(Some(RowBlocks {
            c_row_ptr,
            blocks,
            c_bytes,
        }))
    }

    /// C's entries.
    pub fn nnz(&self) -> usize {
        self.c_row_ptr[self.c_row_ptr.len() - 1]
    }

    /// The blocks of rows, in order, covering every row.
    pub fn blocks(&self) -> &[Range<usize>] {
        &self.blocks
    }

    /// Entries of C in `rows` (a range of rows).
    pub fn entries(&self, rows: Range<usize>) -> usize {
        self.c_row_ptr[rows.end] - self.c_row_ptr[rows.start]
    }

    /// Computes C over `S` on `engine` block by block, handing each block
    /// (its rows of C, as a matrix of their own) to `sink` as it finishes;
    /// an error from the engine or `sink` stops there. The blocks have the
    /// bits of the whole product's rows.
    pub fn multiply<S: gpu_kernels::Semiring>(
        &self,
        a: &Csr<S::Value>,
        b: &Csr<S::Value>,
        engine: super::Engine,
        sink: impl FnMut(Range<usize>, Csr<S::Value>) -> Result<()>,
    ) -> Result<()>
    where
        S::Value: Scalar,
    {
        multiply_rows::<S>(a, b, &self.blocks, engine, sink)
    }
}

/// `count` ranges of consecutive rows of A·B with about equal products
/// each (fewer where A has fewer rows or rows of many products).
pub fn rows_by_products<T: Scalar>(
    a: &Csr<T>,
    b: &Csr<T>,
    count: usize,
) -> Result<Vec<Range<usize>>> {
    shapes_agree(a, b)?;
    let prefix = products_prefix(a, b)?;
    let cuts = balanced_cuts(&prefix, count.max(1));
    Ok(nonempty_ranges(&cuts))
}

/// `prefix[i]`: the products of rows `0..i` of A·B, for every `i` in
/// `0..=m`, or [`Error::TooLarge`] when that array does not fit.
fn products_prefix<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> Result<Vec<usize>> {
    let mut prefix = try_with_capacity("the products of every row of A·B", a.nrows() + 1)?;
    prefix.push(0);
    let mut sum = 0;
    for i in 0..a.nrows() {
        sum += row_flops(a, b, i);
        prefix.push(sum);
    }
    Ok(prefix)
}

/// C = A ⊗ B over `S` on `engine` for each range of `blocks` in turn (rows
/// of A, in order), handed to `sink` as a matrix of its own as it
/// finishes; an error from the engine or `sink` stops there. The caller
/// has made sure that each block's C fits in memory ([`RowBlocks`]).
pub fn multiply_rows<S: gpu_kernels::Semiring>(
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    blocks: &[Range<usize>],
    engine: Engine,
    mut sink: impl FnMut(Range<usize>, Csr<S::Value>) -> Result<()>,
) -> Result<()>
where
    S::Value: Scalar,
{
    shapes_agree(a, b)?;
    let engine = engine.resolve_for::<S>(Op::Spgemm)?;
    for rows in blocks {
        let c = super::dispatch::spgemm::<S>(&rows_of(a, rows.clone())?, b, engine)?;
        sink(rows.clone(), c)?;
    }
    Ok(())
}

/// Rows `rows` of `a` as a matrix of their own, copied (fallibly).
pub fn rows_of<T: Scalar>(a: &Csr<T>, rows: Range<usize>) -> Result<Csr<T>> {
    let (first, last) = (a.row_ptr()[rows.start], a.row_ptr()[rows.end]);
    let mut row_ptr = try_with_capacity("a row block's row pointers", rows.len() + 1)?;
    row_ptr.extend(a.row_ptr()[rows.start..=rows.end].iter().map(|p| p - first));
    let mut col_idx = try_with_capacity("a row block's column indices", last - first)?;
    col_idx.extend_from_slice(&a.col_idx()[first..last]);
    let mut values = try_with_capacity("a row block's values", last - first)?;
    values.extend_from_slice(&a.values()[first..last]);
    Ok(Csr::from_parts_unchecked(
        rows.len(),
        a.ncols(),
        row_ptr,
        col_idx,
        values,
    ))
}

/// Consecutive rows whose C (by `c_row_ptr`) and A (by `a_row_ptr`) take
/// at most `budget` bytes together, greedily; a row alone over it is
/// [`Error::TooLarge`].
fn blocks_within(
    a_row_ptr: &[usize],
    c_row_ptr: &[usize],
    budget: usize,
    value: usize,
) -> Result<Vec<Range<usize>>> {
    let entry = size_of::<u32>() + value;
    let bytes = |rows: &Range<usize>| {
        let c = c_row_ptr[rows.end] - c_row_ptr[rows.start];
        let a = a_row_ptr[rows.end] - a_row_ptr[rows.start];
        (c + a).saturating_mul(entry) + (rows.len() + 1) * 2 * size_of::<usize>()
    };
    let n = c_row_ptr.len() - 1;
    let mut blocks = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        if bytes(&(start..end)) > budget {
            return Err(Error::TooLarge(format!(
                "row {start} of C = A·B alone has {} entries, more than a row block may \
                 hold in the {budget} bytes it may take",
                c_row_ptr[end] - c_row_ptr[start]
            )));
        }
        // Grow by doubling, then back off by halving: O(log n) a block.
        let mut step = 1;
        while end < n && bytes(&(start..(end + step).min(n))) <= budget {
            end = (end + step).min(n);
            step *= 2;
        }
        while step > 1 {
            step /= 2;
            if end < n && bytes(&(start..(end + step).min(n))) <= budget {
                end = (end + step).min(n);
            }
        }
        blocks.push(start..end);
        start = end;
    }
    Ok(blocks)
}

/// C's row pointers from the exact length of every row (the symbolic pass
/// of the cpu engine, on all threads); `prefix` is [`products_prefix`].
fn c_row_ptr<T: Scalar>(a: &Csr<T>, b: &Csr<T>, prefix: &[usize]) -> Result<Vec<usize>> {
    let mut row_ptr = try_with_capacity("C's row pointers", a.nrows() + 1)?;
    row_ptr.resize(a.nrows() + 1, 0);
    struct Count<'m, T: Scalar>(&'m Csr<T>, &'m Csr<T>, &'m [usize], &'m mut [usize]);
    impl<T: Scalar> AccumulatorUser<T, ()> for Count<'_, T> {
        fn run<A: Accumulator<T> + Send + 'static>(self, make: &(dyn Fn() -> A + Sync)) {
            let Count(a, b, prefix, lens) = self;
            let chunks = balanced_row_chunks(prefix);
            let threads = rayon::current_num_threads().min(chunks.len()).max(1);
            let mut taken = take_kept::<T, A>(threads, b.ncols(), make);
            let mut accs: Vec<&mut A> = taken.iter_mut().map(|ws| &mut ws.acc).collect();
            let b_runs = mostly_runs(b);
            let parts = split_rows_mut(lens, &chunks, 1);
            for_each_chunk(&mut accs, parts, |acc, c, lens| {
                symbolic_rows(a, b, chunks[c].clone(), b_runs, *acc, lens);
            });
            keep(taken);
        }
    }
    with_accumulator(b.ncols(), Count(a, b, prefix, &mut row_ptr[1..]));
    prefix_sum(&mut row_ptr);
    Ok(row_ptr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_row_within_the_budget() {
        // Rows of 10 entries of C and 1 of A (f64): 11 · 12 + 16 bytes a
        // row, and 16 more a block: 6 rows take 904 bytes, 7 take 1052.
        let n = 100;
        let c: Vec<usize> = (0..=n).map(|i| i * 10).collect();
        let a: Vec<usize> = (0..=n).collect();
        let blocks = blocks_within(&a, &c, 1000, 8).unwrap();
        assert_eq!(blocks.first().unwrap().start, 0);
        assert_eq!(blocks.last().unwrap().end, n);
        for w in blocks.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        for r in &blocks {
            assert!(r.len() == 6 || r.end == n, "{r:?}");
        }
        let e = blocks_within(&a, &c, 100, 8).unwrap_err().to_string();
        assert!(e.contains("row 0 of C = A·B alone has 10 entries"), "{e}");
    }
}
