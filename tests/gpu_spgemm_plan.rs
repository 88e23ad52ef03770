//! GPU SpGEMM plans ([`CudaSpgemmPlan`]) against the serial engine, bit for
//! bit: a plan recomputed with new values of A and B equals a fresh product
//! of them, on random pairs of every odd shape, every row class, packed and
//! wide replay tiles, staged rows in row blocks, on each replay grid; plans
//! refuse values of another length and grids they cannot replay on; `ops`
//! plans on the GPU. Without a GPU the tests print why and pass.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::{assert_same_bits, gpu, skewed};
use common::spgemm_cases::{LONG_STAGED, arb_pair, banded, staged_rows};
use common::{TestScalar, assert_identical};
use proptest::prelude::*;
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::spgemm::plan::{CudaSpgemmPlan, ReplayGrid};
use spmx::engine::cuda::spgemm::{SpgemmOptions, spgemm_with};
use spmx::engine::{Engine, Op};
use spmx::format::Csr;
use spmx::{PlusTimes, Scalar, Semiring, ops};

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
    if let Err(e) = &plans[1] {
        panic!("{what} ({}): a replaying plan: {e}", S::NAME);
    }
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
common::gpu::every_gpu_semiring!(integers: plan_random_integers, plan_random_cases);

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
    plus_times_u64 => spmx::PlusTimes<u64>,
    plus_pair_i32 => spmx::PlusPair<i32>,
    max_plus_i64 => spmx::MaxPlus<i64>,
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
