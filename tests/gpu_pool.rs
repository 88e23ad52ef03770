//! The GPU engine keeps the memory it frees: every buffer comes from the
//! device's memory pool, which hands nothing back to the driver between
//! calls, so a second SpGEMM, SpMM or SpMV on the same sizes asks the
//! driver for no new memory (the pool's reserved bytes are unchanged), and
//! what the pool keeps counts as free for the next plan. Only an
//! allocation that fails makes it hand memory back, once, before the
//! `TooLarge` error.
//!
//! The tests share the process's one pool, so they take turns.
//!
//! Without a GPU (or without feature `gpu`) the tests print why and pass.
#![cfg(feature = "gpu")]

mod common;

use std::sync::{Mutex, MutexGuard};

use common::gpu::gpu;
use spmx::format::{Csr, Dense};
use spmx::{Engine, PlusTimes, generate, ops};

/// One test at a time on the pool.
fn turn() -> MutexGuard<'static, ()> {
    static POOL: Mutex<()> = Mutex::new(());
    POOL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Skewed rows, hubs included: SpGEMM takes several row classes.
fn matrix() -> Csr<f32> {
    generate::power_law(20_000, 20_000, 12.0, 2.3, 11)
        .unwrap()
        .map(|v| v as f32)
}

/// Runs `op` three times; the pool's reserved bytes after the second and
/// third runs must equal those after the first.
fn reserves_nothing_new(test: &str, mut op: impl FnMut()) {
    let _turn = turn();
    let Some(gpu) = gpu(test) else {
        return;
    };
    op();
    gpu.sync().unwrap();
    let first = gpu.pool_reserved().unwrap();
    assert!(
        first > 0,
        "{test}: the first run took nothing from the pool"
    );
    for run in 2..=3 {
        op();
        gpu.sync().unwrap();
        let now = gpu.pool_reserved().unwrap();
        assert_eq!(
            now, first,
            "{test}: run {run} of the same sizes changed the pool's reserve"
        );
    }
}

#[test]
fn second_spgemm_asks_the_driver_for_no_memory() {
    let a = matrix();
    reserves_nothing_new("second_spgemm_asks_the_driver_for_no_memory", || {
        ops::spgemm::<PlusTimes<f32>>(&a, &a, Engine::Cuda).unwrap();
    });
}

#[test]
fn second_spmm_asks_the_driver_for_no_memory() {
    let a = matrix();
    let b = Dense::try_new(a.ncols(), 64, vec![0.5f32; a.ncols() * 64]).unwrap();
    reserves_nothing_new("second_spmm_asks_the_driver_for_no_memory", || {
        ops::spmm::<PlusTimes<f32>>(&a, &b, Engine::Cuda).unwrap();
    });
}

#[test]
fn second_spmv_asks_the_driver_for_no_memory() {
    let a = matrix();
    let x = vec![0.25f32; a.ncols()];
    reserves_nothing_new("second_spmv_asks_the_driver_for_no_memory", || {
        ops::spmv::<PlusTimes<f32>>(&a, &x, Engine::Cuda).unwrap();
    });
}

#[test]
fn memory_kept_by_the_pool_counts_as_free_and_trims_on_demand() {
    let _turn = turn();
    let Some(gpu) = gpu("memory_kept_by_the_pool_counts_as_free_and_trims_on_demand") else {
        return;
    };
    let (free_before, total) = gpu.memory().unwrap();
    let bytes = (free_before / 4).min(1 << 30);
    let buffer = gpu.output::<u8>(bytes).unwrap();
    drop(buffer);
    let (free_after, _) = gpu.memory().unwrap();
    // The freed gigabyte stays in the pool, yet counts as free.
    assert!(gpu.pool_reserved().unwrap() >= bytes);
    let slack = 64 << 20;
    assert!(
        free_after + slack >= free_before,
        "free {free_after} after a freed buffer, {free_before} before (of {total})"
    );
    gpu.trim_pool().unwrap();
    assert!(
        gpu.pool_reserved().unwrap() < bytes,
        "trimming hands it back"
    );
}
