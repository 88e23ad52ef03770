//! The merge path of a CSR matrix (Merrill & Garland, "Merge-based parallel
//! sparse matrix-vector multiplication", SC 2016): the pieces of the
//! load-balanced SpMV that do not touch the GPU, compiled for every target so
//! that the host tests them and the `spmv_csr_merge` kernels call them.
//!
//! SpMV over CSR merges two sorted lists: the row ends `row_ptr[1..=n_rows]`
//! and the entry indices `0..nnz`. Walking the merge, an entry `j` is taken
//! while `j < row_ptr[i + 1]` (it belongs to the current row `i`), else the
//! row end of `i` is taken (row `i` is complete). The walk has
//! `n_rows + nnz` items; item `d` (the *diagonal* `d`) sits at the unique
//! coordinate `(i, j)` with `i + j = d`: `i` row ends and `j` entries come
//! before it. Cutting the walk into equal runs of items gives every part the
//! same work, however long or short the rows.

use crate::semiring::Semiring;

/// The coordinate `(row, entry)` of diagonal `diagonal` on the merge path of
/// a CSR with `n_rows` rows and `nnz` entries, where `row_end(i)` is
/// `row_ptr[i + 1]`: `row` rows are complete and `entry` entries consumed
/// after the first `diagonal` items. A diagonal past the end gives
/// `(n_rows, nnz)`. Binary search: `row_end` is called `⌈log₂(n_rows + 1)⌉`
/// times at most, always with `i < n_rows`.
#[inline(always)]
pub fn search(diagonal: u64, n_rows: u32, nnz: u32, row_end: impl Fn(u32) -> u32) -> (u32, u32) {
    search_in(diagonal, (0, n_rows), n_rows, nnz, row_end)
}

/// [`search`], knowing that the row of `diagonal` lies in `rows.0..=rows.1`
/// (for instance, from the row of an earlier diagonal `d₀`: the row of
/// `d₀ + k` is at most `k` rows further). `row_end` is called
/// `⌈log₂(rows.1 − rows.0 + 1)⌉` times at most.
#[inline(always)]
pub fn search_in(
    diagonal: u64,
    rows: (u32, u32),
    n_rows: u32,
    nnz: u32,
    row_end: impl Fn(u32) -> u32,
) -> (u32, u32) {
    let diagonal = diagonal.min(u64::from(n_rows) + u64::from(nnz));
    // The number of row ends among the first `diagonal` items lies in lo..=hi.
    let mut lo = (diagonal.saturating_sub(u64::from(nnz)) as u32).max(rows.0);
    let mut hi = (diagonal.min(u64::from(n_rows)) as u32).min(rows.1);
    while lo < hi {
        let pivot = lo + (hi - lo) / 2;
        if before(&row_end, pivot, diagonal) {
            lo = pivot + 1;
        } else {
            hi = pivot;
        }
    }
    (lo, (diagonal - u64::from(lo)) as u32)
}

/// Whether row end `pivot` comes before item `diagonal` on the merge path:
/// the row ends at or before entry `diagonal - pivot - 1`. Monotone: true
/// for every pivot below the row of `diagonal`, false from it on.
#[inline(always)]
pub fn before(row_end: impl Fn(u32) -> u32, pivot: u32, diagonal: u64) -> bool {
    u64::from(row_end(pivot)) < diagonal - u64::from(pivot)
}

/// What one walk (one lane's run of items) leaves behind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walked<T> {
    /// The sum of the walk's entries of the first row it completed, the row
    /// it started in (`None` when it completed no row). Its entries before
    /// the walk belong to earlier walks, so this is not yet `y` of that row.
    pub first: Option<T>,
    /// The row the walk ended in, unfinished (`n_rows` when every row is
    /// complete), and its sum of that row's entries.
    pub carry_row: u32,
    pub carry: T,
}

/// Walks `steps` items of the merge path from coordinate `(row, entry)`
/// (stopping early at the end of the path). `row_end(i)` is `row_ptr[i + 1]`
/// and `product(j)` the product `values[j] ⊗ x[col_idx[j]]` of entry `j`;
/// `complete(i, sum)` is called with every row the walk both starts and
/// completes (all but the first completed, which is [`Walked::first`]).
/// Sums are sequential in entry order, from `S::zero()`.
#[inline(always)]
pub fn walk<S: Semiring>(
    (mut row, mut entry): (u32, u32),
    steps: u32,
    n_rows: u32,
    row_end: impl Fn(u32) -> u32,
    product: impl Fn(u32) -> S::Value,
    mut complete: impl FnMut(u32, S::Value),
) -> Walked<S::Value> {
    let mut first = None;
    let mut acc = S::zero();
    if row < n_rows {
        let mut end = row_end(row);
        for _ in 0..steps {
            if entry < end {
                acc = S::add(acc, product(entry));
                entry += 1;
                continue;
            }
            if first.is_none() {
                first = Some(acc);
            } else {
                complete(row, acc);
            }
            acc = S::zero();
            row += 1;
            if row == n_rows {
                break;
            }
            end = row_end(row);
        }
    }
    Walked {
        first,
        carry_row: row,
        carry: acc,
    }
}

/// Whether part `part` starts a run of parts carrying one row (the parts
/// carrying a row are consecutive, since rows never decrease along the
/// path), and which row: `Some(row)` when `carry_row(part)` is a row
/// (`< n_rows`) that the previous part does not carry. The fix-up of a row is
/// done once, by its run's first part.
#[inline(always)]
pub fn run_head(part: u32, n_rows: u32, carry_row: impl Fn(u32) -> u32) -> Option<u32> {
    let row = carry_row(part);
    (row < n_rows && (part == 0 || carry_row(part - 1) != row)).then_some(row)
}

/// The fix-up of part `part` of `n_parts`, one part at a time: when the part
/// starts a run ([`run_head`]), `(row, sum)` with the run's carries summed in
/// part order, to be added in front of `y[row]`: `y[row] = S::add(sum, y[row])`.
/// The GPU sums the same carries, a warp at a time.
pub fn fixup<S: Semiring>(
    part: u32,
    n_parts: u32,
    n_rows: u32,
    carry_row: impl Fn(u32) -> u32,
    carry_val: impl Fn(u32) -> S::Value,
) -> Option<(u32, S::Value)> {
    let row = run_head(part, n_rows, &carry_row)?;
    let mut sum = carry_val(part);
    let mut p = part + 1;
    while p < n_parts && carry_row(p) == row {
        sum = S::add(sum, carry_val(p));
        p += 1;
    }
    Some((row, sum))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring::{MinPlus, PlusTimes};
    use std::vec;
    use std::vec::Vec;

    /// Row pointers of rows with the given lengths.
    fn row_ptr(lengths: &[u32]) -> Vec<u32> {
        let mut ptr = vec![0];
        for &len in lengths {
            ptr.push(ptr.last().unwrap() + len);
        }
        ptr
    }

    /// The warp search, with the 32 lanes' votes counted here, finds what
    /// the binary search finds, in a few rounds.
    #[test]
    fn search_finds_the_coordinate_of_every_diagonal() {
        let ptr = row_ptr(&[2, 0, 0, 3, 1, 0]);
        let (n_rows, nnz) = (6, 6);
        // Walk the merge one item at a time and compare.
        let (mut i, mut j) = (0u32, 0u32);
        for d in 0..=u64::from(n_rows + nnz) {
            let found = search(d, n_rows, nnz, |r| ptr[r as usize + 1]);
            assert_eq!(found, (i, j), "diagonal {d}");
            if i < n_rows && j < ptr[i as usize + 1] {
                j += 1;
            } else {
                i += 1;
            }
        }
        assert_eq!(search(1000, n_rows, nnz, |r| ptr[r as usize + 1]), (6, 6));
        assert_eq!(search(0, 0, 0, |_| unreachable!()), (0, 0));
    }

    /// The two kernels, lane by lane in order: each part is `lanes` walks of
    /// `items_per_lane` items, combined as the warp does (segmented sums of
    /// the carries of lanes ending in the same row), then the fix-up.
    fn merge_spmv<S: Semiring>(
        ptr: &[u32],
        products: &[S::Value],
        lanes: u32,
        items_per_lane: u32,
    ) -> Vec<S::Value> {
        let n_rows = ptr.len() as u32 - 1;
        let nnz = products.len() as u32;
        let items_per_part = lanes * items_per_lane;
        let n_parts = (n_rows + nnz).div_ceil(items_per_part);
        let mut y = vec![None; n_rows as usize];
        let (mut carry_row, mut carry_val) = (vec![], vec![]);
        let row_end = |r: u32| ptr[r as usize + 1];
        for part in 0..n_parts {
            let mut scan: Option<(u32, S::Value)> = None;
            for lane in 0..lanes {
                let d = u64::from(part * items_per_part + lane * items_per_lane);
                let start = search(d, n_rows, nnz, row_end);
                let w = walk::<S>(
                    start,
                    items_per_lane,
                    n_rows,
                    row_end,
                    |j| products[j as usize],
                    |r, v| assert!(y[r as usize].replace(v).is_none(), "row {r} twice"),
                );
                // The previous lanes' carries of this lane's first row.
                let before = scan.filter(|&(r, _)| r == start.0).map(|(_, v)| v);
                if let Some(v) = w.first {
                    let v = before.map_or(v, |b| S::add(b, v));
                    assert!(y[start.0 as usize].replace(v).is_none());
                }
                scan = Some(match scan {
                    Some((r, v)) if r == w.carry_row => (r, S::add(v, w.carry)),
                    _ => (w.carry_row, w.carry),
                });
            }
            let (r, v) = scan.unwrap();
            carry_row.push(r);
            carry_val.push(v);
        }
        let mut y: Vec<S::Value> = y
            .into_iter()
            .map(|v| v.expect("every row written"))
            .collect();
        for p in 0..n_parts {
            let fix = fixup::<S>(
                p,
                n_parts,
                n_rows,
                |q| carry_row[q as usize],
                |q| carry_val[q as usize],
            );
            if let Some((r, sum)) = fix {
                y[r as usize] = S::add(sum, y[r as usize]);
            }
        }
        y
    }

    fn serial<S: Semiring>(ptr: &[u32], products: &[S::Value]) -> Vec<S::Value> {
        ptr.windows(2)
            .map(|w| {
                products[w[0] as usize..w[1] as usize]
                    .iter()
                    .fold(S::zero(), |acc, &p| S::add(acc, p))
            })
            .collect()
    }

    #[test]
    fn merge_matches_serial_on_power_law_rows() {
        // Empty rows, first and last rows empty, one row spanning many parts.
        let shapes: [&[u32]; 5] = [
            &[0, 3, 0, 0, 1, 700, 2, 0, 0, 5, 1, 1, 0],
            &[1000],
            &[0, 0, 0],
            &[],
            &[
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 0, 300,
            ],
        ];
        for lengths in shapes {
            let ptr = row_ptr(lengths);
            let nnz = *ptr.last().unwrap() as usize;
            // Small integers: float sums are exact in any order.
            let products: Vec<f64> = (0..nnz).map(|j| ((j * 7919) % 13) as f64).collect();
            for (lanes, per_lane) in [(1, 1), (4, 1), (32, 1), (32, 3), (32, 8), (2, 64)] {
                assert_eq!(
                    merge_spmv::<PlusTimes<f64>>(&ptr, &products, lanes, per_lane),
                    serial::<PlusTimes<f64>>(&ptr, &products),
                    "plus-times, rows {lengths:?}, {lanes} lanes of {per_lane}"
                );
                assert_eq!(
                    merge_spmv::<MinPlus<f64>>(&ptr, &products, lanes, per_lane),
                    serial::<MinPlus<f64>>(&ptr, &products),
                    "min-plus, rows {lengths:?}, {lanes} lanes of {per_lane}"
                );
            }
        }
    }
}
