//! Row accumulators for Gustavson SpGEMM: the workspace in which one row of
//! C = A·B is summed before it is written out in column order. Shared by
//! the serial and cpu engines so both produce the same bits.

use super::fresh::Aligned;
use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// Widest B (in columns) for which the dense accumulator is used:
/// 2¹⁸ columns × (8-byte value + 1-byte flag + 4-byte list slot) ≈ 3.3 MiB
/// per thread.
pub const DENSE_ACCUMULATOR_MAX_COLS: usize = 1 << 18;

/// Workspace for forming one row of C at a time; each engine thread owns
/// one. Generic code over this trait is monomorphised per accumulator, so
/// the inner loop carries no dispatch. Products arrive a row of B at a
/// time, so each inner loop runs inside the accumulator.
pub trait Accumulator<T: Scalar> {
    /// Whether [`Accumulator::start_row`] uses [`RowShape::span`] (its
    /// engine then reads the first and last column of each row of B the
    /// row uses).
    const USES_SPAN: bool = false;
    /// Clears the row, whose products are about to arrive.
    fn start_row(&mut self, row: RowShape);
    /// Marks every column of `cols` present (symbolic phase).
    fn touch_all(&mut self, cols: &[u32]);
    /// Adds `a ⊗ vals[k]` into column `cols[k]`, for each `k` in order; the
    /// first product of a column is stored as it is.
    fn accumulate_all<S: Semiring<Value = T>>(&mut self, a: T, cols: &[u32], vals: &[T]);
    /// Distinct columns seen in this row.
    fn row_len(&self) -> usize;
    /// Writes the row out in column order; both slices have length `row_len()`.
    fn drain_sorted(&mut self, cols: &mut [u32], vals: &mut [T]);
    /// Whether this workspace, made for an earlier product, serves one whose
    /// B has `ncols` columns as a fresh one would (engines that keep
    /// workspaces between calls ask).
    fn fits(&self, ncols: usize) -> bool;
    /// Frees what is too large to keep between calls.
    fn trim(&mut self) {}
}

/// What an engine knows of a row of C before its products arrive.
#[derive(Clone, Copy, Debug)]
pub struct RowShape {
    /// Products the row computes.
    pub flops: usize,
    /// Columns from the first that the row's rows of B hold to their last
    /// (how far apart the row's columns can lie); 0 unless the accumulator
    /// [uses it](Accumulator::USES_SPAN).
    pub span: usize,
    /// Distinct columns, if known (the numeric phase knows it from the
    /// symbolic one).
    pub len: Option<usize>,
}

/// Calls `f` with a maker of the accumulator suited to B's width: dense up
/// to [`DENSE_ACCUMULATOR_MAX_COLS`] columns, [`WideAccumulator`] beyond.
/// Each thread makes its own, once.
pub fn with_accumulator<T: Scalar, R>(b_ncols: usize, f: impl AccumulatorUser<T, R>) -> R {
    if b_ncols <= DENSE_ACCUMULATOR_MAX_COLS {
        f.run(&|| DenseAccumulator::new(b_ncols))
    } else {
        f.run(&|| WideAccumulator::new(b_ncols))
    }
}

/// Widest B for which [`WideAccumulator`] makes a dense accumulator for its
/// local and long rows: 2²⁴ columns × 13 bytes ≈ 208 MiB a thread, of which a row
/// maps only the pages its columns touch.
pub const WIDE_DENSE_MAX_COLS: usize = 1 << 24;

/// Widest column span of a row that [`WideAccumulator`] forms in its dense
/// accumulator whatever its length. The values, flags and list slots of
/// 2¹⁷ columns (1.6 MiB at f64) stay in the caches (a core's L2 and the
/// shared L3) even where a row's columns scatter over them, and the next
/// rows of a band or a stencil (the square of a 3D one spans 4n² + 1
/// columns, 102 401 for n = 160) reuse those lines, where a hash table
/// pays for probing and a sort every row. Rows whose columns scatter wider (graphs) would miss the cache on
/// every product and are hashed.
pub const LOCAL_SPAN_MAX_COLS: usize = 1 << 17;

/// Accumulator for wide B, by row class: a dense one (made on first need)
/// for rows whose columns lie within [`LOCAL_SPAN_MAX_COLS`] (bands,
/// stencils) and for rows of at least a sixteenth of B's columns in
/// products (the hubs of a power-law matrix, whose hash table would be
/// about as large and slower); the hash accumulator for the rest.
pub struct WideAccumulator<T> {
    hash: HashAccumulator<T>,
    dense: Option<DenseAccumulator<T>>,
    ncols: usize,
    /// Whether the current row is in the dense one.
    in_dense: bool,
}

impl<T: Scalar> WideAccumulator<T> {
    /// An accumulator for rows of C of `ncols` columns.
    pub fn new(ncols: usize) -> Self {
        WideAccumulator {
            hash: HashAccumulator::default(),
            dense: None,
            ncols,
            in_dense: false,
        }
    }
}

/// Calls `$body` with `$acc` bound to the accumulator of the current row.
macro_rules! by_class {
    ($self:ident, $acc:ident => $body:expr) => {
        match ($self.in_dense, &mut $self.dense) {
            (true, Some($acc)) => $body,
            _ => {
                let $acc = &mut $self.hash;
                $body
            }
        }
    };
}

impl<T: Scalar> Accumulator<T> for WideAccumulator<T> {
    const USES_SPAN: bool = true;
    fn start_row(&mut self, row: RowShape) {
        self.in_dense = self.ncols <= WIDE_DENSE_MAX_COLS
            && (row.span <= LOCAL_SPAN_MAX_COLS || row.flops * 16 >= self.ncols);
        if self.in_dense && self.dense.is_none() {
            self.dense = Some(DenseAccumulator::new(self.ncols));
        }
        by_class!(self, acc => acc.start_row(row))
    }
    #[inline]
    fn touch_all(&mut self, cols: &[u32]) {
        by_class!(self, acc => acc.touch_all(cols))
    }
    #[inline]
    fn accumulate_all<S: Semiring<Value = T>>(&mut self, a: T, cols: &[u32], vals: &[T]) {
        by_class!(self, acc => acc.accumulate_all::<S>(a, cols, vals))
    }
    fn row_len(&self) -> usize {
        match (self.in_dense, &self.dense) {
            (true, Some(acc)) => acc.row_len(),
            _ => self.hash.row_len(),
        }
    }
    fn drain_sorted(&mut self, cols: &mut [u32], vals: &mut [T]) {
        by_class!(self, acc => acc.drain_sorted(cols, vals))
    }
    fn fits(&self, ncols: usize) -> bool {
        self.ncols == ncols
    }
    fn trim(&mut self) {
        // Up to 208 MiB, mapped wherever the dense rows reached.
        self.dense = None;
    }
}

/// A computation generic over the accumulator type (closures cannot be).
pub trait AccumulatorUser<T: Scalar, R> {
    /// Runs the computation with accumulators that `make` makes.
    fn run<A: Accumulator<T> + Send + 'static>(self, make: &(dyn Fn() -> A + Sync)) -> R;
}

/// Dense accumulator: one value and one presence flag per column of B,
/// plus the list of the columns present in the current row. The flags
/// answer "first product for this column?" and, for a row whose columns
/// lie close together, list them in order by a scan of the flags from the
/// row's first column to its last, 8 at a time; a row spread thinly sorts
/// its list instead. Starting a row clears only the flags its
/// predecessor set.
///
/// The inner loops have no data-dependent branch: whether a column is new
/// decides only how far the list's end moves and which value is stored (a
/// select). A branch on it mispredicts about once per entry of C. Flags are
/// bytes, not bits: setting a bit would make each product's store feed the
/// next product's load of the same word.
pub struct DenseAccumulator<T> {
    values: Aligned<T>,
    present: Vec<u8>,
    /// The row's columns in `touched[..len]`. Every product writes its
    /// column at `touched[len]` and advances `len` only if the column is
    /// new, so the list needs one slot more than B has columns.
    touched: Vec<u32>,
    len: usize,
    /// Whether this row's products mostly hit columns already present, so
    /// that a branch on it predicts well and saves the stores.
    predictable: bool,
    /// The previous row's products (its length is still `len` when the
    /// next row starts).
    last_flops: usize,
}

/// Products per distinct column from which a row takes the branching loop.
const REPEATS_FOR_BRANCH: usize = 4;

impl<T: Scalar> DenseAccumulator<T> {
    /// A workspace for B with `ncols` columns. Allocated zeroed, so pages
    /// are mapped only when the thread that uses them first touches them;
    /// the values, touched all over by rows whose columns scatter, on huge
    /// pages where large (see [`fresh`](super::fresh)).
    pub fn new(ncols: usize) -> Self {
        DenseAccumulator {
            // One spare slot: see `accumulate_all`.
            values: Aligned::filled(ncols + 1, T::ZERO),
            // Whole words of 8 flags, for the scan in `drain_sorted`.
            present: vec![0; ncols.div_ceil(8) * 8],
            touched: vec![0; ncols + 1],
            len: 0,
            predictable: false,
            last_flops: 0,
        }
    }
}

impl<T: Scalar> Accumulator<T> for DenseAccumulator<T> {
    fn start_row(&mut self, RowShape { flops, len, .. }: RowShape) {
        for &c in &self.touched[..self.len] {
            self.present[c as usize] = 0;
        }
        // Unknown, a row's length is guessed from its predecessor's ratio.
        let (flops_ref, len_ref) = len.map_or((self.last_flops, self.len), |len| (flops, len));
        self.predictable = flops_ref >= REPEATS_FOR_BRANCH * len_ref;
        self.last_flops = flops;
        self.len = 0;
    }
    #[inline]
    fn touch_all(&mut self, cols: &[u32]) {
        let (present, touched) = (&mut self.present[..], &mut self.touched[..]);
        let mut len = self.len;
        if self.predictable {
            for &c in cols {
                if present[c as usize] == 0 {
                    present[c as usize] = 1;
                    touched[len] = c;
                    len += 1;
                }
            }
        } else {
            for &c in cols {
                let fresh = present[c as usize] == 0;
                present[c as usize] = 1;
                touched[len] = c;
                len += usize::from(fresh);
            }
        }
        self.len = len;
    }
    #[inline]
    fn accumulate_all<S: Semiring<Value = T>>(&mut self, a: T, cols: &[u32], vals: &[T]) {
        let (present, touched) = (&mut self.present[..], &mut self.touched[..]);
        let values = &mut self.values[..];
        let mut len = self.len;
        if self.predictable {
            for (&c, &b) in cols.iter().zip(vals) {
                let product = S::mul(a, b);
                let v = &mut values[c as usize];
                if present[c as usize] == 0 {
                    present[c as usize] = 1;
                    touched[len] = c;
                    len += 1;
                    *v = product;
                } else {
                    *v = S::add(*v, product);
                }
            }
        } else {
            // A select between two floating-point values compiles to a
            // branch; a select between two indices does not. So the sum is
            // stored, then the product over it if the column is new, else
            // into the spare slot at the end.
            let spare = values.len() - 1;
            for (&c, &b) in cols.iter().zip(vals) {
                let product = S::mul(a, b);
                let fresh = present[c as usize] == 0;
                present[c as usize] = 1;
                touched[len] = c;
                len += usize::from(fresh);
                values[c as usize] = S::add(values[c as usize], product);
                values[std::hint::select_unpredictable(fresh, c as usize, spare)] = product;
            }
        }
        self.len = len;
    }
    fn row_len(&self) -> usize {
        self.len
    }
    fn fits(&self, ncols: usize) -> bool {
        // The spare slot must stay the last; a wider one would also do, but
        // would keep more memory than the product needs.
        self.values.len() == ncols + 1
    }
    fn drain_sorted(&mut self, cols: &mut [u32], vals: &mut [T]) {
        let n = self.len;
        debug_assert_eq!(cols.len(), n);
        let touched = &mut self.touched[..n];
        let (lo, hi) = touched
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        // Sorting costs about n·log₂n steps (each a likely mispredicted
        // branch), scanning the flags between the row's first and last
        // column one step per 8 columns.
        let (lo, hi) = (lo as usize / 8 * 8, hi as usize / 8 * 8 + 8);
        if n > 1 && n * (n.ilog2() as usize + 1) > (hi - lo) / 8 {
            let mut out = 0;
            for (w, word) in self.present[lo..hi].chunks_exact(8).enumerate() {
                let mut flags = u64::from_le_bytes(word.try_into().unwrap());
                while flags != 0 {
                    let c = lo + w * 8 + flags.trailing_zeros() as usize / 8;
                    cols[out] = c as u32;
                    vals[out] = self.values[c];
                    out += 1;
                    flags &= flags - 1;
                }
            }
        } else {
            touched.sort_unstable();
            for ((col, val), &c) in cols.iter_mut().zip(vals.iter_mut()).zip(touched.iter()) {
                *col = c;
                *val = self.values[c as usize];
            }
        }
    }
}

/// Hash accumulator for wide B: open addressing with linear probing over a
/// power-of-two table at least twice the row's flop count. The slots in use
/// are listed, so a row clears and reads out only its own slots: a short
/// row of a matrix with millions of columns (a stencil, a band) costs its
/// products, not the table.
pub struct HashAccumulator<T> {
    keys: Vec<u32>,
    values: Vec<T>,
    /// The slots in use, in the order their columns arrived.
    used: Vec<u32>,
    /// `column << 32 | slot` of the row's entries, sorted to read them out.
    order: Vec<u64>,
    /// 64 − log₂(table size): multiplicative hashing keeps the high bits.
    shift: u32,
}

impl<T: Scalar> Default for HashAccumulator<T> {
    fn default() -> Self {
        HashAccumulator {
            keys: Vec::new(),
            values: Vec::new(),
            used: Vec::new(),
            order: Vec::new(),
            shift: 64,
        }
    }
}

const EMPTY: u32 = u32::MAX;

impl<T: Scalar> HashAccumulator<T> {
    /// The value slot of `col`, and whether it was empty in this row.
    #[inline]
    fn slot(&mut self, col: u32) -> (bool, &mut T) {
        let mask = self.keys.len() - 1;
        // Fibonacci hashing spreads consecutive columns over the table.
        let mut h = ((col as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        loop {
            let k = self.keys[h];
            if k == col {
                return (false, &mut self.values[h]);
            }
            if k == EMPTY {
                self.keys[h] = col;
                self.used.push(h as u32);
                return (true, &mut self.values[h]);
            }
            h = (h + 1) & mask;
        }
    }
}

impl<T: Scalar> Accumulator<T> for HashAccumulator<T> {
    fn start_row(&mut self, RowShape { flops, .. }: RowShape) {
        let size = (2 * flops).max(16).next_power_of_two();
        if self.keys.len() < size || self.keys.len() > 16 * size {
            self.keys = vec![EMPTY; size];
            self.values = vec![T::ZERO; size];
        } else {
            for &h in &self.used {
                self.keys[h as usize] = EMPTY;
            }
        }
        self.used.clear();
        self.shift = 64 - self.keys.len().trailing_zeros();
    }
    fn touch_all(&mut self, cols: &[u32]) {
        for &c in cols {
            self.slot(c);
        }
    }
    fn accumulate_all<S: Semiring<Value = T>>(&mut self, a: T, cols: &[u32], vals: &[T]) {
        for (&c, &b) in cols.iter().zip(vals) {
            let product = S::mul(a, b);
            let (fresh, v) = self.slot(c);
            *v = if fresh { product } else { S::add(*v, product) };
        }
    }
    fn row_len(&self) -> usize {
        self.used.len()
    }
    fn drain_sorted(&mut self, cols: &mut [u32], vals: &mut [T]) {
        self.order.clear();
        self.order.extend(
            self.used
                .iter()
                .map(|&h| u64::from(self.keys[h as usize]) << 32 | u64::from(h)),
        );
        self.order.sort_unstable();
        for ((col, val), &e) in cols.iter_mut().zip(vals.iter_mut()).zip(&self.order) {
            *col = (e >> 32) as u32;
            *val = self.values[e as u32 as usize];
        }
    }
    fn fits(&self, _ncols: usize) -> bool {
        true // sized per row
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_kernels::{MinPlus, PlusTimes};
    use std::collections::BTreeMap;

    /// One row of A·B as its products: (A's entry, B's row columns, values).
    type Row<T> = Vec<(T, Vec<u32>, Vec<T>)>;

    /// Feeds `rows` (each a list of B rows: (a, columns, values)) through
    /// `acc` and checks each result against a map, bit for bit.
    fn check<S: Semiring, A: Accumulator<S::Value>>(acc: &mut A, rows: &[Row<S::Value>])
    where
        S::Value: Scalar + Into<f64>,
    {
        for (r, row) in rows.iter().enumerate() {
            let flops = row.iter().map(|(_, c, _)| c.len()).sum();
            let all = || row.iter().flat_map(|(_, c, _)| c);
            let span = match (all().min(), all().max()) {
                (Some(&lo), Some(&hi)) => (hi - lo) as usize + 1,
                _ => 0,
            };
            let mut want: BTreeMap<u32, S::Value> = BTreeMap::new();
            for (a, cols, vals) in row {
                for (&c, &v) in cols.iter().zip(vals) {
                    let p = S::mul(*a, v);
                    want.entry(c)
                        .and_modify(|x| *x = S::add(*x, p))
                        .or_insert(p);
                }
            }
            acc.start_row(RowShape {
                flops,
                span,
                len: None,
            });
            for (_, cols, _) in row {
                acc.touch_all(cols);
            }
            assert_eq!(acc.row_len(), want.len(), "symbolic row {r}");
            // Odd rows know their length, as the numeric phase does.
            let len = (r % 2 == 1).then_some(want.len());
            acc.start_row(RowShape { flops, span, len });
            for (a, cols, vals) in row {
                acc.accumulate_all::<S>(*a, cols, vals);
            }
            assert_eq!(acc.row_len(), want.len(), "row {r}");
            let (mut cols, mut vals) = (vec![0; want.len()], vec![S::zero(); want.len()]);
            acc.drain_sorted(&mut cols, &mut vals);
            let got: Vec<(u32, u64)> = cols
                .iter()
                .zip(&vals)
                .map(|(&c, &v)| (c, v.into().to_bits()))
                .collect();
            let want: Vec<(u32, u64)> = want
                .into_iter()
                .map(|(c, v)| (c, v.into().to_bits()))
                .collect();
            assert_eq!(got, want, "row {r}");
        }
    }

    /// A column far from the others: rows that reach it span more than
    /// [`LOCAL_SPAN_MAX_COLS`].
    const FAR: u32 = 3 * LOCAL_SPAN_MAX_COLS as u32;
    /// B's columns in these tests.
    const NCOLS: usize = FAR as usize + 1;

    /// Rows that take every path: few products per column (the branch-free
    /// loop) and many (the branching one); listed by sorting (a few columns
    /// far apart) and by scanning (many close together); spread wide and
    /// close together; a column whose only products are −0.0, which must
    /// stay −0.0.
    fn rows() -> Vec<Row<f64>> {
        let wide: Vec<u32> = (0..900).map(|k| k * 37 % 1000).collect();
        let ones = |n: usize| vec![1.5; n];
        let mut out = Vec::new();
        for rep in 0..3 {
            out.push(vec![
                (2.0, vec![3, 999, FAR], vec![1.0, -0.0, 2.5]),
                (-1.0, vec![999, 5], vec![0.0, 2.0]),
            ]);
            out.push(vec![
                (0.5, wide.clone(), ones(900)),
                (3.0, vec![1, 2, 998], vec![1.0, 2.0, 3.0]),
            ]);
            out.push(
                (0..8)
                    .map(|k| (k as f64 + 0.25, vec![10, 11, 12, 500 + rep], ones(4)))
                    .collect(),
            );
            out.push(vec![
                (-0.0, vec![7], vec![1.0]),
                (1.0, vec![7], vec![-0.0]),
                (1.0, vec![8], vec![4.0]),
            ]);
            out.push(Vec::new());
        }
        out
    }

    #[test]
    fn dense_hash_and_wide_accumulators_agree_with_a_map_on_every_path() {
        check::<PlusTimes<f64>, _>(&mut DenseAccumulator::new(NCOLS), &rows());
        check::<PlusTimes<f64>, _>(&mut HashAccumulator::default(), &rows());
        check::<MinPlus<f64>, _>(&mut DenseAccumulator::new(NCOLS), &rows());
        check::<MinPlus<f64>, _>(&mut HashAccumulator::default(), &rows());
        // Rows reaching FAR are hashed, the others go dense.
        check::<PlusTimes<f64>, _>(&mut WideAccumulator::new(NCOLS), &rows());
        check::<MinPlus<f64>, _>(&mut WideAccumulator::new(NCOLS), &rows());
    }
}
