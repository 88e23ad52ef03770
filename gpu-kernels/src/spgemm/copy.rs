//! The copy class: rows with at most one entry of A (or no products),
//! whose row of C is B's row scaled.

use crate::args::SpgemmNumericArgs;
use crate::device::thread::{WARP_SIZE, global_warp_id, grid_warps, lane_id};
use crate::semiring::Semiring;

use super::row::{RowsArgs, a_row, c_start};

/// Rows with at most one entry of A (or no products): C's row is B's row
/// scaled, in B's order. Numeric phase only (classify wrote the lengths).
///
/// Launch: 1D, block size a multiple of 32, any grid; no shared memory.
///
/// # Safety
/// [`SpgemmNumericArgs`] valid.
#[inline(always)]
pub unsafe fn spgemm_copy<S: Semiring>(args: SpgemmNumericArgs<S::Value>) {
    let a = args.rows();
    let lane = lane_id();
    let mut w = global_warp_id();
    while w < a.n_rows {
        // SAFETY: rows, A, B and C valid by the contract.
        unsafe {
            let row = *a.rows.as_ptr().add(w as usize);
            let (start, len_a) = a_row(&a, row);
            if len_a == 1 {
                let k = *a.a_col_idx.as_ptr().add(start as usize) as usize;
                let x = *a.a_values.as_ptr().add(start as usize);
                let bp = a.b_row_ptr.as_ptr();
                let (s, e) = (*bp.add(k), *bp.add(k + 1));
                let out = c_start(&a, row);
                let mut q = s + lane;
                while q < e {
                    let at = out + (q - s) as usize;
                    *a.c_col_idx.as_mut_ptr().add(at) = *a.b_col_idx.as_ptr().add(q as usize);
                    *a.c_values.as_mut_ptr().add(at) =
                        S::mul(x, *a.b_values.as_ptr().add(q as usize));
                    q += WARP_SIZE;
                }
            }
        }
        w += grid_warps();
    }
}
