//! Sparse and dense matrix formats. CSR is the hub: each format converts to
//! and from [`Csr`], and engines compute on CSR unless a kernel is specific
//! to another format.
//!
//! | format | module | layout |
//! |--------|--------|--------|
//! | COO    | [`coo`] | triplets, any order, duplicates allowed |
//! | CSR    | [`csr`] | row pointers (`usize`), sorted `u32` columns |
//! | CSC    | [`csc`] | column pointers (`usize`), sorted `u32` rows: the CSR arrays of the transpose |
//! | ELL    | [`ell`] | `width` slots per row, column-major (entry `k` of row `i` at `k·nrows + i`), padding [`ELL_PAD`] |
//! | HYB    | [`hyb`] | ELL of width `K` (chosen from the row lengths) plus the rest of each row as COO |
//! | SELL-C-σ, JDS | [`sell`] | slices of `C` rows, each an ELL of its own width; rows sorted by length within windows of `σ` rows; JDS is `C = 1, σ = nrows` |
//! | BSR    | [`bsr`] | dense `b×b` blocks (row-major) at sorted block columns, with an occupancy mask per block |
//! | dense  | [`dense`] | `nrows × ncols` values, row-major |
//!
//! Every stored entry survives a trip through any sparse format, explicit
//! zeros included: `X::from_csr(&a)…to_csr() == a`. Padding (ELL, HYB,
//! SELL) is marked by the column [`ELL_PAD`], not by a value, and BSR marks
//! its stored slots with a bit mask, so an entry whose value is 0 is never
//! mistaken for an absent one — and padding means nothing under any semiring
//! (min-plus's zero is +∞, not 0). Dense is the exception by nature: an entry
//! equal to the fill value cannot be told from an absent one.
//!
//! Formats whose padding is not bounded by a small multiple of nnz (ELL with
//! one long row, SELL with a large `C`, dense) can need far more memory than
//! the sparse matrix itself; their conversions report a size that cannot be
//! represented or allocated as [`Error::TooLarge`] rather than aborting.

pub mod bsr;
mod compressed;
pub mod coo;
pub mod csc;
pub mod csr;
pub mod dense;
pub mod ell;
pub mod hyb;
pub mod sell;

pub use bsr::{BSR_MAX_BLOCK, Bsr};
pub use coo::Coo;
pub use csc::Csc;
pub use csr::{Csr, RowStats};
pub use dense::Dense;
pub use ell::{ELL_PAD, Ell};
pub use hyb::Hyb;
pub use sell::{Sell, SellParts};

use crate::error::{Error, Result};

/// Largest number of rows or columns: indices are `u32`.
pub const MAX_DIM: usize = u32::MAX as usize;

/// `a × b` slots of a padded layout, or [`Error::TooLarge`] when the product
/// does not fit in `usize`.
pub(crate) fn slot_count(format: &str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b)
        .ok_or_else(|| Error::TooLarge(format!("{format}: {a} × {b} slots overflow usize")))
}

/// `len` copies of `value`, or [`Error::TooLarge`] when the array is larger
/// than the memory the system has available or the allocator refuses (a
/// padded layout of a skewed matrix can ask for terabytes; with overcommit
/// the allocation alone would succeed and the process be killed later).
pub(crate) fn try_filled<E: Clone>(format: &str, len: usize, value: E) -> Result<Vec<E>> {
    let bytes = len.saturating_mul(size_of::<E>());
    if let Some(available) = available_memory()
        && bytes > available
    {
        return Err(Error::TooLarge(format!(
            "{format}: {len} slots of {} bytes need {:.1} GB, but only {:.1} GB of memory is available",
            size_of::<E>(),
            bytes as f64 / 1e9,
            available as f64 / 1e9
        )));
    }
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        Error::TooLarge(format!(
            "{format}: {len} slots of {} bytes cannot be allocated",
            size_of::<E>()
        ))
    })?;
    v.resize(len, value);
    Ok(v)
}

/// Memory the system can still give this process (Linux `MemAvailable`),
/// or `None` where that cannot be read.
pub(crate) fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}
