//! NaN under the semirings whose add is min or max (min-plus, max-plus,
//! …): `min` and `max` propagate NaN (IEEE 754-2019 `minimum` and
//! `maximum`), so the semiring's zero is a true identity and an entry with
//! a NaN product (∞ − ∞ under min-plus, or a NaN value) is NaN whatever
//! else it reduces, in any order. SpMV on every sparse format, SpMM and
//! SpGEMM agree on every engine here (cuda where there is a GPU, each
//! kernel by name), and with A's columns permuted (x likewise), which
//! reduces every row in another order. A NaN's sign and payload are not
//! specified (the CPU and the GPU make different default NaNs), so NaN is
//! compared as NaN, every other value bit for bit.

use spmx::engine::{Engine, Op};
use spmx::format::{Bsr, Csc, Dense, Ell, Hyb, Sell};
use spmx::ops::{self, SpmvFormat};
use spmx::{Coo, Csr, MinPlus, Scalar, Semiring};

/// Whether `got` and `want` are the same value: the same bits, or both NaN.
fn same<T: Scalar>(got: T, want: T) -> bool {
    let (g, w) = (got.to_f64(), want.to_f64());
    (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits()
}

/// Asserts `got` is `want`, element by element (NaN as NaN).
#[track_caller]
fn assert_same<T: Scalar>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(same(g, w), "{what}: row {i}: {g:?}, expected {w:?}");
    }
}

/// A small deterministic generator (splitmix64): the tests need no
/// statistics, only the same draws every run.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }

    /// A value that makes NaN products now and then: NaN itself rarely,
    /// ±∞ (∞ − ∞ under min-plus and max-plus), ±0 and small numbers.
    fn value<T: Scalar>(&mut self) -> T {
        const VALUES: [f64; 9] = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -2.0,
            3.5,
            7.0,
            -1.5,
        ];
        T::from_f64(match self.below(40) {
            0 => f64::NAN,
            k => VALUES[k % VALUES.len()],
        })
    }
}

/// A random `m × n` matrix of [`Draws::value`]s, each entry present with
/// probability about 1/3; some rows are empty.
fn matrix<T: Scalar>(m: usize, n: usize, seed: u64) -> Csr<T> {
    let mut draws = Draws(seed);
    let mut coo = Coo::new(m, n).unwrap();
    for i in (0..m).filter(|i| i % 7 != 3) {
        for j in 0..n {
            if draws.below(3) == 0 {
                coo.push(i, j, draws.value()).unwrap();
            }
        }
    }
    coo.to_csr()
}

/// `a` with column `j` moved to `perm[j]`: every row's products the same,
/// reduced in another order.
fn permute_columns<T: Scalar>(a: &Csr<T>, perm: &[usize]) -> Csr<T> {
    let mut coo = Coo::new(a.nrows(), a.ncols()).unwrap();
    for i in 0..a.nrows() {
        let (cols, vals) = a.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            coo.push(i, perm[j as usize], v).unwrap();
        }
    }
    coo.to_csr()
}

/// `a` as COO with its entries in reverse order: COO's chunked SpMV then
/// reduces every row backwards.
fn reversed_coo<T: Scalar>(a: &Csr<T>) -> Coo<T> {
    let (m, n, mut rows, mut cols, mut vals) = a.to_coo().into_parts();
    rows.reverse();
    cols.reverse();
    vals.reverse();
    Coo::try_new(m, n, rows, cols, vals).unwrap()
}

/// The engines here that run `op`: serial, cpu, and cuda where a GPU is
/// present (said when it is not).
fn engines(op: Op) -> Vec<Engine> {
    let mut engines = vec![Engine::Serial, Engine::Cpu];
    match Engine::Cuda.resolve(op) {
        Ok(cuda) => engines.push(cuda),
        Err(e) => println!("not on cuda: {e}"),
    }
    engines
}

/// y = A ⊗ x on every sparse format and engine, SpMM's first column and
/// SpGEMM with x as a stored column all give the serial SpMV's y; so
/// does every engine on A with its columns permuted.
fn agree<S: Semiring>(seed: u64)
where
    S::Value: Scalar,
{
    let (m, n) = (37, 29);
    let a = matrix::<S::Value>(m, n, seed);
    let x: Vec<S::Value> = {
        let mut draws = Draws(seed ^ 0xa5a5);
        (0..n).map(|_| draws.value()).collect()
    };
    let want = ops::spmv::<S>(&a, &x, Engine::Serial).unwrap();
    assert!(
        want.iter().any(|v| v.to_f64().is_nan()) && want.iter().any(|v| !v.to_f64().is_nan()),
        "{} seed {seed}: serial SpMV should give NaN in the rows with a NaN product, and \
         numbers in others",
        S::NAME
    );
    let what = |op: &str, engine: Engine| format!("{} seed {seed}: {op} on {engine}", S::NAME);

    fn spmv<S: Semiring>(a: &impl SpmvFormat<S::Value>, x: &[S::Value], e: Engine) -> Vec<S::Value>
    where
        S::Value: Scalar,
    {
        ops::spmv::<S>(a, x, e).unwrap()
    }
    for engine in engines(Op::Spmv) {
        let formats = [
            ("csr", spmv::<S>(&a, &x, engine)),
            ("coo", spmv::<S>(&a.to_coo(), &x, engine)),
            ("coo reversed", spmv::<S>(&reversed_coo(&a), &x, engine)),
            ("csc", spmv::<S>(&Csc::from_csr(&a), &x, engine)),
            ("ell", spmv::<S>(&Ell::from_csr(&a).unwrap(), &x, engine)),
            (
                "hyb",
                spmv::<S>(&Hyb::from_csr_with_width(&a, 2).unwrap(), &x, engine),
            ),
            (
                "sell",
                spmv::<S>(&Sell::from_csr(&a, 4, 8).unwrap(), &x, engine),
            ),
            ("bsr", spmv::<S>(&Bsr::from_csr(&a, 3).unwrap(), &x, engine)),
        ];
        for (format, y) in formats {
            assert_same(&y, &want, &what(&format!("SpMV {format}"), engine));
        }
    }

    // B's first column is x; the others are x shifted, so SpMM's tiles mix.
    let k = 3;
    let b = Dense::try_new(n, k, (0..n * k).map(|e| x[(e / k + e % k) % n]).collect()).unwrap();
    let x_column = Csr::try_new(n, 1, (0..=n).collect(), vec![0; n], x.clone()).unwrap();
    for engine in engines(Op::Spmm) {
        let c = ops::spmm::<S>(&a, &b, engine).unwrap();
        let first: Vec<_> = (0..m).map(|i| c.get(i, 0)).collect();
        assert_same(&first, &want, &what("SpMM", engine));
    }
    for engine in engines(Op::Spgemm) {
        let g = ops::spgemm::<S>(&a, &x_column, engine).unwrap();
        let column: Vec<_> = (0..m).map(|i| g.get(i, 0).unwrap_or(S::zero())).collect();
        assert_same(&column, &want, &what("SpGEMM", engine));
    }

    // A's columns and x's entries permuted alike: the same products, every
    // row reduced in another order.
    let perm: Vec<usize> = (0..n).map(|j| (j * 11 + 5) % n).collect();
    let a_perm = permute_columns(&a, &perm);
    let mut x_perm = x.clone();
    for (j, &p) in perm.iter().enumerate() {
        x_perm[p] = x[j];
    }
    for engine in engines(Op::Spmv) {
        let y = ops::spmv::<S>(&a_perm, &x_perm, engine).unwrap();
        assert_same(&y, &want, &what("SpMV, columns permuted", engine));
        assert_same(
            &spmv::<S>(&reversed_coo(&a_perm), &x_perm, engine),
            &want,
            &what("SpMV, COO reversed, columns permuted", engine),
        );
    }
}

/// Whether `S` is a semiring this file is about: one whose add is exact
/// in any order (min, max) on every value of a float type. Plus-times
/// rounds in each engine's order; max-times refuses NaN (its domain is
/// values ≥ 0).
fn min_or_max<S: Semiring>() -> bool {
    S::ORDER_INDEPENDENT && !S::NON_NEGATIVE
}

/// Calls `$f::<S>()` for every float instance `S` of
/// [`spmx::for_each_semiring!`] that [`min_or_max`] takes, with a line
/// naming it: `spmx::for_each_semiring!(call_on_min_or_max! { f; })`.
macro_rules! call_on_min_or_max {
    ($f:ident; $($name:ident $sr:ident $atomic:ident [$($t:ident => $T:ty as $test:ident),+];)*) => {
        $($( min_or_max_instance!($f; $t => $T); )+)*
    };
}

/// One instance of [`call_on_min_or_max!`] (or-and's `bool` has no NaN).
macro_rules! min_or_max_instance {
    ($f:ident; bool => $T:ty) => {};
    ($f:ident; $t:ident => $T:ty) => {
        if min_or_max::<$T>() {
            println!("{} {}", <$T as Semiring>::NAME, stringify!($t));
            $f::<$T>();
        }
    };
}

/// Every semiring of the list whose add is min or max, on f32 and f64.
#[test]
fn nan_agrees_across_spmv_spmm_spgemm() {
    fn seeds<S: Semiring>()
    where
        S::Value: Scalar,
    {
        for seed in 1..=4 {
            agree::<S>(seed);
        }
    }
    spmx::for_each_semiring!(call_on_min_or_max! { seeds; });
}

/// The case: an entry whose only product is ∞ − ∞ is NaN in
/// SpMV, SpMM and SpGEMM alike (SpMV and SpMM used to drop it, starting
/// from min-plus's zero +∞ with a min that ignored NaN).
#[test]
fn inf_minus_inf_is_nan_in_every_operation() {
    let a = Csr::try_new(2, 2, vec![0, 1, 2], vec![0, 1], vec![f64::INFINITY, 1.0]).unwrap();
    let x = [f64::NEG_INFINITY, 2.0];
    let x_column = Csr::try_new(2, 1, vec![0, 1, 2], vec![0, 0], x.to_vec()).unwrap();
    let x_dense = Dense::try_new(2, 1, x.to_vec()).unwrap();
    for engine in engines(Op::Spgemm) {
        let y = ops::spmv::<MinPlus<f64>>(&a, &x, engine).unwrap();
        let c = ops::spmm::<MinPlus<f64>>(&a, &x_dense, engine).unwrap();
        let g = ops::spgemm::<MinPlus<f64>>(&a, &x_column, engine).unwrap();
        assert!(
            y[0].is_nan() && c.get(0, 0).is_nan() && g.get(0, 0).unwrap().is_nan(),
            "{engine}"
        );
        assert_eq!(
            (y[1], c.get(1, 0), g.get(1, 0)),
            (3.0, 3.0, Some(3.0)),
            "{engine}"
        );
    }
}

/// The cuda engine's kernels, each by name, give the serial SpMV's y for every
/// semiring `min_or_max` takes (NaN as NaN). Without a GPU, says so and passes.
#[cfg(feature = "gpu")]
#[test]
fn nan_agrees_on_every_cuda_kernel() {
    use spmx::ops::{SpmmKernel, SpmvKernel};
    if let Err(e) = spmx::engine::cuda::Gpu::get() {
        println!("skipping nan_agrees_on_every_cuda_kernel: {e}");
        return;
    }
    fn check<S: Semiring>()
    where
        S::Value: Scalar,
    {
        for seed in 1..=4 {
            let (m, n) = (37, 29);
            let a = matrix::<S::Value>(m, n, seed);
            let mut draws = Draws(seed ^ 0xa5a5);
            let x: Vec<S::Value> = (0..n).map(|_| draws.value()).collect();
            let want = ops::spmv::<S>(&a, &x, Engine::Serial).unwrap();
            for kernel in SpmvKernel::ALL {
                let run = ops::spmv_kernel::<S>(&a, &x, kernel).unwrap();
                let what = format!("{} seed {seed}: SpMV {}", S::NAME, run.kernel);
                assert_same(&run.result, &want, &what);
            }
            let b = Dense::try_new(n, 1, x.clone()).unwrap();
            let row_major = [
                SpmmKernel::Auto,
                SpmmKernel::BlockRows,
                SpmmKernel::BlockRowsFused,
                SpmmKernel::ThreadRow,
            ];
            for kernel in row_major {
                let run = ops::spmm_kernel::<S>(&a, &b, kernel).unwrap();
                let what = format!("{} seed {seed}: SpMM {}", S::NAME, run.kernel);
                assert_same(run.result.as_slice(), &want, &what);
            }
        }
    }
    spmx::for_each_semiring!(call_on_min_or_max! { check; });
}
