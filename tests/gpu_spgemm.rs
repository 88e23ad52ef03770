//! GPU SpGEMM against the serial engine, bit for bit, for every semiring
//! the GPU has (plus-times included: every entry is summed in the serial
//! order): random matrices of every odd shape (proptest), rows at and
//! around each class boundary (warp, block, dense), short rows of
//! far-apart columns (sorted in registers, a column's products running
//! across lanes and registers), rows with more entries of A than products,
//! the arrow matrix's row of 46 500 entries, giant rows (through Bᵀ)
//! against B with long columns, wide B, the real set (A·A and A·Aᵀ), row
//! blocks under a forced small memory budget, enough short and hashed rows
//! to be staged (in one product and in row blocks), the APSP pair, and
//! repeated runs giving the same bits. Plans: `tests/gpu_spgemm_plan.rs`.
//!
//! Without a GPU the GPU tests print why and pass; the error a user gets is
//! tested instead.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::{assert_same_bits, every_third_false, gpu, skewed};
use common::spgemm_cases::{LONG_STAGED, STAGED_ROWS, arb_pair, banded, staged_rows};
use common::{TestScalar, assert_identical};
use proptest::prelude::*;
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::spgemm::{SpgemmOptions, spgemm_blocks, spgemm_with};
use spmx::engine::{Engine, Op};
use spmx::format::Csr;
use spmx::{MaxPlus, MinPlus, OrAnd, PlusPair, PlusTimes, Semiring, app, ops};

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
common::gpu::every_gpu_semiring!(integers: random_integers, random_cases);

/// Products per row around each class boundary (32: a warp sorts; 256: a
/// warp's table of 512 slots; 1024: a warp's wide table, a block's sort or
/// the dense accumulator; beyond: the dense accumulator), over B of 2 000
/// columns (every span fits the wide table), of 3 000 (most do not: the
/// dense accumulator) and of 60 000 (a block's sort), bands whose span fits
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
    let b4_far: Csr<S::Value> = skewed(3_000, 60_000, |_| 4, 45);
    check::<S>(
        &around(1024, 46),
        &b4_far,
        "around 1024 products, B of 60 000 columns",
    );
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
    plus_times_i64 => PlusTimes<i64>,
    plus_pair_u32 => PlusPair<u32>,
    min_plus_i32 => MinPlus<i32>,
    max_plus_u64 => MaxPlus<u64>,
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

/// Middle rows (up to 1024 products) on both sides of 32 columns of span
/// a product: the wider to a block's sort, the narrower to the dense
/// accumulator, each bit for bit; and all to the sort when B is wider than
/// the dense accumulator's shared bitmaps.
#[test]
fn middle_rows_sorted_or_through_a_bitmap() {
    let Some(_) = gpu("middle_rows_sorted_or_through_a_bitmap") else {
        return;
    };
    type S = PlusTimes<f64>;
    // Rows of 122 to 128 entries of A, each meeting 4 of B's 16 000
    // columns: about 500 products over a span of nearly 16 000.
    let a: Csr<f64> = skewed(200, 3_000, |i| 122 + i % 7, 48);
    let b: Csr<f64> = skewed(3_000, 16_000, |_| 4, 47);
    let want = ops::spgemm::<S>(&a, &b, Engine::Serial).unwrap();
    let run = spgemm_with::<S>(&a, &b, SpgemmOptions::default()).unwrap();
    let classes = run.stats.classes;
    assert!(classes[5] > 0 && classes[6] > 0, "{classes:?}");
    assert_identical(&run.c, &want);
    // The same B in 300 000 columns (the first 16 000 met).
    let (m, _, ptr, cols, vals) = b.into_parts();
    let b = Csr::try_new(m, 300_000, ptr, cols, vals).unwrap();
    let want = ops::spgemm::<S>(&a, &b, Engine::Serial).unwrap();
    let run = spgemm_with::<S>(&a, &b, SpgemmOptions::default()).unwrap();
    let classes = run.stats.classes;
    assert!(classes[5] > 0 && classes[6] == 0, "{classes:?}");
    assert_identical(&run.c, &want);
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
