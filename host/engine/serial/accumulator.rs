//! Row accumulators for Gustavson SpGEMM: the workspace in which one row of
//! C = A·B is summed before it is written out in column order. Shared by
//! the serial and cpu engines so both produce the same bits.

use crate::scalar::Scalar;
use gpu_kernels::Semiring;

/// Widest B (in columns) for which the dense accumulator is used:
/// 2¹⁸ columns × 8-byte values (+ a bit each) ≈ 2 MiB per thread.
pub const DENSE_ACCUMULATOR_MAX_COLS: usize = 1 << 18;

/// Workspace for forming one row of C at a time; each engine thread owns
/// one. Generic code over this trait is monomorphised per accumulator, so
/// the inner loop carries no dispatch.
pub trait Accumulator<T: Scalar> {
    /// Clears the row; `flops` bounds how many products will arrive.
    fn start_row(&mut self, flops: usize);
    /// The value slot of `col`, and whether it was empty in this row.
    fn slot(&mut self, col: u32) -> (bool, &mut T);
    /// Distinct columns seen in this row.
    fn row_len(&self) -> usize;
    /// Writes the row out in column order; both slices have length `row_len()`.
    fn drain_sorted(&mut self, cols: &mut [u32], vals: &mut [T]);

    /// Marks `col` present (symbolic phase).
    #[inline]
    fn touch(&mut self, col: u32) {
        self.slot(col);
    }
    /// Adds `product` into `col` under the semiring.
    #[inline]
    fn accumulate<S: Semiring<Value = T>>(&mut self, col: u32, product: T) {
        let (fresh, v) = self.slot(col);
        *v = if fresh { product } else { S::add(*v, product) };
    }
}

/// Calls `f` with the accumulator suited to B's width: dense up to
/// [`DENSE_ACCUMULATOR_MAX_COLS`] columns, hashed beyond.
pub fn with_accumulator<T: Scalar, R>(b_ncols: usize, f: impl AccumulatorUser<T, R>) -> R {
    if b_ncols <= DENSE_ACCUMULATOR_MAX_COLS {
        f.run(DenseAccumulator::new(b_ncols))
    } else {
        f.run(HashAccumulator::default())
    }
}

/// A computation generic over the accumulator type (closures cannot be).
pub trait AccumulatorUser<T: Scalar, R> {
    fn run<A: Accumulator<T> + Clone + Send + Sync>(self, acc: A) -> R;
}

/// Dense accumulator: one value per column of B and a bitmap of the
/// columns present in the current row, plus the list of those columns. The
/// bitmap answers "first product for this column?" and, for a row that
/// touches many columns, lists them in order by a scan of ncols/64 words;
/// a short row sorts its list instead. Starting a row clears only the
/// words its predecessor touched.
#[derive(Clone)]
pub struct DenseAccumulator<T> {
    values: Vec<T>,
    present: Vec<u64>,
    touched: Vec<u32>,
}

impl<T: Scalar> DenseAccumulator<T> {
    /// A workspace for B with `ncols` columns.
    pub fn new(ncols: usize) -> Self {
        DenseAccumulator {
            values: vec![T::ZERO; ncols],
            present: vec![0; ncols.div_ceil(64)],
            touched: Vec::new(),
        }
    }
}

impl<T: Scalar> Accumulator<T> for DenseAccumulator<T> {
    fn start_row(&mut self, _flops: usize) {
        for &c in &self.touched {
            self.present[c as usize / 64] = 0;
        }
        self.touched.clear();
    }
    #[inline]
    fn slot(&mut self, col: u32) -> (bool, &mut T) {
        let c = col as usize;
        let (word, bit) = (c / 64, 1u64 << (c % 64));
        let fresh = self.present[word] & bit == 0;
        if fresh {
            self.present[word] |= bit;
            self.touched.push(col);
        }
        (fresh, &mut self.values[c])
    }
    fn row_len(&self) -> usize {
        self.touched.len()
    }
    fn drain_sorted(&mut self, cols: &mut [u32], vals: &mut [T]) {
        debug_assert_eq!(cols.len(), self.touched.len());
        let n = self.touched.len();
        // Sorting costs about n·log₂n steps, the bitmap scan one per word.
        if n * (n.max(2).ilog2() as usize) > self.present.len() {
            let mut out = 0;
            for (w, &word) in self.present.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let c = w * 64 + bits.trailing_zeros() as usize;
                    cols[out] = c as u32;
                    vals[out] = self.values[c];
                    out += 1;
                    bits &= bits - 1;
                }
            }
        } else {
            self.touched.sort_unstable();
            for (k, &c) in self.touched.iter().enumerate() {
                cols[k] = c;
                vals[k] = self.values[c as usize];
            }
        }
    }
}

/// Hash accumulator for wide B: open addressing with linear probing over a
/// power-of-two table at least twice the row's flop count.
#[derive(Clone)]
pub struct HashAccumulator<T> {
    keys: Vec<u32>,
    values: Vec<T>,
    used: usize,
    /// 64 − log₂(table size): multiplicative hashing keeps the high bits.
    shift: u32,
}

impl<T: Scalar> Default for HashAccumulator<T> {
    fn default() -> Self {
        HashAccumulator {
            keys: Vec::new(),
            values: Vec::new(),
            used: 0,
            shift: 64,
        }
    }
}

const EMPTY: u32 = u32::MAX;

impl<T: Scalar> Accumulator<T> for HashAccumulator<T> {
    fn start_row(&mut self, flops: usize) {
        let size = (2 * flops).max(16).next_power_of_two();
        if self.keys.len() < size || self.keys.len() > 16 * size {
            self.keys = vec![EMPTY; size];
            self.values = vec![T::ZERO; size];
        } else {
            self.keys.fill(EMPTY);
        }
        self.used = 0;
        self.shift = 64 - self.keys.len().trailing_zeros();
    }
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
                self.used += 1;
                return (true, &mut self.values[h]);
            }
            h = (h + 1) & mask;
        }
    }
    fn row_len(&self) -> usize {
        self.used
    }
    fn drain_sorted(&mut self, cols: &mut [u32], vals: &mut [T]) {
        let mut entries: Vec<(u32, T)> = self
            .keys
            .iter()
            .zip(&self.values)
            .filter(|(k, _)| **k != EMPTY)
            .map(|(&k, &v)| (k, v))
            .collect();
        entries.sort_unstable_by_key(|e| e.0);
        for (k, (c, v)) in entries.into_iter().enumerate() {
            cols[k] = c;
            vals[k] = v;
        }
    }
}
