//! The GPU engine's fault paths (feature `gpu`): with the device's memory
//! nearly all taken, SpMV, SpMM and SpGEMM give a clear `TooLarge` error
//! with the numbers (or, for SpGEMM, a result computed in row blocks, the
//! serial one), never a panic or a driver code; afterwards everything
//! works again. A launch the device refuses names the kernel and its grid.
//! Without a GPU these tests print why they skip.
#![cfg(feature = "gpu")]

mod common;

use common::gpu::gpu;
use spmx::engine::cuda::Gpu;
use spmx::format::Dense;
use spmx::{Csr, Engine, Error, PlusTimes};

/// A matrix whose operands take some tens of megabytes on the device:
/// 8 ones a row, so every row of A·1 is exactly 8.
fn operand() -> Csr<f32> {
    spmx::generate::uniform(1 << 20, 1 << 20, 8, 8, 3)
        .unwrap()
        .map(|_| 1.0f32)
}

/// The tests here take the device's memory: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Holds all but `spare` bytes of the device's free memory until dropped.
fn hog(gpu: &Gpu, spare: usize) -> cudarc::driver::CudaSlice<u8> {
    let free = gpu.memory().unwrap().0;
    gpu.zeros::<u8>(free.saturating_sub(spare)).unwrap()
}

#[track_caller]
fn too_large_or<T>(result: spmx::Result<T>, what: &str, ok: impl FnOnce(T)) {
    match result {
        Err(Error::TooLarge(why)) => {
            assert!(
                why.contains("bytes"),
                "{what}: the error gives the numbers: {why}"
            );
            println!("{what}: {why}");
        }
        Err(other) => panic!("{what}: expected TooLarge, got {other:?}"),
        Ok(value) => ok(value),
    }
}

#[test]
fn out_of_device_memory_is_a_clear_error_or_a_blocked_run() {
    let Some(gpu) = gpu("out_of_device_memory_is_a_clear_error_or_a_blocked_run") else {
        return;
    };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let a = operand();
    let x = vec![1.0f32; a.ncols()];
    let b = Dense::filled(a.ncols(), 16, 1.0f32).unwrap();
    let small = spmx::generate::uniform(2000, 2000, 4, 8, 5)
        .unwrap()
        .map(|v| v as f32);
    let want_spgemm = small
        .spgemm_with::<PlusTimes<f32>>(&small, Engine::Serial)
        .unwrap();
    // The kernels' modules loaded first, as in any process past its first
    // product (loading one needs device memory too).
    let xs = vec![1.0f32; small.ncols()];
    small
        .spmv_with::<PlusTimes<f32>>(&xs, Engine::Cuda)
        .unwrap();
    let bs = Dense::filled(small.ncols(), 16, 1.0f32).unwrap();
    small
        .spmm_with::<PlusTimes<f32>>(&bs, Engine::Cuda)
        .unwrap();
    small
        .spgemm_with::<PlusTimes<f32>>(&small, Engine::Cuda)
        .unwrap();
    {
        // 16 MB left: less than A alone (8M entries, 64 MB).
        let _held = hog(gpu, 16 << 20);
        too_large_or(
            a.spmv_with::<PlusTimes<f32>>(&x, Engine::Cuda),
            "SpMV",
            |_| panic!("SpMV cannot fit in 16 MB"),
        );
        too_large_or(
            a.spmm_with::<PlusTimes<f32>>(&b, Engine::Cuda),
            "SpMM",
            |_| panic!("SpMM cannot fit in 16 MB"),
        );
        too_large_or(
            a.spgemm_with::<PlusTimes<f32>>(&a, Engine::Cuda),
            "SpGEMM",
            |_| panic!("A alone takes 64 MB"),
        );
        // A small product's C may be cut into row blocks: then it is exact.
        too_large_or(
            small.spgemm_with::<PlusTimes<f32>>(&small, Engine::Cuda),
            "small SpGEMM",
            |c| assert_eq!(c, want_spgemm),
        );
    }
    // Memory given back: the same calls succeed.
    let y = a.spmv_with::<PlusTimes<f32>>(&x, Engine::Cuda).unwrap();
    assert!(y.iter().all(|&v| v == 8.0));
    let c = small
        .spgemm_with::<PlusTimes<f32>>(&small, Engine::Cuda)
        .unwrap();
    assert_eq!(c, want_spgemm);
}

#[test]
fn a_refused_launch_names_the_kernel_and_its_grid() {
    let Some(gpu) = gpu("a_refused_launch_names_the_kernel_and_its_grid") else {
        return;
    };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // 4096 threads a block: more than any NVIDIA GPU takes.
    let spin = gpu_kernels::kernels::utility::spin_ns();
    let args = gpu_kernels::args::SpinArgs::new(1);
    // SAFETY: `spin_ns` follows no pointer, and the driver refuses the
    // block before anything runs.
    let err = unsafe { gpu.launch(spin, 3, 4096, 0, args) }
        .unwrap_err()
        .to_string();
    assert!(err.contains("spin_ns"), "{err}");
    assert!(err.contains("3 blocks × 4096 threads"), "{err}");
    // The stream still works.
    gpu.spin(1).unwrap();
    gpu.sync().unwrap();
}

/// A product whose C holds more than 2³² entries (R-MAT 20 squared: about
/// 9.7 billion): row pointers are 64-bit and C streams to the host in row
/// blocks that a sink checks and lets go. The blocks cover every row once,
/// in order; their entries add up past `u32`; each block's first and last
/// rows equal the serial engine's.
#[test]
fn a_product_past_u32_entries_streams_in_row_blocks() {
    use spmx::OrAnd;
    use spmx::engine::cuda::spgemm::{SpgemmOptions, spgemm_blocks};
    use spmx::engine::serial;
    use spmx::generate::{RmatParams, rmat};
    if gpu("a_product_past_u32_entries_streams_in_row_blocks").is_none() {
        return;
    }
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let a = rmat(RmatParams::graph500(20), 1).unwrap().map(|_| true);
    let (mut next_row, mut total) = (0, 0u64);
    let mut sink = |rows: std::ops::Range<usize>, block: Csr<bool>| {
        assert_eq!(rows.start, next_row, "blocks in order, none skipped");
        assert_eq!(block.nrows(), rows.len());
        next_row = rows.end;
        total += block.nnz() as u64;
        for i in [rows.start, rows.end.saturating_sub(1)] {
            if rows.contains(&i) {
                let want = serial::spgemm::<OrAnd>(&a.rows(i..i + 1), &a);
                let j = i - rows.start;
                assert_eq!(block.rows(j..j + 1), want, "row {i}");
            }
        }
        Ok(())
    };
    let stats = spgemm_blocks::<OrAnd>(&a, &a, SpgemmOptions::default(), &mut sink).unwrap();
    assert_eq!(next_row, a.nrows());
    assert_eq!(stats.nnz, total);
    assert!(total > u64::from(u32::MAX), "{total} entries");
    println!(
        "R-MAT 20 squared: {total} entries in {} row blocks",
        stats.row_blocks
    );
}
