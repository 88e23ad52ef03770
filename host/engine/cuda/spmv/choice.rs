//! The automatic SpMV kernel: chosen from A's size and row lengths.

use super::SpmvKernel;
use crate::format::RowStats;

/// Entries from which a matrix counts as large: enough work to fill the
/// GPU many times over, so that the kernels' bandwidth matters more than
/// their latency.
pub(super) const LARGE_NNZ: usize = 2_000_000;

/// Spread of row lengths (coefficient of variation) below which rows
/// count as nearly equal: a stencil's boundary rows alone (Poisson: under
/// 0.1), not rows of random lengths.
pub(super) const EQUAL_ROWS_CV: f64 = 0.2;

/// Longest row, over the mean, above which a small matrix takes the
/// adaptive kernel: a group of lanes a row waits on its longest row, while
/// the adaptive kernel's blocks stage every entry at once.
pub(super) const SMALL_SPREAD_OVER_MEAN: f64 = 3.0;

/// Longest row, over the mean, up to which rows of nearly equal lengths
/// take ELL: its padding then reads at most an eighth more than CSR's
/// entries (a band's or a stencil's boundary rows pad a few slots).
pub(super) const ELL_MAX_OVER_MEAN: f64 = 1.125;

/// The kernel [`SpmvKernel::Auto`] runs for a matrix of `nnz` entries
/// whose rows have `stats`, and its lanes per row:
///
/// - Skewed rows (the longest over 8 × the mean + 64): the adaptive
///   kernel, whatever the size. It packs the short rows and cuts each long
///   row into pieces that spread over the GPU, where a thread or warp per
///   row would leave most lanes waiting on the long rows; on every skewed
///   matrix of the tuning suites it beat the merge path, whose search and
///   carries cost more than the pieces' sums.
/// - Regular rows, large matrix: rows of nearly equal lengths (bands,
///   stencils), the longest within `ELL_MAX_OVER_MEAN` of the mean, as
///   ELL, a thread per row: column-major slots make every load of a warp
///   one contiguous run, with no row pointers and no staging; CSR a
///   thread a row reads each warp's rows as separate runs, which stops
///   paying once rows pass a few entries. Where every entry lies near the
///   diagonal, as in bands and stencils, the plan stores each slot's
///   column as a 16-bit offset from its row (see `DevEllColumns`): the
///   kernel is bound by the bytes it streams, and that is a quarter of
///   them in f32. Otherwise the adaptive kernel:
///   a warp of threads, a row each, waits on its longest row, so short
///   rows of spread lengths (the tuning suite's short uniform rows) run
///   faster packed into row blocks.
/// - Regular rows, small matrix (latency-bound): a group of lanes per row
///   as wide as the mean row fills, four loads in flight per lane; but
///   the adaptive kernel, in blocks small enough to spread over the GPU
///   (`adaptive_block_nnz`), where the longest row passes
///   `SMALL_SPREAD_OVER_MEAN` × the mean: a group waits on its longest
///   row.
pub(crate) fn choose(stats: &RowStats, nnz: usize) -> (SpmvKernel, u32) {
    let large = nnz >= LARGE_NNZ;
    let skewed = stats.max as f64 > 8.0 * stats.mean + 64.0;
    if skewed {
        return (SpmvKernel::CsrAdaptive, 1);
    }
    let equal = stats.cv < EQUAL_ROWS_CV && stats.max as f64 <= ELL_MAX_OVER_MEAN * stats.mean;
    match (large, equal) {
        (true, true) => (SpmvKernel::Ell, 1),
        (true, false) => (SpmvKernel::CsrAdaptive, 1),
        (false, _) if stats.max as f64 > SMALL_SPREAD_OVER_MEAN * stats.mean => {
            (SpmvKernel::CsrAdaptive, 1)
        }
        (false, _) => (SpmvKernel::CsrVector, vector_lanes(stats.mean)),
    }
}

/// Lanes per row for the vector kernel: the largest power of two (2..=32)
/// not above the mean row length.
pub(super) fn vector_lanes(mean: f64) -> u32 {
    let mut lanes = 2;
    while lanes < 32 && f64::from(lanes * 2) <= mean {
        lanes *= 2;
    }
    lanes
}
