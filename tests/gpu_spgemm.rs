//! GPU SpGEMM against the serial engine, bit for bit, for every semiring
//! the GPU has (plus-times included: every entry is summed in the serial
//! order): random matrices of every odd shape (proptest), rows at and
//! around each class boundary (warp, block, dense), short rows of
//! far-apart columns (sorted in registers, a column's products running
//! across lanes and registers), rows with more entries of A than products,
//! the arrow matrix's row of 46 500 entries, giant rows (through Bᵀ)
//! against B with long columns, wide B, the real set (A·A and A·Aᵀ), row
//! blocks under a forced small memory budget, enough short and hashed rows
//! to be staged (in one product, in row blocks and in plans), the APSP
//! pair, and repeated runs giving the same bits. A plan
//! ([`CudaSpgemmPlan`]) recomputed with new values equals a fresh product of
//! them, on the same inputs.
//!
//! Without a GPU the GPU tests print why and pass; the error a user gets is
//! tested instead.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::{assert_same_bits, every_third_false, gpu, skewed};
use common::{TestScalar, arb_csr_shaped, assert_identical};
use proptest::prelude::*;
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::spgemm::plan::{CudaSpgemmPlan, ReplayGrid};
use spmx::engine::cuda::spgemm::{SpgemmOptions, spgemm_blocks, spgemm_with};
use spmx::engine::{Engine, Op};
use spmx::format::Csr;
use spmx::{MaxPlus, MinPlus, OrAnd, PlusTimes, Scalar, Semiring, app, ops};

/// C on the GPU equals C on the serial engine, bit for bit.
#[track_caller]
fn check<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>, what: &str)
where
    S::Value: TestScalar,
{
    let want = ops::spgemm::<S>(a, b, Engine::Serial).unwrap();
    let got = ops::spgemm::<S>(a, b, Engine::Cuda)
        .unwrap_or_else(|e| panic!("{what} ({}): {e}", S::NAME));
    if got != want {
        println!("{what} ({}): differs from serial", S::NAME);
    }
    assert_same_bits(&got, &want);
}

/// A pair `A (m × n)`, `B (n × p)` of random shapes, empty ones included.
fn arb_pair<T: TestScalar>() -> impl Strategy<Value = (Csr<T>, Csr<T>)> {
    (0usize..50, 0usize..50, 0usize..50)
        .prop_flat_map(|(m, n, p)| (arb_csr_shaped::<T>(m, n), arb_csr_shaped::<T>(n, p)))
}

fn random_cases<S: Semiring>(test: &str)
where
    S::Value: TestScalar,
{
    let Some(_) = gpu(test) else { return };
    let config = ProptestConfig {
        cases: 40,
        ..ProptestConfig::default()
    };
    proptest!(config, |((a, b) in arb_pair::<S::Value>())| {
        let (a, b) = (a.map(common::in_domain::<S>), b.map(common::in_domain::<S>));
        check::<S>(&a, &b, "random");
    });
}

common::gpu::every_gpu_semiring!(random, random_cases);

/// Products per row around each class boundary (32: a warp sorts; 256: a
/// warp's table of 512 slots; 1024: a warp's wide table or a block's sort;
/// beyond: the dense accumulator), over B of 2 000 columns (every span
/// fits the wide table) and of 3 000 (most do not), bands whose span fits
/// the table however many products they have (indexed directly, many
/// products a column) and bands wider than it, rows of A longer than their
/// products, the arrow matrix's long row, wide B, rectangles, empty rows
/// and one dense row.
fn big_cases<S: Semiring>(test: &str)
where
    S::Value: TestScalar,
{
    let Some(_) = gpu(test) else { return };
    // B with 4 entries a row: a row of A with L entries has 4L products.
    let b4: Csr<S::Value> = skewed(3_000, 2_000, |_| 4, 1);
    let b4_wide: Csr<S::Value> = skewed(3_000, 3_000, |_| 4, 42);
    let around = |centre: usize, seed| -> Csr<S::Value> {
        skewed(200, 3_000, move |i| centre / 4 - 3 + i % 7, seed)
    };
    check::<S>(&around(32, 2), &b4, "around 32 products");
    for (b, width) in [(&b4, 2_000), (&b4_wide, 3_000)] {
        let of = |what| format!("{what}, B of {width} columns");
        check::<S>(&around(256, 43), b, &of("around 256 products"));
        check::<S>(&around(1024, 14), b, &of("around 1024 products"));
        check::<S>(&around(9000, 4), b, &of("dense rows"));
        check::<S>(&around(16_384, 44), b, &of("around 16 384 products"));
    }
    for half in [3, 20, 250, 300, 2100] {
        let band: Csr<S::Value> = banded(3_000, half);
        check::<S>(&band, &band, &format!("band of {}", 2 * half + 1));
    }
    // Rows of at most 32 entries of A whose products lie far apart are
    // sorted in a warp's registers (up to 32, 64 or 128 products a row):
    // few columns, so a column's run of products crosses lanes and
    // registers, as long as 32 (every entry of A meets it).
    let far: Csr<S::Value> = far_columns(3_000, 10, |k| 1 + k % 4, 36);
    let a: Csr<S::Value> = skewed(400, 3_000, |i| 2 + i % 31, 37);
    check::<S>(&a, &far, "short rows of far columns");
    let a: Csr<S::Value> = skewed(200, 3_000, |_| 32, 39);
    for (width, draws) in [(2, 4), (4, 8)] {
        let few: Csr<S::Value> = far_columns(3_000, width, |_| draws, 38);
        check::<S>(
            &a,
            &few,
            &format!("runs of up to 32 products on {width} columns"),
        );
    }
    // Columns about 2²⁷: too high for a register sort's 4-byte keys (the
    // column and the product number) in some rows, not in others.
    let low: Csr<S::Value> = far_columns(3_000, 4, |k| 1 + k % 3, 40);
    let (m, n, ptr, cols, vals) = low.into_parts();
    let top = (1u32 << 27) - 20_000;
    let cols = cols.into_iter().map(|c| c + top).collect();
    let high = Csr::try_new(m, n + top as usize, ptr, cols, vals).unwrap();
    let a: Csr<S::Value> = skewed(300, 3_000, |i| 1 + i % 32, 41);
    check::<S>(&a, &high, "columns about 2^27");
    // Rows of A whose rows of B are mostly empty: more entries than products.
    let sparse_b: Csr<S::Value> = skewed(3_000, 500, |k| usize::from(k % 50 == 0), 5);
    let long_a: Csr<S::Value> = skewed(100, 3_000, |i| 100 + 10 * i, 6);
    check::<S>(&long_a, &sparse_b, "more entries than products");
    // The arrow matrix: one row of 46 500 entries (and a dense column).
    let arrow: Csr<S::Value> = arrow(46_500);
    let thin: Csr<S::Value> = skewed(46_500, 300, |k| k % 3, 7);
    check::<S>(&arrow, &thin, "arrow × thin");
    // Dense rows spanning more columns than shared memory holds: the
    // accumulator in global memory.
    let wide_b: Csr<S::Value> = skewed(500, 200_000, |k| 2 + k % 30, 8);
    let a: Csr<S::Value> = skewed(300, 500, |i| i % 400, 9);
    check::<S>(&a, &wide_b, "wide B");
    let a: Csr<S::Value> = skewed(LONG_STAGED, 500, |i| 100 + i % 300, 35);
    check::<S>(&a, &wide_b, "wide B, staged");
    // Long rows over 60K columns: too many for a value a column in shared
    // memory, so summed by rank, in shared memory or, when longer than it
    // holds, in C; then as many as are staged.
    let wide: Csr<S::Value> = skewed(2_000, 60_000, |k| 10 + k % 21, 31);
    let a: Csr<S::Value> = skewed(200, 2_000, |i| 60 + i % 50, 32);
    check::<S>(&a, &wide, "long rows by rank");
    let a: Csr<S::Value> = skewed(LONG_STAGED, 2_000, |i| 500 + i % 300, 33);
    check::<S>(&a, &wide, "long rows by rank, in C, staged");
    let a: Csr<S::Value> = skewed(LONG_STAGED, 3_000, |i| 2_250 - 3 + i % 7, 34);
    check::<S>(&a, &b4, "long rows by column, staged");
    // Power-law rows squared: every class at once.
    let p: Csr<S::Value> = skewed(4_000, 4_000, |i| 1 + 3_000 / (i + 1), 10);
    check::<S>(&p, &p, "power-law squared");
    // Rectangles, empty rows, one dense row.
    let tall: Csr<S::Value> = skewed(5_000, 40, |i| if i % 3 == 0 { 0 } else { 1 + i % 5 }, 11);
    let dense_row: Csr<S::Value> = skewed(40, 7_000, |i| if i == 13 { 7_000 } else { i % 4 }, 12);
    check::<S>(&tall, &dense_row, "tall × one dense row");
    let under: Csr<S::Value> = skewed(7_000, 3_000, |k| k % 4, 13);
    check::<S>(&dense_row, &under, "one dense row × tall");
    // Giant rows (through Bᵀ), two batches of them, against B with a
    // column in every row and one in every hundredth (Bᵀ's long columns).
    check::<S>(&giant_rows(), &hub_columns(), "giant rows × hub columns");
    // Enough rows of the short and the hash class (2¹⁶) for both their
    // phases to be one walk (staged): random columns (sorted in registers,
    // hashed tables) and a band (direct).
    let (short, hashed_a, hashed_b) = staged_rows::<S::Value>(15);
    check::<S>(&short, &short, "short rows, staged");
    check::<S>(&hashed_a, &hashed_b, "hashed rows, staged");
    let band: Csr<S::Value> = banded(STAGED_ROWS, 4);
    check::<S>(&band, &band, "band of 9, staged");
}

/// `m` rows of `len(i)` draws among `width` columns 10 000 apart (repeats
/// merged): every row's span is too wide for a table indexed by column.
fn far_columns<T: spmx::Scalar>(
    m: usize,
    width: usize,
    len: impl Fn(usize) -> usize,
    seed: u64,
) -> Csr<T> {
    let (m, _, row_ptr, col_idx, values) = skewed::<T>(m, width, len, seed).into_parts();
    let col_idx = col_idx.into_iter().map(|c| c * 10_000).collect();
    Csr::try_new(m, 10_000 * (width - 1) + 1, row_ptr, col_idx, values).unwrap()
}

/// Rows of the products that test staging: above the 2¹⁶ hashed rows from
/// which the hash class computes its rows in the symbolic phase.
const STAGED_ROWS: usize = 70_000;

/// Products with [`STAGED_ROWS`] short rows (A squared: 6 to 9 entries a
/// row, 36 to 81 products of random columns) and hashed rows (A·B: 14 to
/// 20 entries a row times 9 to 12, 126 to 240 products), seeded from
/// `seed`: `(short, hashed_a, hashed_b)`.
fn staged_rows<T: spmx::Scalar>(seed: u64) -> (Csr<T>, Csr<T>, Csr<T>) {
    (
        skewed(STAGED_ROWS, STAGED_ROWS, |i| 6 + i % 4, seed),
        skewed(STAGED_ROWS, STAGED_ROWS, |i| 14 + i % 7, seed + 100),
        skewed(STAGED_ROWS, STAGED_ROWS, |i| 9 + i % 4, seed + 200),
    )
}

/// Long rows (over 1024 products) of the products that test their staging:
/// above the 256 from which the dense class is staged.
const LONG_STAGED: usize = 300;

/// 300 × 8 000: every seventh row has about 5 400 entries (43 giant rows
/// against [`hub_columns`]), the others up to 12.
fn giant_rows<T: spmx::Scalar>() -> Csr<T> {
    skewed(
        300,
        8_000,
        |i| if i % 7 == 0 { 9_000 + i } else { i % 13 },
        15,
    )
}

/// 8 000 × 2 500: column 0 in every row, column 1 in every hundredth, and
/// up to three more a row.
fn hub_columns<T: spmx::Scalar>() -> Csr<T> {
    let mut coo = spmx::Coo::new(8_000, 2_500).unwrap();
    for k in 0..8_000 {
        let v = |t: usize| T::from_f64(((k * 7 + t * 3) % 17) as f64 / 4.0 - 2.1);
        coo.push(k, 0, v(0)).unwrap();
        if k % 100 == 0 {
            coo.push(k, 1, v(1)).unwrap();
        }
        for t in 0..k % 4 {
            coo.push(k, 2 + (k * 31 + t * 977) % 2_498, v(t + 2))
                .unwrap();
        }
    }
    coo.to_csr()
}

/// A band: row `i` has columns `i − half ..= i + half` (clipped); values
/// with long fractions, so that a sum in another order rounds otherwise.
fn banded<T: spmx::Scalar>(n: usize, half: usize) -> Csr<T> {
    let mut coo = spmx::Coo::new(n, n).unwrap();
    for i in 0..n {
        for j in i.saturating_sub(half)..(i + half + 1).min(n) {
            let v = ((7 * i + 13 * j) % 17) as f64 / 7.0 - 1.1;
            coo.push(i, j, T::from_f64(v)).unwrap();
        }
    }
    coo.to_csr()
}

/// The arrow pattern: row 0 and column 0 full, and the diagonal; integer
/// values.
fn arrow<T: spmx::Scalar>(n: usize) -> Csr<T> {
    let mut coo = spmx::Coo::new(n, n).unwrap();
    for j in 0..n {
        coo.push(0, j, T::from_f64((j % 7) as f64 + 1.0)).unwrap();
    }
    for i in 1..n {
        coo.push(i, 0, T::from_f64((i % 5) as f64 - 2.0)).unwrap();
        coo.push(i, i, T::from_f64(3.0)).unwrap();
    }
    coo.to_csr()
}

common::gpu::every_gpu_semiring!(big, big_cases;
    plus_times_f32 => PlusTimes<f32>,
    plus_times_f64 => PlusTimes<f64>,
    min_plus_f32 => MinPlus<f32>,
    max_plus_f64 => MaxPlus<f64>,
    or_and => OrAnd,
);

/// Products of the real set with at most this many products are checked
/// (A·A of `arrow` is dense, 46 500² entries: its long row is checked in
/// the big cases instead).
const REAL_PRODUCTS: usize = 40_000_000;

/// A·A and A·Aᵀ of every real matrix against the cpu engine (the serial
/// engine's bits, on all cores): plus-times f64 and min-plus f32.
#[test]
fn real_matrices() {
    let Some(_) = gpu("real_matrices") else {
        return;
    };
    for (name, a) in common::real_matrices("real_matrices") {
        let at = a.transpose();
        let mut pairs = vec![("A·Aᵀ", &a, &at)];
        if a.nrows() == a.ncols() {
            pairs.push(("A·A", &a, &a));
        }
        for (what, x, y) in pairs {
            let products = ops::spgemm_products(x, y);
            if products > REAL_PRODUCTS {
                println!("{name} {what}: {products} products, not checked here");
                continue;
            }
            let label = format!("{name} {what}");
            let want = ops::spgemm::<PlusTimes<f64>>(x, y, Engine::Cpu).unwrap();
            let got = ops::spgemm::<PlusTimes<f64>>(x, y, Engine::Cuda).unwrap();
            assert!(got == want, "{label}: plus-times f64 differs from cpu");
            let (x32, y32) = (x.map(|v| v as f32), y.map(|v| v as f32));
            let want = ops::spgemm::<MinPlus<f32>>(&x32, &y32, Engine::Cpu).unwrap();
            let got = ops::spgemm::<MinPlus<f32>>(&x32, &y32, Engine::Cuda).unwrap();
            assert!(got == want, "{label}: min-plus f32 differs from cpu");
            println!("{label}: {products} products, {} entries: ok", want.nnz());
        }
    }
}

/// A memory budget of a few rows' entries cuts the product into many row
/// blocks, with the same result; a budget below one row is a clear error.
#[test]
fn row_blocks_under_a_small_budget() {
    let Some(_) = gpu("row_blocks_under_a_small_budget") else {
        return;
    };
    type S = PlusTimes<f64>;
    let p: Csr<f64> = skewed(3_000, 3_000, |i| 1 + 2_000 / (i + 1) + i % 9, 21);
    let want = ops::spgemm::<S>(&p, &p, Engine::Serial).unwrap();
    let longest = (0..want.nrows()).map(|i| want.row_len(i)).max().unwrap();
    for budget_rows in [1, 3, 50] {
        let budget = budget_rows * longest * 12;
        let run = spgemm_with::<S>(
            &p,
            &p,
            SpgemmOptions {
                memory_budget: Some(budget),
            },
        )
        .unwrap();
        assert!(
            run.stats.row_blocks > 1,
            "{budget} bytes: {} blocks",
            run.stats.row_blocks
        );
        assert_identical(&run.c, &want);
        println!("budget {budget} B: {} row blocks", run.stats.row_blocks);
    }
    let e = spgemm_with::<S>(
        &p,
        &p,
        SpgemmOptions {
            memory_budget: Some(longest * 12 - 1),
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("entries") && e.contains("budget"), "{e}");
}

/// Staged rows (the short, the hash and the dense class's, computed in
/// the symbolic phase) copied to C block by block, and a plan of them
/// recomputed for new values (the staged rows hold the first values only).
#[test]
fn staged_rows_in_row_blocks_and_plans() {
    let Some(_) = gpu("staged_rows_in_row_blocks_and_plans") else {
        return;
    };
    type S = PlusTimes<f64>;
    let (short, hashed_a, hashed_b) = staged_rows::<f64>(24);
    let long: Csr<f64> = skewed(LONG_STAGED, 2_000, |i| 500 + i % 300, 25);
    let wide: Csr<f64> = skewed(2_000, 60_000, |k| 10 + k % 21, 26);
    for (a, b, class, rows) in [
        (&short, &short, 2, 1 << 16),
        (&hashed_a, &hashed_b, 3, 1 << 16),
        (&long, &wide, 6, LONG_STAGED as u32),
    ] {
        let want = ops::spgemm::<S>(a, b, Engine::Serial).unwrap();
        for (budget, blocks) in [(None, 1), (Some(want.nnz() * 12 / 3), 3)] {
            let run = spgemm_with::<S>(
                a,
                b,
                SpgemmOptions {
                    memory_budget: budget,
                },
            )
            .unwrap();
            assert!(run.stats.classes[class] >= rows, "{:?}", run.stats.classes);
            assert!(
                run.stats.row_blocks >= blocks,
                "{budget:?}: {:?}",
                run.stats
            );
            assert_identical(&run.c, &want);
        }
        check_plan::<S>(a, b, &format!("staged rows of class {class}"));
    }
}

/// Giant rows cut into row blocks: each block's giant rows are a batch of
/// their own.
#[test]
fn giant_rows_in_row_blocks() {
    let Some(_) = gpu("giant_rows_in_row_blocks") else {
        return;
    };
    type S = PlusTimes<f64>;
    let (a, b) = (giant_rows::<f64>(), hub_columns::<f64>());
    let want = ops::spgemm::<S>(&a, &b, Engine::Serial).unwrap();
    let whole = spgemm_with::<S>(&a, &b, SpgemmOptions::default()).unwrap();
    assert_eq!(whole.stats.classes[7], 43, "{:?}", whole.stats.classes);
    assert_identical(&whole.c, &want);
    let budget = want.nnz() / 5 * 12;
    let run = spgemm_with::<S>(
        &a,
        &b,
        SpgemmOptions {
            memory_budget: Some(budget),
        },
    )
    .unwrap();
    assert!(run.stats.row_blocks > 1, "{} blocks", run.stats.row_blocks);
    assert_identical(&run.c, &want);
}

/// Row blocks reach the sink in order and cover every row; a sink that
/// fails stops the product with its error.
#[test]
fn row_blocks_stream_to_a_sink() {
    let Some(_) = gpu("row_blocks_stream_to_a_sink") else {
        return;
    };
    type S = MinPlus<f32>;
    let p: Csr<f32> = skewed(2_000, 2_000, |i| 1 + 1_000 / (i + 1) + i % 5, 41);
    let want = ops::spgemm::<S>(&p, &p, Engine::Serial).unwrap();
    let options = SpgemmOptions {
        memory_budget: Some(want.nnz() / 7 * 8),
    };
    let mut next = 0;
    let stats = spgemm_blocks::<S>(&p, &p, options, &mut |rows, block| {
        assert_eq!(rows.start, next);
        next = rows.end;
        assert_identical(&block, &want.rows(rows));
        Ok(())
    })
    .unwrap();
    assert_eq!(next, p.nrows());
    assert!(stats.row_blocks >= 7, "{} blocks", stats.row_blocks);
    assert_eq!(stats.nnz as usize, want.nnz());
    let mut calls = 0;
    let e = spgemm_blocks::<S>(&p, &p, options, &mut |_, _| {
        calls += 1;
        Err(spmx::Error::TooLarge("the sink is full".into()))
    })
    .unwrap_err();
    assert_eq!(calls, 1);
    assert!(e.to_string().contains("the sink is full"), "{e}");
}

/// The same input gives the same bits on every run.
#[test]
fn deterministic() {
    let Some(_) = gpu("deterministic") else {
        return;
    };
    let p: Csr<f32> = skewed(4_000, 4_000, |i| 1 + 3_000 / (i + 1), 31);
    let first = ops::spgemm::<PlusTimes<f32>>(&p, &p, Engine::Cuda).unwrap();
    for _ in 0..3 {
        assert_identical(
            &ops::spgemm::<PlusTimes<f32>>(&p, &p, Engine::Cuda).unwrap(),
            &first,
        );
    }
}

/// The APSP example closes exactly with its products on the GPU.
#[test]
fn apsp_pair() {
    let Some(_) = gpu("apsp_pair") else {
        return;
    };
    let dir = common::real_data_dir();
    let (input, output) = (
        dir.join("apsp_input.mtx.gz"),
        dir.join("apsp_output.mtx.gz"),
    );
    if !input.exists() {
        println!("skipping apsp_pair: no {}", input.display());
        return;
    }
    let read = |p| {
        spmx::io::read_mtx::<f64>(p, &Default::default())
            .unwrap()
            .coo
            .to_csr()
    };
    let got = app::apsp(&read(&input), Engine::Cuda).unwrap();
    assert_eq!(got.distances, read(&output));
}

/// Issue 20: a stored `false` is false in or-and on the GPU, and the
/// false entries of C are kept as on the serial engine: the issue's
/// example, then rows of every class with every third value false.
#[test]
fn or_and_stored_zero_is_false_spgemm() {
    let Some(_) = gpu("or_and_stored_zero_is_false_spgemm") else {
        return;
    };
    let a = common::or_and_stored_zero();
    let c = ops::spgemm::<OrAnd>(&a, &a, Engine::Cuda).unwrap();
    assert_identical(&c, &common::or_and_stored_zero_squared());
    let b4 = every_third_false(skewed(3_000, 2_000, |_| 4, 1));
    let dense_rows = every_third_false(skewed(200, 3_000, |i| 2_247 + i % 7, 4));
    check::<OrAnd>(&dense_rows, &b4, "dense rows, every third false");
    let p = every_third_false(skewed(4_000, 4_000, |i| 1 + 3_000 / (i + 1), 10));
    check::<OrAnd>(&p, &p, "power-law squared, every third false");
}

/// Issue 20: APSP on the GPU reports a negative cycle through a −∞ edge
/// (the closure converges, −∞ on the diagonal), and an edge of +∞ meeting
/// one of −∞ is no cycle.
#[test]
fn apsp_negative_cycle_through_neg_inf() {
    let Some(_) = gpu("apsp_negative_cycle_through_neg_inf") else {
        return;
    };
    let err = app::apsp(&common::neg_inf_cycle_graph(), Engine::Cuda).unwrap_err();
    assert!(err.to_string().contains("negative cycle"), "{err}");
    let g = common::inf_meets_neg_inf_graph();
    let got = app::apsp(&g, Engine::Cuda).unwrap();
    assert_identical(
        &got.distances,
        &app::apsp(&g, Engine::Serial).unwrap().distances,
    );
}

/// `m` with other values, from `seed` (their patterns kept).
fn revalued<T: spmx::Scalar>(m: &Csr<T>, seed: u64) -> Csr<T> {
    let k = std::cell::Cell::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    m.map(|_| {
        k.set(
            k.get()
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1),
        );
        T::from_f64(((k.get() >> 40) % 2001) as f64 / 97.0 - 10.0)
    })
}

/// A plan of A ⊗ B gives the serial product at once, and again after A's
/// and B's values change (numeric phase alone).
#[track_caller]
fn check_plan<S: Semiring>(a: &Csr<S::Value>, b: &Csr<S::Value>, what: &str)
where
    S::Value: TestScalar,
{
    let gpu = Gpu::get().unwrap();
    let plans = [
        CudaSpgemmPlan::<S>::new(gpu, a, b),
        CudaSpgemmPlan::<S>::replaying(gpu, a, b),
        CudaSpgemmPlan::<S>::recomputing(gpu, a, b),
    ];
    assert!(plans[1].as_ref().is_ok_and(|p| p.replays()));
    assert!(!plans[2].as_ref().is_ok_and(|p| p.replays()));
    for (i, plan) in plans.into_iter().enumerate() {
        let mut plan = plan.unwrap_or_else(|e| panic!("{what} ({}): {e}", S::NAME));
        let grids: &[ReplayGrid] = if i == 1 { &ReplayGrid::ALL } else { &[] };
        check_numeric::<S>(&mut plan, a, b, what, grids);
    }
}

/// `plan` (of A ⊗ B) recomputed for new values of A and B equals a fresh
/// serial product of them, on its own grid and then on each of `grids`,
/// C's entries staged and not, long lists in the replay and beside it.
#[track_caller]
fn check_numeric<S: Semiring>(
    plan: &mut CudaSpgemmPlan<S>,
    a: &Csr<S::Value>,
    b: &Csr<S::Value>,
    what: &str,
    grids: &[ReplayGrid],
) where
    S::Value: TestScalar,
{
    let serial =
        |a: &Csr<S::Value>, b: &Csr<S::Value>| ops::spgemm::<S>(a, b, Engine::Serial).unwrap();
    assert_same_bits(&plan.download().unwrap(), &serial(a, b));
    for seed in [1, 2] {
        let (a2, b2) = (revalued(a, seed), revalued(b, seed + 10));
        let (a2, b2) = (
            a2.map(common::in_domain::<S>),
            b2.map(common::in_domain::<S>),
        );
        plan.set_values(a2.values(), b2.values()).unwrap();
        plan.numeric().unwrap();
        let want = serial(&a2, &b2);
        let got = plan.download().unwrap();
        if got != want {
            println!("{what} ({}): the plan differs from serial", S::NAME);
        }
        assert_same_bits(&got, &want);
        let mut values = vec![S::zero(); plan.nnz()];
        plan.download_values(&mut values).unwrap();
        assert!(
            values
                .iter()
                .zip(got.values())
                .all(|(v, g)| v.bits() == g.bits())
        );
        for &grid in grids {
            for (stages, beside) in [(false, false), (true, false), (false, true), (true, true)] {
                plan.set_replay_grid(grid).unwrap();
                plan.set_replay_stages(stages).unwrap();
                plan.set_replay_long_beside(beside).unwrap();
                plan.numeric().unwrap();
                let got = plan.download().unwrap();
                if got != want {
                    println!(
                        "{what} ({}): the plan on {grid:?}, staging {stages}, long lists \
                         beside {beside}, differs from serial",
                        S::NAME
                    );
                }
                assert_same_bits(&got, &want);
            }
        }
    }
}

fn plan_random_cases<S: Semiring>(test: &str)
where
    S::Value: TestScalar,
{
    let Some(_) = gpu(test) else { return };
    let config = ProptestConfig {
        cases: 16,
        ..ProptestConfig::default()
    };
    proptest!(config, |((a, b) in arb_pair::<S::Value>())| {
        let (a, b) = (a.map(common::in_domain::<S>), b.map(common::in_domain::<S>));
        check_plan::<S>(&a, &b, "random");
    });
}

common::gpu::every_gpu_semiring!(plan_random, plan_random_cases);

/// Products of A·B (multiply-adds).
fn products<T: Scalar>(a: &Csr<T>, b: &Csr<T>) -> usize {
    let b_len = |k: usize| b.row_ptr()[k + 1] - b.row_ptr()[k];
    a.col_idx().iter().map(|&k| b_len(k as usize)).sum()
}

/// Plans over every row class: power-law rows squared, bands, dense rows,
/// wide B (the dense kernel's global scratch, reused run after run).
fn plan_big_cases<S: Semiring>(test: &str)
where
    S::Value: TestScalar,
{
    let Some(gpu) = gpu(test) else { return };
    let p: Csr<S::Value> = skewed(4_000, 4_000, |i| 1 + 3_000 / (i + 1), 21);
    check_plan::<S>(&p, &p, "power-law squared");
    let packed = CudaSpgemmPlan::<S>::replaying(gpu, &p, &p).unwrap();
    assert!(packed.list_bytes() < 8 * products(&p, &p), "packed lists");
    // Over a B of more than 2²⁰ entries a packed word leaves 10 bits for an
    // offset of A: row 0 of A (every 4th column of 40 000) gives lists of
    // about 300 products 33 positions apart, whose tiles are wide; rows of
    // one entry give lists of one product, whose tiles pack. With few
    // such rows a lane takes 8 products, with many 4.
    let ones = |n: usize| vec![S::Value::from_f64(1.0); n];
    let mut b = spmx::Coo::new(40_000, 1_000).unwrap();
    for k in 0..40_000 {
        for i in 0..30 {
            b.push(k, (7 * k + 33 * i) % 1_000, S::Value::from_f64(1.0))
                .unwrap();
        }
    }
    let b = revalued(&b.to_csr(), 25);
    assert!(b.nnz() > 1 << 20);
    for short in [2_000, 20_000] {
        let row_ptr = std::iter::once(0)
            .chain((0..=short).map(|i| 10_000 + i))
            .collect();
        let cols = (0..10_000u32).map(|m| 4 * m);
        let cols = cols
            .chain((1..=short as u32).map(|i| 7 * i % 40_000))
            .collect();
        let a = Csr::try_new(short + 1, 40_000, row_ptr, cols, ones(10_000 + short)).unwrap();
        let a = revalued(&a, 24);
        check_plan::<S>(
            &a,
            &b,
            &format!("wide and packed tiles, {short} short rows"),
        );
        let plan = CudaSpgemmPlan::<S>::replaying(gpu, &a, &b).unwrap();
        // 4 bytes a product, and 4 more for most of row 0's 300 000.
        let wide = 4 * products(&a, &b) + 4 * 250_000;
        assert!(plan.list_bytes() > wide, "wide tiles");
    }
    // Lists of lengths about a lane's 4 or 8 products, the longest that
    // never crosses a tile (32, 64), a tile (128, 256) and past it: row i
    // of A has lens[i] entries, every row of B five, so C's row i is five
    // lists of lens[i] products each. Alone they average more than
    // REPLAY_NARROW_BELOW products (8 a lane); after 8 000 rows of one
    // entry, fewer (4 a lane). Lists through many tiles (long: beside the
    // replay, a block reads 4 of their tiles a round) end in each slot of
    // a round, and the last runs to the lists' end.
    let lens = [
        1, 7, 8, 9, 31, 33, 63, 64, 65, 127, 129, 255, 256, 257, 700, 2, 3, 1_000, 1_500, 2_048,
        2_600, 3_001,
    ];
    let mut many = vec![1; 8_000];
    many.extend(lens);
    for lens in [&lens[..], &many] {
        let width = 3_001;
        let a_row_ptr = std::iter::once(0)
            .chain(lens.iter().scan(0, |n, &l| {
                *n += l;
                Some(*n)
            }))
            .collect();
        let a_cols = lens.iter().flat_map(|&l| 0..l as u32).collect();
        let ones = |n: usize| vec![S::Value::from_f64(1.0); n];
        let n_a: usize = lens.iter().sum();
        let a = Csr::try_new(lens.len(), width, a_row_ptr, a_cols, ones(n_a)).unwrap();
        let b_row_ptr = (0..=width).map(|k| 5 * k).collect();
        let b_cols = (0..width).flat_map(|_| 0..5).collect();
        let b = Csr::try_new(width, 5, b_row_ptr, b_cols, ones(5 * width)).unwrap();
        let what = format!("lists about a tile, {} rows", lens.len());
        check_plan::<S>(&revalued(&a, 3), &revalued(&b, 4), &what);
    }
    for half in [20, 300] {
        let band: Csr<S::Value> = banded(3_000, half);
        check_plan::<S>(&band, &band, &format!("band of {}", 2 * half + 1));
    }
    let wide_b: Csr<S::Value> = skewed(500, 200_000, |k| 2 + k % 30, 22);
    let a: Csr<S::Value> = skewed(300, 500, |i| i % 400, 23);
    check_plan::<S>(&a, &wide_b, "wide B");
}

common::gpu::every_gpu_semiring!(plan_big, plan_big_cases;
    plus_times_f32 => spmx::PlusTimes<f32>,
    plus_times_f64 => spmx::PlusTimes<f64>,
    min_plus_f64 => spmx::MinPlus<f64>,
    or_and => spmx::OrAnd,
);

/// New values of another length than the plan's pattern are an error
/// naming the operand; the plan keeps working.
#[test]
fn plan_rejects_values_of_another_length() {
    let Some(gpu) = gpu("plan_rejects_values_of_another_length") else {
        return;
    };
    let a: Csr<f64> = skewed(50, 40, |i| i % 6, 1);
    let b: Csr<f64> = skewed(40, 30, |i| i % 4, 2);
    let mut plan = CudaSpgemmPlan::<PlusTimes<f64>>::replaying(gpu, &a, &b).unwrap();
    assert!(plan.replays());
    let e = plan
        .set_values(&a.values()[1..], b.values())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("for A") && e.contains(&a.nnz().to_string()),
        "{e}"
    );
    let e = plan.set_values(a.values(), &[1.0]).unwrap_err().to_string();
    assert!(
        e.contains("for B") && e.contains(&b.nnz().to_string()),
        "{e}"
    );
    plan.numeric().unwrap();
    assert_identical(
        &plan.download().unwrap(),
        &ops::spgemm::<PlusTimes<f64>>(&a, &b, Engine::Serial).unwrap(),
    );
}

/// A replay grid the kernel has no loop for, or a grid or staging set on a
/// plan that recomputes rows, is an error saying so; the plan keeps its
/// grid.
#[test]
fn plan_rejects_grids_it_cannot_replay_on() {
    let Some(gpu) = gpu("plan_rejects_grids_it_cannot_replay_on") else {
        return;
    };
    let a: Csr<f64> = skewed(50, 40, |i| i % 6, 1);
    let mut plan = CudaSpgemmPlan::<PlusTimes<f64>>::replaying(gpu, &a, &a.transpose()).unwrap();
    assert_eq!(plan.replay_grid(), Some(ReplayGrid::TilesAWarp(1)));
    for n in [0, 3, 8] {
        let e = plan
            .set_replay_grid(ReplayGrid::TilesAWarp(n))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("{n} tiles a warp")), "{e}");
    }
    assert_eq!(plan.replay_grid(), Some(ReplayGrid::TilesAWarp(1)));
    let mut rows = CudaSpgemmPlan::<PlusTimes<f64>>::recomputing(gpu, &a, &a.transpose()).unwrap();
    let e = rows
        .set_replay_grid(ReplayGrid::Resident)
        .unwrap_err()
        .to_string();
    assert!(e.contains("recomputes rows"), "{e}");
    assert_eq!(rows.replay_grid(), None);
    let e = rows.set_replay_stages(true).unwrap_err().to_string();
    assert!(
        e.contains("set_replay_stages") && e.contains("recomputes rows"),
        "{e}"
    );
    assert_eq!(rows.replay_stages(), None);
    assert_eq!(plan.replay_stages(), Some(true));
    let e = rows.set_replay_long_beside(true).unwrap_err().to_string();
    assert!(
        e.contains("set_replay_long_beside") && e.contains("recomputes rows"),
        "{e}"
    );
    assert_eq!(rows.replay_long_beside(), None);
    assert_eq!(plan.replay_long_beside(), Some(false));
}

/// `auto` runs SpGEMM on the GPU when there is one; empty shapes work.
#[test]
fn through_ops() {
    let Some(_) = gpu("through_ops") else {
        return;
    };
    assert_eq!(Engine::Auto.resolve(Op::Spgemm).unwrap(), Engine::Cuda);
    for (m, n, p) in [(0, 0, 0), (5, 0, 3), (0, 4, 2), (6, 7, 0), (300, 200, 100)] {
        let a: Csr<f64> = if n == 0 {
            Csr::empty(m, 0)
        } else {
            skewed(m, n, |i| i % 9, 3)
        };
        let b: Csr<f64> = if n == 0 || p == 0 {
            Csr::empty(n, p)
        } else {
            skewed(n, p, |i| i % 5, 4)
        };
        let want = ops::spgemm::<PlusTimes<f64>>(&a, &b, Engine::Serial).unwrap();
        assert_identical(&a.spgemm(&b).unwrap(), &want);
        // A plan through ops, recomputed with new values.
        let mut plan = ops::SpgemmPlan::<PlusTimes<f64>>::new(&a, &b, Engine::Cuda).unwrap();
        assert_identical(plan.product(), &want);
        let (a2, b2) = (revalued(&a, 3), revalued(&b, 4));
        let want = ops::spgemm::<PlusTimes<f64>>(&a2, &b2, Engine::Serial).unwrap();
        assert_identical(plan.numeric(a2.values(), b2.values()).unwrap(), &want);
    }
}

/// Without a GPU, SpGEMM on the cuda engine is an error that says what is
/// missing; `auto` falls back to cpu.
#[test]
fn without_a_gpu_cuda_spgemm_is_a_clear_error() {
    if Gpu::present() {
        println!("skipping without_a_gpu_cuda_spgemm_is_a_clear_error: a GPU is present");
        return;
    }
    let e = Engine::Cuda.resolve(Op::Spgemm).unwrap_err().to_string();
    assert!(e.contains("cuda engine is not available"), "{e}");
    assert_eq!(Engine::Auto.resolve(Op::Spgemm).unwrap(), Engine::Cpu);
}
