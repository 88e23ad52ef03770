//! The padded row formats, a thread a row (or a position), each row's
//! slots summed in order: ELL (`spmv_ell`), near-diagonal ELL with 16-bit
//! offsets (`spmv_ell_near`) and SELL (`spmv_sell`).

use crate::args::{
    ELL_NEAR_BIAS, ELL_NEAR_PAD, ELL_NEAR_SLICE, ELL_PAD, SpmvEllArgs, SpmvEllNearArgs,
    SpmvSellArgs, ell_near_slot,
};
use crate::device::memory::load_streaming;
use crate::device::thread::{grid_stride, require};
use crate::semiring::Semiring;

/// ELL (column-major), one thread per row: thread `i` reads slots
/// `k · n_rows + i` for `k < width` (neighbouring threads, neighbouring
/// addresses: coalesced), skips padding by its column ([`ELL_PAD`]), and
/// stops early at the semiring's terminal value. Sums in row order.
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the rows once). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid ELL matrix and vectors in device memory
/// (`width · n_rows` slots, columns below `x`'s length or [`ELL_PAD`]).
#[inline(always)]
pub unsafe fn spmv_ell<S: Semiring>(a: SpmvEllArgs<S::Value>) {
    let (col_idx, values, x, y) = (
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let n_rows = a.n_rows as usize;
    for row in grid_stride(a.n_rows) {
        let row = row as usize;
        // SAFETY: the caller's contract: slots `row + k · n_rows` for
        // `k < width` are in bounds, a column other than ELL_PAD indexes
        // `x`, and `row < n_rows`.
        unsafe {
            let acc = sum_padded_row::<S, u32>(
                col_idx,
                u32_column,
                values,
                x,
                row,
                n_rows,
                a.width as usize,
            );
            *y.add(row) = acc;
        }
    }
}

/// Near-diagonal ELL ([`SpmvEllNearArgs`]), one thread per row: as
/// [`spmv_ell`], each slot's column its row plus its biased 16-bit offset
/// (padding: [`ELL_NEAR_PAD`]), the slots of a warp's rows one contiguous
/// slice ([`ell_near_slot`]). Sums in row order.
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the rows once). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid near-diagonal ELL matrix and vectors in device
/// memory (the slots [`ell_near_slot`] gives for `n_rows` rows of `width`,
/// each offset other than [`ELL_NEAR_PAD`] giving a column below `x`'s
/// length).
#[inline(always)]
pub unsafe fn spmv_ell_near<S: Semiring>(a: SpmvEllNearArgs<S::Value>) {
    let (offsets, values, x, y) = (
        a.offsets.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let width = a.width as usize;
    for row in grid_stride(a.n_rows) {
        let row = row as usize;
        // SAFETY: the caller's contract: the row's slots are in bounds, an
        // offset other than ELL_NEAR_PAD gives a column of `x`, and
        // `row < n_rows`.
        unsafe {
            let column = |offset: u16| {
                (offset != ELL_NEAR_PAD).then(|| row + offset as usize - ELL_NEAR_BIAS as usize)
            };
            let first = ell_near_slot(row, 0, width);
            let acc =
                sum_padded_row::<S, u16>(offsets, column, values, x, first, ELL_NEAR_SLICE, width);
            *y.add(row) = acc;
        }
    }
}

/// The column a `u32` slot of ELL or SELL holds, `None` for padding
/// ([`ELL_PAD`]).
#[inline(always)]
fn u32_column(col: u32) -> Option<usize> {
    (col != ELL_PAD).then_some(col as usize)
}

/// Slots of a padded row whose index and value [`sum_padded_row`] loads
/// before it sums any of them: a thread then has that many loads in
/// flight, not one index and then its value at a time.
const SLOTS_IN_FLIGHT: usize = 4;

/// The sum of a padded row of ELL or SELL: slots `first + k · stride` for
/// `k < width`, in order, each slot's column `column(index[slot])` (`None`
/// for padding, skipped), stopping early at the semiring's terminal value.
///
/// # Safety
/// Every slot is in bounds of `index` and `values`, and every column
/// `column` gives indexes `x`.
#[inline(always)]
unsafe fn sum_padded_row<S: Semiring, I: Copy>(
    index: *const I,
    column: impl Fn(I) -> Option<usize>,
    values: *const S::Value,
    x: *const S::Value,
    first: usize,
    stride: usize,
    width: usize,
) -> S::Value {
    let mut acc = S::zero();
    // Streaming loads: A is read once, and the compiler may not sink them
    // into the branches below, one behind another.
    // SAFETY: the caller's contract.
    let load = |k: usize| unsafe {
        let slot = first + k * stride;
        (
            load_streaming(index.add(slot)),
            load_streaming(values.add(slot)),
        )
    };
    // Adds a slot to `acc`; true once `acc` is terminal.
    let mut add = |(i, v): (I, S::Value)| {
        if let Some(col) = column(i) {
            // SAFETY: the caller's contract.
            acc = S::add(acc, S::mul(v, unsafe { *x.add(col) }));
            return S::is_terminal(acc);
        }
        false
    };
    let whole = width - width % SLOTS_IN_FLIGHT;
    let mut k = 0;
    while k < whole {
        let slots: [(I, S::Value); SLOTS_IN_FLIGHT] = core::array::from_fn(|j| load(k + j));
        if slots.into_iter().any(&mut add) {
            return acc;
        }
        k += SLOTS_IN_FLIGHT;
    }
    while k < width {
        if add(load(k)) {
            break;
        }
        k += 1;
    }
    acc
}

/// SELL-C-σ (and JDS, `c = 1`), one thread per sorted position `p`: it
/// walks local row `p mod c` of slice `p / c` (slots `slice_ptr[s] + k·c + r`,
/// coalesced across the threads of a slice when `c` is 32 or a multiple),
/// skips padding by its column ([`ELL_PAD`]), and writes `y[perm[p]]`.
/// Positions `≥ n_rows` (the last slice's padding rows) are never visited.
/// Sums in row order.
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the positions once). `c ≥ 1` (else `trap`). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid SELL matrix and vectors in device memory (`perm` a
/// permutation of `0..n_rows`, `n_slices · c ≥ n_rows`, columns below
/// `x`'s length or [`ELL_PAD`]).
#[inline(always)]
pub unsafe fn spmv_sell<S: Semiring>(a: SpmvSellArgs<S::Value>) {
    require(a.c != 0);
    let (perm, slice_ptr, slice_width, col_idx, values, x, y) = (
        a.perm.as_ptr(),
        a.slice_ptr.as_ptr(),
        a.slice_width.as_ptr(),
        a.col_idx.as_ptr(),
        a.values.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let c = a.c as usize;
    for p in grid_stride(a.n_rows) {
        let (slice, r) = ((p / a.c) as usize, (p % a.c) as usize);
        // SAFETY: the caller's contract: `slice < n_slices`, every slot of
        // the slice is in bounds, a column other than ELL_PAD indexes `x`,
        // and `perm[p] < n_rows`.
        unsafe {
            let first = *slice_ptr.add(slice) as usize + r;
            let width = *slice_width.add(slice) as usize;
            let acc = sum_padded_row::<S, u32>(col_idx, u32_column, values, x, first, c, width);
            *y.add(*perm.add(p as usize) as usize) = acc;
        }
    }
}
