//! Integer values (`i32`, `i64`, `u32`, `u64`): every integer semiring
//! (`spmx::for_each_integer_semiring!`) on the serial and cpu engines (and
//! the mpi engine under `--features mpi`, on 1 to 3 ranks when `mpirun`
//! is here) against the plain reference, bit for bit, and MatrixMarket
//! integers read and written exactly.
//!
//! Values mix small numbers with the whole range and the extremes, so
//! products and sums overflow and wrap often; wrapping `+`, `min` and
//! `max` are exact in any order, so every engine and every format (COO in
//! a scrambled order, the cpu engine's parallel paths) must give the
//! reference's values exactly. Shapes are random (0×0, empty rows, a
//! dense row, rectangular), plus generated inputs large enough for the cpu
//! engine to go parallel.

mod common;

use common::{TestScalar, arb_csr_shaped, arb_shape, assert_identical, in_pool, reference};
use proptest::prelude::*;
use spmx::engine::{Engine, cpu, serial};
use spmx::format::{Bsr, Coo, Csc, Csr, Dense, Ell, Hyb, Sell};
use spmx::io::{Field, ReadOptions, read_mtx_from, write_dense_mtx, write_mtx, write_mtx_to};
use spmx::ops::{self, SpmvFormat};
use spmx::{MaxTimes, MinPlus, PlusPair, PlusTimes, Scalar, Semiring, generate};

/// What the tests need of an integer type beyond [`TestScalar`].
trait Int: TestScalar {
    /// Values from `bits` (any `u64`): small ones mostly, else the whole range.
    fn from_bits_mixed(bits: u64) -> Self;
    /// `self` with the sign bit cleared (≥ 0): into signed max-times' domain.
    fn non_negative(self) -> Self;
}

macro_rules! int {
    ($($t:ident),*) => {$(
        impl Int for $t {
            fn from_bits_mixed(bits: u64) -> Self {
                if bits % 4 == 0 { bits as $t } else { (bits >> 8) as $t % 9 }
            }
            fn non_negative(self) -> Self {
                self & $t::MAX
            }
        }
    )*};
}
int!(i32, i64, u32, u64);

/// `v` kept to `S`'s domain.
fn in_domain<S: Semiring>(v: S::Value) -> S::Value
where
    S::Value: Int,
{
    if S::in_domain(v) { v } else { v.non_negative() }
}

/// A fixed mix of `x`'s bits (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A generated f64 matrix with integer values of `S`'s domain, from its
/// values' bits and `seed`.
fn integers<S: Semiring>(m: &Csr<f64>, seed: u64) -> Csr<S::Value>
where
    S::Value: Int,
{
    m.map(|v| in_domain::<S>(S::Value::from_bits_mixed(mix(v.to_bits() ^ seed))))
}

/// SpGEMM on every engine here equals the reference.
fn check_spgemm<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>)
where
    S::Value: Int,
{
    let want = reference::spgemm::<S>(a, b);
    assert_identical(&serial::spgemm::<S>(a, b), &want);
    assert_identical(&cpu::spgemm::<S>(a, b), &want);
    for engine in [Engine::Auto, Engine::Serial, Engine::Cpu] {
        assert_identical(&a.spgemm_with::<S>(b, engine).unwrap(), &want);
    }
}

/// Element-wise addition on both engines equals the reference.
fn check_ewise<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>)
where
    S::Value: Int,
{
    let want = reference::ewise_add::<S>(a, b);
    assert_identical(&serial::ewise_add::<S>(a, b), &want);
    assert_identical(&cpu::ewise::ewise_add::<S>(a, b), &want);
}

/// SpMV in every format on every engine here equals the reference; a
/// dense A counts every element as an entry.
fn check_spmv<S: Semiring>(a: &Csr<S::Value>, x: &[S::Value])
where
    S::Value: Int,
{
    fn run<S: Semiring, A: SpmvFormat<S::Value>>(a: &A, x: &[S::Value], e: Engine) -> Vec<u64>
    where
        S::Value: Int,
    {
        let y = ops::spmv::<S>(a, x, e).unwrap();
        y.iter().map(|v| v.bits()).collect()
    }
    let bits = |y: Vec<S::Value>| y.iter().map(|v| v.bits()).collect::<Vec<_>>();
    let want = bits(reference::spmv::<S>(a, x));
    let (coo, mut scrambled) = (a.to_coo(), a.to_coo().into_parts());
    scrambled.2.reverse();
    scrambled.3.reverse();
    scrambled.4.reverse();
    let (m, n, rows, cols, vals) = scrambled;
    let scrambled = Coo::try_new(m, n, rows, cols, vals).unwrap();
    let (csc, hyb, jds) = (Csc::from_csr(a), Hyb::from_csr(a), Sell::jds(a));
    let ell = Ell::from_csr(a).unwrap();
    let sell = Sell::from_csr(a, 4, 8).unwrap();
    let bsr = Bsr::from_csr(a, 3).unwrap();
    for e in [Engine::Serial, Engine::Cpu, Engine::Auto] {
        let name = |f: &str| format!("{} {f} on {e}", S::NAME);
        assert_eq!(run::<S, _>(a, x, e), want, "{}", name("csr"));
        assert_eq!(run::<S, _>(&coo, x, e), want, "{}", name("coo"));
        assert_eq!(
            run::<S, _>(&scrambled, x, e),
            want,
            "{}",
            name("coo, reversed")
        );
        assert_eq!(run::<S, _>(&csc, x, e), want, "{}", name("csc"));
        assert_eq!(run::<S, _>(&ell, x, e), want, "{}", name("ell"));
        assert_eq!(run::<S, _>(&hyb, x, e), want, "{}", name("hyb"));
        assert_eq!(run::<S, _>(&sell, x, e), want, "{}", name("sell"));
        assert_eq!(run::<S, _>(&jds, x, e), want, "{}", name("jds"));
        assert_eq!(run::<S, _>(&bsr, x, e), want, "{}", name("bsr"));
    }
    // Dense: every element is stored, the absent ones as the zero.
    let dense = Dense::from_csr(a, S::zero()).unwrap();
    let (nrows, ncols) = a.shape();
    let full = Csr::try_new(
        nrows,
        ncols,
        (0..=nrows).map(|i| i * ncols).collect(),
        (0..nrows).flat_map(|_| 0..ncols as u32).collect(),
        dense.as_slice().to_vec(),
    )
    .unwrap();
    let want_dense = bits(reference::spmv::<S>(&full, x));
    for e in [Engine::Serial, Engine::Cpu] {
        assert_eq!(
            run::<S, _>(&dense, x, e),
            want_dense,
            "{} dense on {e}",
            S::NAME
        );
    }
}

/// SpMM on every engine here equals the reference.
fn check_spmm<S: Semiring>(a: &Csr<S::Value>, b: &Dense<S::Value>)
where
    S::Value: Int,
{
    let want = reference::spmm::<S>(a, b);
    assert_eq!(serial::spmm::<S>(a, b).unwrap(), want, "{} serial", S::NAME);
    assert_eq!(cpu::spmm::<S>(a, b).unwrap(), want, "{} cpu", S::NAME);
    for engine in [Engine::Auto, Engine::Serial, Engine::Cpu] {
        let got = a.spmm_with::<S>(b, engine).unwrap();
        assert_eq!(got, want, "{} on {engine}", S::NAME);
    }
}

/// A product case: A (m×k), B (k×n), x (k), a dense B of width w, and
/// another m×k matrix to add to A.
type Case<T> = (Csr<T>, Csr<T>, Vec<T>, Dense<T>, Csr<T>);

fn arb_case<S: Semiring>() -> impl Strategy<Value = Case<S::Value>>
where
    S::Value: Int,
{
    (arb_shape(20, 20), 0usize..20, 0usize..5).prop_flat_map(|((m, k), n, w)| {
        let values = |len| prop::collection::vec(S::Value::arb(), len);
        (
            arb_csr_shaped::<S::Value>(m, k),
            arb_csr_shaped::<S::Value>(k, n),
            values(k),
            values(k * w),
            arb_csr_shaped::<S::Value>(m, k),
        )
            .prop_map(move |(a, b, x, bd, a2)| {
                let d = |v: Vec<S::Value>| v.into_iter().map(in_domain::<S>).collect::<Vec<_>>();
                let (a, a2) = (a.map(in_domain::<S>), a2.map(in_domain::<S>));
                let bd = Dense::try_new(k, w, d(bd)).unwrap();
                (a, b.map(in_domain::<S>), d(x), bd, a2)
            })
    })
}

macro_rules! semiring_tests {
    ($($name:ident $sr:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {$($(
        mod $test {
            use super::*;
            proptest! {
                #![proptest_config(ProptestConfig::with_cases(48))]
                #[test]
                fn random_shapes_match_reference((a, b, x, bd, a2) in arb_case::<$S>()) {
                    check_spgemm::<$S>(&a, &b);
                    check_ewise::<$S>(&a, &a2);
                    check_spmv::<$S>(&a, &x);
                    check_spmm::<$S>(&a, &bd);
                }
            }

            /// Big enough for the cpu engine to split rows across
            /// threads; the same values on 1 and 3 threads.
            #[test]
            fn generated_inputs_match_and_ignore_thread_count() {
                let a = integers::<$S>(&generate::power_law(1500, 1200, 12.0, 2.2, 7).unwrap(), 1);
                let b = integers::<$S>(&generate::uniform(1200, 1300, 0, 30, 8).unwrap(), 2);
                check_spgemm::<$S>(&a, &b);
                check_ewise::<$S>(&a, &integers::<$S>(&generate::uniform(1500, 1200, 0, 20, 9).unwrap(), 3));
                let one = in_pool(1, || cpu::spgemm::<$S>(&a, &b));
                assert_identical(&in_pool(3, || cpu::spgemm::<$S>(&a, &b)), &one);
                let x: Vec<$t> = (0..1200).map(|k| in_domain::<$S>(<$t>::from_bits_mixed(mix(k)))).collect();
                check_spmv::<$S>(&a, &x);
                let b = Dense::try_new(1200, 3, (0..3600).map(|k| in_domain::<$S>(<$t>::from_bits_mixed(mix(k + 9)))).collect()).unwrap();
                check_spmm::<$S>(&a, &b);
            }
        }
    )+)*};
}
spmx::for_each_integer_semiring!(semiring_tests! {});

/// Plus-times wraps: (2³¹ − 1)·2 + 3 in `i32`, and `u64::MAX + 1 = 0`,
/// on every engine.
#[test]
fn plus_times_wraps_on_overflow() {
    let a = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![i32::MAX, 3]).unwrap();
    let b = Csr::try_new(2, 1, vec![0, 1, 2], vec![0, 0], vec![2, 1]).unwrap();
    let want = i32::MAX.wrapping_mul(2).wrapping_add(3);
    assert_eq!(want, 1);
    for engine in [Engine::Serial, Engine::Cpu, Engine::Auto] {
        let c = a.spgemm_with::<PlusTimes<i32>>(&b, engine).unwrap();
        assert_eq!(c.values(), &[want]);
        assert_eq!(
            a.spmv_with::<PlusTimes<i32>>(&[2, 1], engine).unwrap(),
            [want]
        );
    }
    let a = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![u64::MAX, 1]).unwrap();
    assert_eq!(
        a.spmv(&[1, 1]).unwrap(),
        [0],
        "the default semiring wraps too"
    );
}

/// Min-plus's zero is `MAX`, an ordinary number: a stored `MAX` wraps to
/// `MIN` when a product adds to it, as GraphBLAS's does.
#[test]
fn min_plus_stored_max_wraps() {
    type S = MinPlus<i64>;
    let a = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![i64::MAX, 5]).unwrap();
    let y = a.spmv_with::<S>(&[1, 2], Engine::Cpu).unwrap();
    assert_eq!(y, [i64::MIN], "MAX + 1 wraps to MIN, which min keeps");
    let y = a.spmv_with::<S>(&[0, 2], Engine::Serial).unwrap();
    assert_eq!(y, [7], "MAX + 0 is MAX, the identity of min");
}

/// Plus-pair counts: A·A on a directed 4-cycle with a chord counts the
/// paths of length two between each pair, whatever the stored values
/// (zeros and negatives included).
#[test]
fn plus_pair_counts_paths_of_length_two() {
    // Edges 0→1, 1→2, 2→3, 3→0, 0→2; values that must not matter.
    let coo = Coo::try_new(
        4,
        4,
        vec![0, 1, 2, 3, 0],
        vec![1, 2, 3, 0, 2],
        vec![0i64, -7, 5, 0, 9],
    );
    let a = coo.unwrap().to_csr();
    let c = a.spgemm_with::<PlusPair<i64>>(&a, Engine::Cpu).unwrap();
    // Two-step paths: 0→1→2, 0→2→3, 1→2→3, 2→3→0, 3→0→1, 3→0→2.
    let want = Coo::try_new(
        4,
        4,
        vec![0, 0, 1, 2, 3, 3],
        vec![2, 3, 3, 0, 1, 2],
        vec![1i64; 6],
    );
    assert_identical(&c, &want.unwrap().to_csr());
    // Rows of A against x of ones: out-degrees.
    assert_eq!(
        a.spmv_with::<PlusPair<i64>>(&[0; 4], Engine::Serial)
            .unwrap(),
        [2, 1, 1, 1]
    );
    let count = |n: usize| {
        let row = Csr::try_new(1, n, vec![0, n], (0..n as u32).collect(), vec![0u32; n]).unwrap();
        row.spmv_with::<PlusPair<u32>>(&vec![0; n], Engine::Cpu)
            .unwrap()[0]
    };
    assert_eq!(count(1000), 1000);
}

/// Signed max-times refuses a negative input, naming it; unsigned takes
/// every value.
#[test]
fn max_times_domains() {
    let a = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![3i32, -4]).unwrap();
    for engine in [Engine::Serial, Engine::Cpu] {
        let err = a
            .spgemm_with::<MaxTimes<i32>>(&a.transpose(), engine)
            .unwrap_err();
        assert!(
            err.to_string().contains("-4") && err.to_string().contains("row 0, column 1"),
            "{err}"
        );
        let err = a.spmv_with::<MaxTimes<i32>>(&[1, 1], engine).unwrap_err();
        assert!(err.to_string().contains("values ≥ 0"), "{err}");
    }
    let a = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![3u32, u32::MAX]).unwrap();
    assert_eq!(
        a.spmv_with::<MaxTimes<u32>>(&[1, 1], Engine::Cpu).unwrap(),
        [u32::MAX]
    );
}

/// The GPU has no kernels for max-times, min-max and max-min over
/// integers: `Engine::Cuda` is an error naming the semiring and its type
/// (here, or on a GPU machine), never a wrong answer; `Engine::Auto` runs
/// them on the cpu engine. Plus-times, min-plus, max-plus and plus-pair
/// have kernels: `auto` takes the GPU for them where there is one
/// (`tests/gpu_*.rs` check their values).
#[test]
fn cuda_refuses_integer_semirings_without_kernels() {
    use spmx::engine::Op;
    use spmx::{MaxMin, MinMax};
    let a = Csr::try_new(1, 1, vec![0, 1], vec![0], vec![2i64]).unwrap();
    let e = a
        .spgemm_with::<MaxTimes<i64>>(&a, Engine::Cuda)
        .unwrap_err();
    assert!(e.to_string().contains("max-times over i64"), "{e}");
    assert!(a.spmv_with::<MinMax<i64>>(&[3], Engine::Cuda).is_err());
    let e = Engine::Cuda
        .resolve_for::<MaxMin<u32>>(Op::Spmm)
        .unwrap_err();
    assert!(e.to_string().contains("max-min over u32"), "{e}");
    assert_eq!(
        Engine::Auto
            .resolve_for::<MaxTimes<i64>>(Op::Spgemm)
            .unwrap(),
        Engine::Cpu
    );
    assert_eq!(
        a.spgemm_with::<MaxTimes<i64>>(&a, Engine::Auto)
            .unwrap()
            .values(),
        &[4]
    );
    // Where the GPU has kernels, auto goes where `resolve` sends any
    // operation it runs: cuda on a GPU machine, else cpu.
    for op in [Op::Spmv, Op::Spmm, Op::Spgemm] {
        assert_eq!(
            Engine::Auto.resolve_for::<PlusTimes<i64>>(op).unwrap(),
            Engine::Auto.resolve(op).unwrap()
        );
        assert_eq!(
            Engine::Auto.resolve_for::<PlusPair<u32>>(op).unwrap(),
            Engine::Auto.resolve(op).unwrap()
        );
    }
    assert_eq!(
        a.spgemm_with::<PlusTimes<i64>>(&a, Engine::Auto)
            .unwrap()
            .values(),
        &[4]
    );
}

fn read<T: Scalar>(text: &str) -> spmx::Result<Csr<T>> {
    read_mtx_from::<T, _>(text.as_bytes(), "t.mtx", &ReadOptions::default()).map(|m| m.coo.to_csr())
}

#[track_caller]
fn assert_read_error<T: Scalar>(text: &str, line: u64, says: &str) {
    let err = read::<T>(text).unwrap_err().to_string();
    assert!(
        err.contains(&format!("t.mtx:{line}")) && err.contains(says),
        "{err}"
    );
}

/// i64 and u64 values past 2⁵³ (where f64 holds only some integers) go
/// through MatrixMarket and back exactly, under an `integer` header.
#[test]
fn integers_past_f64_round_trip_exactly() {
    let big = (1i64 << 53) + 1;
    let values = vec![big, -big, i64::MAX, i64::MIN, 0, -1];
    let a = Csr::try_new(2, 4, vec![0, 3, 6], vec![0, 1, 3, 0, 2, 3], values).unwrap();
    let mut text = Vec::new();
    write_mtx_to(&mut text, &a, Field::Integer).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.starts_with("%%MatrixMarket matrix coordinate integer general\n"),
        "{text}"
    );
    assert!(text.contains("1 1 9007199254740993\n") && text.contains("-9223372036854775808"));
    assert!(read::<i64>(&text).unwrap().identical(&a));
    // Under a real header the text is the same digits, read back alike.
    let mut real = Vec::new();
    write_mtx_to(&mut real, &a, Field::Real).unwrap();
    assert!(
        read::<i64>(std::str::from_utf8(&real).unwrap())
            .unwrap()
            .identical(&a)
    );
    // A file, and u64's top value, and an array file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.mtx.gz");
    let u = Csr::try_new(1, 2, vec![0, 2], vec![0, 1], vec![u64::MAX, (1 << 60) + 3]).unwrap();
    write_mtx(&path, &u, Field::Integer).unwrap();
    let back = spmx::io::read_mtx::<u64>(&path, &ReadOptions::default()).unwrap();
    assert!(back.coo.to_csr().identical(&u));
    let path = dir.path().join("d.mtx");
    write_dense_mtx(&path, 2, 1, &[big, i64::MIN], Field::Integer).unwrap();
    let d = spmx::io::read_mtx::<i64>(&path, &ReadOptions::default())
        .unwrap()
        .coo;
    assert_eq!(d.values(), &[big, i64::MIN]);
}

/// The reading rules: integer files, pattern files (1), real files
/// written as integers; duplicates summed wrapping; symmetric storage.
#[test]
fn integer_files_read_as_integers() {
    let text = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 -5\n3 1 +7\n3 1 2\n";
    let a = read::<i32>(text).unwrap();
    assert_eq!(a.row(0), (&[0u32, 2][..], &[-5, 9][..]));
    assert_eq!(a.row(2), (&[0u32][..], &[9][..]));
    let p = read::<u32>("%%MatrixMarket matrix coordinate pattern general\n1 2 1\n1 2\n").unwrap();
    assert_eq!(p.values(), &[1]);
    let r = read::<u64>(
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 18446744073709551615\n",
    );
    assert_eq!(r.unwrap().values(), &[u64::MAX]);
    let dup = "%%MatrixMarket matrix coordinate integer general\n1 1 2\n1 1 4294967295\n1 1 2\n";
    assert_eq!(
        read::<u32>(dup).unwrap().values(),
        &[1],
        "duplicates sum wrapping"
    );
    // Floats still read integer files exactly or refuse them.
    let f = "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 9007199254740993\n";
    assert_read_error::<f64>(f, 3, "f64 cannot hold exactly");
    assert_eq!(read::<i64>(f).unwrap().values(), &[9007199254740993]);
}

/// What an integer type cannot read is an error naming the line.
#[test]
fn integer_read_errors_name_the_line() {
    let head = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 1\n";
    assert_read_error::<i32>(&format!("{head}2 2 2147483648\n"), 4, "outside i32's range");
    assert_read_error::<u32>(
        &format!("{head}2 2 -1\n"),
        4,
        "outside u32's range 0..=4294967295",
    );
    assert_read_error::<u64>(
        &format!("{head}2 2 18446744073709551616\n"),
        4,
        "outside u64's range",
    );
    assert_read_error::<i64>(
        &format!("{head}2 2 1.5\n"),
        4,
        "value `1.5` is not an integer",
    );
    let real = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 3\n\n2 2 2.5\n";
    assert_read_error::<i64>(
        real,
        5,
        "a real file is read as i64 only where its values are written as integers",
    );
    assert_read_error::<i32>(&real.replace("2.5", "3.0"), 5, "`3.0` is not an integer");
    let skew = "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 4\n";
    assert_read_error::<u32>(skew, 3, "its negation, which u32 cannot hold");
    let a = read::<i32>(skew).unwrap();
    assert_eq!((a.col_idx(), a.values()), (&[1, 0][..], &[-4, 4][..]));
    let array = "%%MatrixMarket matrix array integer general\n2 1\n7\n-2147483649\n";
    assert_read_error::<i32>(array, 4, "outside i32's range");
}

/// The default semiring of the integer types is plus-times.
#[test]
fn default_semiring_is_plus_times() {
    let a = Csr::try_new(2, 2, vec![0, 2, 3], vec![0, 1, 1], vec![1u64, 2, 3]).unwrap();
    assert_eq!(a.spgemm(&a).unwrap().values(), &[1, 8, 9]);
    assert_eq!(a.spmv(&[1, 1]).unwrap(), [3, 3]);
}

/// The mpi engine: [`mpi_ranks::launcher`] runs [`mpi_ranks::worker`]
/// (this binary, that test alone) under `mpirun` on 1, 2 and 3 ranks;
/// every rank builds the same matrices (fixed seeds) and checks SpGEMM,
/// SpMV and SpMM of every integer semiring against the reference, on
/// even, by-entries and all-on-one-rank splits.
#[cfg(feature = "mpi")]
mod mpi_ranks {
    use super::*;
    use spmx::engine::mpi::{DistCsr, DistDense, Fetch, HaloCsr, Ranks, RowPartition, spgemm};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// Set in the workers' environment.
    const WORKER: &str = "SPMX_INTEGER_MPI_WORKER";
    /// Longest a launch may take before it counts as a hang.
    const LIMIT: Duration = Duration::from_secs(300);

    #[test]
    fn launcher() {
        if std::env::var_os(WORKER).is_some() {
            return;
        }
        if Command::new("mpirun").arg("--version").output().is_err() {
            println!("skipping the integer MPI tests: no mpirun");
            return;
        }
        let me = std::env::current_exe().unwrap();
        for n in ["1", "2", "3"] {
            let mut child = Command::new("mpirun")
                .args(["--allow-run-as-root", "--oversubscribe", "-np", n])
                .arg(&me)
                .args(["mpi_ranks::worker", "--exact", "--nocapture"])
                .env(WORKER, "1")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let start = Instant::now();
            while child.try_wait().unwrap().is_none() {
                if start.elapsed() > LIMIT {
                    child.kill().ok();
                    panic!("{n} rank(s) hung for {LIMIT:?}");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let out = child.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && text.contains("integer semirings on"),
                "{n} rank(s):\n{text}"
            );
        }
    }

    #[test]
    fn worker() {
        if std::env::var_os(WORKER).is_none() {
            return;
        }
        let ranks = Ranks::start(Engine::Cpu).unwrap();
        macro_rules! every_instance {
            ($($name:ident $sr:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
                $($(check::<$S>(&ranks);)+)*
            };
        }
        spmx::for_each_integer_semiring!(every_instance! {});
        mismatches(&ranks);
        ranks.barrier();
        if ranks.is_root() {
            println!("integer semirings on {} rank(s): ok", ranks.size());
        }
    }

    /// A random m×n CSR from `seed`, its values in `S`'s domain: row
    /// lengths 0 to 4, and row 1 dense when there is one.
    fn matrix<S: Semiring>(m: usize, n: usize, seed: u64) -> Csr<S::Value>
    where
        S::Value: Int,
    {
        let mut coo = Coo::new(m, n).unwrap();
        for i in 0..m {
            let r = mix(seed ^ (i as u64) << 20);
            let len = if i == 1 { n } else { (r % 5) as usize };
            for e in 0..len.min(n) {
                let c = if i == 1 {
                    e
                } else {
                    (mix(r + e as u64) % n as u64) as usize
                };
                let v = S::Value::from_bits_mixed(mix(r ^ (e as u64) << 40));
                coo.push(i, c, in_domain::<S>(v)).unwrap();
            }
        }
        coo.to_csr_with(|first, _| first)
    }

    /// Shapes that do not fit are an `Error::Mismatch` on every rank (the
    /// crate's error policy), never a panic that would leave the other
    /// ranks waiting.
    fn mismatches(ranks: &Ranks) {
        type S = spmx::PlusTimes<i64>;
        let root = ranks.is_root();
        let (a, b) = (matrix::<S>(5, 7, 1), matrix::<S>(4, 3, 2));
        let (a_rows, b_rows) = (
            RowPartition::even(5, ranks.size()),
            RowPartition::even(4, ranks.size()),
        );
        let da = DistCsr::scatter(ranks, root.then_some((&a, &a_rows))).unwrap();
        let db = DistCsr::scatter(ranks, root.then_some((&b, &b_rows))).unwrap();
        let is_mismatch = |e: spmx::Error, what: &str| {
            assert!(matches!(e, spmx::Error::Mismatch { .. }), "{what}: {e}");
        };
        is_mismatch(
            spgemm::<S>(ranks, &da, &db, Fetch::Auto).unwrap_err(),
            "spgemm 5×7 times 4×3",
        );
        is_mismatch(
            HaloCsr::new(ranks, &da, &b_rows).unwrap_err(),
            "a partition of 4 rows for 7 columns",
        );
        let x_rows = RowPartition::even(7, ranks.size());
        let plan = HaloCsr::new(ranks, &da, &x_rows).unwrap();
        let x = Dense::try_new(7, 2, vec![1i64; 14]).unwrap();
        let dx = DistDense::scatter(ranks, root.then_some((&x, &x_rows))).unwrap();
        is_mismatch(
            plan.spmv::<S>(ranks, &dx).unwrap_err(),
            "spmv with two columns",
        );
        let other = RowPartition::from_cuts({
            let mut cuts = vec![0; ranks.size()];
            cuts.push(7);
            cuts
        })
        .unwrap();
        if ranks.size() > 1 {
            let dx = DistDense::scatter(ranks, root.then_some((&x, &other))).unwrap();
            is_mismatch(
                plan.spmm::<S>(ranks, &dx).unwrap_err(),
                "B split unlike the plan's operand",
            );
        }
    }

    /// Every split of `n` rows this checks: even, by entries, all on the last rank.
    fn splits<T: Scalar>(ranks: &Ranks, a: &Csr<T>) -> [RowPartition; 3] {
        let (p, n) = (ranks.size(), a.nrows());
        let mut last = vec![0; p];
        last.push(n);
        [
            RowPartition::even(n, p),
            RowPartition::by_entries(a, p),
            RowPartition::from_cuts(last).unwrap(),
        ]
    }

    fn check<S: Semiring>(ranks: &Ranks)
    where
        S::Value: Int,
    {
        let root = ranks.is_root();
        for (case, (m, k, n)) in [(0, 0, 0), (1, 3, 2), (5, 7, 4), (9, 2, 9), (13, 11, 6)]
            .into_iter()
            .enumerate()
        {
            let seed = case as u64 * 101;
            let (a, b) = (matrix::<S>(m, k, seed), matrix::<S>(k, n, seed + 1));
            let want = reference::spgemm::<S>(&a, &b);
            for (a_rows, b_rows) in splits(ranks, &a).into_iter().zip(splits(ranks, &b)) {
                let da = DistCsr::scatter(ranks, root.then_some((&a, &a_rows))).unwrap();
                let db = DistCsr::scatter(ranks, root.then_some((&b, &b_rows))).unwrap();
                for fetch in [Fetch::Rows, Fetch::Replicate] {
                    let c = spgemm::<S>(ranks, &da, &db, fetch).unwrap();
                    if let Some(c) = c.gather(ranks).unwrap() {
                        assert_identical(&c, &want);
                    }
                }
                for width in [1, 3] {
                    let x = Dense::try_new(
                        k,
                        width,
                        (0..k * width)
                            .map(|e| {
                                in_domain::<S>(S::Value::from_bits_mixed(mix(seed + e as u64)))
                            })
                            .collect(),
                    )
                    .unwrap();
                    let x_rows = RowPartition::even(k, ranks.size());
                    let dx = DistDense::scatter(ranks, root.then_some((&x, &x_rows))).unwrap();
                    let plan = HaloCsr::new(ranks, &da, &x_rows).unwrap();
                    let (got, want) = if width == 1 {
                        (
                            plan.spmv::<S>(ranks, &dx).unwrap(),
                            reference::spmv::<S>(&a, x.as_slice()),
                        )
                    } else {
                        (
                            plan.spmm::<S>(ranks, &dx).unwrap(),
                            reference::spmm::<S>(&a, &x).as_slice().to_vec(),
                        )
                    };
                    if let Some(got) = got.gather(ranks).unwrap() {
                        assert_eq!(
                            got.as_slice(),
                            &want[..],
                            "{} case {case}, width {width}",
                            S::NAME
                        );
                    }
                }
            }
        }
    }
}
