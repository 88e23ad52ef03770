//! BSR, a thread a row of the blocks (`spmv_bsr`).

use crate::args::SpmvBsrArgs;
use crate::device::thread::{grid_stride, require};
use crate::semiring::Semiring;

/// BSR, one thread per matrix row: thread `i` walks the blocks of block row
/// `i / b`, reading row `i mod b` of each (the `b` threads of a block row read
/// each block's index and mask together, and its `b` rows side by side), and
/// multiplies only the slots its mask marks, in column order. Columns past
/// `n_cols` are never read, rows past `n_rows` never written. Sums in row
/// order. A thread per row suits the small blocks BSR is for (`b ≤ 8`).
///
/// Launch: 1D, any block size, any grid (`⌈n_rows / block⌉` blocks cover
/// the rows once). `1 ≤ b ≤ 8` (else `trap`). `y` is overwritten.
///
/// # Safety
/// `a` describes a valid BSR matrix and vectors in device memory
/// (`⌈n_rows / b⌉ + 1` block-row offsets, `b²` values and one mask per block,
/// `x` of `n_cols` entries).
#[inline(always)]
pub unsafe fn spmv_bsr<S: Semiring>(a: SpmvBsrArgs<S::Value>) {
    require(a.b != 0 && a.b <= 8);
    let (block_row_ptr, block_col, values, masks, x, y) = (
        a.block_row_ptr.as_ptr(),
        a.block_col.as_ptr(),
        a.values.as_ptr(),
        a.masks.as_ptr(),
        a.x.as_ptr(),
        a.y.as_mut_ptr(),
    );
    let b = a.b as usize;
    let row_bits = (1u64 << b) - 1;
    for row in grid_stride(a.n_rows) {
        let (block_row, r) = ((row / a.b) as usize, (row % a.b) as usize);
        let mut acc = S::zero();
        // SAFETY: the caller's contract: every block of the block row is in
        // bounds, and the column check keeps `x` reads below `n_cols`.
        unsafe {
            let (first, last) = (
                *block_row_ptr.add(block_row),
                *block_row_ptr.add(block_row + 1),
            );
            'blocks: for k in first as usize..last as usize {
                let first_col = *block_col.add(k) as usize * b;
                let mut bits = (*masks.add(k) >> (r * b)) & row_bits;
                let inside = (a.n_cols as usize).saturating_sub(first_col);
                if inside < b {
                    bits &= (1u64 << inside) - 1;
                }
                let row_values = values.add(k * b * b + r * b);
                while bits != 0 {
                    let c = bits.trailing_zeros() as usize;
                    let product = S::mul(*row_values.add(c), *x.add(first_col + c));
                    acc = S::add(acc, product);
                    if S::is_terminal(acc) {
                        break 'blocks;
                    }
                    bits &= bits - 1;
                }
            }
            *y.add(row as usize) = acc;
        }
    }
}
