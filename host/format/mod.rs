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
//! Every array whose length comes from a shape rather than from stored
//! entries (row and column pointers, padded slots, dense elements) is
//! allocated only after checking that it fits: a size line of twenty bytes
//! can ask for a 4294967295-row matrix, and padding (ELL with one long row,
//! SELL with a large `C`, dense) can need far more memory than the entries.
//! Conversions that can meet such a size return [`Error::TooLarge`] with the
//! bytes needed and the bytes there (the `try_` forms, for input-sized
//! matrices), or panic with that message (the infallible forms, for matrices
//! a program built itself), never abort the process.

pub mod bsr;
mod buffer;
mod compressed;
pub mod coo;
pub mod csc;
pub mod csr;
pub mod dense;
pub mod ell;
pub mod hyb;
pub mod sell;

pub use bsr::{BSR_MAX_BLOCK, Bsr};
pub use buffer::{Buffer, Lent};
pub use coo::Coo;
pub use csc::Csc;
pub use csr::{Csr, RowStats};
pub use dense::Dense;
pub use ell::{ELL_PAD, Ell};
pub use hyb::Hyb;
pub use sell::{Sell, SellParts};

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Largest number of rows or columns: indices are `u32`.
pub const MAX_DIM: usize = u32::MAX as usize;

/// `a × b` slots of a padded layout, or [`Error::TooLarge`] when the product
/// does not fit in `usize`.
pub(crate) fn slot_count(format: &str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b)
        .ok_or_else(|| Error::TooLarge(format!("{format}: {a} × {b} slots overflow usize")))
}

/// `len` copies of `value`, or [`Error::TooLarge`] (see [`try_with_capacity`]).
/// Written in parallel, so that the threads share the page faults.
pub(crate) fn try_filled<E: Clone + Send + Sync>(
    what: &str,
    len: usize,
    value: E,
) -> Result<Vec<E>> {
    let mut v = try_with_capacity(what, len)?;
    v.par_extend(rayon::iter::repeat_n(value, len));
    Ok(v)
}

/// Arrays smaller than this are not checked against the memory available
/// (which costs reads of `/proc` and `/sys` files), only against the
/// allocator.
const CHECK_AVAILABLE_FROM: usize = 64 << 20;

/// An empty vector with room for `len` elements of `what` (named in the
/// message), or [`Error::TooLarge`] when that is more than the memory the
/// system has available or the allocator refuses. The check comes first
/// because with overcommit a huge allocation may succeed and the process be
/// killed later when it touches the pages.
pub fn try_with_capacity<E>(what: &str, len: usize) -> Result<Vec<E>> {
    if len.saturating_mul(size_of::<E>()) >= CHECK_AVAILABLE_FROM {
        let available = crate::memory::available_bytes().and_then(|b| usize::try_from(b).ok());
        fits_in_memory(what, len, size_of::<E>(), available)?;
    }
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| too_large(what, len, size_of::<E>(), "which cannot be allocated"))?;
    Ok(v)
}

/// Ok when `len` elements of `size` bytes fit in `available` bytes (no
/// check when that is unknown).
fn fits_in_memory(what: &str, len: usize, size: usize, available: Option<usize>) -> Result<()> {
    let bytes = len.saturating_mul(size);
    match available {
        Some(available) if bytes > available => Err(too_large(
            what,
            len,
            size,
            &format!(
                "more than the {available} bytes ({:.1} GB) of memory available",
                available as f64 / 1e9
            ),
        )),
        _ => Ok(()),
    }
}

/// `what: len × size bytes = bytes (GB), why`.
pub(crate) fn too_large(what: &str, len: usize, size: usize, why: &str) -> Error {
    let bytes = len.saturating_mul(size);
    Error::TooLarge(format!(
        "{what}: {len} × {size} bytes = {bytes} bytes ({:.1} GB), {why}",
        bytes as f64 / 1e9
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_larger_than_memory_is_refused_with_the_numbers() {
        let gib = Some(1usize << 30);
        let e = fits_in_memory("CSR row pointers", 1 << 32, 8, gib).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("CSR row pointers: 4294967296 × 8 bytes = 34359738368 bytes (34.4 GB)"),
            "{msg}"
        );
        assert!(
            msg.contains("more than the 1073741824 bytes (1.1 GB)"),
            "{msg}"
        );
        assert!(fits_in_memory("x", 1 << 27, 8, gib).is_ok());
        assert!(fits_in_memory("x", usize::MAX, 8, None).is_ok());
    }
}
