//! Kernels that are not sparse algebra: helpers for the host's benchmarks
//! and for keeping matrices on the device (offsets narrowed, buffers
//! compared).
//! They are entry points of their own, not stamped per semiring; the host
//! finds them in [`crate::kernels::UTILITY_KERNELS`].

use crate::args::{CompareArgs, NarrowArgs, SpinArgs};
use crate::device::thread::{grid_size_1d, index_1d};
use core::arch::asm;

/// Holds its stream for `ns` nanoseconds: one thread reads the GPU's global
/// timer until that much time has passed. A benchmark queues it first, then
/// queues its timed runs while it spins, so that the runs start back to
/// back instead of waiting on the host to queue each one.
///
/// Launch: one block of one thread.
///
/// # Safety
/// Always sound; `unsafe` only as every entry point is.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn spin_ns(a: SpinArgs) {
    let start = global_timer();
    while global_timer().wrapping_sub(start) < a.ns {}
}

/// `%globaltimer`: nanoseconds, the same clock for every SM.
#[inline(always)]
fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack)) };
    t
}

/// `u64` offsets narrowed to `u32` ([`NarrowArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// `input` and `output` hold `n` values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn narrow_offsets(a: NarrowArgs) {
    let mut i = u64::from(index_1d());
    while i < a.n {
        // SAFETY: `i < n`.
        unsafe {
            *a.output.as_mut_ptr().add(i as usize) = *a.input.as_ptr().add(i as usize) as u32
        };
        i += u64::from(grid_size_1d());
    }
}

/// Flags whether two buffers of `n` words differ ([`CompareArgs`]).
///
/// Launch: 1D, any grid.
///
/// # Safety
/// `a` and `b` hold `n` words; `differ` one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn words_differ(a: CompareArgs) {
    let mut i = u64::from(index_1d());
    while i < a.n {
        // SAFETY: `i < n`.
        unsafe {
            if *a.a.as_ptr().add(i as usize) != *a.b.as_ptr().add(i as usize) {
                *a.differ.as_mut_ptr() = 1;
            }
        }
        i += u64::from(grid_size_1d());
    }
}
